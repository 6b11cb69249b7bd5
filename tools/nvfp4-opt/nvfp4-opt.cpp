//===- nvfp4-opt.cpp - mlir-opt with the nvfp4 dialect --------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// An mlir-opt driver with every upstream dialect, extension and pass, plus
// the nvfp4 dialect, its passes and pipelines.
//
// Unlike a plain mlir-opt, it exits non-zero after any error diagnostic, also
// one a pass emits without signalling failure (some upstream passes do), and
// then writes no output: a pipeline either succeeds or says why it did not.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>

using namespace mlir;

/// Runs mlir-opt's processing of the input with `config`. A run in which
/// any error diagnostic was emitted fails, and then writes no IR.
static LogicalResult runOpt(llvm::StringRef inputFilename,
                            llvm::StringRef outputFilename,
                            DialectRegistry &registry,
                            MlirOptMainConfig config) {
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }

  // With --verify-diagnostics, expected errors are the point of the run and
  // the verifier decides the result.
  auto errorSeen = std::make_shared<std::atomic<bool>>(false);
  if (!config.shouldVerifyDiagnostics()) {
    MlirOptMainConfig base = config;
    config.setPassPipelineSetupFn([base, errorSeen](PassManager &pm) {
      if (failed(base.setupPassPipeline(pm)))
        return failure();
      // Registered after the driver's own handler, so it sees every
      // diagnostic first; it only records errors and passes them on.
      pm.getContext()->getDiagEngine().registerHandler(
          [errorSeen](Diagnostic &diag) {
            if (diag.getSeverity() == DiagnosticSeverity::Error)
              *errorSeen = true;
            return failure();
          });
      return success();
    });
  }

  std::string printed;
  llvm::raw_string_ostream os(printed);
  LogicalResult result = MlirOptMain(os, std::move(file), registry, config);
  // A pass reported an error but the pipeline went on: fail, print nothing.
  if (succeeded(result) && *errorSeen)
    return failure();

  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  // As mlir-opt: what was printed goes out, a file is kept only on success.
  output->os() << printed;
  if (succeeded(result))
    output->keep();
  return result;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAllPasses();
  nvfp4::registerAllPasses();

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // gpu-module-to-binary translates gpu.module bodies to LLVM IR.
  registerAllGPUToLLVMIRTranslations(registry);
  nvfp4::registerAllDialects(registry);

  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "NVFP4 optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // Listing dialects or passes needs no input: mlir-opt's own entry point.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));
  return asMainReturnCode(
      runOpt(inputFilename, outputFilename, registry, config));
}
