//===- SelectPrecision.cpp - Which contractions run in NVFP4 --------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Decides, for every linalg contraction of a module, which rung of the
// precision ladder it takes (NVFP4, an MX format, or high precision),
// records the reason, and reports the decisions (remarks, a JSON report, a
// human-readable summary).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/Dialect/NVFP4/Transforms/RecipePolicy.h"
#include "nvfp4/Dialect/NVFP4/Transforms/RecipeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>
#include <set>

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4SELECTPRECISION
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

//===----------------------------------------------------------------------===//
// --nvfp4-report
//===----------------------------------------------------------------------===//

namespace {
struct RecipeCLOptions {
  llvm::cl::opt<std::string> report{
      "nvfp4-report",
      llvm::cl::desc("Write the JSON report of nvfp4-select-precision to "
                     "this file ('-' = stdout) unless the pass's own "
                     "`report` option is set"),
      llvm::cl::value_desc("filename"), llvm::cl::init("")};
};
} // namespace

static llvm::ManagedStatic<RecipeCLOptions> recipeCLOptions;

void mlir::nvfp4::registerRecipeCLOptions() { (void)*recipeCLOptions; }

std::string mlir::nvfp4::getRecipeReportCLPath() {
  if (!recipeCLOptions.isConstructed())
    return "";
  return recipeCLOptions->report;
}

//===----------------------------------------------------------------------===//
// Decisions
//===----------------------------------------------------------------------===//

namespace {

/// One line of the report.
struct Decision {
  std::string function;
  unsigned index = 0;
  std::string location;
  std::string opName;
  std::string role;
  std::optional<int64_t> layer;
  std::string kinds;
  /// Sizes (a run-time one without a hint: ShapedType::kDynamic) and FLOPs
  /// (none when a run-time size has no hint).
  int64_t batch = 1, m = 0, n = 0, k = 0;
  std::optional<int64_t> flops = 0;
  /// The FLOPs as an expression of the run-time sizes' symbols; empty for
  /// static sizes.
  std::string flopsExpression;
  /// The block-scaled format chosen; none: high precision.
  std::optional<Format> format;
  std::string reason;

  /// The `nvfp4.precision` value (and the report's `decision`).
  StringRef getDecision() const {
    return format ? getPrecisionName(*format) : StringRef("high");
  }
};

/// Whether `format` has 4-bit elements: the recipe's sensitivity rules
/// (attention, embeddings, LM head, keep-first/last) keep contractions out
/// of it.
bool isFP4Format(Format format) {
  return format == Format::NVFP4 || format == Format::MXFP4;
}

/// The GEMM kernel the GPU lowering uses for a target.
enum class GpuGemmKernel {
  /// sm_120a, sm_121a: block-scaled `mma.sync`, NVFP4 and MX
  /// (checkMatmulSupported, checkMXMatmulSupported in NVFP4ToGPU.cpp).
  BlockScaledMmaSync,
  /// sm_90a: bf16 `mma.sync` on dequantized NVFP4 operands.
  Bf16MmaSync,
  /// sm_100a, sm_103a, sm_110a: block-scaled `tcgen05.mma`, NVFP4 and MX
  /// (checkTcgen05MatmulSupported in Tcgen05Matmul.cpp).
  Tcgen05,
};

struct NVFP4SelectPrecisionPass
    : public mlir::nvfp4::impl::NVFP4SelectPrecisionBase<NVFP4SelectPrecisionPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  /// The kernel of `gpu-target`; none without the option.
  std::optional<GpuGemmKernel> gpuKernel;
  /// The precision ladder: the formats a contraction may take, in order of
  /// preference; high precision after the last.
  SmallVector<Format> ladder;

