//===- InferRoles.cpp - Roles, operand kinds and layers of contractions ---===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Finds, for every linalg contraction of a function, whether it is a forward
// (fprop), data-gradient (dgrad) or weight-gradient (wgrad) GEMM, the kinds
// of its operands and the layer it belongs to, from frontend annotations or
// from the structure of the graph (docs/recipe.md lists the rules).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/Dialect/NVFP4/Transforms/RecipeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4INFERROLES
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// What the pass knows about one contraction.
struct Contraction {
  ContractionInfo info;
  /// Operands with transposes and token-flattening reshapes looked through
  /// (`stripViews`); a B operand broadcast over the batch is its matrix
  /// (`getBatchBroadcastSource`, then `stripTransposes`).
  Value lhs, rhs;
  /// The B operand is a matrix broadcast over the batch.
  bool rhsBroadcast = false;
  /// The lhs as stored is contracted over its leading (token) dimension.
  bool lhsContractsLeading = false;
  /// The rhs as stored (after `rhs`'s views) is contracted over its leading
  /// dimension.
  bool rhsContractsLeading = false;
  /// Index of the weight operand, -1 if none.
  int weightIndex = -1;
  StringRef role;
  std::array<TensorKind, 2> kinds = {TensorKind::Unknown, TensorKind::Unknown};
  std::optional<int64_t> layer;
  bool undetermined = false;

  Value operand(int i) const { return i == 0 ? lhs : rhs; }
  Value weight() const { return weightIndex < 0 ? Value() : operand(weightIndex); }
  /// Whether the weight, a matrix, is contracted over its leading dimension
  /// as stored; std::nullopt without a matrix weight.
  std::optional<bool> weightContractsLeading() const {
    auto type = weightIndex < 0 ? nullptr
                                : dyn_cast<RankedTensorType>(weight().getType());
    if (!type || type.getRank() != 2)
      return std::nullopt;
    return weightIndex == 0 ? lhsContractsLeading : rhsContractsLeading;
  }
};

/// Whether a function argument's name (a NameLoc) mentions a gradient.
static bool isNamedGradient(BlockArgument arg) {
  auto name = dyn_cast<NameLoc>(arg.getLoc());
  return name && StringRef(name.getName().getValue()).contains_insensitive("grad");
}

/// Whether a function argument's name (a NameLoc) mentions a weight.
static bool isNamedWeight(BlockArgument arg) {
  auto name = dyn_cast<NameLoc>(arg.getLoc());
  return name &&
         StringRef(name.getName().getValue()).contains_insensitive("weight");
}

/// What `value` holds the data of: element-type conversions, casts,
/// reshapes, transposes and broadcasts (up to 16 of them) looked through.
static Value getDataSource(Value value) {
  for (int depth = 0; depth < 16; ++depth) {
    Operation *def = value.getDefiningOp();
    if (def &&
        isa<arith::ExtFOp, arith::TruncFOp, arith::BitcastOp, tensor::CastOp,
            tensor::ExpandShapeOp, tensor::CollapseShapeOp, linalg::TransposeOp,
            linalg::BroadcastOp>(def)) {
      value = def->getOperand(0);
      continue;
    }
    // A broadcast written as a linalg.generic copy.
    if (Value source = getBatchBroadcastSource(value)) {
      value = source;
      continue;
    }
    break;
  }
  return value;
}

/// Whether `value` (an operand with views stripped) holds a constant: an
/// `arith.constant` or other constant-like op (dense, splat,
/// `dense_resource` and elided values alike) or a load of a constant
/// global (`ml_program.global_load_const`, IREE's `util.global.load`).
static bool isConstantOperand(Value value) {
  Operation *def = getDataSource(value).getDefiningOp();
  if (!def)
    return false;
  StringRef name = def->getName().getStringRef();
  return def->hasTrait<OpTrait::ConstantLike>() ||
         name == "ml_program.global_load_const" || name == "util.global.load";
}

