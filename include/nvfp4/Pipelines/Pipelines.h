//===- Pipelines.h - NVFP4 pass pipelines -----------------------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// End-to-end pass pipelines from the output of the recipe (nvfp4 + linalg +
// tensor + arith on tensors) to the LLVM dialect.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_PIPELINES_PIPELINES_H
#define NVFP4_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <memory>

namespace mlir {
class OpPassManager;
class Pass;
namespace nvfp4 {

/// Options of the `nvfp4-to-cpu` pipeline.
struct NVFP4ToCPUPipelineOptions
    : public PassPipelineOptions<NVFP4ToCPUPipelineOptions> {
  PassOptions::Option<bool> fakeQuant{
      *this, "fake-quant",
      llvm::cl::desc("Lower nvfp4.matmul to dequantize + an f32 contraction "
                     "(quantization-aware training) instead of the bit-exact "
                     "block-scaled GEMM"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> kernels{
      *this, "kernels",
      llvm::cl::desc("How the nvfp4 ops' numerics are emitted: 'library' "
                     "(calls of libnvfp4_cpu_runtime's precompiled kernels; "
                     "the program needs that library at run time) or "
                     "'inline' (upstream ops only)"),
      llvm::cl::init("library")};
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize the linalg ops left after the "
                     "nvfp4 lowering (nvfp4-tile-and-vectorize); false "
                     "lowers them to scalar loops"),
      llvm::cl::init(true)};
};

/// Builds the `nvfp4-to-cpu` pipeline: convert-nvfp4-to-reference, tensor
/// cleanup, one-shot bufferization across function boundaries (identity
/// layouts, so functions take plain memrefs), the buffer deallocation
/// pipeline, linalg to loops, and the conversion of everything to the LLVM
/// dialect. The result runs with `mlir-runner`.
void buildNVFP4ToCPUPipeline(OpPassManager &pm,
                             const NVFP4ToCPUPipelineOptions &options);

/// Registers `nvfp4-to-cpu` with the global pass pipeline registry.
void registerNVFP4ToCPUPipeline();

//===----------------------------------------------------------------------===//
// nvfp4-to-ptx
//===----------------------------------------------------------------------===//

/// Options of the `nvfp4-to-ptx` pipeline.
struct NVFP4ToPTXPipelineOptions
    : public PassPipelineOptions<NVFP4ToPTXPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("GPU architecture: sm_100a, sm_103a, sm_110a "
                     "(tcgen05.mma), sm_120a, sm_121a (block-scaled FP4 "
                     "mma.sync) or sm_90a (dequantize to bf16 + bf16 MMA)"),
      llvm::cl::init("sm_120a")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("NVPTX target features; empty selects the lowest PTX "
                     "version the target needs (+ptx87 for sm_120a, +ptx88 "
                     "for sm_121a, sm_100a and sm_103a, +ptx90 for sm_110a, "
                     "+ptx80 for sm_90a)"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimization level of the LLVM NVPTX back end"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Form of the kernels in the gpu.binary: isa (PTX), bin "
                     "(cubin, assembled by ptxas) or fatbin"),
      llvm::cl::init("isa")};
  PassOptions::Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit whose ptxas assembles format=bin/fatbin; "
                     "empty: the toolkit MLIR was configured with"),
      llvm::cl::init("")};
  PassOptions::Option<bool> hardwareSR{
      *this, "hardware-sr",
      llvm::cl::desc("Stochastic rounding of nvfp4.quantize by "
                     "cvt.rs.satfinite.e2m1x4.f32 (sm_100a / sm_103a only); "
                     "see convert-nvfp4-to-gpu"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> tcgen05CtaPair{
      *this, "tcgen05-cta-pair",
      llvm::cl::desc("tcgen05 matmul kernel variant: auto, off (1-CTA) or on "
                     "(CTA pair, cta_group::2); see convert-nvfp4-to-gpu"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> boundaryScaleLayout{
      *this, "boundary-scale-layout",
      llvm::cl::desc("Scale layout of NVFP4 function arguments and results "
                     "without nvfp4.scale_layout on the tcgen05 targets: "
                     "atoms or row-major; see convert-nvfp4-to-gpu"),
      llvm::cl::init("atoms")};
  PassOptions::Option<std::string> tile{
      *this, "tile",
      llvm::cl::desc("CTA tile MxN of the sm_120a / sm_121a / sm_90a matmul "
                     "kernel (64x64, 128x64, 64x128, 128x128, 128x256, 16x128, "
                     "32x128); "
                     "empty: chosen per shape; see convert-nvfp4-to-gpu"),
      llvm::cl::init("")};
  PassOptions::Option<bool> reportFallbacks{
      *this, "report-fallbacks",
      llvm::cl::desc("Emit a remark at every op lowered through a fallback "
                     "(software E2M1 or stochastic rounding, the sm_90a bf16 "
                     "matmul, ops left for the host); see "
                     "convert-nvfp4-to-gpu"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> copiesPerLaunch{
      *this, "copies-per-launch",
      llvm::cl::desc("nvfp4-to-gpu-executable / nvfp4-to-gpu-emulation: copy "
                     "every kernel operand to the device before each launch "
                     "and back after it, instead of keeping buffers on the "
                     "device across launches; see "
                     "nvfp4-gpu-stage-launch-operands"),
      llvm::cl::init(false)};
};

/// Returns the NVPTX feature string `nvfp4-to-ptx` uses for `target` when
/// none is given: the lowest PTX ISA version with the instructions the
/// kernels of that target use. Empty for an unknown target.
llvm::StringRef getDefaultPTXFeatures(llvm::StringRef target);

/// Builds the `nvfp4-to-ptx` pipeline: convert-nvfp4-to-gpu,
/// nvfp4-keep-kernel-scalars-on-device, the upstream lowering of the kernel
/// module to NVVM (scf to cf, gpu to nvvm, reconcile-unrealized-casts),
/// nvvm-attach-target and gpu-module-to-binary. The host side is left as
/// those two passes write it (launches of the kernels on buffers);
/// `gpu.module @nvfp4_kernels` becomes a `gpu.binary` holding PTX (or a
/// cubin / fatbin).
void buildNVFP4ToPTXPipeline(OpPassManager &pm,
                             const NVFP4ToPTXPipelineOptions &options);

/// The first steps of `nvfp4-to-ptx`: convert-nvfp4-to-gpu and the lowering
/// of the kernel module to the NVVM and LLVM dialects, up to (not including)
/// the target attribute: the IR that goes to the NVVM target, which the
/// emulation pipeline runs instead.
void buildNVFP4ToNVVMKernelsPipeline(OpPassManager &pm,
                                     const NVFP4ToPTXPipelineOptions &options);

/// Registers `nvfp4-to-ptx` with the global pass pipeline registry.
void registerNVFP4ToPTXPipeline();

//===----------------------------------------------------------------------===//
// nvfp4-to-gpu-executable
//===----------------------------------------------------------------------===//

/// Builds the `nvfp4-to-gpu-executable` pipeline (options as nvfp4-to-ptx):
/// nvfp4-to-ptx, nvfp4-gpu-pack-launch-operands, the reference lowering of
/// the remaining nvfp4 ops, bufferization (no buffer deallocation: it
/// rejects gpu.launch_func), nvfp4-gpu-stage-launch-operands (device
/// buffers of the launches),
/// gpu-async-region and the conversion of the host code to the LLVM dialect
/// including gpu-to-llvm. The result runs with mlir-runner and
/// libnvfp4_cuda_runtime (docs/gpu-runtime.md).
void buildNVFP4ToGPUExecutablePipeline(OpPassManager &pm,
                                       const NVFP4ToPTXPipelineOptions &options);

/// Creates `nvfp4-gpu-pack-launch-operands`: E2M1 / E4M3 kernel operands
/// become packed 1-D byte tensors passed through `memref.view`, and each
/// host gpu.launch_func records which memref operands it reads and writes.
std::unique_ptr<Pass> createGPUPackLaunchOperandsPass();

/// Creates `nvfp4-gpu-stage-launch-operands`: on buffers, every memref
/// operand of a host gpu.launch_func gets a gpu.alloc'ed device buffer, kept
/// across the launches of its block: a host-to-device gpu.memcpy only where
/// a kernel reads a buffer whose device copy is not current, a
/// device-to-host one only before host code that touches a buffer a kernel
/// changed and at the end of the block for buffers code after it can see,
/// and a gpu.dealloc after the last use (StageLaunchOperands.cpp). With
/// `perLaunch`, every operand is copied in before and out after each launch.
std::unique_ptr<Pass> createGPUStageLaunchOperandsPass(bool perLaunch = false);

/// Registers `nvfp4-gpu-stage-launch-operands`.
void registerGPUStageLaunchOperandsPass();

/// Registers `nvfp4-to-gpu-executable` and its two passes.
void registerNVFP4ToGPUExecutablePipeline();

/// The host side of `nvfp4-to-gpu-executable`, after the kernels: packed
/// launch operands, the reference lowering of the other nvfp4 ops,
/// bufferization, the device buffers of the launches (copied around each
/// launch with `copiesPerLaunch`) and the host code to the LLVM dialect
/// (gpu-to-llvm included).
void buildGPUHostToLLVMPipeline(OpPassManager &pm, bool copiesPerLaunch);

//===----------------------------------------------------------------------===//
// nvfp4-to-gpu-emulation
//===----------------------------------------------------------------------===//

/// Builds the `nvfp4-to-gpu-emulation` pipeline (options as nvfp4-to-ptx;
/// `format` and `cuda-path` are unused): the kernels as for nvfp4-to-ptx up
/// to the NVVM dialect, nvfp4-emulate-gpu-kernels, the host side of
/// nvfp4-to-gpu-executable and nvfp4-emulate-gpu-launches. The result runs
/// with mlir-runner and libnvfp4_gpu_emulator on a machine with no GPU
/// (docs/emulator.md).
void buildNVFP4ToGPUEmulationPipeline(OpPassManager &pm,
                                      const NVFP4ToPTXPipelineOptions &options);

/// Registers `nvfp4-to-gpu-emulation`.
void registerNVFP4ToGPUEmulationPipeline();

//===----------------------------------------------------------------------===//
// Host code, shared by the pipelines
//===----------------------------------------------------------------------===//

/// The `math` ops of host code to the LLVM dialect, the same way on every
/// pipeline (so that a high-precision op computes the same bits on each):
/// LLVM intrinsics where LLVM has one, `clampf` expanded, integer powers
/// outlined as functions, and the rest (erf, erfc, cbrt, asinh, ...) as
/// calls to the C library. Runs before the vector, arith and func
/// conversions, whose ops the C-library conversion emits.
void addHostMathToLLVMPasses(OpPassManager &pm);

/// Adds `nvfp4-check-llvm-lowering`: an error at every op the pipeline
/// `pipeline` left outside the LLVM dialect (and the GPU binaries and
/// modules a program keeps), so that an op no step lowers is named at its
/// location before translation to LLVM IR.
void addCheckLLVMLoweringPass(OpPassManager &pm, llvm::StringRef pipeline);

/// Registers `nvfp4-check-llvm-lowering`.
void registerCheckLLVMLoweringPass();

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_PIPELINES_PIPELINES_H
