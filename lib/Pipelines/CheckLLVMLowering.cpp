//===- CheckLLVMLowering.cpp - What a pipeline left outside LLVM ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4-check-llvm-lowering: the last pass of the pipelines that lower a
// program to the LLVM dialect (nvfp4-to-cpu, nvfp4-to-gpu-executable,
// nvfp4-to-gpu-emulation). Conversion passes are partial: an op none of
// them lowers stays in the output, and translation to LLVM IR only fails
// later, elsewhere, with a message about a missing dialect interface. This
// pass names each such op at its location, with the pipeline, and fails.
// What translation handles besides the LLVM dialect: `gpu.binary` and
// `gpu.launch_func` (the GPU dialect's offloading translation).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace {
struct CheckLLVMLoweringPass
    : public PassWrapper<CheckLLVMLoweringPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckLLVMLoweringPass)

  CheckLLVMLoweringPass() = default;
  CheckLLVMLoweringPass(const CheckLLVMLoweringPass &other)
      : PassWrapper(other) {}
  explicit CheckLLVMLoweringPass(StringRef pipeline) {
    this->pipeline = pipeline.str();
  }

  StringRef getArgument() const override {
    return "nvfp4-check-llvm-lowering";
  }
  StringRef getDescription() const override {
    return "Fail with an error at each op left outside the LLVM dialect (GPU "
           "binaries, modules and launches aside)";
  }

  void runOnOperation() override {
    // One error per kind of op: a model repeats the same op at every layer.
    llvm::StringSet<> reported;
    bool failed = false;
    getOperation()->walk([&](Operation *op) {
      if (op == getOperation())
        return WalkResult::advance();
      // GPU binaries and their launches are translated by the GPU dialect's
      // offloading translation; a GPU module that is still here holds
      // kernels that another tool compiles.
      if (isa<gpu::BinaryOp, gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isa<ModuleOp, gpu::LaunchFuncOp>(op) ||
          isa<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      failed = true;
      if (reported.insert(op->getName().getStringRef()).second)
        op->emitError() << "'" << op->getName() << "' is not lowered to the "
                        << "LLVM dialect by " << pipeline
                        << " (no step of the pipeline handles it), so the "
                           "program cannot be translated to LLVM IR";
      return WalkResult::advance();
    });
    if (failed)
      signalPassFailure();
  }

  Option<std::string> pipeline{
      *this, "pipeline",
      llvm::cl::desc("The pipeline named in the errors"),
      llvm::cl::init("the pipeline")};
};
} // namespace

void mlir::nvfp4::addCheckLLVMLoweringPass(OpPassManager &pm,
                                           StringRef pipeline) {
  pm.addPass(std::make_unique<CheckLLVMLoweringPass>(pipeline));
}

void mlir::nvfp4::registerCheckLLVMLoweringPass() {
  PassRegistration<CheckLLVMLoweringPass>();
}