/// Whether `value` (an operand with views stripped) dequantizes a weight
/// another tool quantized: an NVFP4 tensor with a decode scale (a
/// checkpoint's `weight`, `weight_scale` and `weight_scale_2`) or an MX
/// tensor assembled from its components (an MXFP4 checkpoint's blocks and
/// E8M0 scales).
static bool isDequantizedCheckpoint(Value value) {
  auto dequantize = getDataSource(value).getDefiningOp<DequantizeOp>();
  if (!dequantize)
    return false;
  NVFP4TensorType type = dequantize.getInput().getType();
  return type.hasDecodeScale() ||
         (!type.isNVFP4() && dequantize.getInput().getDefiningOp<AssembleOp>());
}

struct NVFP4InferRolesPass
    : public nvfp4::impl::NVFP4InferRolesBase<NVFP4InferRolesPass> {
  using Base::Base;
  void runOnOperation() override;
};

} // namespace

/// Every value computed, within the function, from `seeds`.
static llvm::DenseSet<Value> forwardClosure(ArrayRef<Value> seeds) {
  llvm::DenseSet<Value> closure;
  SmallVector<Value> worklist;
  for (Value seed : seeds)
    if (closure.insert(seed).second)
      worklist.push_back(seed);
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      // Users nested in a region count through the op holding the region.
      while (user->getParentOp() &&
             !isa<FunctionOpInterface>(user->getParentOp()))
        user = user->getParentOp();
      for (Value result : user->getResults())
        if (closure.insert(result).second)
          worklist.push_back(result);
    }
  }
  return closure;
}

/// The contractions (in `byOp`) reached from the results of `root` through
/// ops other than contractions.
static SmallVector<Operation *>
nextContractions(Operation *root,
                 const llvm::DenseMap<Operation *, unsigned> &byOp) {
  SmallVector<Operation *> found;
  llvm::DenseSet<Operation *> seen;
  SmallVector<Operation *> worklist = {root};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value result : op->getResults()) {
      for (Operation *user : result.getUsers()) {
        while (user->getParentOp() &&
               !isa<FunctionOpInterface>(user->getParentOp()))
          user = user->getParentOp();
        if (!seen.insert(user).second)
          continue;
        if (byOp.count(user))
          found.push_back(user);
        else
          worklist.push_back(user);
      }
    }
  }
  return found;
}

/// The top-level op of `func` holding `op` (itself when top-level).
static Operation *getTopLevelOp(Operation *op) {
  while (op->getParentOp() && !isa<FunctionOpInterface>(op->getParentOp()))
    op = op->getParentOp();
  return op;
}

/// Which of the contractions `candidates` (indices into `cs`, each with a
/// weight operand) depend, through the function's data flow, on another
/// contraction with the same weight. One pass over the function in order
/// (a top-level op is one node, its nested ops' uses of outer values its
/// inputs) propagates, per value, the set of weights whose contractions it
/// depends on, as a bit vector over the weights used by two or more
/// contractions: O(ops x those weights / 64), where a backward slice per
/// contraction was quadratic in the size of the function.
static llvm::DenseSet<unsigned>
dependOnSameWeight(func::FuncOp func, ArrayRef<Contraction> cs,
                   ArrayRef<unsigned> candidates) {
  llvm::DenseSet<unsigned> dependent;
  // Bits: weights with two or more contractions (only those can depend on
  // themselves).
  llvm::DenseMap<Value, unsigned> uses;
  for (const Contraction &c : cs)
    if (c.weightIndex >= 0)
      ++uses[c.weight()];
  llvm::DenseMap<Value, unsigned> bitOfWeight;
  for (const Contraction &c : cs)
    if (c.weightIndex >= 0 && uses[c.weight()] >= 2)
      bitOfWeight.try_emplace(c.weight(), bitOfWeight.size());
  if (bitOfWeight.empty())
    return dependent;
  // The contractions with a tracked weight, by top-level op.
  llvm::DenseMap<Operation *, SmallVector<unsigned>> byTopLevel;
  for (auto [i, c] : llvm::enumerate(cs))
    if (c.weightIndex >= 0 && bitOfWeight.count(c.weight()))
      byTopLevel[getTopLevelOp(c.info.op)].push_back(i);
  llvm::DenseSet<unsigned> isCandidate(candidates.begin(), candidates.end());

  const unsigned numBits = bitOfWeight.size();
  llvm::DenseMap<Value, llvm::BitVector> reached;
  for (Operation &op : func.getBody().getOps()) {
    // The weights this op's inputs depend on.
    llvm::BitVector inputs(numBits);
    auto addInput = [&](Value value) {
      auto it = reached.find(value);
      if (it != reached.end())
        inputs |= it->second;
    };
    for (Value operand : op.getOperands())
      addInput(operand);
    op.walk([&](Operation *nested) {
      if (nested == &op)
        return;
      for (Value operand : nested->getOperands())
        if (!op.isAncestor(operand.getParentRegion()->getParentOp()))
          addInput(operand);
    });
    llvm::BitVector outputs = inputs;
    auto contractions = byTopLevel.find(&op);
    if (contractions != byTopLevel.end()) {
      for (unsigned i : contractions->second) {
        unsigned bit = bitOfWeight.lookup(cs[i].weight());
        if (isCandidate.contains(i) && inputs.test(bit))
          dependent.insert(i);
        outputs.set(bit);
      }
    }
    if (outputs.none())
      continue;
    for (Value result : op.getResults())
      reached[result] = outputs;
  }
  return dependent;
}

