//===- Numerics.h - Bit-exact NVFP4 reference numerics ----------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The ground truth every lowering of the `nvfp4` dialect is checked against:
// element conversions (E2M1, E4M3), Transformer-Engine-compatible NVFP4
// quantization (per-tensor FP32 scale, E4M3 block scales, reciprocal
// multiply), stochastic rounding from Philox4x32-10 bits, the 16x16 random
// Hadamard transform, block-scaled GEMM, and the 128x4 scale-factor swizzle.
//
// This library has no MLIR or LLVM dependency. docs/numerics.md states every
// formula and the behaviour on zeros, Inf, NaN and subnormals.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_NUMERICS_NUMERICS_H
#define NVFP4_NUMERICS_NUMERICS_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace nvfp4 {

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

/// Largest finite E2M1 magnitude.
inline constexpr float kE2M1Max = 6.0f;
/// Largest finite E4M3 (fn) magnitude.
inline constexpr float kE4M3Max = 448.0f;
/// Elements per 1D block along the contraction dimension.
inline constexpr int kBlockSize = 16;

//===----------------------------------------------------------------------===//
// Element conversions
//===----------------------------------------------------------------------===//

/// Encodes `x` as a 4-bit E2M1 code (bit 3 sign, bits 2..1 exponent, bit 0
/// mantissa) with round-to-nearest-even and saturation to +-6, bit-exact with
/// `cvt.rn.satfinite.e2m1x2.f32` and cuda_fp4.h's `__nv_cvt_float_to_fp4`
/// (`cudaRoundNearest`). NaN encodes as cuda_fp4.h does.
uint8_t encodeE2M1(float x);

/// Encodes `x` as E2M1 with stochastic rounding from 8 random bits, saturating
/// to +-6 (the semantics of `cvt.rs.satfinite.e2m1x4.f32` for one element).
/// See docs/numerics.md for exactly how `rbits` is consumed.
uint8_t encodeE2M1Stochastic(float x, uint8_t rbits);

/// Decodes a 4-bit E2M1 code (only the low nibble is read).
float decodeE2M1(uint8_t code);

/// Encodes `x` as E4M3 (fn) with round-to-nearest-even and saturation to
/// +-448 (satfinite), bit-exact with cuda_fp8.h's `__nv_cvt_float_to_fp8(x,
/// __NV_SATFINITE, __NV_E4M3)`. Every NaN encodes as 0x7F, whatever its sign
/// (cuda_fp8.h canonicalizes a float NaN to positive before converting).
uint8_t encodeE4M3(float x);

/// Decodes an E4M3 (fn) byte; 0x7F/0xFF decode to NaN.
float decodeE4M3(uint8_t code);

//===----------------------------------------------------------------------===//
// Philox4x32-10
//===----------------------------------------------------------------------===//

/// One Philox4x32-10 evaluation (Salmon et al., SC'11; the constants of
/// cuRAND and Random123). `key` = {seed low, seed high}; the 128-bit counter is
/// {offset low, offset high, 0, 0}.
std::array<uint32_t, 4> philox4x32(uint64_t seed, uint64_t offset);

/// The general Philox4x32-10 bijection on a full 128-bit counter and 64-bit
/// key, as Random123's `philox4x32_R(10, ctr, key)`. `philox4x32(seed,
/// offset)` is `philox4x32_10({offset lo, offset hi, 0, 0}, {seed lo, seed
/// hi})`.
std::array<uint32_t, 4> philox4x32_10(const std::array<uint32_t, 4> &counter,
                                      const std::array<uint32_t, 2> &key);

/// The 8 random bits stochastic rounding uses for the element at row-major
/// linear index `linearIndex` of a tensor quantized with (seed, offset):
/// byte (linearIndex % 16) of philox4x32(seed, offset + linearIndex / 16),
/// bytes counted little-endian across the four 32-bit words.
uint8_t stochasticRoundingBits(uint64_t seed, uint64_t offset,
                               uint64_t linearIndex);

//===----------------------------------------------------------------------===//
// Random Hadamard transform
//===----------------------------------------------------------------------===//

/// Transformer Engine's fixed sign vector for the 16x16 RHT.
inline constexpr std::array<int8_t, 16> kDefaultHadamardSigns = {
    1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1};

/// Applies `H = (1/4) * H16 * diag(signs)` to every consecutive group of 16
/// elements of each row of the row-major [rows, cols] array `x`, in place:
/// y = H * x_block. Requires cols % 16 == 0. Evaluated in f32 with a fixed
/// operation order (documented in docs/numerics.md) so GPU and CPU lowerings
/// can match it bit for bit.
void applyHadamard(float *x, int64_t rows, int64_t cols,
                   const std::array<int8_t, 16> &signs = kDefaultHadamardSigns);

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

enum class Rounding { NearestEven, Stochastic };

/// Block-scale layout: 1x16 (one scale per 16 elements of a row) or 16x16
/// (one scale per 16x16 tile, stored replicated to each of its 16 rows).
struct BlockShape {
  int rows = 1;
  int cols = 16;
  bool operator==(const BlockShape &o) const {
    return rows == o.rows && cols == o.cols;
  }
};

