//===- Pipeline.cpp - The nvfp4-recipe pass pipeline ----------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The NVFP4 recipe in one pipeline: infer roles, select precision, rewrite
// the selected contractions, apply a calibration file, share quantizations,
// canonicalize, fold constant weights' quantization (always for inference)
// and number the stochastic-rounding counters.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::nvfp4;

void nvfp4::buildRecipePipeline(OpPassManager &pm,
                                const RecipePipelineOptions &options) {
  const bool inference = options.mode == RecipeMode::Inference;
  NVFP4InferRolesOptions roles;
  roles.constantWeights = options.constantWeights;
  roles.inference = inference;
  pm.addNestedPass<func::FuncOp>(createNVFP4InferRoles(roles));

  NVFP4SelectPrecisionOptions select;
  select.keepFirst = options.keepFirst;
  select.keepLast = options.keepLast;
  select.minM = options.minM;
  select.minN = options.minN;
  select.minK = options.minK;
  select.minFlops = options.minFlops;
  select.sizeHints = llvm::to_vector(options.sizeHints);
  select.highLayers = llvm::to_vector(options.highLayers);
  select.highOps = llvm::to_vector(options.highOps);
  select.quantizeAttention = options.quantizeAttention;
  select.quantizeEmbeddings = options.quantizeEmbeddings;
  select.quantizeHead = options.quantizeHead;
  select.gpuTarget = options.gpuTarget;
  select.format = options.format;
  select.formats = llvm::to_vector(options.formats);
  select.disable2D = options.disable2D;
  select.inference = inference;
  select.remarks = options.remarks;
  select.reportFile = options.report;
  select.summary = options.summary;
  pm.addPass(createNVFP4SelectPrecision(select));

  NVFP4QuantizeContractionsOptions quantize;
  quantize.disableRHT = options.disableRHT;
  quantize.disableStochasticRounding = options.disableStochasticRounding;
  quantize.disable2D = options.disable2D;
  quantize.inference = inference;
  pm.addNestedPass<func::FuncOp>(createNVFP4QuantizeContractions(quantize));
  if (!options.calibration.empty()) {
    NVFP4ApplyCalibrationOptions calibration;
    calibration.file = options.calibration;
    pm.addPass(createNVFP4ApplyCalibration(calibration));
  }
  pm.addNestedPass<func::FuncOp>(createNVFP4ShareQuantizations());
  pm.addPass(createCanonicalizerPass());
  if (options.foldConstants || inference)
    pm.addNestedPass<func::FuncOp>(createNVFP4FoldConstantQuantize());
  pm.addPass(createCSEPass());
  if (!options.disableStochasticRounding) {
    NVFP4AssignRoundingOptions rounding;
    rounding.baseOffset = options.baseOffset;
    pm.addNestedPass<func::FuncOp>(createNVFP4AssignRounding(rounding));
  }
}

void nvfp4::registerRecipePipeline() {
  PassPipelineRegistration<RecipePipelineOptions>(
      "nvfp4-recipe",
      "The NVFP4 training recipe: infer roles, select precision, quantize "
      "the selected contractions, share quantizations, assign rounding",
      buildRecipePipeline);
}
