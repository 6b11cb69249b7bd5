//===- CPUPipeline.cpp - The nvfp4-to-cpu pipeline ------------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers a program of nvfp4, linalg, tensor and arith ops on tensors to the
// LLVM dialect through the bit-exact reference lowering, so that it runs on
// the host CPU (e.g. with mlir-runner).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Pipelines/Pipelines.h"

#include "nvfp4/Conversion/Passes.h"
#include "nvfp4/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::nvfp4::buildNVFP4ToCPUPipeline(
    OpPassManager &pm, const NVFP4ToCPUPipelineOptions &options) {
  // 1. nvfp4 -> linalg / vector / scf / tensor / arith on tensors.
  ConvertNVFP4ToReferenceOptions referenceOptions;
  referenceOptions.fakeQuant = options.fakeQuant;
  referenceOptions.kernels = options.kernels;
  pm.addPass(createConvertNVFP4ToReference(referenceOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());

  // 2. Bufferization: functions take and return identity-layout memrefs.
  // Destinations shared by many ops are copied first, so that the analysis
  // does not compare all their uses pairwise.
  pm.addNestedPass<func::FuncOp>(createCloneSharedInits());
  bufferization::OneShotBufferizePassOptions bufferizeOptions;
  bufferizeOptions.bufferizeFunctionBoundaries = true;
  bufferizeOptions.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  // Loops that carry tensors (scf.for / scf.while iter_args, and the
  // components of NVFP4 values carried through them) yield new buffers.
  bufferizeOptions.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferizeOptions));
  // Upstream's buffer deallocation pipeline, with the deallocations of a
  // block's distinct allocations split before the simplification, which
  // would otherwise compare them pairwise (quadratic in the size of a
  // model's step function).
  memref::ExpandReallocPassOptions expandReallocOptions;
  expandReallocOptions.emitDeallocs = false;
  pm.addNestedPass<func::FuncOp>(
      memref::createExpandReallocPass(expandReallocOptions));
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(
      bufferization::createOwnershipBasedBufferDeallocationPass());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createSplitDeallocations());
  pm.addNestedPass<func::FuncOp>(
      bufferization::createBufferDeallocationSimplificationPass());
  pm.addPass(bufferization::createLowerDeallocationsPass());
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  // The clones the deallocation leaves for buffers yielded from loops.
  pm.addPass(createConvertBufferizationToMemRefPass());

  // 3. Large functions (a whole model's step) keep no loop nest or linalg op
  // of their own: each moves into a function shared by its identical copies
  // (the same op at every layer), so that what follows runs once per
  // distinct op, in parallel over functions, and block splitting stays
  // linear.
  pm.addPass(createOutlineLoopNests());

  // 4. Register-sized vector tiles of the linalg ops left (the high-precision
  // parts of a model), multi-reductions as element-wise vector arithmetic in
  // the order of the reduction, then loops for the rest, then everything to
  // the LLVM dialect.
  if (options.vectorize) {
    pm.addNestedPass<func::FuncOp>(createTileAndVectorize());
    pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMultiReductionPass(
        vector::VectorMultiReductionLowering::InnerParallel));
  }
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  arith::ArithExpandOpsPassOptions expandOptions;
  expandOptions.includeBf16 = true;
  pm.addNestedPass<func::FuncOp>(
      arith::createArithExpandOpsPass(expandOptions));
  // Views that split a dimension into run-time sizes, which
  // expand-strided-metadata cannot take, as reinterpret casts first.
  pm.addNestedPass<func::FuncOp>(createExpandRunTimeReshapes());
  pm.addNestedPass<func::FuncOp>(memref::createExpandStridedMetadataPass());
  // N-D transfers (the vector tiles) fully unrolled into 1-D ones: the
  // progressive lowering would put a stack buffer in every loop body, and
  // allocas outside the entry block grow the stack at every iteration.
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addNestedPass<func::FuncOp>(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // Math before the vector, arith and func conversions (its C-library calls
  // emit their ops).
  addHostMathToLLVMPasses(pm);
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  addCheckLLVMLoweringPass(pm, "nvfp4-to-cpu");
}

void mlir::nvfp4::addHostMathToLLVMPasses(OpPassManager &pm) {
  // `isinf` and `isnormal` have no lowering here: the C-library conversion
  // fails on them, with the op named, rather than leave them in the output.
  math::MathExpandOpsPassOptions mathExpandOptions;
  mathExpandOptions.opMnemonics = {"clampf"};
  pm.addPass(math::createMathExpandOpsPass(mathExpandOptions));
  // `fpowi` (PyTorch's `x ** 2`) as a call of the software implementation,
  // before the LLVM conversion: that one would emit `llvm.intr.powi` with a
  // vector or i64 exponent (a vectorized `fpowi` broadcasts it), which the
  // LLVM dialect rejects. The outlined power multiplies: x ** 2 is x * x
  // exactly (test/Pipelines/nvfp4-to-cpu-math.mlir).
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
}

void mlir::nvfp4::registerNVFP4ToCPUPipeline() {
  PassPipelineRegistration<NVFP4ToCPUPipelineOptions>(
      "nvfp4-to-cpu",
      "Lower nvfp4 + linalg + tensor + arith on tensors to the LLVM dialect "
      "through the bit-exact reference lowering (runs with mlir-runner)",
      buildNVFP4ToCPUPipeline);
}
