//===- Tcgen05OperandPadding.cpp - K copy-padding for TMA row strides -----===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The tcgen05 kernel loads its operands with TMA, whose row strides (K / 2
// bytes of packed E2M1 codes) must be multiples of 16 bytes: K a multiple
// of 32. A matmul whose K is only a multiple of 16 gets both operands
// copied with 16 zero codes (and one zero scale) appended to every row, on
// the host, before the kernel sees them. Zero codes with zero scales add
// exact zeros to every block sum, so the product is the one of the original
// operands bit for bit.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05Matmul.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05TensorMap.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::nvfp4;
namespace tc = ::nvfp4::gpu::tcgen05;

/// `value` (an E2M1 or E4M3 tensor) padded at the end of its last
/// dimension with +0 to `type`. The padding is done on the integer view of
/// the elements (`arith.bitcast`), the form in which host code handles
/// these element types.
static Value padLastDimension(OpBuilder &b, Location loc, Value value,
                              RankedTensorType type) {
  auto valueType = cast<RankedTensorType>(value.getType());
  Type bits = b.getIntegerType(type.getElementTypeBitWidth());
  Value view = arith::BitcastOp::create(b, loc, valueType.clone(bits), value);
  Value zero =
      arith::ConstantOp::create(b, loc, bits, b.getIntegerAttr(bits, 0));
  Value padded = tensor::createPadHighOp(type.clone(bits), view, zero,
                                         /*nofold=*/false, loc, b);
  return arith::BitcastOp::create(b, loc, type, padded);
}

/// The NVFP4 tensor `value` with its K dimension padded to `paddedK`: the
/// codes and scales padded with zeros, the tensor scale kept.
static Value padAlongK(OpBuilder &b, Location loc, Value value,
                       int64_t paddedK) {
  auto type = cast<NVFP4TensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = paddedK;
  auto paddedType = NVFP4TensorType::get(b.getContext(), shape, type.getBlock(),
                                         type.getTensorScale());
  auto components = DisassembleOp::create(b, loc, value);
  Value data =
      padLastDimension(b, loc, components.getData(), paddedType.getDataType());
  Value scales = padLastDimension(b, loc, components.getScales(),
                                  paddedType.getScalesType());
  return AssembleOp::create(b, loc, paddedType, data, scales,
                            components.getAmax());
}

void mlir::nvfp4::padTcgen05MatmulOperands(ModuleOp module, GPUTarget target,
                                           bool report) {
  if (!isTcgen05Target(target))
    return;
  OpBuilder b(module.getContext());
  module.walk([&](MatmulOp op) {
    const int64_t k = op.getLhs().getType().getShape().back();
    if (k % tc::kTensorMapStrideAlignmentCodes == 0)
      return;
    const int64_t paddedK =
        llvm::alignTo(k, tc::kTensorMapStrideAlignmentCodes);
    if (report)
      op.emitRemark() << "nvfp4: fallback: both operands are copied with K "
                         "padded from "
                      << k << " to " << paddedK
                      << " (zero codes and scales) for the tcgen05 kernel, "
                         "whose TMA row strides of K / 2 bytes must be "
                         "multiples of 16 bytes";
    b.setInsertionPoint(op);
    Value lhs = padAlongK(b, op.getLoc(), op.getLhs(), paddedK);
    Value rhs = padAlongK(b, op.getLoc(), op.getRhs(), paddedK);
    op.getLhsMutable().assign(lhs);
    op.getRhsMutable().assign(rhs);
  });
}
