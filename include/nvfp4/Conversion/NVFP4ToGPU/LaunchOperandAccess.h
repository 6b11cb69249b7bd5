//===- LaunchOperandAccess.h - Launch operand access marks ------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Which memref operands the kernel of a host gpu.launch_func reads and which
// it writes: convert-nvfp4-to-gpu records it on the launches it creates
// (it knows its kernels' outputs), nvfp4-gpu-pack-launch-operands on the
// others (from where the operands come from), and
// nvfp4-gpu-stage-launch-operands reads it to copy only what is needed.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_LAUNCHOPERANDACCESS_H
#define NVFP4_CONVERSION_NVFP4TOGPU_LAUNCHOPERANDACCESS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <optional>

namespace mlir::nvfp4 {

/// Attribute on a gpu.launch_func: per kernel operand, a combination of
/// LaunchOperandAccess bits: 0 (not a memref), 1 (read), 2 (written) or 3
/// (read and written).
inline constexpr llvm::StringLiteral kLaunchOperandAccessAttrName =
    "nvfp4.operand_access";

enum LaunchOperandAccess : int32_t {
  kLaunchOperandNone = 0,
  kLaunchOperandRead = 1,
  kLaunchOperandWrite = 2
};

/// Whether `op` is a launch on the host side (not inside a kernel module).
inline bool isHostLaunch(gpu::LaunchFuncOp op) {
  return !op->getParentOfType<gpu::GPUModuleOp>();
}

/// The position of `use` among the kernel operands of `launch`, or none when
/// it is another operand of the launch (or of another op).
inline std::optional<unsigned> getKernelOperandIndex(gpu::LaunchFuncOp launch,
                                                     OpOperand &use) {
  for (auto [index, operand] :
       llvm::enumerate(launch.getKernelOperandsMutable()))
    if (&operand == &use)
      return index;
  return std::nullopt;
}

/// Records on `launch` the access of each kernel operand: none for a
/// non-memref, write for a value of `written` (the kernel overwrites it
/// without reading it), read and write for a value of `readWritten`, read
/// for any other memref.
void setLaunchOperandAccess(gpu::LaunchFuncOp launch, ValueRange written,
                            ValueRange readWritten = {});

} // namespace mlir::nvfp4

#endif // NVFP4_CONVERSION_NVFP4TOGPU_LAUNCHOPERANDACCESS_H
