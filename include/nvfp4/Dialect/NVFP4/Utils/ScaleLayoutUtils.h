//===- ScaleLayoutUtils.h - Scale layouts at function boundaries -*- C++
//-*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// An NVFP4 value crosses a function boundary (argument, result, call operand
// or call result) with its scale buffer in the layout the function's
// `nvfp4.scale_layout` names (ScaleLayoutAttr): the dialect's row-major
// matrix, or the 128x4 atoms of the Blackwell block-scaled MMA. Inside the
// function the value means the same either way. A lowering implements the
// layouts with materializeBoundaryScaleLayouts, which relays the scales out
// on the host wherever a value does not arrive, or leave, in the layout its
// reader, or its boundary, takes; the lowering's hooks say which of its
// kernels read or write atoms themselves. See docs/formats.md, "Scale
// layout at function boundaries".
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_UTILS_SCALELAYOUTUTILS_H
#define NVFP4_DIALECT_NVFP4_UTILS_SCALELAYOUTUTILS_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>

namespace mlir::nvfp4 {

/// Whether `use` passes an NVFP4 value out of a function, or into a call,
/// at a position whose `nvfp4.scale_layout` is `atoms`: an operand of a
/// `func.return` or of a `func.call` (a sink of atoms scales).
bool isAtomsScaleLayoutSink(OpOperand &use);

/// Whether `value` arrives with atoms scales: an argument of a function, or
/// a result of a call, at a position whose `nvfp4.scale_layout` is `atoms`.
bool isAtomsScaleLayoutSource(Value value);

/// The E4M3 scales `scales` ([.., C], R rows of the leading dimensions, R a
/// multiple of 128 and C of 4) with their bytes permuted from row-major into
/// atoms (`toAtoms`) or back: tensor.expand_shape, linalg.transpose and
/// tensor.collapse_shape on their i8 view.
Value createScaleRelayout(OpBuilder &b, Location loc, Value scales,
                          bool toAtoms);

/// What a lowering's own kernels do with atoms scales.
struct BoundaryScaleLayoutHooks {
  /// Whether the consumer of `use`, an operand taking a value that arrives
  /// in atoms, reads its scales as atoms. None: no consumer does.
  std::function<bool(OpOperand &use)> readsAtoms;
  /// The value such consumers (and the sinks) take in place of the atoms
  /// source `source`, from its components `parts`. None: `source` itself.
  std::function<Value(OpBuilder &b, Value source, DisassembleOp parts)>
      createAtomsValue;
  /// Whether `value`, reaching a sink, has its scales in atoms already
  /// (besides the sources and the values of createAtomsValue).
  std::function<bool(Value value)> writesAtoms;
  /// A fallback remark at each relayout.
  bool report = false;
};

/// Implements the `nvfp4.scale_layout` of every function of `module`:
/// each use of a value that arrives in atoms that does not read atoms
/// (hooks.readsAtoms) and is not a sink takes a row-major copy; each sink
/// whose value has no atoms scales takes an atoms copy. The attributes stay
/// (finished by dropBoundaryScaleLayouts).
void materializeBoundaryScaleLayouts(ModuleOp module,
                                     const BoundaryScaleLayoutHooks &hooks);

/// Removes `nvfp4.scale_layout` from every function of `module`, once a
/// lowering has implemented it: the scale buffers at the boundaries are in
/// those layouts from then on.
void dropBoundaryScaleLayouts(ModuleOp module);

} // namespace mlir::nvfp4

#endif // NVFP4_DIALECT_NVFP4_UTILS_SCALELAYOUTUTILS_H
