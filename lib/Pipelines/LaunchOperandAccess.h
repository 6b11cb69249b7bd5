//===- LaunchOperandAccess.h - Launch operand access marks ------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// What nvfp4-gpu-pack-launch-operands records on each host gpu.launch_func
// and nvfp4-gpu-stage-launch-operands reads: which memref operands the
// kernel reads and which it writes.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_PIPELINES_LAUNCHOPERANDACCESS_H
#define NVFP4_LIB_PIPELINES_LAUNCHOPERANDACCESS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::nvfp4::detail {

/// Attribute on a gpu.launch_func: per kernel operand, a combination of
/// LaunchOperandAccess bits: 0 (not a memref), 1 (read), 2 (written) or 3
/// (read and written).
inline constexpr llvm::StringLiteral kLaunchOperandAccessAttrName =
    "nvfp4.operand_access";

enum LaunchOperandAccess : int32_t { kNone = 0, kRead = 1, kWrite = 2 };

/// Whether `op` is a launch on the host side (not inside a kernel module).
inline bool isHostLaunch(gpu::LaunchFuncOp op) {
  return !op->getParentOfType<gpu::GPUModuleOp>();
}

} // namespace mlir::nvfp4::detail

#endif // NVFP4_LIB_PIPELINES_LAUNCHOPERANDACCESS_H