void NVFP4InferRolesPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;

  // Contractions in IR order.
  SmallVector<Contraction> cs;
  llvm::DenseMap<Operation *, unsigned> byOp;
  func.walk([&](linalg::LinalgOp op) {
    if (!isLinalgContraction(op))
      return;
    std::string reason;
    FailureOr<ContractionInfo> info = analyzeContraction(op, reason);
    if (failed(info)) {
      if (getRole(op).empty())
        op->emitRemark() << "nvfp4: role not determined: " << reason;
      return;
    }
    Contraction c;
    c.info = *info;
    bool lhsSwapped = false, rhsSwapped = false;
    c.lhs = stripViews(info->lhs(), &lhsSwapped);
    c.rhs = stripViews(info->rhs(), &rhsSwapped);
    if (Value matrix = getBatchBroadcastSource(info->rhs())) {
      rhsSwapped = false;
      c.rhs = stripTransposes(matrix, &rhsSwapped);
      c.rhsBroadcast = true;
    }
    c.lhsContractsLeading = info->lhsKOuter != lhsSwapped;
    c.rhsContractsLeading = info->rhsKOuter != rhsSwapped;
    c.role = getRole(op);
    c.layer = getLayer(op);
    if (auto kinds = getOperandKinds(op))
      c.kinds = *kinds;
    byOp[op] = cs.size();
    cs.push_back(c);
  });
  if (cs.empty())
    return;

  // Kinds of the function arguments.
  Block &entry = func.getBody().front();
  SmallVector<Value> gradientSeeds;
  llvm::SetVector<Value> weights;
  llvm::DenseSet<Value> annotatedArgs;
  for (BlockArgument arg : entry.getArguments()) {
    TensorKind kind = getArgumentKind(arg);
    if (kind != TensorKind::Unknown)
      annotatedArgs.insert(arg);
    if (kind == TensorKind::Weight)
      weights.insert(arg);
    if (kind == TensorKind::Gradient ||
        (kind == TensorKind::Unknown && !inference && isNamedGradient(arg)))
      gradientSeeds.push_back(arg);
  }
  // Frontend operand kinds name weights too.
  for (Contraction &c : cs)
    for (int i = 0; i < 2; ++i)
      if (c.kinds[i] == TensorKind::Weight)
        weights.insert(c.operand(i));
  // Weights that arrive quantized (a checkpoint's, dequantized for the
  // high-precision graph).
  for (Contraction &c : cs)
    for (int i = 0; i < 2; ++i)
      if (c.kinds[i] == TensorKind::Unknown &&
          isDequantizedCheckpoint(c.operand(i)))
        weights.insert(c.operand(i));
  // Constants and arguments named as weights (inference graphs from
  // importers keep their weights as constants).
  if (constantWeights) {
    for (Contraction &c : cs)
      for (int i = 0; i < 2; ++i)
        if (c.kinds[i] == TensorKind::Unknown && isConstantOperand(c.operand(i)))
          weights.insert(c.operand(i));
    for (BlockArgument arg : entry.getArguments())
      if (!annotatedArgs.contains(arg) && isNamedWeight(arg))
        weights.insert(arg);
  }
  // Weights: unannotated arguments used as the B operand of a non-batched
  // contraction, or broadcast over the batch as the B operand of a batched
  // one, whose A operand is not contracted over its token dimension.
  for (Contraction &c : cs) {
    if ((c.info.batched && !c.rhsBroadcast) || c.lhsContractsLeading)
      continue;
    // A matrix argument: a flattened higher-rank argument is data.
    auto arg = dyn_cast<BlockArgument>(c.rhs);
    auto type = arg ? dyn_cast<RankedTensorType>(arg.getType()) : nullptr;
    if (arg && arg.getOwner() == &entry && type && type.getRank() == 2 &&
        !annotatedArgs.contains(arg) && (inference || !isNamedGradient(arg)))
      weights.insert(arg);
  }

  // Weight operands; fprop vs dgrad of contractions with a weight.
  for (Contraction &c : cs) {
    bool lhsWeight = weights.contains(c.lhs), rhsWeight = weights.contains(c.rhs);
    if (c.kinds[0] == TensorKind::Weight || c.kinds[1] == TensorKind::Weight) {
      c.weightIndex = c.kinds[0] == TensorKind::Weight ? 0 : 1;
    } else if (lhsWeight && rhsWeight) {
      c.undetermined = true;
      if (c.role.empty())
        c.info.op->emitRemark()
            << "nvfp4: role not determined: both operands are weights";
    } else if (lhsWeight || rhsWeight) {
      c.weightIndex = rhsWeight ? 1 : 0;
    }
  }
  // Values computed from gradient arguments.
  llvm::DenseSet<Value> argGradients = forwardClosure(gradientSeeds);
  SmallVector<unsigned> undecided;
  for (auto [i, c] : llvm::enumerate(cs)) {
    if (c.weightIndex < 0 || !c.role.empty())
      continue;
    if (argGradients.contains(c.operand(1 - c.weightIndex)))
      c.role = "dgrad";
    else
      undecided.push_back(i);
  }
  // The others: a dgrad depends on another contraction with the same weight
  // (its fprop), an fprop does not. An inference graph has no dgrad: a
  // weight used twice in a chain (tied embeddings, layers sharing weights)
  // is two forward uses.
  llvm::DenseSet<unsigned> dependent;
  if (!inference)
    dependent = dependOnSameWeight(func, cs, undecided);
  // A dgrad also contracts the weight over the other dimension than its
  // forward use does (Y = X W^T contracts W's input dimension, dX = dY W its
  // output dimension): in the last layer of a graph whose upstream gradient
  // is an argument, the dgrads depend on no forward use of their weight.
  // The forward use is the weight's first contraction in IR order that is
  // not already a dgrad.
  llvm::DenseMap<Value, bool> forwardContractsLeading;
  for (auto [i, c] : llvm::enumerate(cs)) {
    std::optional<bool> leading = c.weightContractsLeading();
    if (leading && (c.role == "fprop" ||
                    (c.role.empty() && !dependent.contains(i))))
      forwardContractsLeading.try_emplace(c.weight(), *leading);
  }
  for (unsigned i : undecided) {
    Contraction &c = cs[i];
    std::optional<bool> leading = c.weightContractsLeading();
    auto forward = forwardContractsLeading.find(c.weight());
    bool otherDimension = !inference && leading &&
                          forward != forwardContractsLeading.end() &&
                          forward->second != *leading;
    c.role = dependent.contains(i) || otherDimension ? "dgrad" : "fprop";
  }

  // Gradients: seeds, non-weight operands of dgrads, and what they compute.
  for (Contraction &c : cs) {
    if (c.role != "dgrad")
      continue;
    for (int i = 0; i < 2; ++i) {
      bool unannotated = c.kinds[i] == TensorKind::Unknown &&
                         getArgumentKind(c.operand(i)) == TensorKind::Unknown;
      if (i != c.weightIndex && (c.kinds[i] == TensorKind::Gradient ||
                                 (c.weightIndex >= 0 && unannotated)))
        gradientSeeds.push_back(c.operand(i));
    }
  }
  llvm::DenseSet<Value> gradients = forwardClosure(gradientSeeds);

  // Roles and kinds of the others.
  for (Contraction &c : cs) {
    if (c.undetermined)
      continue;
    bool known = c.kinds[0] != TensorKind::Unknown &&
                 c.kinds[1] != TensorKind::Unknown;
    if (c.weightIndex >= 0) {
      if (!known) {
        int other = 1 - c.weightIndex;
        c.kinds[c.weightIndex] = TensorKind::Weight;
        c.kinds[other] = (c.role == "dgrad" || gradients.contains(c.operand(other)))
                             ? TensorKind::Gradient
                             : TensorKind::Activation;
      }
      continue;
    }
    bool lhsGrad = c.kinds[0] == TensorKind::Gradient ||
                   (!known && gradients.contains(c.lhs));
    bool rhsGrad = c.kinds[1] == TensorKind::Gradient ||
                   (!known && gradients.contains(c.rhs));
    if (lhsGrad && rhsGrad) {
      if (c.role.empty()) {
        c.undetermined = true;
        c.info.op->emitRemark()
            << "nvfp4: role not determined: both operands are gradients";
      }
      continue;
    }
    if (c.role.empty())
      c.role = !(lhsGrad || rhsGrad)  ? "fprop"
               : c.lhsContractsLeading ? "wgrad"
                                       : "dgrad";
    if (!known) {
      c.kinds[0] = lhsGrad ? TensorKind::Gradient : TensorKind::Activation;
      c.kinds[1] = rhsGrad ? TensorKind::Gradient : TensorKind::Activation;
      // A wgrad without known gradient operand: the usual X^T dY form.
      if (c.role == "wgrad" && !lhsGrad && !rhsGrad)
        c.kinds[1] = TensorKind::Gradient;
    }
  }

  // Layers of the weights, in order of their first forward use.
  SmallVector<Value> weightOrder;
  llvm::DenseMap<Value, unsigned> firstFprop;
  for (auto [i, c] : llvm::enumerate(cs)) {
    if (c.weightIndex < 0 || c.role != "fprop" || firstFprop.count(c.weight()))
      continue;
    firstFprop[c.weight()] = i;
    weightOrder.push_back(c.weight());
  }
  // Attention: a forward contraction of two run-time activations, batched
  // over the heads or one 2-D matmul per head (a linear layer, even with a
  // weight broadcast over the batch, has a weight operand).
  auto isAttention = [&](unsigned i) {
    return cs[i].weightIndex < 0 && !cs[i].undetermined &&
           cs[i].role == "fprop";
  };
  SmallVector<bool> feedsAttention;
  bool anyAttention = false;
  for (Value w : weightOrder) {
    bool feeds = llvm::any_of(
        nextContractions(cs[firstFprop[w]].info.op, byOp),
        [&](Operation *op) { return isAttention(byOp[op]); });
    feedsAttention.push_back(feeds);
    anyAttention |= feeds;
  }
  llvm::DenseMap<Value, int64_t> weightLayer;
  int64_t layer = 0;
  bool opened = false, previousFeeds = false, inferred = false;
  Value previousInput;
  for (auto [i, w] : llvm::enumerate(weightOrder)) {
    const Contraction &fprop = cs[firstFprop[w]];
    if (anyAttention) {
      if (feedsAttention[i] && !previousFeeds && opened)
        ++layer;
      opened |= feedsAttention[i];
      previousFeeds = feedsAttention[i];
    } else {
      Value input = fprop.operand(1 - fprop.weightIndex);
      if (i > 0 && input != previousInput)
        ++layer;
      previousInput = input;
    }
    inferred |= !fprop.layer;
    weightLayer[w] = fprop.layer ? *fprop.layer : layer;
  }
  // Without attention, a layer starts wherever the linear layers' input
  // changes: a block of several linears in sequence (an MLP, a bottleneck)
  // becomes several layers, and keep-first / keep-last count those.
  // At the function's location, without the function attached.
  if (!anyAttention && inferred && layer > 0)
    emitWarning(func.getLoc())
        << "nvfp4: " << layer + 1
        << " layers inferred without attention (a layer starts where the "
           "linear layers' input changes); annotate nvfp4.layer if these "
           "are not the model's blocks";

  for (Contraction &c : cs)
    if (!c.layer && c.weightIndex >= 0 && weightLayer.count(c.weight()))
      c.layer = weightLayer[c.weight()];
  // wgrad: the layer of the weight whose dgrad shares the gradient operand,
  // else of the fprop sharing the activation operand and the weight's shape
  // (the first such contraction in IR order; looked up by operand, so that
  // the pass stays linear in the number of contractions).
  llvm::DenseMap<Value, int64_t> dgradLayerByGradient;
  llvm::DenseMap<Value, SmallVector<const Contraction *>> fpropsByActivation;
  for (const Contraction &o : cs) {
    if (o.weightIndex < 0 || !o.layer)
      continue;
    Value data = o.operand(1 - o.weightIndex);
    if (o.role == "dgrad")
      dgradLayerByGradient.try_emplace(data, *o.layer);
    else if (o.role == "fprop")
      fpropsByActivation[data].push_back(&o);
  }
  for (Contraction &c : cs) {
    if (c.layer || c.role != "wgrad" || c.weightIndex >= 0)
      continue;
    int gradIndex = c.kinds[0] == TensorKind::Gradient ? 0 : 1;
    Value grad = c.operand(gradIndex), act = c.operand(1 - gradIndex);
    auto dgradLayer = dgradLayerByGradient.find(grad);
    if (dgradLayer != dgradLayerByGradient.end()) {
      c.layer = dgradLayer->second;
      continue;
    }
    auto resultType = cast<ShapedType>(c.info.op->getResult(0).getType());
    for (const Contraction *fprop : fpropsByActivation.lookup(act)) {
      const Contraction &o = *fprop;
      auto weightShape = cast<ShapedType>(o.weight().getType()).getShape();
      SmallVector<int64_t> transposed(llvm::reverse(weightShape));
      if (resultType.getShape() == weightShape ||
          resultType.getShape() == ArrayRef<int64_t>(transposed)) {
        c.layer = o.layer;
        break;
      }
    }
  }
  // The rest: the layer of the nearest preceding contraction with one
  // (else the nearest following).
  std::optional<int64_t> lastLayer;
  for (Contraction &c : cs) {
    if (c.weightIndex >= 0 && c.layer)
      lastLayer = c.layer;
    else if (!c.layer && c.weightIndex < 0)
      c.layer = lastLayer;
  }
  std::optional<int64_t> nextLayer;
  for (Contraction &c : llvm::reverse(cs)) {
    if (c.layer)
      nextLayer = c.layer;
    else if (!c.undetermined)
      c.layer = nextLayer;
  }

  // Annotate; frontend attributes are kept.
  Builder b(&getContext());
  for (Contraction &c : cs) {
    if (c.undetermined)
      continue;
    Operation *op = c.info.op;
    if (!op->hasAttr(NVFP4Dialect::kRoleAttrName))
      op->setAttr(NVFP4Dialect::kRoleAttrName, b.getStringAttr(c.role));
    if (!getOperandKinds(op))
      setOperandKinds(op, c.kinds);
    if (!op->hasAttr(NVFP4Dialect::kLayerAttrName) && c.layer)
      op->setAttr(NVFP4Dialect::kLayerAttrName, b.getI64IntegerAttr(*c.layer));
  }
}
