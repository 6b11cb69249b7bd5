//===- nvfp4-translate.cpp - Write GPU objects of NVFP4 programs ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// A translation driver with the translations out of MLIR that the NVFP4 GPU
// path needs:
//
//   --nvfp4-extract-ptx    writes the PTX of the program's gpu.binary (as
//                          produced by `nvfp4-opt --nvfp4-to-ptx`) as text;
//   --nvfp4-extract-cubin  writes its cubin (`nvfp4-to-ptx{format=bin}`);
//   --nvfp4-extract-launch-plan
//                          writes its host launches as a launch plan
//                          (nvfp4/Target/LaunchPlan.h), for drivers that run
//                          the kernels without MLIR (bench/gpu).
//
// The program must hold exactly one GPU object of the requested format.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/InitAll.h"
#include "nvfp4/Target/LaunchPlan.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;

/// Writes the one `#gpu.object` of `format` held by the `gpu.binary` ops
/// under `op` to `os`. Fails with a diagnostic when there is none, more than
/// one, or only objects of another format.
static LogicalResult extractGPUObject(Operation *op, raw_ostream &os,
                                      gpu::CompilationTarget format) {
  SmallVector<gpu::ObjectAttr> matching;
  SmallVector<gpu::BinaryOp> binaries;
  op->walk([&](gpu::BinaryOp binary) {
    binaries.push_back(binary);
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (object && object.getFormat() == format)
        matching.push_back(object);
    }
  });
  StringRef formatName = gpu::stringifyCompilationTarget(format);
  // Diagnostics at the location only: the op itself may hold megabytes.
  if (binaries.empty()) {
    // Either the module was not lowered, or nothing in it went to the GPU
    // (no FP4 contraction, or every one fell back).
    InFlightDiagnostic diag = emitError(op->getLoc());
    diag << "no FP4 kernels in the module: it holds no gpu.binary";
    diag.attachNote() << "run nvfp4-opt --nvfp4-to-ptx first (format=isa for "
                         "PTX, format=bin for a cubin); a lowered module has "
                         "no gpu.binary when nothing was offloaded (its "
                         "report-fallbacks option says why)";
    return diag;
  }
  gpu::BinaryOp first = binaries.front();
  if (matching.empty())
    return emitError(first.getLoc())
           << "gpu.binary @" << first.getSymName()
           << " has no GPU object of format '" << formatName << "'";
  if (matching.size() > 1)
    return emitError(first.getLoc())
           << "expected exactly one GPU object of format '" << formatName
           << "', found " << matching.size();
  os << matching.front().getObject().getValue();
  return success();
}

/// Every dialect a program on its way through `nvfp4-to-ptx` may contain.
static void registerDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  nvfp4::registerAllDialects(registry);
}

int main(int argc, char **argv) {
  TranslateFromMLIRRegistration extractPTX(
      "nvfp4-extract-ptx",
      "Write the PTX of the program's gpu.binary (format=isa) as text",
      [](Operation *op, raw_ostream &os) {
        return extractGPUObject(op, os, gpu::CompilationTarget::Assembly);
      },
      registerDialects);
  TranslateFromMLIRRegistration extractCubin(
      "nvfp4-extract-cubin",
      "Write the cubin of the program's gpu.binary (format=bin)",
      [](Operation *op, raw_ostream &os) {
        return extractGPUObject(op, os, gpu::CompilationTarget::Binary);
      },
      registerDialects);
  TranslateFromMLIRRegistration extractLaunchPlan(
      "nvfp4-extract-launch-plan",
      "Write the program's kernel launches as a launch plan (bench/gpu)",
      [](Operation *op, raw_ostream &os) {
        return nvfp4::writeLaunchPlan(op, os);
      },
      registerDialects);
  return failed(mlirTranslateMain(argc, argv, "NVFP4 translation driver"));
}
