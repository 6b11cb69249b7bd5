//===- StripGPUCompileTimes.cpp - Reproducible gpu.binary ops -------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Removes the compile-time measurements that gpu-module-to-binary stores in
// the properties of each #gpu.object, so that compiling the same program
// twice gives byte-identical IR.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_STRIPGPUCOMPILETIMES
#include "nvfp4/Conversion/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;

/// The property names under which gpu-module-to-binary records wall-clock
/// compile times.
static constexpr llvm::StringLiteral kCompileTimeProperties[] = {
    "LLVMIRToISATimeInMs", "ISAToBinaryTimeInMs"};

/// Returns `object` without its compile-time properties.
static gpu::ObjectAttr stripCompileTimes(gpu::ObjectAttr object) {
  DictionaryAttr properties = object.getProperties();
  if (!properties)
    return object;
  SmallVector<NamedAttribute> kept;
  for (NamedAttribute property : properties)
    if (!llvm::is_contained(kCompileTimeProperties, property.getName()))
      kept.push_back(property);
  if (kept.size() == properties.size())
    return object;
  DictionaryAttr newProperties =
      kept.empty() ? DictionaryAttr()
                   : DictionaryAttr::get(object.getContext(), kept);
  return gpu::ObjectAttr::get(object.getContext(), object.getTarget(),
                              object.getFormat(), object.getObject(),
                              newProperties, object.getKernels());
}

namespace {
struct StripGPUCompileTimesPass
    : public mlir::nvfp4::impl::StripGPUCompileTimesBase<
          StripGPUCompileTimesPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      for (Attribute object : binary.getObjects())
        objects.push_back(
            stripCompileTimes(llvm::cast<gpu::ObjectAttr>(object)));
      binary.setObjectsAttr(ArrayAttr::get(binary.getContext(), objects));
    });
  }
};
} // namespace