struct QuantizeOptions {
  BlockShape block{1, 16};
  Rounding rounding = Rounding::NearestEven;
  uint64_t seed = 0;
  uint64_t offset = 0;
  /// Apply the RHT along the last dimension before taking the amax.
  bool hadamard = false;
  std::array<int8_t, 16> signs = kDefaultHadamardSigns;
  /// Explicit tensor amax; computed from the (transformed) input if absent.
  std::optional<float> amax;
};

/// What the f32 tensor scale of an NVFP4 tensor is.
enum class TensorScale {
  /// The tensor amax the block scales were derived from, as Transformer
  /// Engine carries it: an element is e2m1 * fl(fl(e4m3 * amax) *
  /// kInvE2M1TimesE4M3Max).
  Amax,
  /// A decode scale that multiplies the block scales, as Model Optimizer's
  /// NVFP4 checkpoints carry it (`weight_scale_2` = amax / (6 * 448)): an
  /// element is e2m1 * fl(e4m3 * scale).
  Decode,
};

/// An NVFP4 tensor of logical shape [rows, cols], quantized along cols.
struct QuantizedTensor {
  int64_t rows = 0;
  int64_t cols = 0;
  BlockShape block{1, 16};
  /// rows * cols / 2 bytes; two E2M1 codes per byte, the even-indexed
  /// element in the low nibble.
  std::vector<uint8_t> data;
  /// rows * cols / 16 E4M3 bytes, row-major [rows, cols/16]. For 16x16 blocks
  /// each tile's scale is replicated to its 16 rows.
  std::vector<uint8_t> scales;
  /// The f32 tensor scale. With TensorScale::Amax (what quantize produces)
  /// the tensor amax the scales were derived from (S_enc =
  /// globalEncodeScale(amax)): Transformer Engine carries the amax, not a
  /// decode scale, and dequantizes and scales GEMM results from it. With
  /// TensorScale::Decode, a decode scale (dequantizeScale, matmulAlpha).
  float amax = 0.0f;
  /// What `amax` is.
  TensorScale tensorScale = TensorScale::Amax;
};

/// fl(1 / (6 * 448)): Transformer Engine's `factor_inv` of the NVFP4
/// dequantize kernel.
inline constexpr float kInvE2M1TimesE4M3Max =
    static_cast<float>(1.0 / (6.0 * 448.0));
/// fl(1 / (6 * 6 * 448 * 448)): Transformer Engine's `factor_inv` of the NVFP4
/// GEMM's per-tensor scale (alpha).
inline constexpr float kInvE2M1TimesE4M3MaxSquared =
    static_cast<float>(1.0 / (6.0 * 6.0 * 448.0 * 448.0));

/// Per-tensor encode scale S_enc = (6 * 448) / amax, clamped to FLT_MAX
/// (fminf, so a NaN amax gives FLT_MAX); 1.0 when amax is 0 or S_enc is 0
/// (amax = Inf). Transformer Engine's compute_global_encode_scaling_factor_FP4.
float globalEncodeScale(float amax);

/// The per-tensor decode scale S_dec = fl(1 / S_enc) that quantization
/// multiplies block scales by.
float globalDecodeScale(float amax);

/// The f32 factor a dequantized element's E2M1 value is multiplied by:
/// fl(fl(decodeE4M3(scaleCode) * amax) * kInvE2M1TimesE4M3Max), Transformer
/// Engine's `dequantize_fp4_kernel` (`final_scale`).
float dequantizeScale(uint8_t scaleCode, float amax);

/// As above for a tensor scale of kind `kind`: for TensorScale::Decode,
/// fl(decodeE4M3(scaleCode) * scale), Model Optimizer's and vLLM's
/// `e4m3 * weight_scale_2`.
float dequantizeScale(uint8_t scaleCode, float tensorScale, TensorScale kind);

/// The f32 factor a block-scaled GEMM's accumulator is multiplied by:
/// fl(fl(amaxA * amaxB) * kInvE2M1TimesE4M3MaxSquared), Transformer Engine's
/// `compute_nvfp4_per_tensor_scale_kernel` with alpha_in = 1.
float matmulAlpha(float amaxA, float amaxB);

/// The decode scale of a tensor scale: fl(amax * kInvE2M1TimesE4M3Max) for
/// an amax, the scale itself for a decode scale.
float tensorDecodeScale(float tensorScale, TensorScale kind);

/// matmulAlpha for operands of any tensor-scale kinds: two amaxes as above
/// (Transformer Engine); two decode scales fl(scaleA * scaleB) (vLLM's
/// `alpha = input_scale * weight_scale_2`); an amax and a decode scale
/// fl(tensorDecodeScale(a) * tensorDecodeScale(b)).
float matmulAlpha(float scaleA, TensorScale kindA, float scaleB,
                  TensorScale kindB);

