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
/// blockY * blockZ` threads with `staticSharedBytes` of static and
/// `sharedBytes` of dynamic shared memory per CTA. Clusters other than 1x1x1
/// are not modelled yet: the launch fails with a message. `stream` is
/// ignored (launches run to completion in order).
void nvfp4EmuLaunch(nvfp4::emulator::KernelEntry entry, const char *name,
                    int64_t gridX, int64_t gridY, int64_t gridZ, int64_t blockX,
                    int64_t blockY, int64_t blockZ, int64_t clusterX,
                    int64_t clusterY, int64_t clusterZ,
                    int64_t staticSharedBytes, int32_t sharedBytes,
                    void *stream, void **params);

/// The out-of-bounds checker: before a kernel's load (`isStore` 0) or store
/// (1) of `bytes` at `address` in generic (`space` 0), global (1) or shared
/// (3) memory. A global access (a generic one outside the CTA's shared
/// memory) must lie within one allocation of mgpuMemAlloc, a shared one
/// within the CTA's shared memory; otherwise the launch reports the
/// kernel, CTA, thread, access and `location` (the operation's source
/// location) and exits with status 1. Shared stores mark their bytes
/// written (so do `cp.async` copies when they complete); a shared load of a
/// byte never written is reported the same way.
///
/// `site` numbers the access in the kernel: the n-th execution of site s by
/// the lanes of a warp is one warp-wide request, which the memory counters
/// (`NVFP4_GPU_EMULATOR_REPORT=1`) use: global requests and the 32-byte
/// sectors they touch (coalescing efficiency = bytes requested / bytes of
/// the sectors), shared requests and their wavefronts (the most distinct
/// 4-byte words of one of the 32 banks; bank conflicts = wavefronts - 1),
/// and the bytes moved by threads and by `cp.async`, printed per launch.
void nvfp4EmuCheckAccess(void *thread, const void *address, int64_t bytes,
                         int32_t isStore, int32_t space, int32_t site,
                         const char *location);

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

/// `cp.async.{ca,cg}.shared.global [dst], [src], size{, srcSize}`: queues
/// the copy of `size` bytes (4, 8 or 16), of which the last `size - srcSize`
/// are zeros (`srcSize` < 0: none), in the thread's open group. The copy
/// happens when a `cp.async.wait_group` covers its group, or when the
/// thread exits: shared memory read before the wait sees the old bytes.
void nvfp4EmuCpAsync(void *thread, void *dst, const void *src, int32_t size,
                     int32_t srcSize);

/// `cp.async.commit_group`: closes the thread's open group (possibly empty).
void nvfp4EmuCpAsyncCommitGroup(void *thread);

/// `cp.async.wait_group n`: completes every committed group of the thread
/// but the `n` most recent.
void nvfp4EmuCpAsyncWaitGroup(void *thread, int32_t n);

/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 d, a, b, c`: blocks
/// until all 32 lanes of the warp arrived, then returns the lane's
/// fragment of D = A * B + C (fragments as the PTX ISA's "Matrix Fragments
/// for mma.m16n8k16 with floating point type"). Each D element is
/// C + sum_k A[i][k] * B[k][j] with the products and their sum exact,
/// rounded to f32 once (the ISA leaves the accumulation order open).
void nvfp4EmuMmaM16N8K16Bf16(void *thread, const int32_t *a, const int32_t *b,
                             const float *c, float *d);

/// `mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.
/// scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3 d, a, b, c, scaleA, {byteIdA,
/// threadIdA}, scaleB, {byteIdB, threadIdB}`: as the bf16 form, with A's
/// and B's E2M1 fragments (register r, nibble j: A row group + 8 (r % 2),
/// k 8 (lane % 4) + j + 32 (r / 2); B column group, k 8 (lane % 4) + j +
/// 32 r) and their E4M3 scales: lane l's `scaleA` holds, byte s, the scale
/// of A row l / 4 + 8 (l % 2) for k block s, and its `scaleB` that of B
/// column l / 4 (the layout of CUTLASS's SM120 block-scaled MMA traits for
/// selectors 0; other selectors are refused). Each element is C plus the
/// four 16-wide blocks' exact partial sums times their two scales, added
/// in increasing k with one f32 rounding per block (the reference GEMM's
/// order; the ISA leaves it open).
void nvfp4EmuMmaM16N8K64Nvf4(void *thread, const int32_t *a, const int32_t *b,
                             const float *c, int32_t scaleA, int32_t byteIdA,
                             int32_t threadIdA, int32_t scaleB, int32_t byteIdB,
                             int32_t threadIdB, float *d);

} // extern "C"

#endif // NVFP4_EXECUTIONENGINE_GPUEMULATOR_H
