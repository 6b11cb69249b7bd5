//===- Tcgen05SmallM.cpp - Few-row GEMMs as their transposed product ------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The block-scaled tcgen05 MMA computes 128 rows of A per CTA
// (cta_group::1), while its N may be as small as the kernel's 64-wide tile.
// A GEMM of few rows, such as a decode step's few tokens by a weight, then
// wastes most of every MMA and spreads over few CTAs. Computed as the
// transposed product C^T = B A^T, the weight's rows fill the MMA's 128 rows
// and the few tokens its N: twice the CTAs and at least twice the useful
// share of each MMA for M <= 64. The result (and the accumulator, if any)
// are transposed around the swapped matmul (linalg.transpose); the tcgen05
// lowering folds both into the kernel, which then reads the accumulator and
// stores the result transposed (Tcgen05Config::transposedResult), so no
// transpose runs on the host. Each output element is the same sum of the
// same products with the same scales (sA * sB and the tensor scales'
// product are commutative in f32), so the result is bit for bit the
// original's.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Matmul.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::nvfp4;

/// `value` (a tensor of rank 2 or 3) with its last two dimensions swapped.
static Value transposeInner(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[rank - 1], shape[rank - 2]);
  Value empty = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, value, empty, perm)->getResult(0);
}

void mlir::nvfp4::swapTcgen05FewRowMatmuls(ModuleOp module, GPUTarget target,
                                           bool report) {
  if (!isTcgen05Target(target))
    return;
  // Rows of an operand: M of the lhs, N of the rhs.
  auto rows = [](Value operand) {
    return cast<NVFP4TensorType>(operand.getType()).getShape().end()[-2];
  };
  SmallVector<MatmulOp> matmuls;
  module.walk([&](MatmulOp op) {
    // Not a run-time M: the swap is decided when the kernel is built.
    if (!isLeftForHost(op, target) &&
        !ShapedType::isDynamic(rows(op.getLhs())) &&
        rows(op.getLhs()) <= kTcgen05SwapMaxRows &&
        rows(op.getRhs()) >= kTcgen05SwapMinCols)
      matmuls.push_back(op);
  });
  OpBuilder b(module.getContext());
  for (MatmulOp op : matmuls) {
    if (report)
      op.emitRemark()
          << "nvfp4: fallback: computed as the transposed product "
             "B A^T (its kernel stores the result transposed) for the "
             "tcgen05 kernel, whose MMA takes 128 rows of A: M = "
          << rows(op.getLhs()) << " rows fill the MMA's N instead";
    Location loc = op.getLoc();
    b.setInsertionPoint(op);
    Value acc = op.getAcc() ? transposeInner(b, loc, op.getAcc()) : Value();
    auto resultType = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> shape(resultType.getShape());
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    auto swapped = MatmulOp::create(b, loc, resultType.clone(shape),
                                    op.getRhs(), op.getLhs(), acc);
    swapped->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    op.getResult().replaceAllUsesWith(
        transposeInner(b, loc, swapped.getResult()));
    op.erase();
  }
}
