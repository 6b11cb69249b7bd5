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
  ClusterIdX,
  ClusterIdY,
  ClusterIdZ,
  NclusterIdX,
  NclusterIdY,
  NclusterIdZ,
  ClusterCtaidX,
  ClusterCtaidY,
  ClusterCtaidZ,
  ClusterNctaidX,
  ClusterNctaidY,
  ClusterNctaidZ,
  ClusterCtaRank,
  ClusterNctaRank,
};

/// The modes of `shfl.sync` (PTX ISA 9.7.9.6), as nvfp4EmuShflSync takes
/// them.
enum class ShuffleMode : int32_t { Up = 0, Down = 1, Butterfly = 2, Index = 3 };

/// The block-scaled kinds of `tcgen05.mma` (with their scale vector), as
/// nvfp4EmuTcgen05MmaBlockScaled takes them.
enum class Tcgen05MmaKind : int32_t {
  Mxf4Nvf4Block16 = 0,
  Mxf4Block32 = 1,
  Mxf8f6f4Block32 = 2,
};

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

/// `bar.warp.sync memberMask`: blocks until every lane of `memberMask`
/// arrived (the rendezvous of shfl.sync).
void nvfp4EmuWarpSync(void *thread, int32_t memberMask);

/// `cvt.rn.satfinite{.relu}.e2m1x2.f32 d, hi, lo`: the E2M1 code of `hi` in
/// bits 7..4 and of `lo` in bits 3..0.
int8_t nvfp4EmuCvtF32x2ToE2M1x2(float hi, float lo, int8_t relu);

/// `cvt.rs.satfinite{.relu}.e2m1x4.f32 d, {a, b, e, f}, rbits`: the codes
/// of a, b, e, f in d bits 15..12, 11..8, 7..4, 3..0, each rounded
/// stochastically with its byte of `rbits` (a: 31..24, b: 15..8, e: 23..16,
/// f: 7..0; docs/emulator.md).
int16_t nvfp4EmuCvtRsF32x4ToE2M1x4(float a, float b, float e, float f,
                                   int32_t rbits, int8_t relu);

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

/// `ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16 d, [rowAddress]` with
/// `num` matrices: blocks until all 32 lanes of the warp arrived, then
/// writes `d[0 .. num)`: register m of lane l is the 32-bit word l % 4 of
/// row l / 4 of matrix m, whose row r lane 8 m + r addressed (16 bytes,
/// 16-byte aligned, shared memory). Lanes 0 .. 8 num - 1 supply addresses;
/// each address is checked and counted as nvfp4EmuCheckAccess does (a
/// 16-byte shared load of site `site`, reported at `location`).
void nvfp4EmuLdMatrix(void *thread, const void *rowAddress, int32_t num,
                      int32_t site, const char *location, int32_t *d);

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
/// 32 r) and their E4M3 scales, picked by the selectors (PTX ISA, "Block
/// Scaling for mma.sync"): A row r's from the `scaleA` of lane
/// 4 (r % 8) + 2 threadIdA + r / 8, B column n's from the `scaleB` of lane
/// 4 n + threadIdB, byte s the scale of k block s (byte ids must be 0;
/// selectors outside the ISA's table, or differing across lanes, are
/// refused). Each element is C plus the
/// four 16-wide blocks' exact partial sums times their two scales, added
/// in increasing k with one f32 rounding per block (the reference GEMM's
/// order; the ISA leaves it open).
void nvfp4EmuMmaM16N8K64Nvf4(void *thread, const int32_t *a, const int32_t *b,
                             const float *c, int32_t scaleA, int32_t byteIdA,
                             int32_t threadIdA, int32_t scaleB, int32_t byteIdB,
                             int32_t threadIdB, float *d);
/// The same for `mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.
/// scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0`: two E8M0 scales a row (bytes
/// byteId and byteId + 1, byteId 0 or 2, of the selected lanes' registers);
/// each 32-wide block's contribution, as
/// nvfp4::mx::matmul computes a block (the exact sum rounded to f32, times
/// 2^(eA + eB)), added to the f32 accumulator in increasing k.
void nvfp4EmuMmaM16N8K64Mxf4(void *thread, const int32_t *a, const int32_t *b,
                             const float *c, int32_t scaleA, int32_t byteIdA,
                             int32_t threadIdA, int32_t scaleB, int32_t byteIdB,
                             int32_t threadIdB, float *d);
/// The same for `mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.
/// block_scale.scale_vec::1X.f32.<a>.<b>.f32.ue8m0` with 8-bit elements:
/// A's and B's bytes in the m16n8k32 fragments (a0 row g, k 4q..4q+3; a1
/// row g + 8; a2, a3 k + 16; b0 k 4q..4q+3 of column g, b1 k + 16), of
/// type `typeA` / `typeB` (0 E4M3, 1 E5M2), one E8M0 scale a row (byte
/// byteId, 0 to 3, of the selected lanes' registers),
/// the block's products summed exactly, rounded to f32 and scaled by
/// 2^(eA + eB) into the f32 accumulator (nvfp4::mx::matmul's block).
void nvfp4EmuMmaM16N8K32Mxf8f6f4(void *thread, const int32_t *a,
                                 const int32_t *b, const float *c,
                                 int32_t scaleA, int32_t byteIdA,
                                 int32_t threadIdA, int32_t scaleB,
                                 int32_t byteIdB, int32_t threadIdB,
                                 int32_t typeA, int32_t typeB, float *d);

