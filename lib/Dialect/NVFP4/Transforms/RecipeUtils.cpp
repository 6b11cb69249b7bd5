//===- RecipeUtils.cpp - Contraction analysis of the recipe ---------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/RecipeUtils.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::nvfp4;

bool nvfp4::isLinalgContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.getNumDpsInputs() != 2 ||
      linalgOp.getNumDpsInits() != 1 || !linalgOp.hasPureTensorSemantics())
    return false;
  return linalg::isaContractionOpInterface(linalgOp);
}

/// Whether `op`'s body yields `acc + (a * b)` (pooling ops, which the
/// convolution interface also matches, yield a max or a plain sum).
static bool hasMultiplyAccumulateBody(linalg::LinalgOp op) {
  Operation *terminator = op.getBlock()->getTerminator();
  if (terminator->getNumOperands() != 1)
    return false;
  Operation *add = terminator->getOperand(0).getDefiningOp();
  if (!isa_and_nonnull<arith::AddFOp, arith::AddIOp>(add))
    return false;
  return llvm::any_of(add->getOperands(), [](Value v) {
    return isa_and_nonnull<arith::MulFOp, arith::MulIOp>(v.getDefiningOp());
  });
}

bool nvfp4::isContractionLike(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         (linalg::isaContractionOpInterface(linalgOp) ||
          (linalg::isaConvolutionOpInterface(linalgOp) &&
           hasMultiplyAccumulateBody(linalgOp)));
}

FailureOr<SizeHints> SizeHints::parse(ArrayRef<std::string> entries,
                                      std::string &error) {
  SizeHints hints;
  for (const std::string &entry : entries) {
    auto [symbol, size] = StringRef(entry).rsplit('=');
    if (size.empty())
      std::swap(symbol, size);
    int64_t value;
    if (size.trim().getAsInteger(10, value) || value < 1 ||
        (entry.find('=') != std::string::npos && symbol.trim().empty())) {
      error = "size-hint entry '" + entry +
              "' is not SYMBOL=N or N with N >= 1";
      return failure();
    }
    if (symbol.empty())
      hints.all = value;
    else
      hints.bySymbol[symbol.trim()] = value;
  }
  return hints;
}

std::optional<int64_t> SizeHints::lookup(StringRef symbol) const {
  auto it = bySymbol.find(symbol);
  if (it != bySymbol.end())
    return it->second;
  return all;
}

/// The symbol of the run-time size `size` (an index value): that of the
/// tensor dimension it reads, through casts.
static std::string getSizeValueSymbol(Value size, int depth);

/// The symbol of dimension `dim` of the ranked tensor `value`
/// (getDynamicSizeSymbol).
static std::string getTensorDimSymbol(Value value, int64_t dim, int depth) {
  for (; depth < 64; ++depth) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || dim >= type.getRank())
      return "?";
    // A cast can make a run-time size static.
    if (!type.isDynamicDim(dim))
      return std::to_string(type.getDimSize(dim));
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
      if (!func || arg.getOwner() != &func.getFunctionBody().front())
        return "?";
      std::string name = "arg" + std::to_string(arg.getArgNumber());
      if (auto named = dyn_cast<NameLoc>(arg.getLoc()))
        name = named.getName().getValue().str();
      return name + "." + std::to_string(dim);
    }
    Operation *def = value.getDefiningOp();
    if (!def)
      return "?";
    if (auto empty = dyn_cast<tensor::EmptyOp>(def))
      return getSizeValueSymbol(empty.getDynamicSize(dim), depth + 1);
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
      OpFoldResult size = expand.getMixedOutputShape()[dim];
      auto sizeValue = dyn_cast<Value>(size);
      return sizeValue ? getSizeValueSymbol(sizeValue, depth + 1) : "?";
    }
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
      // A merged dimension is a product: only a group of one keeps a name.
      ReassociationIndices group = collapse.getReassociationIndices()[dim];
      if (group.size() != 1)
        return "?";
      value = collapse.getSrc();
      dim = group.front();
      continue;
    }
    if (isa<tensor::CastOp>(def) ||
        (def->hasTrait<OpTrait::Elementwise>() && def->getNumOperands() > 0)) {
      value = def->getOperand(0);
      continue;
    }
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(def)) {
      // A result has the shape of its init.
      value = dps.getDpsInitOperand(cast<OpResult>(value).getResultNumber())
                  ->get();
      continue;
    }
    return "?";
  }
  return "?";
}

