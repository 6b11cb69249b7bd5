//===- InitAll.h - Register everything NVFP4-MLIR provides ------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// One place that registers the nvfp4 dialect, its passes, conversions and
// pipelines; used by nvfp4-opt, the mlir-opt plugin, the C API and embedders.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_INITALL_H
#define NVFP4_INITALL_H

namespace mlir {
class DialectRegistry;
namespace nvfp4 {

/// Adds the nvfp4 dialect (and the dialects its passes create) to `registry`.
void registerAllDialects(DialectRegistry &registry);

/// Registers every nvfp4 pass, conversion and pass pipeline with the global
/// registry (for `--pass-name` command-line use).
void registerAllPasses();

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_INITALL_H
