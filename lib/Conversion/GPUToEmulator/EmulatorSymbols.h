//===- EmulatorSymbols.h - Names shared by the emulation passes -*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/Conversion/GPUToEmulator: the symbols and attribute through
// which nvfp4-emulate-gpu-kernels hands the emulated kernels to
// nvfp4-emulate-gpu-launches, and the declaration of runtime functions.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_GPUTOEMULATOR_EMULATORSYMBOLS_H
#define NVFP4_LIB_CONVERSION_GPUTOEMULATOR_EMULATORSYMBOLS_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::nvfp4::detail {

/// The attribute marking a gpu.binary whose kernels are emulated; its value
/// is the static shared memory of the module's kernels, in bytes.
inline constexpr llvm::StringLiteral kEmulatedAttrName = "nvfp4.emulated";

/// The host name of function `name` of gpu.module `module`.
inline std::string getHostName(StringRef module, StringRef name) {
  return ("__nvfp4_emu_" + module + "_" + name).str();
}

/// The host name of the entry of kernel `name` of gpu.module `module`.
inline std::string getEntryName(StringRef module, StringRef name) {
  return getHostName(module, name) + "_entry";
}

/// Declares (once) the runtime function `name` in `module`.
LLVM::LLVMFuncOp getOrCreateRuntimeFunction(ModuleOp module, StringRef name,
                                            Type result, ArrayRef<Type> params);

/// Calls the runtime function `name` of libnvfp4_gpu_emulator with `args`
/// (declared on first use; pointers are passed as generic pointers, since
/// the address spaces of a rewritten kernel are dropped).
LLVM::CallOp createRuntimeCall(OpBuilder &b, Location loc, ModuleOp module,
                               StringRef name, Type result, ValueRange args);

/// Rewrites `op` into runtime calls when it is one of the cluster, mbarrier,
/// TMA, bulk-copy, fence, `elect.sync` and tcgen05 operations, or a
/// conversion between shared pointers and integers (EmulateAsyncOps.cpp);
/// sets `handled` when it is. `locationOf` gives the address of the string
/// naming an operation's source location for the runtime's reports.
LogicalResult
rewriteAsyncOp(Operation *op, Value thread, ModuleOp module,
               llvm::function_ref<Value(OpBuilder &, Location)> locationOf,
               bool &handled);

/// An alloca of `count` elements of `type` in the entry block of the
/// function holding `op`.
Value createEntryAlloca(Operation *op, Type type, int64_t count);

/// Rewrites the warp-wide `nvvm.mma.sync` or `nvvm.mma.block_scale` `op` of
/// a kernel into a call of the emulator's MMA of its form
/// (EmulateWarpMma.cpp); an error at the op for a form it does not model.
LogicalResult rewriteWarpMma(Operation *op, Value thread, ModuleOp module);

} // namespace mlir::nvfp4::detail

#endif // NVFP4_LIB_CONVERSION_GPUTOEMULATOR_EMULATORSYMBOLS_H
