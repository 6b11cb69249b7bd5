//===- MX.h - Bit-exact OCP MX (MXFP4 / MXFP8) numerics ---------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The OCP Microscaling formats v1.0 that Blackwell's tensor cores run beside
// NVFP4: a block of 32 elements (E2M1 for MXFP4; E4M3 or E5M2 for MXFP8)
// shares one E8M0 scale (a power of two), with no tensor scale. This header
// gives the E8M0 and E5M2 conversions, the quantization of the
// specification (section 6.3, as its reference implementation, Microsoft's
// microxcaling, computes it), dequantization and the block-scaled GEMM.
// docs/numerics.md §13 states every formula.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_NUMERICS_MX_H
#define NVFP4_NUMERICS_MX_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nvfp4::mx {

/// Elements per MX block (the specification's k).
inline constexpr int kBlockSize = 32;
/// The E8M0 code of NaN.
inline constexpr uint8_t kE8M0NaN = 0xFF;

/// The element type of an MX format.
enum class ElementType {
  E2M1, // MXFP4
  E4M3, // MXFP8 (e4m3)
  E5M2, // MXFP8 (e5m2)
};

/// Bits per element: 4 or 8.
int elementBits(ElementType type);
/// The exponent of the element type's largest normal (the specification's
/// emax_elem): 2 (E2M1, 6 = 1.5 * 2^2), 8 (E4M3, 448 = 1.75 * 2^8), 15
/// (E5M2, 57344 = 1.75 * 2^15).
int elementMaxExponent(ElementType type);
/// The largest finite element magnitude: 6, 448, 57344.
float elementMax(ElementType type);

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

/// Decodes an E8M0 byte: 2^(code - 127); 0xFF is NaN.
float decodeE8M0(uint8_t code);

/// Encodes |x| as E8M0 rounding toward zero to a power of two, clipped to
/// [2^-127, 2^127] (0 and subnormals give 0x00, infinities 0xFE); NaN gives
/// 0xFF. Bit-exact with cuda_fp8.h's `__nv_cvt_float_to_e8m0(x,
/// __NV_SATFINITE, cudaRoundZero)`.
uint8_t encodeE8M0RoundDown(float x);

/// Encodes `x` as E5M2 with round-to-nearest-even and saturation to
/// +-57344, bit-exact with cuda_fp8.h's `__nv_cvt_float_to_fp8(x,
/// __NV_SATFINITE, __NV_E5M2)`; NaN gives 0x7F (positive, canonical).
uint8_t encodeE5M2(float x);
/// Decodes an E5M2 byte (infinities 0x7C / 0xFC, NaNs above them).
float decodeE5M2(uint8_t code);

/// Encodes `x` as an element of `type` with round-to-nearest-even and
/// saturation to the largest finite magnitude (encodeE2M1, encodeE4M3,
/// encodeE5M2).
uint8_t encodeElement(float x, ElementType type);
/// Decodes an element code of `type`.
float decodeElement(uint8_t code, ElementType type);

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// An MX tensor of logical shape [rows, cols], blocked along cols.
struct Tensor {
  int64_t rows = 0;
  int64_t cols = 0;
  ElementType elementType = ElementType::E2M1;
  /// The element codes, row-major: E2M1 two per byte (the even element in
  /// the low nibble, rows * cols / 2 bytes), E4M3 / E5M2 one per byte.
  std::vector<uint8_t> data;
  /// rows * cols / 32 E8M0 bytes, row-major [rows, cols / 32].
  std::vector<uint8_t> scales;
};

/// The shared exponent of a block whose largest magnitude is `blockAmax`,
/// as an E8M0 code: e = floor(log2(blockAmax)) - elementMaxExponent(type)
/// (blockAmax 0 counts as 2^-126, the smallest normal f32), 0xFF (NaN) when
/// blockAmax is NaN or infinite or e > 127, and -127 (code 0) when
/// e < -127.
uint8_t sharedScale(float blockAmax, ElementType type);

/// Checks that (rows, cols) can be quantized: non-negative, the element
/// count representable, cols % 32 == 0. Returns an error or std::nullopt.
std::optional<std::string> checkQuantizable(int64_t rows, int64_t cols);

/// Quantizes the row-major [rows, cols] f32 array `x` per the OCP MX
/// specification v1.0: for each block of 32 elements of a row, the scale
/// X = sharedScale(max |x_i|), and each element encodeElement(x_i / X) (an
/// exact scaling by a power of two, rounded once if the quotient is an f32
/// subnormal). A NaN scale makes every element of its block NaN on
/// dequantization. Returns an error on invalid shapes. The blocks are
/// split among `numThreads` threads of the library's team (0: one per
/// hardware thread; ranges of at least 1024 blocks); the result does not
/// depend on it.
std::optional<std::string> quantize(const float *x, int64_t rows, int64_t cols,
                                    ElementType type, Tensor &out,
                                    int numThreads = 1);

/// Checks that `t` is well formed: a quantizable shape with data and scales
/// of the sizes it implies. Returns an error or std::nullopt.
std::optional<std::string> checkTensor(const Tensor &t);

/// Writes rows * cols f32 values: decodeElement(q) * decodeE8M0(s), the
/// product computed as ldexp (exact unless it overflows f32 or is an f32
/// subnormal; NaN for a NaN scale). Requires checkTensor(t) to pass.
void dequantize(const Tensor &t, float *out);

/// C[M, N] = sum over K of A[m, k] * B[n, k] for MX tensors A [M, K] and B
/// [N, K] of any element types (the hardware's kind::mxf4 takes E2M1 with
/// E2M1, kind::mxf8f6f4 any mix). Each 32-wide block contributes
/// fl32(sum of qA * qB, exact in double) * 2^(eA + eB), and the blocks are
/// accumulated in f32 in increasing k: per element
///   acc = 0; for each block: acc = acc + fl32(partial) * 2^(eA + eB)
/// (the scaling exact unless it overflows or underflows f32; a NaN scale
/// makes the element NaN; a NaN or infinite element, which quantize never
/// produces, adds the f32 sum of its products, Inf or NaN, to its block's
/// contribution). Returns an error when the operands are not well formed or
/// their K differ; `c` is then untouched.
std::optional<std::string> matmul(const Tensor &a, const Tensor &b, float *c);

} // namespace nvfp4::mx

#endif // NVFP4_NUMERICS_MX_H