  LogicalResult parseLadder();
  std::string getGpuShapeIssue(int64_t batch, int64_t m, int64_t n,
                               int64_t k) const;
  /// `size-hint`, parsed.
  SizeHints hints;
  void selectInFunction(func::FuncOp func, std::vector<Decision> &decisions);
  LogicalResult writeReport(ArrayRef<Decision> decisions, StringRef path);
  void printSummary(ArrayRef<Decision> decisions);
};

} // namespace

static std::optional<GpuGemmKernel> parseGpuTarget(StringRef target) {
  return llvm::StringSwitch<std::optional<GpuGemmKernel>>(target)
      .Cases({"sm_120a", "sm_121a"}, GpuGemmKernel::BlockScaledMmaSync)
      .Case("sm_90a", GpuGemmKernel::Bf16MmaSync)
      .Cases({"sm_100a", "sm_103a", "sm_110a"}, GpuGemmKernel::Tcgen05)
      .Default(std::nullopt);
}

/// Why the GEMM kernel of `gpu-target` would refuse the NVFP4 matmul of a
/// [B x] M x N x K contraction; empty if it takes it. These are the shape
/// checks of the lowerings (for the `mma.sync` kernel with its default CTA
/// tile, selectTileShape); operand sizes beyond 2^31 rows or 2^31 pipeline
/// steps are left to the lowering.
/// test/Regression/select-precision-gpu-target.mlir lowers what this lets
/// through.
std::string NVFP4SelectPrecisionPass::getGpuShapeIssue(int64_t batch, int64_t m,
                                                       int64_t n,
                                                       int64_t k) const {
  // The tcgen05 kernel takes any M, N and K: the last CTA tile and K tile
  // are zero-filled or predicated, and a K that is not a multiple of 32
  // (TMA row strides of K / 2 bytes) gets copy-padded operands.
  if (*gpuKernel == GpuGemmKernel::Tcgen05)
    return "";
  // The CTA tile (selectTileShape in MmaLayout.h) is 64 or 128 wide in M
  // and N, 128 only where the dimension is a multiple of 128; the last tile
  // of any other M or N, and the last K step of a K that is not a multiple
  // of 64, are predicated.
  int64_t tileM = (m % 128 == 0 && m >= 256) ? 128 : 64;
  constexpr int64_t kMaxGridYZ = 65535;
  if (llvm::divideCeil(m, tileM) > kMaxGridYZ || batch > kMaxGridYZ)
    return llvm::formatv("ceil(M / {0}) = {1} or the batch size {2} exceeds "
                         "{3} (grid limits of the mma.sync GEMM kernel, "
                         "gpu-target={4})",
                         tileM, llvm::divideCeil(m, tileM), batch, kMaxGridYZ,
                         gpuTarget.getValue());
  return "";
}

/// Whether the region of `op` compares values (a one-hot encoding).
static bool isOneHot(Value value) {
  Operation *def = stripTransposes(value).getDefiningOp();
  if (!def)
    return false;
  if (isa<arith::CmpIOp>(def))
    return true;
  bool compares = false;
  for (Region &region : def->getRegions())
    region.walk([&](arith::CmpIOp) { compares = true; });
  return compares;
}

/// Whether `value` holds fewer than `rank` dimensions of data: a tensor of
/// lower rank, or one broadcast from such a tensor (`linalg.broadcast` or
/// its `linalg.generic` form, which is how JAX/IREE materialize a bias).
static bool isBroadcastOperand(Value value, int64_t rank) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() < rank)
    return true;
  Operation *def = value.getDefiningOp();
  if (isa_and_nonnull<linalg::BroadcastOp>(def))
    return true;
  auto generic = dyn_cast_or_null<linalg::GenericOp>(def);
  if (!generic || !linalg::isaBroadcastOpInterface(generic))
    return false;
  auto source = dyn_cast<RankedTensorType>(
      generic.getDpsInputOperand(0)->get().getType());
  return source && source.getRank() < rank;
}

