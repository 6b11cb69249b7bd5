//===- KernelIR.cpp - IR helpers shared by the NVFP4 GPU kernels ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "KernelIR.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

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
