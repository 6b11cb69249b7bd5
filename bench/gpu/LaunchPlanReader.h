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
// value; a tensor map: 128 bytes), and every tensor map is one
// cuTensorMapEncodeTiled accepts over bytes of its buffer. No CUDA: the
// benchmarks' --dry-run and its test use it on any machine.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_BENCH_GPU_LAUNCHPLANREADER_H
#define NVFP4_BENCH_GPU_LAUNCHPLANREADER_H

#include <cstdint>
#include <string>
#include <vector>

namespace nvfp4::bench {

/// The parameters of a TMA tensor map of bytes that a launch passes (by
/// value, 128 bytes): the driver encodes it for the buffer `of` with
/// cuTensorMapEncodeTiled, as libnvfp4_cuda_runtime's
/// nvfp4CudaTensorMapEncode2D does.
struct PlanTensorMap {
  /// The plan value (a buffer) whose device address the map describes.
  unsigned of = 0;
  uint64_t innerBytes = 0, outerRows = 0, rowStrideBytes = 0;
  uint32_t boxInnerBytes = 0, boxOuterRows = 0;
  /// CUtensorMapSwizzle.
  int32_t swizzle = 0;
};

/// A buffer, scalar or tensor map that launches pass.
struct PlanValue {
  enum class Kind { Scalar, Buffer, TensorMap };
  Kind kind = Kind::Scalar;
  bool isBuffer() const { return kind == Kind::Buffer; }
  bool isTensorMap() const { return kind == Kind::TensorMap; }
  /// MLIR's spelling: f4E2M1FN, f8E4M3FN, f32, bf16, i32, index, ...
  /// (empty for a tensor map).
  std::string type;
  /// Buffer shape (empty for rank 0 and for scalars).
  std::vector<int64_t> shape;
  /// argN, argN.data|scales|amax, resultN, resultN.data|scales|amax, temp,
  /// or (scalars) const=0x<bits>; empty for a tensor map.
  std::string source;
  /// The scales of an argument or result are in the 128x4 atoms of the
  /// block-scaled MMA (nvfp4::swizzleScales), not row-major.
  bool scaleAtoms = false;
  PlanTensorMap tensorMap;

  int64_t numElements() const;
  /// Bytes of the buffer on the device: E2M1 codes two per byte (the
  /// kernels read and write them packed), other types their width.
  int64_t byteSize() const;
};

struct PlanLaunch {
  std::string kernel;
  /// Grid sizes: expressions of the device's multiprocessor count
  /// (evaluateGridSize), most often constants.
  std::string grid[3] = {"1", "1", "1"};
  unsigned block[3] = {1, 1, 1}, cluster[3] = {1, 1, 1};
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

/// The value of grid-size expression `expression` (docs/gpu.md, "Launch
/// plans": a decimal constant, `sm_count`, or `add`, `sub`, `mul`, `div`,
/// `ceildiv`, `min`, `max` of two expressions, as `min(sm_count,8)`) on a
/// device with `smCount` multiprocessors, in `size`. Returns an error
/// message (empty on success): a syntax error, a division by zero, a value
/// outside [0, 2^31) on the way, or a grid size of 0.
std::string evaluateGridSize(const std::string &expression, int64_t smCount,
                             unsigned &size);

/// The grid of `launch` on a device with `smCount` multiprocessors, or an
/// error message naming the kernel (also when a size is not a multiple of
/// the cluster's).
std::string resolveGrid(const PlanLaunch &launch, int64_t smCount,
                        unsigned grid[3]);

/// Parses `text` (a plan of exactly one function) into `plan`. Returns an
/// error message, empty on success.
std::string parseLaunchPlan(const std::string &text, LaunchPlan &plan);

/// The byte sizes of the `.param`s of `.entry kernel` in `ptx`; an error
/// message (empty on success).
std::string ptxEntryParamSizes(const std::string &ptx,
                               const std::string &kernel,
                               std::vector<int64_t> &sizes);

/// Whether the PTX `ptx` can be JIT-compiled for a device of compute
/// capability `major`.`minor`: its `.target` sm_XY runs on XY and later,
/// an architecture-specific sm_XYa (the block-scaled MMA's targets) on XY
/// only, a family-specific sm_XYf on X.Y to X.9. Returns an error message
/// naming both, empty when it can.
std::string checkPtxRunsOn(const std::string &ptx, int major, int minor);

/// The byte sizes of the kernel parameters that `launch` passes.
std::vector<int64_t> launchParamSizes(const LaunchPlan &plan,
                                      const PlanLaunch &launch);

/// The device sizes checkPlan evaluates grids for: 1 to this many
/// multiprocessors.
inline constexpr int64_t kMaxCheckedMultiprocessors = 1024;

/// Checks what `plan` says on its own: each launch's grid for every device
/// of 1 to kMaxCheckedMultiprocessors SMs (resolveGrid), and each tensor
/// map against the rules of cuTensorMapEncodeTiled and the size of its
/// buffer. Returns an error message, empty on success.
std::string checkPlan(const LaunchPlan &plan);

/// checkPlan, then every launch of `plan` against `ptx` (see the file
/// comment). Returns an error message, empty on success.
std::string checkPlanAgainstPtx(const LaunchPlan &plan, const std::string &ptx);

/// "<kernel>: grid X Y Z, block B, S bytes of shared memory", with
/// ", cluster C" for clusters; the grid as written in the plan.
std::string describeLaunch(const PlanLaunch &launch);

/// Reads a whole file into `text`; false when it cannot be read.
bool readFile(const std::string &path, std::string &text);

} // namespace nvfp4::bench

#endif // NVFP4_BENCH_GPU_LAUNCHPLANREADER_H
