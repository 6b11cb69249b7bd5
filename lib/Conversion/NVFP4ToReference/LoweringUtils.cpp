//===- LoweringUtils.cpp - Tensor helpers of the CPU lowerings ------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace mlir::nvfp4::reference {

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// Reassociation collapsing a rank-n (n >= 2) tensor to [prod(leading), last].
static SmallVector<ReassociationIndices> leadingDimsReassociation(int64_t rank) {
  ReassociationIndices lead;
  for (int64_t d = 0; d + 1 < rank; ++d)
    lead.push_back(d);
  return {lead, {rank - 1}};
}

RankedTensorType getTensorType(ArrayRef<OpFoldResult> sizes,
                               Type elementType) {
  return RankedTensorType::get(decomposeMixedValues(sizes).first,
                               elementType);
}

/// `size` / `divisor`, exact (the type's rules hold at run time).
static OpFoldResult divideSize(OpBuilder &b, Location loc, OpFoldResult size,
                               int64_t divisor) {
  if (std::optional<int64_t> value = getConstantIntValue(size))
    return b.getIndexAttr(*value / divisor);
  return arith::DivUIOp::create(b, loc, cast<Value>(size),
                                indexConst(b, loc, divisor))
      .getResult();
}

SmallVector<OpFoldResult> getScalesSizes(OpBuilder &b, Location loc,
                                         ArrayRef<OpFoldResult> sizes,
                                         BlockAttr block) {
  SmallVector<OpFoldResult> scales(sizes);
  scales.back() = divideSize(b, loc, scales.back(), block.getCols());
  if (block.is2D())
    scales[scales.size() - 2] =
        divideSize(b, loc, scales[scales.size() - 2], kBlockSize);
  return scales;
}

/// `t`, cast to `type` when its (less static) type differs.
static Value castTo(OpBuilder &b, Location loc, Value t,
                    RankedTensorType type) {
  if (t.getType() == type)
    return t;
  return tensor::CastOp::create(b, loc, type, t);
}

Value to2D(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t rank = type.getRank();
  if (rank == 2)
    return t;
  if (rank == 1) {
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1),
                                       tensor::getMixedSizes(b, loc, t).front()};
    return tensor::ExpandShapeOp::create(
        b, loc, getTensorType(sizes, type.getElementType()), t,
        ArrayRef<ReassociationIndices>{{0, 1}}, sizes);
  }
  return tensor::CollapseShapeOp::create(b, loc, t,
                                         leadingDimsReassociation(rank));
}

Value from2D(OpBuilder &b, Location loc, Value t,
             ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t rank = sizes.size();
  auto target = getTensorType(sizes, type.getElementType());
  if (rank == 2)
    return castTo(b, loc, t, target);
  if (rank == 1)
    return tensor::CollapseShapeOp::create(
        b, loc, target, t, ArrayRef<ReassociationIndices>{{0, 1}});
  return tensor::ExpandShapeOp::create(
      b, loc, target, t, leadingDimsReassociation(rank), sizes);
}

Value mapElements(OpBuilder &b, Location loc, Value t, Type elementType,
                  function_ref<Value(OpBuilder &, Location, Value)> body) {
  auto type = cast<RankedTensorType>(t.getType());
  auto resultType = type.clone(elementType);
  Value init =
      tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, t), elementType);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iters(type.getRank(),
                                         utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{t}, ValueRange{init},
      ArrayRef<AffineMap>{id, id}, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args[0]));
      });
  return generic.getResult(0);
}

Value castElements(OpBuilder &b, Location loc, Value t, Type elementType) {
  Type from = cast<RankedTensorType>(t.getType()).getElementType();
  if (from == elementType)
    return t;
  bool widen = cast<FloatType>(from).getWidth() <
               cast<FloatType>(elementType).getWidth();
  return mapElements(b, loc, t, elementType,
                     [&](OpBuilder &nb, Location nloc, Value x) -> Value {
                       if (widen)
                         return arith::ExtFOp::create(nb, nloc, elementType, x);
                       return arith::TruncFOp::create(nb, nloc, elementType, x);
                     });
}

Value castScalar(OpBuilder &b, Location loc, Value x, Type elementType) {
  if (x.getType() == elementType)
    return x;
  if (cast<FloatType>(x.getType()).getWidth() <
      cast<FloatType>(elementType).getWidth())
    return arith::ExtFOp::create(b, loc, elementType, x);
  return arith::TruncFOp::create(b, loc, elementType, x);
}