/// Whether `user` adds a bias (or scales) elementwise: a linalg op with
/// only parallel loops and one result whose inputs other than `value` are
/// broadcast along the rows or scalars. A full-rank second operand (a
/// residual) does not count.
static bool isBroadcastElementwise(Operation *user, Value value) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
  if (!linalgOp || isLinalgContraction(user) ||
      linalgOp.getNumLoops() != linalgOp.getNumParallelLoops() ||
      user->getNumResults() != 1)
    return false;
  auto resultType = dyn_cast<RankedTensorType>(user->getResult(0).getType());
  if (!resultType)
    return false;
  for (OpOperand *input : linalgOp.getDpsInputOperands())
    if (input->get() != value &&
        !isBroadcastOperand(input->get(), resultType.getRank()))
      return false;
  return true;
}

/// Whether a result of `op` feeds a reduction (softmax, cross-entropy over
/// its columns): a non-contraction linalg op with a reduction loop, directly
/// or after a bias add (ONNX `Gemm` with a bias, a classifier's logits).
static bool feedsReduction(Operation *op) {
  SmallVector<Value> worklist(op->getResults().begin(),
                              op->getResults().end());
  // At most a couple of bias/scale steps: the head's own epilogue.
  for (int step = 0; step < 3 && !worklist.empty(); ++step) {
    SmallVector<Value> next;
    for (Value value : worklist) {
      for (Operation *user : value.getUsers()) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
        if (linalgOp && !isLinalgContraction(user) &&
            linalgOp.getNumReductionLoops() > 0)
          return true;
        if (isBroadcastElementwise(user, value))
          next.push_back(user->getResult(0));
      }
    }
    worklist = std::move(next);
  }
  return false;
}

