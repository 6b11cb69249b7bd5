//===- cutlass_nvfp4_gemm.cu - CUTLASS NVFP4 GEMM baseline -----*- CUDA -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// One CUTLASS block-scaled GEMM, D = A B^T with NVFP4 operands (e2m1 data,
// one ue4m3 scale per 16 elements along K, A row-major, B column-major: both
// K-major) and f32 accumulation and output, built with CUTLASS's
// CollectiveBuilder; compiled to PTX only, for the static comparison
// (cutlass-rows.sh). The configuration comes from the command line:
//
//   -DNVFP4_ARCH=100  tcgen05 (kind::mxf4nvf4), tile TILE_M x TILE_N x TILE_K
//                     per MMA; CLUSTER_M = 2 is the CTA pair (2-SM MMA of a
//                     TILE_M = 256 tile), 1 the 1-SM kernel;
//   -DNVFP4_ARCH=120  warp-level mma.sync block_scale, tile TILE_M x TILE_N
//                     x TILE_K per CTA (no clusters on sm_120).
//
// The kernel is the explicitly instantiated cutlass::device_kernel; its
// launch's dynamic shared memory (GemmKernel::SharedStorageSize) is kept
// in the PTX as the initializer of nvfp4_baseline_dynamic_shared_bytes.
//
//===----------------------------------------------------------------------===//

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/device_kernel.h"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"

using namespace cute;

using ElementA = cutlass::nv_float4_t<cutlass::float_e2m1_t>;
using ElementB = cutlass::nv_float4_t<cutlass::float_e2m1_t>;
using ElementD = float;
// No C operand: D = A B^T, as the project's kernels compute.
using ElementC = void;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutD = cutlass::layout::RowMajor;
// 32 e2m1 elements = 16 bytes, the TMA's access granularity.
constexpr int AlignmentAB = 32;
constexpr int AlignmentD = 128 / cutlass::sizeof_bits<ElementD>::value;

using TileShape = Shape<Int<TILE_M>, Int<TILE_N>, Int<TILE_K>>;
using ClusterShape = Shape<Int<CLUSTER_M>, _1, _1>;

#if NVFP4_ARCH == 100
using ArchTag = cutlass::arch::Sm100;
using MainloopSchedule =
    cute::conditional_t<CLUSTER_M == 2,
                        cutlass::gemm::KernelTmaWarpSpecialized2SmNvf4Sm100,
                        cutlass::gemm::KernelTmaWarpSpecialized1SmNvf4Sm100>;
using EpilogueSchedule =
    cute::conditional_t<CLUSTER_M == 2,
                        cutlass::epilogue::TmaWarpSpecialized2Sm,
                        cutlass::epilogue::TmaWarpSpecialized1Sm>;
// The epilogue's automatic tile for N = 256 block-scaled tiles is 128 x 128,
// whose two f32 store buffers (128 KiB) leave shared memory for one or two
// mainloop stages; 128 x 32 is its choice for N = 128 (no C operand, f32 D).
using EpilogueTile = Shape<_128, _32>;
#elif NVFP4_ARCH == 120
using ArchTag = cutlass::arch::Sm120;
// Cooperative: both consumer warp groups work on the same output tile.
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedNvf4Sm120;
using EpilogueSchedule = cutlass::epilogue::collective::EpilogueScheduleAuto;
using EpilogueTile = cutlass::epilogue::collective::EpilogueTileAuto;
#else
#error "NVFP4_ARCH must be 100 or 120"
#endif

using CollectiveEpilogue =
    typename cutlass::epilogue::collective::CollectiveBuilder<
        ArchTag, cutlass::arch::OpClassBlockScaledTensorOp, TileShape,
        ClusterShape, EpilogueTile, float, float, ElementC, LayoutD,
        AlignmentD, ElementD, LayoutD, AlignmentD,
        EpilogueSchedule>::CollectiveOp;

using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    ArchTag, cutlass::arch::OpClassBlockScaledTensorOp, ElementA, LayoutA,
    AlignmentAB, ElementB, LayoutB, AlignmentAB, float, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
        sizeof(typename CollectiveEpilogue::SharedStorage))>,
    MainloopSchedule>::CollectiveOp;

// Default (persistent) tile scheduler.
using GemmKernel =
    cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>,
                                         CollectiveMainloop, CollectiveEpilogue>;

template __global__ void cutlass::device_kernel<GemmKernel>(
    CUTLASS_GRID_CONSTANT GemmKernel::Params const);

extern "C" __device__ int nvfp4_baseline_dynamic_shared_bytes =
    GemmKernel::SharedStorageSize;
