//===- Tcgen05OperandPadding.cpp - K padding for TMA row strides ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The tcgen05 kernel loads its operands with TMA, whose row strides (K / 2
// bytes of packed E2M1 codes) must be multiples of 16 bytes: K a multiple
// of 32. A matmul whose K is only a multiple of 16 runs on K padded to the
// next multiple of 32, with 16 zero codes (and one zero scale) after every
// row. Zero codes with zero scales add exact zeros to every block sum, so
// the product is the one of the original operands bit for bit.
//
// An operand the compiler allocates, the result of an `nvfp4.quantize` or
// an `nvfp4.transpose`, is written straight into K-padded storage: the
// quantize kernel (or the NVFP4 epilogue that computes it) or the transpose
// kernel writes the padding, and the matmul reads the storage through a
// padded-storage view. A quantization or transpose that other ops read
// unpadded is computed a second time for the matmuls. Any other operand (a
// function argument, a tensor assembled from components) is copied with K
// padded on the host. The fallback report names both.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Matmul.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05TensorMap.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "KernelIR.h"

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
  NVFP4TensorType paddedType = type.withShape(shape);
  auto components = DisassembleOp::create(b, loc, value);
  Value data =
      padLastDimension(b, loc, components.getData(), paddedType.getDataType());
  Value scales = padLastDimension(b, loc, components.getScales(),
                                  paddedType.getScalesType());
  return AssembleOp::create(b, loc, paddedType, data, scales,
                            components.getAmax());
}

/// Whether every use of `op` is an operand of an `nvfp4.matmul` (which all
/// share its K, so all need the same padding) or a padded-storage view of
/// it: then `op` itself can write K-padded storage.
static bool isOnlyReadByMatmuls(Operation *op) {
  return llvm::all_of(op->getResult(0).getUses(), [](OpOperand &use) {
    return isa<MatmulOp>(use.getOwner()) ||
           mlir::nvfp4::detail::isPaddedStorageView(use.getOwner());
  });
}

void mlir::nvfp4::padTcgen05MatmulOperands(ModuleOp module, GPUTarget target,
                                           bool report) {
  if (!isTcgen05Target(target))
    return;
  OpBuilder b(module.getContext());
  // The K-padded second computation of each quantization or transpose with
  // other uses.
  llvm::DenseMap<Operation *, Operation *> paddedCopies;
  module.walk([&](MatmulOp op) {
    const int64_t k = op.getLhs().getType().getShape().back();
    if (isLeftForHost(op, target) || ShapedType::isDynamic(k) ||
        k % tc::kTensorMapStrideAlignmentCodes == 0)
      return;
    const int64_t paddedK =
        llvm::alignTo(k, tc::kTensorMapStrideAlignmentCodes);
    SmallVector<StringRef, 2> copied, recomputed;
    for (auto [operand, name] :
         {std::pair<OpOperand *, StringRef>(&op.getLhsMutable(), "lhs"),
          std::pair<OpOperand *, StringRef>(&op.getRhsMutable(), "rhs")}) {
      Operation *producer = operand->get().getDefiningOp();
      if (!isa_and_nonnull<QuantizeOp, TransposeOp>(producer)) {
        copied.push_back(name);
        b.setInsertionPoint(op);
        operand->set(padAlongK(b, op.getLoc(), operand->get(), paddedK));
        continue;
      }
      // A quantization (transpose) with other uses, which read the unpadded
      // tensor, is computed a second time into the padded storage, from the
      // same operands: the same codes.
      if (!isOnlyReadByMatmuls(producer)) {
        Operation *&copy = paddedCopies[producer];
        if (!copy) {
          b.setInsertionPointAfter(producer);
          copy = b.clone(*producer);
        }
        recomputed.push_back(name);
        producer = copy;
      }
      producer->setAttr(mlir::nvfp4::detail::kTcgen05StorageColsAttrName,
                        b.getI64IntegerAttr(paddedK));
      operand->set(mlir::nvfp4::detail::createPaddedStorageView(
          b, producer->getResult(0), paddedK));
    }
    if (!report)
      return;
    auto describe = [](ArrayRef<StringRef> operands) -> std::string {
      return operands.size() == 2
                 ? "both operands are"
                 : ("the " + operands.front() + " operand is").str();
    };
    if (!copied.empty())
      op.emitRemark() << "nvfp4: fallback: " << describe(copied)
                      << " copied with K padded from " << k << " to " << paddedK
                      << " (zero codes and scales) for the tcgen05 kernel, "
                         "whose TMA row strides of K / 2 bytes must be "
                         "multiples of 16 bytes";
    if (!recomputed.empty())
      op.emitRemark() << "nvfp4: fallback: " << describe(recomputed)
                      << " computed a second time (its quantization or "
                         "transpose), into storage with K padded from "
                      << k << " to " << paddedK
                      << " for the tcgen05 kernel (TMA row strides of K / 2 "
                         "bytes must be multiples of 16 bytes), as the "
                         "first result has uses other than matmuls";
  });
}
