//===- main.cpp - A consumer of the installed NVFP4-MLIR package ----------===//
//
// Part of the NVFP4-MLIR project.
//
// Parses and verifies nvfp4 IR with the dialect registered through the
// package, builds a type programmatically, and quantizes with the reference
// numerics library.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/InitAll.h"
#include "nvfp4/Numerics/Numerics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

int main() {
  mlir::DialectRegistry registry;
  mlir::nvfp4::registerAllDialects(registry);
  registry.insert<mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  const char *source = R"mlir(
    func.func @f(%x: tensor<32x64xf32>) -> !nvfp4.tensor<32x64, 16x16> {
      %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
      return %q : !nvfp4.tensor<32x64, 16x16>
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 1;

  auto type = mlir::nvfp4::NVFP4TensorType::get(&context, {128, 256},
                                                /*blockRows=*/16);
  llvm::outs() << "type: " << type << " scales: " << type.getScalesType()
               << "\n";

  std::vector<float> x(16, 0.0f);
  x[3] = 6.0f;
  x[5] = -1.0f;
  nvfp4::QuantizedTensor q;
  if (nvfp4::quantize(x.data(), 1, 16, nvfp4::QuantizeOptions(), q))
    return 2;
  // x[3] is the block maximum and encodes as +6 (code 0x7); x[5] = -1/6 of
  // it encodes as -1 (code 0xA). Both are odd elements: high nibbles of
  // bytes 1 and 2.
  llvm::outs() << "byte1: " << llvm::format_hex(q.data[1], 4)
               << " byte2: " << llvm::format_hex(q.data[2], 4) << "\n";
  llvm::outs() << "ok\n";
  return 0;
}
