//===- nvfp4-plugin.cpp - Dialect and pass plugin for mlir-opt ------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Entry points of the mlir-opt plugin:
//
//   mlir-opt --load-dialect-plugin=NVFP4Plugin.so \
//            --load-pass-plugin=NVFP4Plugin.so ...
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NVFP4", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            mlir::nvfp4::registerAllDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NVFP4", LLVM_VERSION_STRING,
          []() { mlir::nvfp4::registerAllPasses(); }};
}
