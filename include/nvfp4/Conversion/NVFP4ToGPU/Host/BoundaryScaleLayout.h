//===- BoundaryScaleLayout.h - Scale layouts at function boundaries -*- C++
//-*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The layout of the E4M3 scales of NVFP4 function arguments and results
// (`nvfp4.scale_layout`, ScaleLayoutAttr): on the tcgen05 targets the 128x4
// atoms of the block-scaled MMA by default, which its matmul kernel loads
// by bulk copies, and which quantize kernels and NVFP4 epilogues write
// directly when the value leaves the function. See docs/formats.md, "Scale
// layout at function boundaries".
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_BOUNDARYSCALELAYOUT_H
#define NVFP4_CONVERSION_NVFP4TOGPU_BOUNDARYSCALELAYOUT_H

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Descriptors.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace nvfp4 {

/// Prepares the function boundaries of `module` for convert-nvfp4-to-gpu:
/// 1. with `atomsByDefault` on a tcgen05 `target`, gives every NVFP4
///    argument and result of a function that can hold atoms scales
///    (getAtomsScaleLayoutBlocker) and has no `nvfp4.scale_layout` the
///    `atoms` layout;
/// 2. materializeBoundaryScaleLayouts (ScaleLayoutUtils.h): every value that
///    arrives with atoms scales (such an argument, or such a result of a
///    call) becomes an atoms-layout value (KernelIR.h) for the matmul
///    operands whose kernel reads atoms and for the sinks, and its row-major
///    copy (a host relayout) for every other use; every sink whose value is
///    not an atoms-layout value and not quantized in atoms
///    (producesTcgen05ScaleAtoms) takes the atoms copy of its row-major
///    scales (a host relayout).
/// With `report`, each relayout gets a fallback remark.
void prepareBoundaryScaleLayouts(ModuleOp module, GPUTarget target,
                                 ::nvfp4::gpu::tcgen05::CtaPairMode ctaPair,
                                 bool atomsByDefault, bool report);

/// Emits a fallback remark at every NVFP4 matmul of `module` that the
/// tcgen05 kernel lowers with an operand whose scales it could read as
/// atoms (canReadTcgen05ScaleAtoms) but that has them row-major, so that
/// its producer warp loads and stores them, saying why. Once the
/// quantizations that write atoms are marked.
void reportRowMajorTcgen05Operands(ModuleOp module, GPUTarget target,
                                   ::nvfp4::gpu::tcgen05::CtaPairMode ctaPair);

/// After the lowering: makes each sink of an atoms-layout value take the
/// value's components unchanged (`nvfp4.assemble` of its data, atoms scales
/// and amax), as its layout says; then drops the `nvfp4.scale_layout`
/// attributes, which the lowering has implemented.
void finishBoundaryScaleLayouts(ModuleOp module);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOGPU_BOUNDARYSCALELAYOUT_H
