/*===- nvfp4-c/ExecutionEngine.h - Compile once, call many times -*- C -*-===*\
|*                                                                            *|
|* Part of the NVFP4-MLIR project.                                            *|
|*                                                                            *|
|* A program: a module lowered by a pass pipeline (nvfp4-to-cpu,              *|
|* nvfp4-to-gpu-executable, nvfp4-to-gpu-emulation or any other that ends in  *|
|* the LLVM dialect) and loaded into MLIR's ExecutionEngine, with the         *|
|* signature of its entry function as it was before lowering. Embedders (the  *|
|* Python package's nvfp4.compile among them) compile once and then invoke    *|
|* the entry function through its packed C interface as often as they like.  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef NVFP4_C_EXECUTIONENGINE_H
#define NVFP4_C_EXECUTIONENGINE_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled program. It owns the MLIR context its module and its
/// signature types live in.
typedef struct MlirNVFP4Program {
  void *ptr;
} MlirNVFP4Program;

static inline bool mlirNVFP4ProgramIsNull(MlirNVFP4Program program) {
  return !program.ptr;
}

/// Parses `source` in a fresh context with every upstream and nvfp4 dialect
/// (and every upstream and nvfp4 pass registered for `pipeline`)
/// registered, marks the tensor arguments of the function `entry` read-only
/// (bufferization.writable = false, so the caller's buffers are never written)
/// and gives it a C interface (llvm.emit_c_interface), runs the textual pass
/// pipeline `pipeline` (for example "builtin.module(nvfp4-to-cpu)"), and
/// creates an ExecutionEngine at `optLevel` (0 to 3) that loads the
/// `numSharedLibPaths` runtime libraries of `sharedLibPaths`.
///
/// The entry function's arguments and results must be ranked tensors or
/// memrefs with static or dynamic sizes, or scalars (integer, index or
/// float); `entry` must be a public func.func.
///
/// Every diagnostic (parse errors, verifier and pass failures, a bad
/// signature, a library that does not load, LLVM JIT errors) goes to
/// `diagnosticCallback` with `userData`, one call per message, with its
/// location. Returns a null program after any error.
MLIR_CAPI_EXPORTED MlirNVFP4Program mlirNVFP4ProgramCreate(
    MlirStringRef source, MlirStringRef entry, MlirStringRef pipeline,
    int optLevel, intptr_t numSharedLibPaths,
    const MlirStringRef *sharedLibPaths, MlirStringCallback diagnosticCallback,
    void *userData);

/// Destroys `program`, its engine and its context.
MLIR_CAPI_EXPORTED void mlirNVFP4ProgramDestroy(MlirNVFP4Program program);

/// The entry function's argument and result types before lowering (in the
/// program's context; valid while the program lives).
MLIR_CAPI_EXPORTED intptr_t
mlirNVFP4ProgramGetNumInputs(MlirNVFP4Program program);
MLIR_CAPI_EXPORTED MlirType mlirNVFP4ProgramGetInputType(MlirNVFP4Program program,
                                                         intptr_t pos);
MLIR_CAPI_EXPORTED intptr_t
mlirNVFP4ProgramGetNumResults(MlirNVFP4Program program);
MLIR_CAPI_EXPORTED MlirType
mlirNVFP4ProgramGetResultType(MlirNVFP4Program program, intptr_t pos);

/// Calls the entry function's C interface `_mlir_ciface_<entry>` through its
/// packed wrapper. `arguments` holds one pointer per parameter of the C
/// interface, in order, each pointing at that parameter's value:
///
///  * when the entry has several results, or one ranked tensor or memref
///    result, the first parameter is a pointer to the results, laid out as
///    a struct of their values (a memref result as its descriptor
///    {allocated, aligned, offset, sizes[rank], strides[rank]});
///  * then one per input: a pointer to a memref descriptor for a tensor or
///    memref, the value itself for a scalar;
///  * last, when the entry has exactly one scalar result, where it goes.
///
/// Memref results come back owned by the caller, who frees their
/// `allocated` pointer with free(), unless it is one of the inputs' own
/// `allocated` pointers (a result that aliases an input).
MLIR_CAPI_EXPORTED void mlirNVFP4ProgramInvokePacked(MlirNVFP4Program program,
                                                     void **arguments);

#ifdef __cplusplus
}
#endif

#endif /* NVFP4_C_EXECUTIONENGINE_H */
