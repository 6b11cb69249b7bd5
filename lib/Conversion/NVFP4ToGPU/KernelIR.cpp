//===- KernelIR.cpp - IR helpers shared by the NVFP4 GPU kernels ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "KernelIR.h"

#include "nvfp4/Conversion/NVFP4ToGPU/LaunchOperandAccess.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;

nvfp4::detail::MatmulShape nvfp4::detail::MatmulShape::of(MatmulOp op) {
  auto lhs = cast<NVFP4TensorType>(op.getLhs().getType());
  auto rhs = cast<NVFP4TensorType>(op.getRhs().getType());
  ArrayRef<int64_t> lhsShape = lhs.getShape(), rhsShape = rhs.getShape();
  MatmulShape s;
  if (lhsShape.size() == 3)
    s.batch = lhsShape[0];
  s.m = lhsShape[lhsShape.size() - 2];
  // A K that one operand has static is the kernel's (the host checks the
  // other's run-time K against it).
  s.k = ShapedType::isDynamic(lhsShape.back()) ? rhsShape.back()
                                               : lhsShape.back();
  s.n = rhsShape[rhsShape.size() - 2];
  s.lhsBlockRows = lhs.getBlock().getRows();
  s.rhsBlockRows = rhs.getBlock().getRows();
  s.lhsTensorScale = lhs.getTensorScale();
  s.rhsTensorScale = rhs.getTensorScale();
  s.resultElementType = op.getResult().getType().getElementType();
  s.hasAcc = static_cast<bool>(op.getAcc());
  s.lhsFormat = lhs.getFormat();
  s.rhsFormat = rhs.getFormat();
  return s;
}

Value nvfp4::detail::createGlobalBasePointer(OpBuilder &b, Location loc,
                                             Value memref) {
  Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value addr64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), addr);
  auto genericPtr = LLVM::LLVMPointerType::get(b.getContext());
  auto globalPtr = LLVM::LLVMPointerType::get(
      b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Global));
  Value ptr = LLVM::IntToPtrOp::create(b, loc, genericPtr, addr64);
  return LLVM::AddrSpaceCastOp::create(b, loc, globalPtr, ptr);
}

Value nvfp4::detail::createByteAddress(OpBuilder &b, Location loc, Value base,
                                       Value byteOffset) {
  Value offset =
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(), byteOffset);
  return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{offset},
                             LLVM::GEPNoWrapFlags::inbounds);
}

gpu::GPUFuncOp nvfp4::detail::createKernelFunc(
    OpBuilder &b, Location loc, gpu::GPUModuleOp module, StringRef name,
    TypeRange argTypes, int64_t threads, TypeRange workgroupTypes) {
  b.setInsertionPointToEnd(module.getBody());
  auto kernel =
      gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}),
                             workgroupTypes, TypeRange{});
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  b.setInsertionPointToStart(&kernel.front());
  return kernel;
}

void nvfp4::detail::declareDynamicSharedMemory(OpBuilder &b, Location loc,
                                               gpu::GPUModuleOp module,
                                               StringRef symbol,
                                               int64_t alignment) {
  if (module.lookupSymbol(symbol))
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                         /*isConstant=*/false, LLVM::Linkage::External, symbol,
                         /*value=*/Attribute(), alignment,
                         static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
}

SmallVector<Value> nvfp4::detail::createBlockLoadF32(OpBuilder &b, Location loc,
                                                     Value base,
                                                     Value firstByte,
                                                     Type elementType) {
  constexpr int64_t kBlock = 16, kVectorBytes = 16;
  const int64_t perVector =
      kVectorBytes / (elementType.getIntOrFloatBitWidth() / 8);
  auto vecType = VectorType::get({perVector}, elementType);
  IndexExpr first{&b, loc, firstByte};
  SmallVector<Value> v;
  for (int64_t part = 0; part < kBlock / perVector; ++part) {
    Value vec = LLVM::LoadOp::create(
        b, loc, vecType,
        createByteAddress(b, loc, base, (first + part * kVectorBytes).v),
        kVectorBytes);
    for (int64_t e = 0; e < perVector; ++e) {
      Value x = LLVM::ExtractElementOp::create(
          b, loc, vec, LLVM::ConstantOp::create(b, loc, b.getI32Type(), e));
      if (!elementType.isF32())
        x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
      v.push_back(x);
    }
  }
  return v;
}

void nvfp4::detail::createHadamard16(OpBuilder &b, Location loc,
                                     MutableArrayRef<Value> v,
                                     uint32_t negateMask) {
  assert(v.size() == 16 && "the transform works on blocks of 16");
  for (int j = 0; j < 16; ++j)
    if (negateMask & (1u << j))
      v[j] = arith::NegFOp::create(b, loc, v[j]);
  for (int h = 1; h < 16; h <<= 1) {
    for (int i = 0; i < 16; ++i) {
      if (i & h)
        continue;
      Value x = v[i], y = v[i + h];
      v[i] = arith::AddFOp::create(b, loc, x, y);
      v[i + h] = arith::SubFOp::create(b, loc, x, y);
    }
  }
  Value quarter = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.25f));
  for (int j = 0; j < 16; ++j)
    v[j] = arith::MulFOp::create(b, loc, v[j], quarter);
}