Value single(ValueRange values) {
  assert(values.size() == 1 && "expected a 1:1 converted value");
  return values.front();
}

/// The reassociation that groups a rank-`rank` shape (rank >= 2) into
/// [batch, rows, cols] (a rank-2 shape: [1, rows, cols]).
static SmallVector<ReassociationIndices> batchReassociation(int64_t rank) {
  if (rank == 2)
    return {{0, 1}, {2}};
  return {llvm::to_vector(llvm::seq<int64_t>(0, rank - 2)), {rank - 2},
          {rank - 1}};
}

Value addBatchDim(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t rank = type.getRank();
  if (rank == 3)
    return t;
  if (rank > 3)
    return tensor::CollapseShapeOp::create(b, loc, t,
                                           batchReassociation(rank));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, t);
  sizes.insert(sizes.begin(), b.getIndexAttr(1));
  return tensor::ExpandShapeOp::create(
      b, loc, getTensorType(sizes, type.getElementType()), t,
      batchReassociation(rank), sizes);
}

Value dropBatchDim(OpBuilder &b, Location loc, Value t,
                   ArrayRef<OpFoldResult> sizes) {
  int64_t rank = sizes.size();
  auto type = getTensorType(
      sizes, cast<RankedTensorType>(t.getType()).getElementType());
  if (rank == 3)
    return castTo(b, loc, t, type);
  if (rank == 2)
    return castTo(
        b, loc,
        tensor::CollapseShapeOp::create(b, loc, t, batchReassociation(rank)),
        type);
  return tensor::ExpandShapeOp::create(b, loc, type, t,
                                       batchReassociation(rank), sizes);
}

Value emitBatchedContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                             Value accIn) {
  Type f32 = b.getF32Type();
  SmallVector<OpFoldResult> lhsSizes = tensor::getMixedSizes(b, loc, lhs);
  SmallVector<OpFoldResult> sizes = {lhsSizes[0], lhsSizes[1],
                                     tensor::getMixedSizes(b, loc, rhs)[1]};
  Value init = accIn;
  if (!init) {
    Value empty = tensor::EmptyOp::create(b, loc, sizes, f32);
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  }
  MLIRContext *ctx = b.getContext();
  AffineExpr bd, i, j, k;
  bindDims(ctx, bd, i, j, k);
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {bd, i, k}, ctx),
                                 AffineMap::get(4, 0, {bd, j, k}, ctx),
                                 AffineMap::get(4, 0, {bd, i, j}, ctx)};
  SmallVector<utils::IteratorType> iters = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::parallel, utils::IteratorType::reduction};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
      ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value prod = arith::MulFOp::create(nb, nloc, args[0], args[1]);
        linalg::YieldOp::create(
            nb, nloc, arith::AddFOp::create(nb, nloc, args[2], prod).getResult());
      });
  return generic.getResult(0);
}

void lowerMatmul(MatmulOp op,
                 MatmulOpGenericAdaptor<ArrayRef<ValueRange>> adaptor,
                 ConversionPatternRewriter &rewriter, MatmulEmitter emit) {
  Location loc = op.getLoc();
  Value accIn;
  if (op.getAcc())
    accIn = addBatchDim(rewriter, loc,
                        castElements(rewriter, loc, single(adaptor.getAcc()),
                                     rewriter.getF32Type()));
  Value product =
      emit(adaptor.getLhs(), adaptor.getRhs(),
           op.getLhs().getType().getBlock().getRows(),
           op.getRhs().getType().getBlock().getRows(), accIn);
  // The result is the lhs without K, then N: [.., M, N].
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(rewriter, loc, adaptor.getLhs().front());
  SmallVector<OpFoldResult> rhsSizes =
      tensor::getMixedSizes(rewriter, loc, adaptor.getRhs().front());
  sizes.back() = rhsSizes[rhsSizes.size() - 2];
  RankedTensorType resultType = op.getType();
  rewriter.replaceOp(
      op, castElements(rewriter, loc,
                       dropBatchDim(rewriter, loc, product, sizes),
                       resultType.getElementType()));
}

} // namespace mlir::nvfp4::reference