static std::string getSizeValueSymbol(Value size, int depth) {
  for (; depth < 64; ++depth) {
    Operation *def = size.getDefiningOp();
    if (isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp>(def)) {
      size = def->getOperand(0);
      continue;
    }
    auto dimOp = dyn_cast_or_null<tensor::DimOp>(def);
    std::optional<int64_t> index =
        dimOp ? dimOp.getConstantIndex() : std::nullopt;
    if (!index)
      return "?";
    return getTensorDimSymbol(dimOp.getSource(), *index, depth + 1);
  }
  return "?";
}

std::string nvfp4::getDynamicSizeSymbol(linalg::LinalgOp op,
                                        unsigned loopDim) {
  // The first operand dimension the loop dimension indexes, inputs first.
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      auto d = dyn_cast<AffineDimExpr>(expr);
      if (d && d.getPosition() == loopDim && type.isDynamicDim(i))
        return getTensorDimSymbol(operand.get(), i, /*depth=*/0);
    }
  }
  return "?";
}

std::optional<int64_t> nvfp4::resolveLoopSize(linalg::LinalgOp op,
                                              unsigned loopDim, int64_t range,
                                              const SizeHints &hints) {
  if (!ShapedType::isDynamic(range))
    return range;
  return hints.lookup(getDynamicSizeSymbol(op, loopDim));
}

std::optional<int64_t> nvfp4::loopNestFlops(linalg::LinalgOp op,
                                            const SizeHints &hints) {
  int64_t flops = 2;
  for (auto [dim, range] : llvm::enumerate(op.getStaticLoopRanges())) {
    std::optional<int64_t> size = resolveLoopSize(op, dim, range, hints);
    if (!size)
      return std::nullopt;
    if (llvm::MulOverflow(flops, *size, flops))
      return std::numeric_limits<int64_t>::max();
  }
  return flops;
}

std::string nvfp4::loopNestFlopsExpression(linalg::LinalgOp op) {
  int64_t factor = 2;
  SmallVector<std::string> symbols;
  bool saturated = false;
  for (auto [dim, range] : llvm::enumerate(op.getStaticLoopRanges())) {
    if (ShapedType::isDynamic(range))
      symbols.push_back(getDynamicSizeSymbol(op, dim));
    else
      saturated |= llvm::MulOverflow(factor, range, factor);
  }
  if (saturated)
    factor = std::numeric_limits<int64_t>::max();
  std::string expression = std::to_string(factor);
  for (const std::string &symbol : symbols)
    expression += "*" + symbol;
  return expression;
}

