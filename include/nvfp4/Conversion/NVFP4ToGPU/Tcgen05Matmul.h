//===- Tcgen05Matmul.h - NVFP4 matmul on tcgen05 tensor cores ---*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The sm_100a / sm_103a / sm_110a lowering of `nvfp4.matmul`: a 1-CTA kernel
// on `tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16` with the
// accumulator and the scale factors in tensor memory. docs/tcgen05.md
// describes the design; the descriptor and layout mathematics live in
// Tcgen05Descriptors.h.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05MATMUL_H
#define NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05MATMUL_H

#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"

#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir {
class RewritePatternSet;
namespace nvfp4 {
class MatmulOp;

/// Whether `target` has the 5th-generation tensor core (tcgen05): sm_100a,
/// sm_103a, sm_110a.
bool isTcgen05Target(GPUTarget target);

/// Checks that `op` has a shape the tcgen05 kernel supports; emits an error
/// at the op's location and fails otherwise.
LogicalResult checkTcgen05MatmulSupported(MatmulOp op, GPUTarget target);

/// Adds the pattern lowering `nvfp4.matmul` to a `gpu.launch_func` of the
/// tcgen05 kernel (generated into `gpu.module @nvfp4_kernels`). Matmuls that
/// fail checkTcgen05MatmulSupported are left alone.
void populateNVFP4ToTcgen05Patterns(RewritePatternSet &patterns,
                                    GPUTarget target);

/// Attaches `#nvvm.target<O = optLevel, chip = chip, features = features>` to
/// every gpu.module without targets, like `nvvm-attach-target`, but with the
/// target attribute's op-level SM check disabled. MLIR 22 lists only
/// sm_100a/sm_101a for most tcgen05 ops (sm_101a is sm_110a's former name)
/// and rejects them for sm_103a and sm_110a, which the NVPTX backend and
/// ptxas accept; the NVFP4 lowering checks the target itself before it
/// emits any tcgen05 operation.
std::unique_ptr<Pass> createAttachTcgen05NVVMTargetPass(StringRef chip,
                                                        StringRef features,
                                                        unsigned optLevel);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05MATMUL_H
