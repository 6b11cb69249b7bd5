//===- PlanLauncher.h - Run a launch plan's kernels on a GPU ----*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The CUDA driver side of the GPU benchmarks: loads the PTX (or cubin) of a
// lowered program, allocates a device buffer for each buffer of its launch
// plan (LaunchPlanReader.h), and launches its kernels in the plan's order
// with the plan's dimensions, dynamic shared memory (raising the kernel's
// limit above 48 KiB) and cluster, passing each buffer as the memref
// descriptor the kernel's parameters expect. Nothing about a kernel's
// interface is written here by hand: it all comes from the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_BENCH_GPU_PLANLAUNCHER_H
#define NVFP4_BENCH_GPU_PLANLAUNCHER_H

#include "LaunchPlanReader.h"

#include <cuda.h>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace nvfp4::bench {

/// Prints "<tool>: <what>: <detail>" on stderr and exits with status 1.
[[noreturn]] void die(const char *what, const std::string &detail);
/// The tool name `die` prints (argv[0]'s base name by default).
void setToolName(const char *argv0);
/// Dies with the CUresult's name and description unless `r` is success.
void checkCu(CUresult r, const char *call);
#define NVFP4_CU(call) ::nvfp4::bench::checkCu((call), #call)

/// Reads the kernels (PTX or cubin) at `kernelsPath` into `image` and the
/// plan at `planPath` into `plan`, and checks the plan (checkPlan) and its
/// launches against the PTX (a cubin's parameters are left to the driver);
/// dies on any error. Returns whether the image is PTX.
bool loadPlan(const std::string &kernelsPath, const std::string &planPath,
              LaunchPlan &plan, std::string &image);

/// The value of `plan` whose source is `source`; dies otherwise, naming the
/// kind of program expected (`program`, e.g. "GEMM") and the script that
/// writes one.
int requireSource(const LaunchPlan &plan, const std::string &source,
                  const char *program, const char *script);

/// The --dry-run report: "plan of @<function>: <n> launch(es), <what>;
/// parameters match the PTX" (or "cubin (not checked)"), then each launch.
void printDryRun(const LaunchPlan &plan, bool isPtx, const std::string &what);

/// Event timing: `warmup` calls, then the median over `repeats` batches of
/// `iters` back-to-back calls, in milliseconds per call.
struct Timing {
  int warmup = 5, iters = 20, repeats = 5;
};
double medianMs(const Timing &timing, CUstream stream,
                const std::function<void()> &body);

struct BenchOptions {
  std::string kernels, plan;
  bool dryRun = false;
  Timing timing;
};
/// The options both benchmarks take: --kernels, --plan, --dry-run,
/// --warmup, --iters, --repeats. `extra(option, value)` handles a tool's
/// own options (`value()` takes the next argument) and returns false for an
/// unknown one. Dies on a missing --kernels / --plan or bad counts.
using ExtraOption = std::function<bool(const std::string &,
                                       const std::function<const char *()> &)>;
BenchOptions parseBenchOptions(int argc, char **argv, const ExtraOption &extra);

/// Device 0's primary context, made current; its name, compute
/// capability and multiprocessor count.
struct Device {
  CUdevice device = 0;
  CUcontext context = nullptr;
  std::string name;
  int major = 0, minor = 0, multiprocessors = 0;
  Device();
  ~Device();
};

class PlanLauncher {
public:
  /// Loads `image` (PTX text, which must target `device`, or a cubin),
  /// resolves the launches' grids for the device's SM count, allocates the
  /// plan's buffers and encodes its tensor maps; scalars start at their
  /// constant or 0.
  PlanLauncher(const LaunchPlan &plan, const std::string &image,
               const Device &device);
  ~PlanLauncher();
  PlanLauncher(const PlanLauncher &) = delete;
  PlanLauncher &operator=(const PlanLauncher &) = delete;

  /// Copies `bytes` (exactly the buffer's byte size) into buffer `id`.
  void upload(int id, const std::vector<uint8_t> &bytes);
  /// Sets every byte of buffer `id` to `byte`.
  void fill(int id, uint8_t byte);
  /// The bytes of buffer `id`.
  std::vector<uint8_t> download(int id) const;
  /// Sets scalar `id` to the value whose bits are `bits` (low bytes used).
  void setScalar(int id, uint64_t bits);
  /// Launches every kernel of the plan, in order, on `stream`.
  void launchAll(CUstream stream);

private:
  /// Encodes tensor map `id` over its buffer's allocation.
  void encodeTensorMap(size_t id);

  const LaunchPlan &plan;
  CUmodule module = nullptr;
  std::vector<CUfunction> functions;
  /// Per launch: its grid on this device.
  std::vector<std::array<unsigned, 3>> grids;
  /// Per value: its device allocation (buffers), and the storage of its
  /// kernel parameters: the flattened memref descriptor, or the scalar.
  std::vector<CUdeviceptr> allocations;
  std::vector<std::vector<int64_t>> storage;
  /// Per value: the encoded map of a tensor map value (64-byte aligned, as
  /// the driver requires).
  std::vector<CUtensorMap> tensorMaps;
  /// Per launch: the parameter pointers cuLaunchKernel reads.
  std::vector<std::vector<void *>> params;
};

} // namespace nvfp4::bench

#endif // NVFP4_BENCH_GPU_PLANLAUNCHER_H
