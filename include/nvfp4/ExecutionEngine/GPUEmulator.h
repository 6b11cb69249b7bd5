//===- GPUEmulator.h - Run generated GPU kernels on the host ----*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The C ABI between the kernels that nvfp4-emulate-gpu-kernels rewrites into
// host functions and libnvfp4_gpu_emulator, which runs them: every thread of
// a CTA is a fiber, and the kernel's NVVM operations become calls of the
// functions below, each modelling the PTX instruction it replaces
// (docs/emulator.md has one row per operation). The library also provides
// the mgpu* host functions of gpu-to-llvm on host memory, so that a program
// lowered with nvfp4-to-gpu-emulation runs under mlir-runner with no GPU.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_EXECUTIONENGINE_GPUEMULATOR_H
#define NVFP4_EXECUTIONENGINE_GPUEMULATOR_H

#include <cstdint>

namespace nvfp4::emulator {

/// The special registers (`%tid.x`, ...) nvfp4EmuSreg reads.
enum class SpecialRegister : int32_t {
  TidX = 0,
  TidY,
  TidZ,
  NtidX,
  NtidY,
  NtidZ,
  CtaidX,
  CtaidY,
  CtaidZ,
  NctaidX,
  NctaidY,
  NctaidZ,
  LaneId,
  WarpId,
};

/// The modes of `shfl.sync` (PTX ISA 9.7.9.6), as nvfp4EmuShflSync takes
/// them.
enum class ShuffleMode : int32_t { Up = 0, Down = 1, Butterfly = 2, Index = 3 };

/// A kernel as the emulator calls it: the per-thread context and an array of
/// pointers to the launch's arguments (the layout of cuLaunchKernel's
/// `kernelParams`).
using KernelEntry = void (*)(void *thread, void **params);

} // namespace nvfp4::emulator

extern "C" {

/// Runs `entry` on a grid of `gridX * gridY * gridZ` CTAs of `blockX *
/// blockY * blockZ` threads with `sharedBytes` bytes of dynamic shared memory
/// (after the kernel's static shared memory). Clusters other than 1x1x1 are
/// not modelled yet: the launch fails with a message. `stream` is ignored
/// (launches run to completion in order).
void nvfp4EmuLaunch(nvfp4::emulator::KernelEntry entry, const char *name,
                    int64_t gridX, int64_t gridY, int64_t gridZ,
                    int64_t blockX, int64_t blockY, int64_t blockZ,
                    int64_t clusterX, int64_t clusterY, int64_t clusterZ,
                    int32_t sharedBytes, void *stream, void **params);

/// The value of special register `which` (SpecialRegister) of `thread`.
int32_t nvfp4EmuSreg(void *thread, int32_t which);

/// `bar.sync 0` (`barrier0`): blocks until every thread of the CTA that has
/// not exited arrived.
void nvfp4EmuBarrier0(void *thread);

/// `shfl.sync.{up,down,bfly,idx}.b32 d|p, value, offset, clampMask,
/// memberMask`: blocks until every lane of `memberMask` arrived, then
/// returns the value of the source lane; `*valid` is 1 when the source lane
/// is in range (and `value` is returned otherwise).
int32_t nvfp4EmuShflSync(void *thread, int32_t mode, int32_t memberMask,
                         int32_t value, int32_t offset, int32_t clampMask,
                         int8_t *valid);

/// `cvt.rn.satfinite{.relu}.e2m1x2.f32 d, hi, lo`: the E2M1 code of `hi` in
/// bits 7..4 and of `lo` in bits 3..0.
int8_t nvfp4EmuCvtF32x2ToE2M1x2(float hi, float lo, int8_t relu);

/// The address of byte `offset` of the thread's CTA shared memory (static
/// shared variables first, dynamic shared memory after them).
void *nvfp4EmuShared(void *thread, int64_t offset);

} // extern "C"

#endif // NVFP4_EXECUTIONENGINE_GPUEMULATOR_H