/// Position of loop dimension `dim` among the results of `map`, or -1.
static int64_t positionOf(AffineMap map, unsigned dim) {
  for (auto [i, expr] : llvm::enumerate(map.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(expr); d && d.getPosition() == dim)
      return i;
  return -1;
}

/// Whether `map` reads exactly the loop dimensions `dims`, batch first.
static bool readsExactly(AffineMap map, ArrayRef<unsigned> dims,
                         bool batched) {
  if (map.getNumResults() != dims.size() || !map.isProjectedPermutation())
    return false;
  for (unsigned dim : dims)
    if (positionOf(map, dim) < 0)
      return false;
  return !batched || positionOf(map, dims.front()) == 0;
}

FailureOr<ContractionInfo>
nvfp4::analyzeContraction(linalg::LinalgOp op, std::string &reason) {
  if (!isLinalgContraction(op)) {
    reason = "not a multiply-accumulate contraction on tensors";
    return failure();
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims)) {
    reason = "contraction dimensions cannot be inferred";
    return failure();
  }
  if (dims->m.size() != 1 || dims->n.size() != 1 || dims->k.size() != 1 ||
      dims->batch.size() > 1) {
    reason = "needs exactly one M, N and K dimension and at most one batch "
             "dimension";
    return failure();
  }
  // Run-time sizes stay kDynamic: the rules that depend on them are checked
  // at run time (or on a padded path, K).
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // NVFP4 tensors have positive dimensions; an empty contraction has nothing
  // to quantize.
  if (llvm::is_contained(ranges, 0)) {
    reason = "empty (a dimension of size 0)";
    return failure();
  }
  ContractionInfo info;
  info.op = op;
  info.batched = !dims->batch.empty();
  unsigned m = dims->m.front(), n = dims->n.front(), k = dims->k.front();
  info.m = ranges[m];
  info.n = ranges[n];
  info.k = ranges[k];
  info.mDim = m;
  info.nDim = n;
  info.kDim = k;
  SmallVector<unsigned> lhsDims, rhsDims, outDims;
  if (info.batched) {
    info.batch = ranges[dims->batch.front()];
    info.batchDim = dims->batch.front();
    lhsDims.push_back(dims->batch.front());
    rhsDims.push_back(dims->batch.front());
    outDims.push_back(dims->batch.front());
  }
  lhsDims.append({m, k});
  rhsDims.append({n, k});
  outDims.append({m, n});
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!readsExactly(maps[0], lhsDims, info.batched) ||
      !readsExactly(maps[1], rhsDims, info.batched)) {
    reason = "operand indexing maps are not a (batched) matmul layout";
    return failure();
  }
  for (auto [i, dim] : llvm::enumerate(outDims)) {
    if (maps[2].getNumResults() != outDims.size() ||
        positionOf(maps[2], dim) != static_cast<int64_t>(i)) {
      reason = "result is not laid out [B, M, N]";
      return failure();
    }
  }
  info.lhsKOuter = positionOf(maps[0], k) < positionOf(maps[0], m);
  info.rhsKOuter = positionOf(maps[1], k) < positionOf(maps[1], n);

  auto isInputType = [](Type t) {
    Type e = getElementTypeOrSelf(t);
    return e.isF32() || e.isBF16() || e.isF16();
  };
  if (!isInputType(info.lhs().getType()) ||
      !isInputType(info.rhs().getType())) {
    reason = "operand element types must be f32, bf16 or f16";
    return failure();
  }
  Type resultElement = getElementTypeOrSelf(op->getResult(0).getType());
  if (!resultElement.isF32() && !resultElement.isBF16()) {
    reason = "result element type must be f32 or bf16";
    return failure();
  }
  return info;
}

namespace {
/// A transpose: `result dim i` is `input dim source[i]`.
struct Transpose {
  Value input;
  SmallVector<int64_t> source;
};
} // namespace

/// `op` as a transpose: a `linalg.transpose`, or a `linalg.generic` on
/// tensors that only copies its input through a permuted indexing map (what
/// IREE's StableHLO input conversion emits for `stablehlo.transpose`).
static std::optional<Transpose> asTranspose(Operation *op) {
  if (auto transpose = dyn_cast_or_null<linalg::TransposeOp>(op)) {
    ArrayRef<int64_t> perm = transpose.getPermutation();
    return Transpose{transpose.getInput(),
                     SmallVector<int64_t>(perm.begin(), perm.end())};
  }
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureTensorSemantics() ||
      !linalg::isaTransposeOpInterface(generic))
    return std::nullopt;
  // Read the permutation off the maps: input dim j is indexed by loop dim
  // inputMap(j), which is result dim inputMap(j) (identity output map).
  AffineMap inputMap =
      generic.getMatchingIndexingMap(generic.getDpsInputOperand(0));
  AffineMap outputMap =
      generic.getMatchingIndexingMap(generic.getDpsInitOperand(0));
  if (!outputMap.isIdentity() || !inputMap.isPermutation())
    return std::nullopt;
  SmallVector<int64_t> source(inputMap.getNumResults());
  for (auto [j, expr] : llvm::enumerate(inputMap.getResults()))
    source[cast<AffineDimExpr>(expr).getPosition()] = j;
  return Transpose{generic.getDpsInputOperand(0)->get(), std::move(source)};
}