bool nvfp4::detail::succeedsSilently(MLIRContext *context,
                                     function_ref<LogicalResult()> check) {
  ScopedDiagnosticHandler silence(context,
                                  [](Diagnostic &) { return success(); });
  return succeeded(check());
}

Value nvfp4::detail::createButterflyMax(OpBuilder &b, Location loc, Value v,
                                        ArrayRef<int32_t> xorOffsets) {
  for (int32_t offset : xorOffsets) {
    Value other =
        gpu::ShuffleOp::create(b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
            .getShuffleResult();
    Value greater =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, other, v);
    v = arith::SelectOp::create(b, loc, greater, other, v);
  }
  return v;
}

Value nvfp4::detail::createReadOnlyBuffer(OpBuilder &b, Location loc,
                                          Value tensor) {
  auto tensorType = cast<RankedTensorType>(tensor.getType());
  auto memrefType =
      MemRefType::get(tensorType.getShape(), tensorType.getElementType());
  if (auto toTensor = tensor.getDefiningOp<bufferization::ToTensorOp>())
    if (toTensor.getBuffer().getType() == memrefType)
      return toTensor.getBuffer();
  return bufferization::ToBufferOp::create(b, loc, memrefType, tensor,
                                           /*read_only=*/true);
}

RankedTensorType nvfp4::detail::getTcgen05AtomsScalesType(Type type) {
  RankedTensorType dataType = cast<NVFP4TensorType>(type).getDataType();
  SmallVector<int64_t> shape(dataType.getShape());
  shape.back() /= kBlockSize;
  return RankedTensorType::get(shape, Float8E4M3FNType::get(type.getContext()));
}

Value nvfp4::detail::createTcgen05AtomsNVFP4Value(OpBuilder &b, Location loc,
                                                  Type type, Value data,
                                                  Value scales, Value amax) {
  auto cast = UnrealizedConversionCastOp::create(
      b, loc, type, ValueRange{data, scales, amax});
  cast->setAttr(kScaleLayoutAttrName,
                b.getStringAttr(kTcgen05AtomsScaleLayout));
  return cast.getResult(0);
}

bool nvfp4::detail::isTcgen05AtomsNVFP4Value(Operation *op) {
  auto cast = dyn_cast_or_null<UnrealizedConversionCastOp>(op);
  if (!cast || cast->getNumOperands() != 3 || cast->getNumResults() != 1)
    return false;
  auto layout = cast->getAttrOfType<StringAttr>(kScaleLayoutAttrName);
  return layout && layout.getValue() == kTcgen05AtomsScaleLayout;
}

Value nvfp4::detail::createPaddedStorageView(OpBuilder &b, Value value,
                                             int64_t storageCols) {
  for (Operation *user : value.getUsers())
    if (isPaddedStorageView(user))
      return user->getResult(0);
  auto type = cast<NVFP4TensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = storageCols;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfterValue(value);
  auto view = UnrealizedConversionCastOp::create(
      b, value.getLoc(), TypeRange{type.withShape(shape)}, ValueRange{value});
  view->setAttr(kPaddedStorageViewAttrName, b.getUnitAttr());
  return view.getResult(0);
}

bool nvfp4::detail::isPaddedStorageView(Operation *op) {
  auto cast = dyn_cast_or_null<UnrealizedConversionCastOp>(op);
  return cast && cast->hasAttr(kPaddedStorageViewAttrName) &&
         cast->getNumOperands() == 1 && cast->getNumResults() == 1;
}
mlir::nvfp4::NVFP4TensorType nvfp4::detail::getNVFP4StorageType(Operation *op) {
  auto type = cast<NVFP4TensorType>(op->getResult(0).getType());
  auto storageCols =
      op->getAttrOfType<IntegerAttr>(kTcgen05StorageColsAttrName);
  if (!storageCols)
    return type;
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = storageCols.getInt();
  return type.withShape(shape);
}

void nvfp4::detail::replaceWithNVFP4Storage(RewriterBase &rewriter,
                                            Operation *op, Value data,
                                            Value scales, Value amax,
                                            bool scaleAtoms) {
  NVFP4TensorType storageType = getNVFP4StorageType(op);
  Location loc = op->getLoc();
  Value stored =
      scaleAtoms
          ? createTcgen05AtomsNVFP4Value(rewriter, loc, storageType, data,
                                         scales, amax)
          : AssembleOp::create(rewriter, loc, storageType, data, scales, amax)
                .getResult();
  if (storageType == op->getResult(0).getType()) {
    rewriter.replaceOp(op, stored);
    return;
  }
  for (Operation *view : llvm::make_early_inc_range(op->getUsers()))
    rewriter.replaceOp(view, stored);
  rewriter.eraseOp(op);
}