/// E4M3 block scale s_b = e4m3_satfinite_rn(min(blockAmax * (sEnc * (1/6)),
/// FLT_MAX)).
uint8_t blockScale(float blockAmax, float sEnc);

/// `a * b` for non-negative `a` and `b`, or std::nullopt when the product
/// does not fit in int64_t. Every size computed from user-controlled
/// dimensions goes through it.
std::optional<int64_t> checkedMul(int64_t a, int64_t b);

/// Checks that (rows, cols, block) can be quantized: non-negative, rows *
/// cols representable, cols % 16 == 0, rows % 16 == 0 for 16x16 blocks,
/// block in {1x16, 16x16}. Returns an error message or std::nullopt.
std::optional<std::string> checkQuantizable(int64_t rows, int64_t cols,
                                            BlockShape block);

/// Quantizes the row-major [rows, cols] f32 array `x` with Transformer
/// Engine's semantics. On invalid shapes returns an error and leaves `out`
/// unspecified.
std::optional<std::string> quantize(const float *x, int64_t rows,
                                    int64_t cols, const QuantizeOptions &opts,
                                    QuantizedTensor &out);

/// As `quantize`, splitting the rows over `numThreads` threads. The result is
/// bit-identical to the single-threaded one.
std::optional<std::string> quantizeParallel(const float *x, int64_t rows,
                                            int64_t cols,
                                            const QuantizeOptions &opts,
                                            QuantizedTensor &out,
                                            int numThreads);

/// Writes rows*cols f32 values: decodeE2M1(q) * dequantizeScale(s, t.amax,
/// t.tensorScale).
/// Requires well-formed sizes (checkTensor).
void dequantize(const QuantizedTensor &t, float *out);

/// The transpose of a 16x16-scaled tensor, computed on the codes alone (no
/// requantization): exact, since every element of a tile shares one scale.
/// Requires t.block == {16, 16}.
QuantizedTensor transpose2D(const QuantizedTensor &t);

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

/// Checks that `t` is a well-formed NVFP4 tensor: a quantizable shape
/// (checkQuantizable) whose data holds rows*cols/2 bytes and whose scales
/// hold rows*cols/16. Returns an error message or std::nullopt.
std::optional<std::string> checkTensor(const QuantizedTensor &t);

/// Checks that `a` and `b` are well-formed NVFP4 tensors (data and scale
/// sizes match rows and cols, cols % 16 == 0) with a.cols == b.cols. Returns
/// an error message or std::nullopt.
std::optional<std::string> checkMatmulOperands(const QuantizedTensor &a,
                                               const QuantizedTensor &b);

/// C[M, N] = (sum_k A[m, k] * B[n, k]) * matmulAlpha(a.amax, a.tensorScale,
/// b.amax, b.tensorScale) for NVFP4 A
/// [M, K] and B [N, K]. Each 16-wide K block contributes
/// sA * sB * sum(qA * qB), the per-block sum being exact in f32; blocks are
/// accumulated in f32 in increasing k: per element,
///   acc = 0; for each block: acc = acc + partial * (sA * sB); C = acc * alpha
/// with `partial * (sA * sB)` exact, so one rounding per block. Requires
/// a.cols == b.cols; when checkMatmulOperands fails, `c` is left untouched.
/// Computed by a cache-tiled, vectorized kernel (AVX-512 / AVX2 / baseline,
/// chosen at run time) on all hardware threads; the result does not depend
/// on either (lib/Numerics/Matmul.cpp).
void matmul(const QuantizedTensor &a, const QuantizedTensor &b, float *c);

/// As `matmul`, on `numThreads` threads (0: one per hardware thread).
void matmul(const QuantizedTensor &a, const QuantizedTensor &b, float *c,
            int numThreads);

/// High-precision reference: C[M, N] = A[M, K] * B[N, K]^T in double,
/// rounded to f32.
void matmulF32(const float *a, const float *b, float *c, int64_t m, int64_t n,
               int64_t k);

//===----------------------------------------------------------------------===//
// Scale-factor swizzle (the 128x4 atom of tcgen05 / cuBLAS / Triton)
//===----------------------------------------------------------------------===//

/// Size in bytes of the swizzled form of a [rows, cols] scale matrix: rows
/// padded to 128, cols padded to 4 (0 when either is 0). std::nullopt when a
/// dimension is negative or the size does not fit in int64_t.
std::optional<int64_t> swizzledScalesSize(int64_t rows, int64_t cols);

/// Row-major [rows, cols] -> contiguous (rows/128, cols/4, 32, 4, 4): entry
/// (r, c) goes to [r/128][c/4][r%32][(r/32)%4][c%4]. Padding is zero.
/// Requires swizzledScalesSize(rows, cols) to have a value.
std::vector<uint8_t> swizzleScales(const uint8_t *scales, int64_t rows,
                                   int64_t cols);

/// Inverse of swizzleScales; drops the padding. Same requirement.
std::vector<uint8_t> unswizzleScales(const uint8_t *swizzled, int64_t rows,
                                     int64_t cols);

} // namespace nvfp4

#endif // NVFP4_NUMERICS_NUMERICS_H