/// Whether `source` swaps the two innermost dimensions and keeps the others.
static bool isInnerSwap(ArrayRef<int64_t> source) {
  size_t rank = source.size();
  if (rank < 2)
    return false;
  bool innerSwap = source[rank - 1] == static_cast<int64_t>(rank - 2) &&
                   source[rank - 2] == static_cast<int64_t>(rank - 1);
  for (size_t i = 0; i + 2 < rank; ++i)
    innerSwap &= source[i] == static_cast<int64_t>(i);
  return innerSwap;
}

Value nvfp4::stripTransposes(Value value, bool *swapped) {
  while (std::optional<Transpose> t = asTranspose(value.getDefiningOp())) {
    if (!isInnerSwap(t->source))
      break;
    value = t->input;
    if (swapped)
      *swapped = !*swapped;
  }
  return value;
}

/// Whether `collapse` maps a tensor of rank >= 3 to rank 2 by merging
/// dimensions `[0 .. rank-2]` and keeping `rank-1` (`lastKept`), or by
/// keeping `0` and merging `[1 .. rank-1]` (otherwise).
static bool isTwoGroupCollapse(tensor::CollapseShapeOp collapse,
                               bool lastKept) {
  int64_t rank = collapse.getSrcType().getRank();
  SmallVector<ReassociationIndices> groups =
      collapse.getReassociationIndices();
  if (rank < 3 || groups.size() != 2)
    return false;
  int64_t split = lastKept ? rank - 1 : 1;
  // Reassociation groups are contiguous and ordered (verifier), so the size
  // of the first group determines both.
  return static_cast<int64_t>(groups[0].size()) == split;
}

Value nvfp4::stripViews(Value value, bool *swapped) {
  value = stripTransposes(value, swapped);
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse)
    return value;
  // [b, t, h] -> [b*t, h]: the token dimensions merged.
  if (isTwoGroupCollapse(collapse, /*lastKept=*/true))
    return collapse.getSrc();
  // [b, t, h] -> [h, b, t] -> [h, b*t]: the transpose of the above.
  if (isTwoGroupCollapse(collapse, /*lastKept=*/false)) {
    std::optional<Transpose> t =
        asTranspose(collapse.getSrc().getDefiningOp());
    if (!t)
      return value;
    int64_t rank = t->source.size();
    bool rotation = t->source[0] == rank - 1;
    for (int64_t i = 1; i < rank; ++i)
      rotation &= t->source[i] == i - 1;
    if (!rotation)
      return value;
    if (swapped)
      *swapped = !*swapped;
    return t->input;
  }
  return value;
}

Value nvfp4::getBatchBroadcastSource(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() != 3)
    return {};
  Operation *def = value.getDefiningOp();
  Value source;
  if (auto broadcast = dyn_cast_or_null<linalg::BroadcastOp>(def)) {
    if (broadcast.getDimensions() != ArrayRef<int64_t>{0})
      return {};
    source = broadcast.getInput();
  } else if (auto generic = dyn_cast_or_null<linalg::GenericOp>(def)) {
    std::optional<SmallVector<int64_t>> dims =
        linalg::isaBroadcastOpInterface(generic);
    if (!dims || *dims != ArrayRef<int64_t>{0})
      return {};
    // The input is read as stored, (b, r, c) -> (r, c): not transposed.
    MLIRContext *ctx = value.getContext();
    AffineMap inputMap = AffineMap::get(
        3, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx);
    if (generic.getIndexingMapsArray()[0] != inputMap)
      return {};
    source = generic.getDpsInputOperand(0)->get();
  } else {
    return {};
  }
  auto sourceType = dyn_cast<RankedTensorType>(source.getType());
  if (!sourceType || sourceType.getRank() != 2)
    return {};
  return source;
}

StringRef nvfp4::stringifyTensorKind(TensorKind kind) {
  switch (kind) {
  case TensorKind::Weight:
    return "weight";
  case TensorKind::Activation:
    return "activation";
  case TensorKind::Gradient:
    return "gradient";
  case TensorKind::Unknown:
    break;
  }
  return "unknown";
}

TensorKind nvfp4::parseTensorKind(StringRef name) {
  return llvm::StringSwitch<TensorKind>(name)
      .Case("weight", TensorKind::Weight)
      .Case("activation", TensorKind::Activation)
      .Case("gradient", TensorKind::Gradient)
      .Default(TensorKind::Unknown);
}