/// `ptrtoint` of a shared (address space 3) or shared::cluster (7) pointer:
/// the PTX shared address, `(cluster rank << 24) | (1024 + offset)` (shared
/// memory starts after the 1 KiB the system reserves).
int64_t nvfp4EmuSharedToInt(void *thread, const void *pointer);

/// `inttoptr` to a shared or shared::cluster pointer: the inverse.
void *nvfp4EmuIntToShared(void *thread, int64_t address);

/// `barrier.cluster.arrive` / `barrier.cluster.wait`: the wait blocks until
/// every thread of the cluster (exited ones count) arrived in the phase of
/// the thread's arrival.
void nvfp4EmuClusterArrive(void *thread);
void nvfp4EmuClusterWait(void *thread);

/// `mbarrier.init.shared.b64 [address], count`.
void nvfp4EmuMbarrierInit(void *thread, void *address, int32_t count);

/// `mbarrier.arrive` (also `.release.cluster` on a peer's barrier): one
/// arrival; an arrival on a phase with no pending arrival left is reported
/// (over-arrival). Returns the phase it arrived in.
int64_t nvfp4EmuMbarrierArrive(void *thread, void *address);

/// `mbarrier.expect_tx`: adds `bytes` to the phase's transaction count.
void nvfp4EmuMbarrierExpectTx(void *thread, void *address, int32_t bytes);

/// `mbarrier.try_wait.parity`: 1 once the phase of parity `parity`
/// completed; completes the transfers and tensor-core operations in flight
/// towards the barrier first, and blocks the thread until then.
int8_t nvfp4EmuMbarrierTryWaitParity(void *thread, void *address,
                                     int32_t parity);

/// `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::
/// bytes{.cta_group::2} [dst], [tensorMap, {x, y}], [barrier]`: the box at
/// (x, y) of the map (zeros out of bounds, 128-byte swizzle by the shared
/// address), landing when a thread waits on `barrier` or nothing can run.
void nvfp4EmuTmaLoad2D(void *thread, void *dst, const void *tensorMap,
                       void *barrier, int32_t x, int32_t y, int32_t pair,
                       const char *location);

/// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`.
void nvfp4EmuBulkCopy(void *thread, void *dst, const void *src, int32_t size,
                      void *barrier, const char *location);

/// `mapa.shared::cluster`: the same shared offset in CTA `rank`.
void *nvfp4EmuMapa(void *thread, void *address, int32_t rank);

/// `elect.sync`: warp-wide over `memberMask`; 1 in its lowest lane.
int8_t nvfp4EmuElectSync(void *thread, int32_t memberMask);

/// `fence.proxy.async.shared::cta`: the thread's shared stores so far may
/// be read by the async proxy.
void nvfp4EmuFenceProxyAsync(void *thread);

/// `tcgen05.alloc` / `dealloc` / `relinquish_alloc_permit`
/// (`.cta_group::1` or `::2`): warp-wide, performed once per warp.
void nvfp4EmuTcgen05Alloc(void *thread, void *dst, int32_t columns,
                          int32_t pair, const char *location);
void nvfp4EmuTcgen05Dealloc(void *thread, void *taddr, int32_t columns,
                            int32_t pair, const char *location);
void nvfp4EmuTcgen05Relinquish(void *thread, int32_t pair,
                               const char *location);

/// `tcgen05.cp.32x128b.warpx4`, the block-scaled `tcgen05.mma` of `kind`
/// (a nvfp4::emulator::Tcgen05MmaKind: kind::mxf4nvf4.block16,
/// kind::mxf4.block32, kind::mxf8f6f4.block32) and
/// `tcgen05.commit{.multicast::cluster}` (`rankMask` < 0: no multicast):
/// queued in the CTA's tensor pipe (docs/emulator.md).
void nvfp4EmuTcgen05Copy(void *thread, void *taddr, int64_t sdesc,
                         int32_t pair, const char *location);
void nvfp4EmuTcgen05MmaBlockScaled(void *thread, int32_t kind, void *d,
                                   int64_t adesc, int64_t bdesc, int32_t idesc,
                                   int8_t enableInputD, void *scaleA,
                                   void *scaleB, int32_t pair,
                                   const char *location);
void nvfp4EmuTcgen05Commit(void *thread, void *barrier, int32_t rankMask,
                           int32_t pair, const char *location);

/// `tcgen05.ld.sync.aligned.32x32b.x<count>.b32`: the thread's lane, `count`
/// columns from `taddr`, into `values`.
void nvfp4EmuTcgen05Load32x32b(void *thread, void *taddr, int32_t count,
                               int32_t *values, const char *location);

/// The host side of the tcgen05 kernels (as libnvfp4_cuda_runtime's):
/// tensor maps the emulated TMA reads, and the SM count
/// (NVFP4_GPU_EMULATOR_SMS, default 148).
void nvfp4CudaTensorMapEncode2D(void *tensorMap, void *globalAddress,
                                uint64_t innerBytes, uint64_t outerRows,
                                uint64_t rowStrideBytes, uint32_t boxInnerBytes,
                                uint32_t boxOuterRows, int32_t swizzle);
int32_t nvfp4CudaMultiprocessorCount();
/// The host code's check of a shape rule on run-time sizes (as
/// libnvfp4_cuda_runtime's): unless `holds`, fails with `message`.
void nvfp4CudaCheckShape(int32_t holds, const char *message);

} // extern "C"

#endif // NVFP4_EXECUTIONENGINE_GPUEMULATOR_H
