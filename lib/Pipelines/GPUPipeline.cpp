//===- GPUPipeline.cpp - The nvfp4-to-ptx pipeline ------------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers the nvfp4 matmuls of a program to GPU kernels and compiles the
// kernel module to PTX (or a cubin) with the upstream NVVM target. The PTX
// can then be written to a file with `nvfp4-translate --nvfp4-extract-ptx`.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Pipelines/Pipelines.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Matmul.h"
#include "nvfp4/Conversion/Passes.h"

#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

//===----------------------------------------------------------------------===//
// nvfp4-gpu-module-to-binary
//===----------------------------------------------------------------------===//

namespace {
/// gpu-module-to-binary that fails whenever it reports an error. The
/// upstream pass emits some errors (an unknown `format`, a serializer that
/// cannot run) without failing, so a pipeline would go on and print IR that
/// does not parse back, and exit 0. This pass runs it as a nested pipeline
/// and turns any error diagnostic into a pass failure.
struct StrictGPUModuleToBinaryPass
    : public PassWrapper<StrictGPUModuleToBinaryPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(StrictGPUModuleToBinaryPass)

  StrictGPUModuleToBinaryPass() = default;
  StrictGPUModuleToBinaryPass(const StrictGPUModuleToBinaryPass &other)
      : PassWrapper(other) {}
  StrictGPUModuleToBinaryPass(StringRef format, StringRef toolkit) {
    this->format = format.str();
    this->toolkit = toolkit.str();
  }

  StringRef getArgument() const override {
    return "nvfp4-gpu-module-to-binary";
  }
  StringRef getDescription() const override {
    return "gpu-module-to-binary, failing on any error it reports";
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(getOpName().value_or(ModuleOp::getOperationName()));
    pm.addPass(createBinaryPass());
    pm.getDependentDialects(registry);
  }

  void runOnOperation() override {
    // The names the upstream pass accepts.
    bool knownFormat = llvm::StringSwitch<bool>(format)
                           .Cases({"offloading", "llvm", "assembly", "isa",
                                   "binary", "bin", "fatbinary", "fatbin"},
                                  true)
                           .Default(false);
    if (!knownFormat) {
      emitError(getOperation()->getLoc())
          << "nvfp4-gpu-module-to-binary: unknown format '" << format
          << "' (expected offloading, llvm, assembly, isa, binary, bin, "
             "fatbinary or fatbin)";
      return signalPassFailure();
    }
    bool errorSeen = false;
    ScopedDiagnosticHandler handler(&getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        errorSeen = true;
      return failure(); // Still reported by the enclosing handlers.
    });
    OpPassManager pm(getOperation()->getName());
    pm.addPass(createBinaryPass());
    if (failed(runPipeline(pm, getOperation())) || errorSeen)
      signalPassFailure();
  }

  Option<std::string> format{*this, "format",
                             llvm::cl::desc("gpu-module-to-binary's format"),
                             llvm::cl::init("fatbin")};
  Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("gpu-module-to-binary's toolkit path"),
      llvm::cl::init("")};

private:
  std::unique_ptr<Pass> createBinaryPass() const {
    GpuModuleToBinaryPassOptions options;
    options.compilationTarget = format;
    options.toolkitPath = toolkit;
    return createGpuModuleToBinaryPass(options);
  }
};
} // namespace

StringRef mlir::nvfp4::getDefaultPTXFeatures(StringRef target) {
  // sm_120a needs PTX 8.7 for the block-scaled mma.sync, sm_121a is new in
  // PTX 8.8, and the sm_90a architecture-specific target in PTX 8.0.
  // tcgen05.mma kind::mxf4nvf4 with `.block16` needs PTX 8.8 on sm_100a and
  // sm_103a; sm_110a (formerly sm_101a) is named so from PTX 9.0.
  return llvm::StringSwitch<StringRef>(target)
      .Case("sm_100a", "+ptx88")
      .Case("sm_103a", "+ptx88")
      .Case("sm_110a", "+ptx90")
      .Case("sm_120a", "+ptx87")
      .Case("sm_121a", "+ptx88")
      .Case("sm_90a", "+ptx80")
      .Default("");
}

void mlir::nvfp4::buildNVFP4ToNVVMKernelsPipeline(
    OpPassManager &pm, const NVFP4ToPTXPipelineOptions &options) {
  // 1. nvfp4.matmul -> gpu.launch_func of kernels in gpu.module
  //    @nvfp4_kernels.
  ConvertNVFP4ToGPUOptions gpuOptions;
  gpuOptions.target = options.target;
  gpuOptions.hardwareSR = options.hardwareSR;
  gpuOptions.tile = options.tile;
  gpuOptions.tcgen05CtaPair = options.tcgen05CtaPair;
  gpuOptions.boundaryScaleLayout = options.boundaryScaleLayout;
  gpuOptions.reportFallbacks = options.reportFallbacks;
  pm.addPass(createConvertNVFP4ToGPU(gpuOptions));
  // Tensor amaxes the kernels leave on the device reach the next kernels
  // there, not through the host.
  pm.addPass(nvfp4::createKeepKernelScalarsOnDevice());

  // 2. The kernel module to the NVVM and LLVM dialects.
  pm.addNestedPass<gpu::GPUModuleOp>(createSCFToControlFlowPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  // 3. Tensor maps (passed by value) read in the kernel parameters.
  pm.addNestedPass<gpu::GPUModuleOp>(nvfp4::createGridConstantKernelParams());
}

void mlir::nvfp4::buildNVFP4ToPTXPipeline(
    OpPassManager &pm, const NVFP4ToPTXPipelineOptions &options) {
  // 1.-3. The kernels, in the NVVM dialect.
  buildNVFP4ToNVVMKernelsPipeline(pm, options);

  // 4. Target attribute and serialization.
  GpuNVVMAttachTargetOptions targetOptions;
  targetOptions.chip = options.target;
  targetOptions.features = options.features.empty()
                               ? getDefaultPTXFeatures(options.target).str()
                               : options.features.getValue();
  targetOptions.optLevel = options.optLevel;
  if (options.target == "sm_103a" || options.target == "sm_110a") {
    // MLIR 22's op-level SM check rejects the tcgen05 ops on these targets,
    // which the NVPTX backend and ptxas accept (see Tcgen05Matmul.h).
    pm.addPass(createAttachTcgen05NVVMTargetPass(
        targetOptions.chip, targetOptions.features, targetOptions.optLevel));
  } else {
    pm.addPass(createGpuNVVMAttachTarget(targetOptions));
  }

  pm.addPass(std::make_unique<StrictGPUModuleToBinaryPass>(options.format,
                                                           options.cudaPath));
  // 5. Same input, same output: drop the compile times recorded above.
  pm.addPass(nvfp4::createStripGPUCompileTimes());
}

void mlir::nvfp4::registerNVFP4ToPTXPipeline() {
  // The pipeline's own pass, so that it prints and parses as text.
  registerAttachTcgen05NVVMTargetPass();
  PassRegistration<StrictGPUModuleToBinaryPass>();
  PassPipelineRegistration<NVFP4ToPTXPipelineOptions>(
      "nvfp4-to-ptx",
      "Lower nvfp4.matmul to GPU kernels and compile them to PTX (or a "
      "cubin) in a gpu.binary; the host side keeps its gpu.launch_func ops",
      buildNVFP4ToPTXPipeline);
}
