//===- Passes.h - NVFP4 recipe passes ---------------------------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The passes of the NVFP4 training recipe, their pattern sets, and the
// `nvfp4-recipe` pipeline that composes them.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_H
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
class RewritePatternSet;
namespace nvfp4 {

#define GEN_PASS_DECL
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"

/// Function argument attribute naming the i64 seed of stochastic rounding.
inline constexpr llvm::StringLiteral kSeedAttrName = "nvfp4.seed";

/// How `populateQuantizeContractionsPatterns` applies the recipe.
struct QuantizeContractionsOptions {
  /// No Hadamard transform on wgrad operands.
  bool disableRHT = false;
  /// Gradients are rounded to nearest.
  bool disableStochasticRounding = false;
  /// Weights get 1x16 blocks instead of 16x16.
  bool disable2D = false;
  /// A forward graph: weights whose rows are not a multiple of 16 get 1x16
  /// blocks (recipe::quantization).
  bool inference = false;
};

/// Patterns rewriting linalg contractions marked `nvfp4.precision = "fp4"` to
/// nvfp4.quantize + nvfp4.matmul. Stochastic quantizes are created with
/// offset 0; `assignStochasticOffsets` numbers them.
void populateQuantizeContractionsPatterns(
    RewritePatternSet &patterns, const QuantizeContractionsOptions &options);

/// Patterns rewriting a 16x16 round-to-nearest quantize of a transposed
/// tensor to the exact nvfp4.transpose of the quantized tensor.
void populateShareQuantizationsPatterns(RewritePatternSet &patterns);

/// Gives every stochastic quantize/rescale in `func`, in IR order, a disjoint
/// range of N/16 Philox counters starting at `baseOffset`, and the seed
/// argument (`nvfp4.seed`) when the function has one. Fails, with an error
/// on the first quantize/rescale that does not fit, when the counters would
/// overflow int64_t, and with an error at the argument annotated
/// `nvfp4.seed` when it is not an i64.
LogicalResult assignStochasticOffsets(func::FuncOp func, int64_t baseOffset);

/// Replaces every nvfp4.quantize by an identical dominating one.
void shareIdenticalQuantizations(func::FuncOp func);

/// What the graph given to the `nvfp4-recipe` pipeline computes.
enum class RecipeMode {
  /// A training step: forward, dgrad and wgrad contractions.
  Training,
  /// A forward pass: fprop contractions only; constant weights are
  /// quantized at compile time.
  Inference,
};

/// Options of the `nvfp4-recipe` pipeline.
struct RecipePipelineOptions
    : public PassPipelineOptions<RecipePipelineOptions> {
  PassOptions::Option<RecipeMode> mode{
      *this, "mode",
      llvm::cl::desc("What the graph computes (inference: fprop roles only, "
                     "fold-constants implied)"),
      llvm::cl::init(RecipeMode::Training),
      llvm::cl::values(
          clEnumValN(RecipeMode::Training, "training",
                     "a training step (forward, dgrad, wgrad)"),
          clEnumValN(RecipeMode::Inference, "inference",
                     "a forward pass: weights quantized at compile time, "
                     "activations at run time"))};
  PassOptions::Option<std::string> calibration{
      *this, "calibration",
      llvm::cl::desc("JSON file of static activation amaxes per contraction "
                     "(nvfp4-apply-calibration); default: dynamic amax"),
      llvm::cl::init("")};
  PassOptions::Option<bool> constantWeights{
      *this, "constant-weights",
      llvm::cl::desc("Treat constant contraction operands (arith.constant, "
                     "dense resources, constant globals) and arguments "
                     "named as weights as weights (nvfp4-infer-roles)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> foldConstants{
      *this, "fold-constants",
      llvm::cl::desc("Quantize constant weights at compile time "
                     "(nvfp4-fold-constant-quantize): the program holds "
                     "their NVFP4 components as constants"),
      llvm::cl::init(false)};
  PassOptions::Option<unsigned> keepFirst{
      *this, "keep-first",
      llvm::cl::desc("Keep the first N layers in high precision"),
      llvm::cl::init(0)};
  PassOptions::Option<unsigned> keepLast{
      *this, "keep-last",
      llvm::cl::desc("Keep the last N layers in high precision"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> minM{
      *this, "min-m", llvm::cl::desc("Minimum M for NVFP4"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> minN{
      *this, "min-n", llvm::cl::desc("Minimum N for NVFP4"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> minK{
      *this, "min-k", llvm::cl::desc("Minimum K for NVFP4"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> minFlops{
      *this, "min-flops", llvm::cl::desc("Minimum FLOPs for NVFP4"),
      llvm::cl::init(0)};
  PassOptions::ListOption<std::string> sizeHints{
      *this, "size-hint",
      llvm::cl::desc("Sizes assumed for run-time dimensions: SYMBOL=N or N "
                     "(nvfp4-select-precision)")};
  PassOptions::ListOption<int64_t> highLayers{
      *this, "high-layers",
      llvm::cl::desc("Layers forced to high precision")};
  PassOptions::ListOption<std::string> highOps{
      *this, "high-ops",
      llvm::cl::desc("Location names of ops forced to high precision")};
  PassOptions::Option<bool> quantizeAttention{
      *this, "quantize-attention",
      llvm::cl::desc("Allow attention contractions in NVFP4"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> quantizeEmbeddings{
      *this, "quantize-embeddings",
      llvm::cl::desc("Allow embedding contractions in NVFP4"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> quantizeHead{
      *this, "quantize-head", llvm::cl::desc("Allow the LM head in NVFP4"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> gpuTarget{
      *this, "gpu-target",
      llvm::cl::desc("Keep high what the GEMM kernel of this GPU target "
                     "refuses (sm_100a, sm_103a, sm_110a, sm_120a, sm_121a, "
                     "sm_90a)"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("The 4-bit format of the recipe: nvfp4 or mxfp4"),
      llvm::cl::init("nvfp4")};
  PassOptions::ListOption<std::string> formats{
      *this, "formats",
      llvm::cl::desc("The precision ladder: block-scaled formats in order of "
                     "preference (nvfp4, mxfp4, mxfp8_e4m3 or mxfp8, "
                     "mxfp8_e5m2), optionally ending in bf16")};
  PassOptions::Option<bool> disableRHT{
      *this, "disable-rht",
      llvm::cl::desc("No Hadamard transform on wgrad operands"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> disableStochasticRounding{
      *this, "disable-stochastic-rounding",
      llvm::cl::desc("Round gradients to nearest"), llvm::cl::init(false)};
  PassOptions::Option<bool> disable2D{
      *this, "disable-2d-quantization",
      llvm::cl::desc("Quantize weights with 1x16 blocks"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> baseOffset{
      *this, "base-offset", llvm::cl::desc("First Philox counter"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> remarks{
      *this, "remarks", llvm::cl::desc("Emit a remark per decision"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Write the JSON report to this file ('-' = stdout)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> summary{
      *this, "summary",
      llvm::cl::desc("Print a summary of the decisions to stderr"),
      llvm::cl::init(false)};
};

/// Adds the recipe to `pm` (anchored on a module): infer roles, select
/// precision, rewrite, share quantizations, canonicalize, assign rounding.
void buildRecipePipeline(OpPassManager &pm,
                         const RecipePipelineOptions &options);

/// Registers the `nvfp4-recipe` pipeline.
void registerRecipePipeline();

/// Registers the `--nvfp4-report=FILE` command-line option, used by
/// nvfp4-select-precision when its own `report` option is empty.
void registerRecipeCLOptions();

/// The path given by `--nvfp4-report`, empty when unset or unregistered.
std::string getRecipeReportCLPath();

#define GEN_PASS_REGISTRATION
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_H