void NVFP4SelectPrecisionPass::selectInFunction(
    func::FuncOp func, std::vector<Decision> &decisions) {
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (isContractionLike(op) || isa<MatmulOp>(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return;

  // Layers present, LM-head weights and their gradient operands.
  std::set<int64_t> layers;
  llvm::DenseSet<Value> headWeights, headGradients;
  for (Operation *op : ops) {
    if (isa<MatmulOp>(op))
      continue;
    if (std::optional<int64_t> layer = getLayer(op))
      layers.insert(*layer);
    auto kinds = getOperandKinds(op);
    if (kinds && getRole(op) == "fprop" && feedsReduction(op))
      for (unsigned i = 0; i < 2; ++i)
        if ((*kinds)[i] == TensorKind::Weight)
          headWeights.insert(stripTransposes(op->getOperand(i)));
  }
  for (Operation *op : ops) {
    auto kinds = getOperandKinds(op);
    if (!kinds || isa<MatmulOp>(op) || getRole(op) != "dgrad")
      continue;
    for (unsigned i = 0; i < 2; ++i)
      if ((*kinds)[i] == TensorKind::Weight &&
          headWeights.contains(stripTransposes(op->getOperand(i))))
        headGradients.insert(stripTransposes(op->getOperand(1 - i)));
  }
  // The recipe's layer rules (nvfp4/Recipe/Policy.h), over the layers
  // present, by position.
  recipe::Options policy;
  policy.keepFirst = keepFirst;
  policy.keepLast = keepLast;
  policy.highLayers.assign(highLayers.begin(), highLayers.end());
  policy.weightBlocks2D = !disable2D;
  policy.inference = inference;
  std::map<int64_t, recipe::LayerPrecision> layerPrecisions;
  for (auto [position, layer] : llvm::enumerate(layers))
    layerPrecisions[layer] = recipe::layerPrecision(
        layer, position, static_cast<int64_t>(layers.size()), policy);
  // keep-first and keep-last covering every layer leave no layer in FP4:
  // say so rather than report 0 FP4 contractions as if it were the model's.
  // At the function's location, without the function attached.
  int64_t numLayers = static_cast<int64_t>(layers.size());
  if (numLayers > 0 && (keepFirst > 0 || keepLast > 0) &&
      static_cast<int64_t>(keepFirst) + keepLast >= numLayers)
    emitWarning(func.getLoc())
        << "nvfp4: 0 of " << numLayers
        << " layers in FP4, keep-first + keep-last >= layers (keep-first="
        << keepFirst.getValue() << ", keep-last=" << keepLast.getValue()
        << ", " << numLayers
        << " layers in @" << func.getSymName()
        << "); lower them to quantize some layers";
  auto precisionOf = [&](std::optional<int64_t> layer) {
    auto it = layer ? layerPrecisions.find(*layer) : layerPrecisions.end();
    return it == layerPrecisions.end() ? recipe::LayerPrecision::FP4
                                       : it->second;
  };

  Builder b(&getContext());
  for (auto [index, contraction] : llvm::enumerate(ops)) {
    // A plain variable: lambdas below capture it (structured bindings are
    // capturable only from C++20).
    Operation *op = contraction;
    Decision d;
    d.function = func.getSymName().str();
    d.index = index;
    d.location = formatLocation(op->getLoc());
    d.opName = op->getName().getStringRef().str();
    d.role = getRole(op).str();
    d.layer = getLayer(op);
    if (auto kinds = getOperandKinds(op))
      d.kinds = (stringifyTensorKind((*kinds)[0]) + "," +
                 stringifyTensorKind((*kinds)[1]))
                    .str();

    if (auto matmul = dyn_cast<MatmulOp>(op)) {
      ArrayRef<int64_t> lhs = matmul.getLhs().getType().getShape();
      ArrayRef<int64_t> rhs = matmul.getRhs().getType().getShape();
      d.batch = lhs.size() == 3 ? lhs[0] : 1;
      d.m = lhs[lhs.size() - 2];
      d.k = lhs.back();
      d.n = rhs[rhs.size() - 2];
      // An nvfp4.matmul of run-time sizes counts no FLOPs (no loop nest to
      // name its sizes by).
      d.flops = llvm::is_contained(ArrayRef<int64_t>{d.batch, d.m, d.n, d.k},
                                   ShapedType::kDynamic)
                    ? std::nullopt
                    : std::optional<int64_t>(
                          contractionFlops(d.batch, d.m, d.n, d.k));
      d.format = matmul.getLhs().getType().getFormat();
      d.reason = d.format == Format::NVFP4
                     ? "already NVFP4"
                     : ("already " + stringifyFormat(*d.format)).str();
      decisions.push_back(std::move(d));
      continue;
    }

    using Choice = std::pair<std::optional<Format>, std::string>;
    auto decide = [&]() -> Choice {
      // Every contraction-like op counts in the model's FLOPs, also the
      // ones the recipe cannot rewrite.
      auto linalgOp = cast<linalg::LinalgOp>(op);
      d.flops = loopNestFlops(linalgOp, hints);
      if (llvm::any_of(linalgOp.getStaticLoopRanges(), ShapedType::isDynamic))
        d.flopsExpression = loopNestFlopsExpression(linalgOp);
      if (!linalg::isaContractionOpInterface(linalgOp))
        return {std::nullopt, "unsupported: convolution (no NVFP4 lowering)"};
      std::string why;
      FailureOr<ContractionInfo> info = analyzeContraction(linalgOp, why);
      if (failed(info))
        return {std::nullopt, "unsupported: " + why};
      // Sizes at the hints; kDynamic where a run-time size has none.
      auto resolve = [&](unsigned dim, int64_t range) {
        return resolveLoopSize(linalgOp, dim, range, hints)
            .value_or(ShapedType::kDynamic);
      };
      d.batch = info->batched ? resolve(info->batchDim, info->batch) : 1;
      d.m = resolve(info->mDim, info->m);
      d.n = resolve(info->nDim, info->n);
      d.k = resolve(info->kDim, info->k);
      if (getPrecision(op) == "high")
        return {std::nullopt, "annotated nvfp4.precision = \"high\""};
      if (precisionOf(d.layer) == recipe::LayerPrecision::HighListed)
        return {std::nullopt,
                llvm::formatv("layer {0} in high-layers", *d.layer)};
      for (const std::string &name : highOps)
        if (hasLocationName(op->getLoc(), name))
          return {std::nullopt, "'" + name + "' in high-ops"};
      auto kinds = getOperandKinds(op);
      if (d.role.empty() || !kinds)
        return {std::nullopt,
                "role unknown (annotate it or run nvfp4-infer-roles)"};
      int weightIndex = (*kinds)[0] == TensorKind::Weight   ? 0
                        : (*kinds)[1] == TensorKind::Weight ? 1
                                                            : -1;
      // Why `format` cannot take the contraction; empty when it can.
      auto rejection = [&](Format format) -> std::string {
        if (isFP4Format(format)) {
          if (weightIndex < 0 && info->batched && !quantizeAttention)
            return "attention (batched contraction of two activations)";
          if (weightIndex < 0 && d.role != "wgrad" && !quantizeAttention)
            return "contraction of two activations";
          if (!quantizeEmbeddings) {
            for (unsigned i = 0; i < 2; ++i)
              if ((*kinds)[i] != TensorKind::Gradient &&
                  (*kinds)[i] != TensorKind::Weight &&
                  isOneHot(op->getOperand(i)))
                return "embedding (one-hot operand)";
          }
          if (!quantizeHead) {
            bool head = false;
            for (unsigned i = 0; i < 2; ++i) {
              Value v = stripTransposes(op->getOperand(i));
              head |= ((*kinds)[i] == TensorKind::Weight &&
                       headWeights.contains(v));
              head |=
                  (d.role == "wgrad" && (*kinds)[i] == TensorKind::Gradient &&
                   headGradients.contains(v));
            }
            if (head)
              return "LM head (forward result feeds a reduction)";
          }
          if (precisionOf(d.layer) == recipe::LayerPrecision::HighFirst)
            return llvm::formatv("layer {0} within keep-first={1}", *d.layer,
                                 keepFirst);
          if (precisionOf(d.layer) == recipe::LayerPrecision::HighLast)
            return llvm::formatv("layer {0} within keep-last={1}", *d.layer,
                                 keepLast);
        }
        if (!info->hasRepresentableSizes())
          return std::string(kSizesNotRepresentable);
        // A role the policy does not name is quantized as fprop (as
        // nvfp4-quantize-contractions does).
        recipe::Role role =
            parsePolicyRole(d.role).value_or(recipe::Role::Fprop);
        if (format == Format::NVFP4 && weightIndex >= 0) {
          // The weight's rows as stored: a run-time size cannot promise
          // whole 16x16 tiles.
          int64_t other = weightIndex == 0 ? info->m : info->n;
          bool runTime = ShapedType::isDynamic(other);
          if (recipe::quantization(role, recipe::OperandKind::Weight, policy,
                                   other)
                      .blockRows == kBlockSize &&
              (runTime || other % kBlockSize != 0))
            return llvm::formatv("16x16 weight needs {0}={1} to be a "
                                 "multiple of 16",
                                 weightIndex == 0 ? "M" : "N",
                                 runTime ? std::string("? (a run-time size)")
                                         : std::to_string(other));
        }
        // The size rules below apply to sizes known here (static or
        // hinted); the rest are left to run time.
        auto below = [](int64_t size, int64_t minimum) {
          return !ShapedType::isDynamic(size) && size < minimum;
        };
        bool sizesKnown = !llvm::is_contained(
            ArrayRef<int64_t>{d.batch, d.m, d.n, d.k}, ShapedType::kDynamic);
        if (gpuKernel && sizesKnown) {
          if (format != Format::NVFP4 &&
              *gpuKernel == GpuGemmKernel::Bf16MmaSync)
            return llvm::formatv("no {0} GEMM kernel for gpu-target={1}",
                                 stringifyFormat(format), gpuTarget.getValue());
          // A weight broadcast over the batch becomes one [B*M, K] GEMM
          // (nvfp4-quantize-contractions).
          bool flattened = info->batched && weightIndex == 1 &&
                           getBatchBroadcastSource(info->rhs());
          // The kernel sees K zero-padded to whole blocks
          // (nvfp4-quantize-contractions).
          const int64_t paddedK = llvm::alignTo(d.k, kBlockSize);
          std::string issue =
              flattened ? getGpuShapeIssue(1, d.batch * d.m, d.n, paddedK)
                        : getGpuShapeIssue(d.batch, d.m, d.n, paddedK);
          if (!issue.empty())
            return issue;
        }
        if (below(d.m, minM))
          return llvm::formatv("M={0} below min-m={1}", d.m, minM);
        if (below(d.n, minN))
          return llvm::formatv("N={0} below min-n={1}", d.n, minN);
        if (below(d.k, minK))
          return llvm::formatv("K={0} below min-k={1}", d.k, minK);
        if (d.flops && *d.flops < minFlops)
          return llvm::formatv("{0} FLOPs below min-flops={1}", *d.flops,
                               minFlops);
        return "";
      };
      // The first rung that takes the contraction; the reasons of the rungs
      // above it (named when the ladder has several) say why not those.
      SmallVector<std::string> skipped;
      for (Format format : ladder) {
        std::string why = rejection(format);
        if (why.empty()) {
          std::string reason =
              d.layer
                  ? llvm::formatv("{0} of layer {1}", d.role, *d.layer).str()
                  : d.role;
          if (!skipped.empty())
            reason += " (" + llvm::join(skipped, "; ") + ")";
          return {format, reason};
        }
        skipped.push_back(ladder.size() > 1
                              ? (stringifyFormat(format) + ": " + why).str()
                              : why);
      }
      return {std::nullopt, llvm::join(skipped, "; ")};
    };
    std::tie(d.format, d.reason) = decide();
    op->setAttr(NVFP4Dialect::kPrecisionAttrName,
                b.getStringAttr(d.getDecision()));
    if (remarks)
      op->emitRemark() << "nvfp4: " << d.getDecision() << ": " << d.reason;
    decisions.push_back(std::move(d));
  }
}

namespace {
/// FLOP and contraction counts over the decisions.
struct DecisionTotals {
  explicit DecisionTotals(ArrayRef<Decision> decisions) {
    for (const Decision &d : decisions) {
      const int64_t flops = d.flops.value_or(0);
      uncounted += !d.flops;
      total = addFlops(total, flops);
      auto &entry = byDecision[d.getDecision().str()];
      ++entry.first;
      entry.second = addFlops(entry.second, flops);
      if (!d.format)
        continue;
      ++quantizedCount;
      if (isFP4Format(*d.format)) {
        ++fp4Count;
        fp4Flops = addFlops(fp4Flops, flops);
      }
    }
  }
  /// `flops` as a percentage of all FLOPs, two decimals.
  std::string percent(int64_t flops) const {
    return llvm::formatv("{0:F2}", total ? 100.0 * flops / total : 0.0).str();
  }

  int64_t total = 0;
  /// Contractions in a 4-bit format (NVFP4, MXFP4) and their FLOPs.
  int64_t fp4Count = 0, fp4Flops = 0;
  /// Contractions in any block-scaled format.
  int64_t quantizedCount = 0;
  /// Contractions whose FLOPs are not counted: run-time sizes without a
  /// size hint.
  int64_t uncounted = 0;
  /// Decision -> (contractions, FLOPs), ordered by name.
  std::map<std::string, std::pair<int64_t, int64_t>> byDecision;
};
} // namespace

LogicalResult
NVFP4SelectPrecisionPass::writeReport(ArrayRef<Decision> decisions,
                                      StringRef path) {
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &error);
  if (!file) {
    getOperation()->emitError() << "nvfp4: cannot write the report: "
                                << error;
    return failure();
  }
  DecisionTotals totals(decisions);
  llvm::json::OStream j(file->os(), /*IndentSize=*/2);
  j.object([&] {
    j.attributeArray("contractions", [&] {
      for (const Decision &d : decisions) {
        j.object([&] {
          j.attribute("function", d.function);
          j.attribute("index", static_cast<int64_t>(d.index));
          j.attribute("location", d.location);
          j.attribute("op", d.opName);
          j.attribute("role", d.role.empty() ? llvm::json::Value(nullptr)
                                             : llvm::json::Value(d.role));
          j.attribute("layer", d.layer ? llvm::json::Value(*d.layer)
                                       : llvm::json::Value(nullptr));
          j.attribute("kinds", d.kinds.empty() ? llvm::json::Value(nullptr)
                                               : llvm::json::Value(d.kinds));
          // A run-time size without a hint is null.
          auto size = [](int64_t value) {
            return ShapedType::isDynamic(value) ? llvm::json::Value(nullptr)
                                                : llvm::json::Value(value);
          };
          j.attribute("batch", size(d.batch));
          j.attribute("m", size(d.m));
          j.attribute("n", size(d.n));
          j.attribute("k", size(d.k));
          j.attribute("flops", d.flops ? llvm::json::Value(*d.flops)
                                       : llvm::json::Value(nullptr));
          if (!d.flopsExpression.empty())
            j.attribute("flops_expression", d.flopsExpression);
          j.attribute("decision", d.getDecision());
          j.attribute("reason", d.reason);
        });
      }
    });
    j.attributeObject("summary", [&] {
      j.attribute("contractions", static_cast<int64_t>(decisions.size()));
      j.attribute("fp4", totals.fp4Count);
      j.attribute("high", static_cast<int64_t>(decisions.size()) -
                              totals.quantizedCount);
      j.attribute("flops", totals.total);
      if (totals.uncounted)
        j.attribute("contractions_without_flops", totals.uncounted);
      j.attribute("fp4_flops", totals.fp4Flops);
      j.attribute("fp4_flop_percent", totals.percent(totals.fp4Flops));
      // Each decision taken: contractions, FLOPs and their share.
      j.attributeObject("decisions", [&] {
        for (const auto &[name, entry] : totals.byDecision)
          j.attributeObject(name, [&] {
            j.attribute("contractions", entry.first);
            j.attribute("flops", entry.second);
            j.attribute("flop_percent", totals.percent(entry.second));
          });
      });
    });
  });
  file->os() << "\n";
  file->keep();
  return success();
}

void NVFP4SelectPrecisionPass::printSummary(ArrayRef<Decision> decisions) {
  llvm::raw_ostream &os = llvm::errs();
  DecisionTotals totals(decisions);
  os << "nvfp4 recipe: " << totals.fp4Count << " of " << decisions.size()
     << " contractions in FP4, " << totals.percent(totals.fp4Flops) << "% of "
     << llvm::formatv("{0:E3}", static_cast<double>(totals.total))
     << " FLOPs\n";
  if (totals.uncounted)
    os << "  " << totals.uncounted
       << " contractions of run-time sizes without a size hint are not in "
          "the FLOPs (size-hint=N or SYMBOL=N counts them)\n";
  // With a ladder, the share of each rung.
  if (ladder.size() > 1 || ladder.front() != Format::NVFP4)
    for (const auto &[name, entry] : totals.byDecision)
      os << llvm::formatv("  {0,-10} {1,5} contractions, {2,6}% of FLOPs\n",
                          name, entry.first, totals.percent(entry.second));
  os << llvm::formatv("{0,-14} {1,5} {2,-6} {3,5} {4,-20} {5,-10} {6}\n",
                      "function", "#", "role", "layer", "BxMxNxK", "prec",
                      "reason");
  for (const Decision &d : decisions) {
    auto size = [](int64_t value) {
      return ShapedType::isDynamic(value) ? std::string("?")
                                          : std::to_string(value);
    };
    std::string shape = llvm::formatv("{0}x{1}x{2}x{3}", size(d.batch),
                                      size(d.m), size(d.n), size(d.k));
    os << llvm::formatv("{0,-14} {1,5} {2,-6} {3,5} {4,-20} {5,-10} {6}\n",
                        d.function, d.index, d.role.empty() ? "-" : d.role,
                        d.layer ? std::to_string(*d.layer) : "-", shape,
                        d.getDecision(), d.reason);
  }
}

LogicalResult NVFP4SelectPrecisionPass::parseLadder() {
  auto fail = [&](const Twine &message) {
    getOperation().emitError() << "nvfp4-select-precision: " << message;
    return failure();
  };
  std::optional<Format> single = parseLadderFormat(format);
  if (!single || (*single != Format::NVFP4 && *single != Format::MXFP4))
    return fail("format='" + format + "' is not an FP4 format (nvfp4, mxfp4)");
  if (formats.empty()) {
    ladder = {*single};
    return success();
  }
  if (*single != Format::NVFP4)
    return fail("give format or formats, not both");
  for (auto [i, name] : llvm::enumerate(formats)) {
    if (name == "bf16" || name == "high") {
      if (i + 1 != formats.size())
        return fail("'" + name + "' ends the formats ladder; '" +
                    formats[i + 1] + "' follows it");
      break;
    }
    std::optional<Format> rung = parseLadderFormat(name);
    if (!rung)
      return fail("unknown format '" + name +
                  "' in formats (nvfp4, mxfp4, mxfp8_e4m3 or mxfp8, "
                  "mxfp8_e5m2, then bf16)");
    if (llvm::is_contained(ladder, *rung))
      return fail("format '" + name + "' appears twice in formats");
    ladder.push_back(*rung);
  }
  if (ladder.empty())
    return fail("formats names no block-scaled format");
  return success();
}

void NVFP4SelectPrecisionPass::runOnOperation() {
  if (failed(parseLadder()))
    return signalPassFailure();
  std::string hintError;
  FailureOr<SizeHints> parsedHints = SizeHints::parse(sizeHints, hintError);
  if (failed(parsedHints)) {
    getOperation().emitError() << "nvfp4-select-precision: " << hintError;
    return signalPassFailure();
  }
  hints = std::move(*parsedHints);
  if (!gpuTarget.empty()) {
    gpuKernel = parseGpuTarget(gpuTarget);
    if (!gpuKernel) {
      getOperation().emitError()
          << "nvfp4-select-precision: unknown gpu-target '" << gpuTarget
          << "' (supported: sm_100a, sm_103a, sm_110a, sm_120a, sm_121a, "
             "sm_90a)";
      return signalPassFailure();
    }
  }
  // IREE's input-phase entry points hide their contractions from the
  // recipe, which only reads func.func: a report of 0 contractions would
  // look like a model without any.
  WalkResult ireeABI = getOperation().walk([](Operation *op) {
    StringRef name = op->getName().getStringRef();
    return name == "util.func" || name == "hal.tensor.import" ||
                   name == "hal.tensor.export"
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (ireeABI.wasInterrupted()) {
    getOperation().emitError()
        << "nvfp4-select-precision: the module holds IREE input-phase "
           "functions (util.func with the hal.buffer_view ABI), whose "
           "contractions the recipe does not see; run "
           "--nvfp4-import-iree-input first";
    return signalPassFailure();
  }
  std::vector<Decision> decisions;
  getOperation().walk(
      [&](func::FuncOp func) { selectInFunction(func, decisions); });
  std::string path = reportFile;
  if (path.empty())
    path = getRecipeReportCLPath();
  if (!path.empty() && failed(writeReport(decisions, path)))
    return signalPassFailure();
  if (summary)
    printSummary(decisions);
}
