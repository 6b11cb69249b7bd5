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
// result, a temporary; scales in 128x4 atoms marked so), the TMA tensor
// maps the host encodes over them, then each launch with its dimensions
// (grid sizes may be expressions of the device's multiprocessor count),
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
/// kernels. Fails with a diagnostic at the offending value or launch, and
/// writes nothing, when a grid size is computed from anything but constants
/// and the multiprocessor count, another launch dimension is not a
/// constant, or an operand is neither a buffer of a function argument or
/// result, a temporary allocation, an argument's tensor scale, a constant
/// nor a tensor map of such a buffer with constant parameters.
LogicalResult writeLaunchPlan(Operation *op, raw_ostream &os);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_TARGET_LAUNCHPLAN_H
