//===- LaunchPlan.h - Host launches of a lowered program --------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// A launch plan is the host side of a program lowered by
// `nvfp4-opt --nvfp4-to-ptx`, written as text for a driver that runs its
// kernels without MLIR (bench/gpu): for each function, the buffers and
// scalars its `gpu.launch_func` ops pass, named by where they come from
// (a function argument, a component of an NVFP4 argument, a function
// result, a temporary), then each launch with its constant dimensions,
// dynamic shared memory and arguments. The format is documented in
// docs/gpu.md ("Launch plans").
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_TARGET_LAUNCHPLAN_H
#define NVFP4_TARGET_LAUNCHPLAN_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class Operation;
namespace nvfp4 {

/// Writes the launch plan of every function under `op` that launches
/// kernels. Fails with a diagnostic at the offending value or launch when a
/// launch dimension is not a constant, or an operand is neither a buffer
/// of a function argument or result, a temporary allocation, an argument's
/// tensor scale nor a constant (e.g. the tensor maps of the tcgen05
/// kernels, built on the host).
LogicalResult writeLaunchPlan(Operation *op, raw_ostream &os);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_TARGET_LAUNCHPLAN_H
