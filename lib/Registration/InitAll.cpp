//===- InitAll.cpp - Register everything NVFP4-MLIR provides --------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"

#include "nvfp4/Conversion/Passes.h"
#include "nvfp4/Transforms/Passes.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::nvfp4::registerAllDialects(DialectRegistry &registry) {
  registry.insert<NVFP4Dialect>();
}

void mlir::nvfp4::registerAllPasses() {
  registerNVFP4Passes();
  registerRecipePipeline();
  registerRecipeCLOptions();
  registerNVFP4ConversionPasses();
  registerNVFP4TransformsPasses();
  registerNVFP4ToCPUPipeline();
  registerNVFP4ToPTXPipeline();
  registerNVFP4ToGPUExecutablePipeline();
  registerNVFP4ToGPUEmulationPipeline();
  registerCheckLLVMLoweringPass();
}
