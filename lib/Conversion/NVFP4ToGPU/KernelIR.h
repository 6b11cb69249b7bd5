//===- KernelIR.h - IR helpers shared by the NVFP4 GPU kernels --*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Address arithmetic that every kernel emitter of the NVFP4ToGPU lowering
// (matmul, quantize, dequantize / Hadamard) needs, and the host-side buffer
// of a kernel operand. Internal to the library.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_NVFP4TOGPU_KERNELIR_H
#define NVFP4_LIB_CONVERSION_NVFP4TOGPU_KERNELIR_H

#include "mlir/IR/Builders.h"

#include <cstdint>

namespace mlir::nvfp4::detail {

/// The aligned base address of `memref` as an LLVM pointer in the global
/// address space. Kernels address packed E2M1 and E4M3 buffers by byte
/// through it instead of indexing the memref (see docs/gpu.md, "Storage of
/// E2M1 buffers").
Value createGlobalBasePointer(OpBuilder &b, Location loc, Value memref);

/// `base` advanced by `byteOffset` (an `index`) bytes, as an inbounds GEP.
Value createByteAddress(OpBuilder &b, Location loc, Value base,
                        Value byteOffset);

/// Applies the 16-point random Hadamard transform to the f32 values `v` in
/// place, in the exact operation order of the reference library
/// (docs/numerics.md): negate element j when bit j of `negateMask` is set,
/// butterflies (a + b, a - b) with strides 1, 2, 4, 8, then multiply by 0.25.
/// Every kernel that transforms (quantize, Hadamard) emits it through here,
/// so they cannot drift apart.
void createHadamard16(OpBuilder &b, Location loc, MutableArrayRef<Value> v,
                      uint32_t negateMask);

/// The components of an NVFP4 value as a launch passes them.
struct NVFP4Components {
  Value data, scales, decodeScale;
};

/// The data, scales and decode scale of the NVFP4 value `value`: the
/// operands of the `nvfp4.assemble` that built it (a lowered quantization:
/// its kernel buffers pass through, no copy), else the results of a new
/// `nvfp4.disassemble`. convert-nvfp4-to-gpu erases the assemblies left
/// without a use.
NVFP4Components getNVFP4Components(OpBuilder &b, Location loc, Value value);

/// The buffer holding `tensor` for a launch that only reads it: the buffer
/// of a `bufferization.to_tensor` (e.g. an output of an earlier kernel) when
/// its type matches, otherwise a read-only `bufferization.to_buffer`.
Value createReadOnlyBuffer(OpBuilder &b, Location loc, Value tensor);

} // namespace mlir::nvfp4::detail

#endif // NVFP4_LIB_CONVERSION_NVFP4TOGPU_KERNELIR_H