nvfp4::detail::NVFP4Components
nvfp4::detail::getNVFP4Components(OpBuilder &b, Location loc, Value value,
                                  ScaleLayout *scaleLayout) {
  if (scaleLayout)
    *scaleLayout = ScaleLayout::Compact;
  if (auto assemble = value.getDefiningOp<AssembleOp>())
    return {assemble.getData(), assemble.getScales(), assemble.getAmax()};
  if (Operation *def = value.getDefiningOp();
      def && isTcgen05AtomsNVFP4Value(def)) {
    if (scaleLayout) {
      *scaleLayout = ScaleLayout::Tcgen05Atoms;
      return {def->getOperand(0), def->getOperand(1), def->getOperand(2)};
    }
    emitError(loc) << "internal error: an NVFP4 value with scales in the "
                      "tcgen05 atoms layout reached a consumer that reads "
                      "compact scales";
  }
  auto parts = DisassembleOp::create(b, loc, value);
  return {parts.getData(), parts.getScales(), parts.getAmax()};
}

void mlir::nvfp4::setLaunchOperandAccess(gpu::LaunchFuncOp launch,
                                         ValueRange written,
                                         ValueRange readWritten) {
  SmallVector<int32_t> access;
  for (Value operand : launch.getKernelOperands()) {
    if (!isa<MemRefType>(operand.getType()))
      access.push_back(kLaunchOperandNone);
    else if (llvm::is_contained(readWritten, operand))
      access.push_back(kLaunchOperandRead | kLaunchOperandWrite);
    else if (llvm::is_contained(written, operand))
      access.push_back(kLaunchOperandWrite);
    else
      access.push_back(kLaunchOperandRead);
  }
  launch->setAttr(kLaunchOperandAccessAttrName,
                  DenseI32ArrayAttr::get(launch.getContext(), access));
}

void nvfp4::detail::declareRuntimeFunction(OpBuilder &b, ModuleOp module,
                                           StringRef name,
                                           LLVM::LLVMFunctionType type) {
  if (module.lookupSymbol(name))
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

void nvfp4::detail::createRunTimeShapeCheck(OpBuilder &b, Operation *op,
                                            Value holds, StringRef rule) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (auto fileLoc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else
    op->getLoc().print(os);
  os << ": '" << op->getName() << "' op: run-time shape check failed: " << rule;
  message.push_back('\0');
  auto module = op->getParentOfType<ModuleOp>();
  MLIRContext *ctx = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  declareRuntimeFunction(
      b, module, kShapeCheckFunction,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                  {b.getI32Type(), ptrType}));
  // One global per check, named by its place among the module's checks.
  std::string name;
  for (unsigned i = 0;; ++i) {
    name = ("__nvfp4_shape_check_" + Twine(i)).str();
    if (!module.lookupSymbol(name))
      break;
  }
  Location loc = op->getLoc();
  Value text =
      LLVM::createGlobalString(loc, b, name, message, LLVM::Linkage::Internal);
  Value holds32 = arith::ExtUIOp::create(b, loc, b.getI32Type(), holds);
  LLVM::CallOp::create(b, loc, TypeRange{}, kShapeCheckFunction,
                       ValueRange{holds32, text});
}

void nvfp4::detail::createRunTimeMultipleCheck(OpBuilder &b, Operation *op,
                                               Value size, int64_t multiple,
                                               StringRef what) {
  Location loc = op->getLoc();
  Value rem = arith::RemUIOp::create(
      b, loc, size, arith::ConstantIndexOp::create(b, loc, multiple));
  Value holds =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rem,
                            arith::ConstantIndexOp::create(b, loc, 0));
  createRunTimeShapeCheck(
      b, op, holds, (what + " must be a multiple of " + Twine(multiple)).str());
}

void nvfp4::detail::createRunTimeKChecks(OpBuilder &b, Operation *op,
                                         Value lhsData, Value rhsData,
                                         int64_t multiple, bool positive) {
  Location loc = op->getLoc();
  auto kOf = [&](Value data) -> Value {
    auto type = cast<MemRefType>(data.getType());
    if (!ShapedType::isDynamic(type.getShape().back()))
      return {};
    return memref::DimOp::create(b, loc, data, type.getRank() - 1);
  };
  Value lhsK = kOf(lhsData), rhsK = kOf(rhsData);
  if (!lhsK && !rhsK)
    return;
  auto kValue = [&](Value runTime, Value data) -> Value {
    return runTime ? runTime
                   : arith::ConstantIndexOp::create(
                         b, loc,
                         cast<MemRefType>(data.getType()).getShape().back());
  };
  Value lhs = kValue(lhsK, lhsData), rhs = kValue(rhsK, rhsData);
  createRunTimeShapeCheck(
      b, op, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, rhs),
      "the operands' K must be equal");
  Value k = lhsK ? lhsK : rhsK;
  if (positive)
    createRunTimeShapeCheck(
        b, op,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, k,
                              arith::ConstantIndexOp::create(b, loc, 0)),
        "K must not be 0");
  createRunTimeMultipleCheck(b, op, k, multiple, "K");
}
