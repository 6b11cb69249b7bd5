//===- LaunchPlanReader.h - Launch plans for the GPU benchmarks -*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Reads the launch plan that `nvfp4-translate --nvfp4-extract-launch-plan`
// writes for a program lowered by `nvfp4-opt --nvfp4-to-ptx` (format:
// docs/gpu.md, "Launch plans"), and checks it against the kernels'
// PTX: every launched kernel is an entry of the PTX whose parameters are,
// in number and size, what the plan's arguments expand to (a memref: its
// allocated and aligned pointers, offset, sizes and strides; a scalar: its
// value). No CUDA: the benchmarks' --dry-run and its test use it on any
// machine.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_BENCH_GPU_LAUNCHPLANREADER_H
#define NVFP4_BENCH_GPU_LAUNCHPLANREADER_H

#include <cstdint>
#include <string>
#include <vector>

namespace nvfp4::bench {

/// A buffer or scalar that launches pass.
struct PlanValue {
  bool isBuffer = false;
  /// MLIR's spelling: f4E2M1FN, f8E4M3FN, f32, bf16, i32, index, ...
  std::string type;
  /// Buffer shape (empty for rank 0 and for scalars).
  std::vector<int64_t> shape;
  /// argN, argN.data|scales|amax, resultN, resultN.data|scales|amax, temp,
  /// or (scalars) const=0x<bits>.
  std::string source;

  int64_t numElements() const;
  /// Bytes of the buffer on the device: E2M1 codes two per byte (the
  /// kernels read and write them packed), other types their width.
  int64_t byteSize() const;
};

struct PlanLaunch {
  std::string kernel;
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, cluster[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  /// Indices into LaunchPlan::values.
  std::vector<unsigned> args;
};

struct LaunchPlan {
  std::string function;
  std::vector<PlanValue> values;
  std::vector<PlanLaunch> launches;

  /// The value whose source is `source`, or -1.
  int find(const std::string &source) const;
};

/// Parses `text` (a plan of exactly one function) into `plan`. Returns an
/// error message, empty on success.
std::string parseLaunchPlan(const std::string &text, LaunchPlan &plan);

/// The byte sizes of the `.param`s of `.entry kernel` in `ptx`; an error
/// message (empty on success).
std::string ptxEntryParamSizes(const std::string &ptx,
                               const std::string &kernel,
                               std::vector<int64_t> &sizes);

/// The byte sizes of the kernel parameters that `launch` passes.
std::vector<int64_t> launchParamSizes(const LaunchPlan &plan,
                                      const PlanLaunch &launch);

/// Checks every launch of `plan` against `ptx` (see the file comment).
/// Returns an error message, empty on success.
std::string checkPlanAgainstPtx(const LaunchPlan &plan, const std::string &ptx);

/// "<kernel>: grid X Y Z, block B, S bytes of shared memory".
std::string describeLaunch(const PlanLaunch &launch);

/// Reads a whole file into `text`; false when it cannot be read.
bool readFile(const std::string &path, std::string &text);

} // namespace nvfp4::bench

#endif // NVFP4_BENCH_GPU_LAUNCHPLANREADER_H