std::optional<std::array<TensorKind, 2>>
nvfp4::getOperandKinds(Operation *op) {
  auto array = op->getAttrOfType<ArrayAttr>(NVFP4Dialect::kKindAttrName);
  if (!array || array.size() != 2)
    return std::nullopt;
  std::array<TensorKind, 2> kinds;
  for (unsigned i = 0; i < 2; ++i) {
    auto name = dyn_cast<StringAttr>(array[i]);
    if (!name)
      return std::nullopt;
    kinds[i] = parseTensorKind(name.getValue());
  }
  return kinds;
}

void nvfp4::setOperandKinds(Operation *op, std::array<TensorKind, 2> kinds) {
  Builder b(op->getContext());
  op->setAttr(NVFP4Dialect::kKindAttrName,
              b.getStrArrayAttr({stringifyTensorKind(kinds[0]),
                                 stringifyTensorKind(kinds[1])}));
}

StringRef nvfp4::getRole(Operation *op) {
  if (auto role = op->getAttrOfType<StringAttr>(NVFP4Dialect::kRoleAttrName))
    return role.getValue();
  return {};
}

std::optional<int64_t> nvfp4::getLayer(Operation *op) {
  if (auto layer =
          op->getAttrOfType<IntegerAttr>(NVFP4Dialect::kLayerAttrName))
    return layer.getInt();
  return std::nullopt;
}

StringRef nvfp4::getPrecision(Operation *op) {
  if (auto precision =
          op->getAttrOfType<StringAttr>(NVFP4Dialect::kPrecisionAttrName))
    return precision.getValue();
  return {};
}

StringRef nvfp4::getPrecisionName(Format format) {
  return format == Format::NVFP4 ? "fp4" : stringifyFormat(format);
}

std::optional<Format> nvfp4::getSelectedFormat(Operation *op) {
  StringRef precision = getPrecision(op);
  if (precision == "fp4")
    return Format::NVFP4;
  std::optional<Format> format = symbolizeFormat(precision);
  if (format && *format != Format::NVFP4)
    return format;
  return std::nullopt;
}

std::optional<Format> nvfp4::parseLadderFormat(StringRef name) {
  if (name == "mxfp8")
    return Format::MXFP8E4M3;
  return symbolizeFormat(name);
}

TensorKind nvfp4::getArgumentKind(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return TensorKind::Unknown;
  auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!func || arg.getOwner() != &func.getFunctionBody().front())
    return TensorKind::Unknown;
  auto kind = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                NVFP4Dialect::kKindAttrName);
  return kind ? parseTensorKind(kind.getValue()) : TensorKind::Unknown;
}

bool mlir::nvfp4::ContractionInfo::hasStaticSizes() const {
  return !llvm::any_of(ArrayRef<int64_t>{batch, m, n, k},
                       ShapedType::isDynamic);
}

bool mlir::nvfp4::ContractionInfo::hasRepresentableSizes() const {
  const int64_t shapes[3][3] = {{batch, m, k}, {batch, n, k}, {batch, m, n}};
  return llvm::all_of(shapes, [](const int64_t(&shape)[3]) {
    SmallVector<int64_t> staticDims = llvm::filter_to_vector(
        ArrayRef<int64_t>(shape),
        [](int64_t dim) { return !ShapedType::isDynamic(dim); });
    return getCheckedByteSize(staticDims, /*elementBits=*/32).has_value();
  });
}

std::string nvfp4::formatLocation(Location loc) {
  std::string result;
  llvm::raw_string_ostream os(result);
  if (auto name = dyn_cast<NameLoc>(loc)) {
    os << name.getName().getValue();
  } else if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    llvm::interleave(
        fused.getLocations(), os,
        [&](Location inner) { os << formatLocation(inner); }, "+");
  } else if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    os << formatLocation(callSite.getCallee());
  } else {
    os << "unknown";
  }
  return result;
}

bool nvfp4::hasLocationName(Location loc, StringRef name) {
  bool found = false;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner))
      found |= named.getName().getValue() == name;
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}
