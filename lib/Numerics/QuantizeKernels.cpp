//===- QuantizeKernels.cpp - Fast NVFP4 quantization kernels --------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The kernels behind nvfp4::quantize / quantizeParallel / dequantize. Every
// f32 operation of docs/numerics.md is evaluated as documented (same
// operands, same order, no contraction); only the way codes are derived from
// the results changes (comparison sums and bit arithmetic instead of
// branches), which QuantizeKernelsTest.cpp and the exhaustive checks compare
// with the generic element encoders. See QuantizeKernels.h.
//
//===----------------------------------------------------------------------===//

#include "QuantizeKernels.h"

#include "nvfp4/Numerics/ThreadTeam.h"

#include <algorithm>
#include <cfloat>
#include <utility>
#include <vector>

#if defined(__SSE2__) || defined(_M_X64) ||                                    \
    (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#define NVFP4_HAVE_SSE2 1
#include <emmintrin.h>
#endif

namespace nvfp4 {
namespace detail {
namespace {

constexpr float kFltMax = FLT_MAX;

/// max(acc, |x|) ignoring NaN x (the C `fmaxf` rule). Order-independent.
inline float absMaxAccumulate(float acc, float x) {
  const float a = std::fabs(x);
  return a > acc ? a : acc;
}

/// Everything the per-block work needs, computed once per tensor.
struct Context {
  const float *x = nullptr;
  int64_t cols = 0;
  int64_t blocksPerRow = 0;
  float sDec = 1.0f;
  float sEncOver6 = 1.0f; // sEnc * fl(1/6), as blockScale computes it
  const float *decode = nullptr;
  std::array<int8_t, 16> signs{};
  uint64_t seed = 0;
  uint64_t offset = 0;
  uint8_t *data = nullptr;
  uint8_t *scales = nullptr;
};

/// blockScale(blockAmax, sEnc) with the precomputed sEnc * (1/6).
inline uint8_t blockScaleOf(float blockAmax, float sEncOver6) {
  float v = blockAmax * sEncOver6;
  if (v > kFltMax)
    v = kFltMax;
  if (bitsOf(v) > 0x7F800000u) // NaN (or a sign bit): the generic encoder
    return encodeE4M3(v);
  return encodeE4M3NonNegative(v);
}

/// m = min(1 / (float(s_b) * S_dec), FLT_MAX); NaN stays NaN.
inline float multiplierOf(uint8_t sb, const Context &c) {
  float m = 1.0f / (c.decode[sb] * c.sDec);
  if (m > kFltMax)
    m = kFltMax;
  return m;
}

/// The 16 stochastic-rounding bytes of the 16 elements starting at linear
/// index 16 * group: philox4x32(seed, offset + group), little-endian bytes.
inline void philoxBytes(const Context &c, uint64_t group, uint8_t bytes[16]) {
  const std::array<uint32_t, 4> w = philox4x32(c.seed, c.offset + group);
  for (int k = 0; k < 16; ++k)
    bytes[k] = static_cast<uint8_t>(w[k / 4] >> (8 * (k % 4)));
}

//===----------------------------------------------------------------------===//
// Scalar path
//===----------------------------------------------------------------------===//

void hadamardScalar(const float *in, float *out,
                    const std::array<int8_t, 16> &signs) {
  float v[16];
  for (int j = 0; j < 16; ++j)
    v[j] = signs[j] < 0 ? -in[j] : in[j];
  for (int h = 1; h < 16; h <<= 1)
    for (int i = 0; i < 16; ++i) {
      if (i & h)
        continue;
      const float a = v[i], b = v[i + h];
      v[i] = a + b;
      v[i + h] = a - b;
    }
  for (int j = 0; j < 16; ++j)
    out[j] = v[j] * 0.25f;
}

float amaxScalar(const Context &c, int64_t r0, int64_t r1, bool hadamard) {
  float acc = 0.0f;
  const float *p = c.x + r0 * c.cols;
  const int64_t n = (r1 - r0) * c.cols;
  if (!hadamard) {
    for (int64_t k = 0; k < n; ++k)
      acc = absMaxAccumulate(acc, p[k]);
    return acc;
  }
  float v[16];
  for (int64_t k = 0; k < n; k += 16) {
    hadamardScalar(p + k, v, c.signs);
    for (int j = 0; j < 16; ++j)
      acc = absMaxAccumulate(acc, v[j]);
  }
  return acc;
}

template <int TileRows, bool Stochastic, bool Hadamard>
void quantizeRowsScalar(const Context &c, int64_t r0, int64_t r1) {
  float tile[TileRows][16];
  for (int64_t rb = r0; rb < r1; rb += TileRows) {
    for (int64_t cb = 0; cb < c.blocksPerRow; ++cb) {
      const float *src[TileRows];
      for (int i = 0; i < TileRows; ++i) {
        const float *p = c.x + (rb + i) * c.cols + cb * kBlockSize;
        if (Hadamard) {
          hadamardScalar(p, tile[i], c.signs);
          p = tile[i];
        }
        src[i] = p;
      }
      float blockAmax = 0.0f;
      for (int i = 0; i < TileRows; ++i)
        for (int j = 0; j < 16; ++j)
          blockAmax = absMaxAccumulate(blockAmax, src[i][j]);
      const uint8_t sb = blockScaleOf(blockAmax, c.sEncOver6);
      const float m = multiplierOf(sb, c);
      for (int i = 0; i < TileRows; ++i) {
        c.scales[(rb + i) * c.blocksPerRow + cb] = sb;
        const int64_t idx = (rb + i) * c.cols + cb * kBlockSize;
        uint8_t *dst = c.data + idx / 2;
        const float *s = src[i];
        if (Stochastic) {
          uint8_t rbits[16];
          philoxBytes(c, static_cast<uint64_t>(idx) / 16, rbits);
          for (int k = 0; k < 8; ++k)
            dst[k] = static_cast<uint8_t>(
                encodeE2M1StochasticBranchless(s[2 * k] * m, rbits[2 * k]) |
                (encodeE2M1StochasticBranchless(s[2 * k + 1] * m,
                                                rbits[2 * k + 1])
                 << 4));
        } else {
          for (int k = 0; k < 8; ++k)
            dst[k] = static_cast<uint8_t>(
                encodeE2M1Branchless(s[2 * k] * m) |
                (encodeE2M1Branchless(s[2 * k + 1] * m) << 4));
        }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// SSE2 path
//===----------------------------------------------------------------------===//

#ifdef NVFP4_HAVE_SSE2

inline __m128 absPs(__m128 v) {
  return _mm_and_ps(v, _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF)));
}

/// Lane-wise max(acc, |v|) ignoring NaN lanes of v: MAXPS returns its second
/// operand unless the first is greater, so a NaN |v| keeps acc.
inline __m128 absMaxAcc(__m128 acc, __m128 v) {
  return _mm_max_ps(absPs(v), acc);
}

/// The sign-flip masks of a sign vector (negative entry -> 0x80000000).
struct SignMasks {
  __m128 m[4];
  explicit SignMasks(const std::array<int8_t, 16> &signs) {
    alignas(16) uint32_t bits[16];
    for (int j = 0; j < 16; ++j)
      bits[j] = signs[j] < 0 ? 0x80000000u : 0u;
    for (int i = 0; i < 4; ++i)
      m[i] = _mm_load_ps(reinterpret_cast<const float *>(bits + 4 * i));
  }
};

/// hadamardScalar in four registers: the same sums and differences, in the
/// same stages. A difference a - b is computed as a + (-b), which IEEE 754
/// defines to be the same operation.
inline void hadamardSSE(const float *p, const SignMasks &sm, __m128 v[4]) {
  const __m128 odd =
      _mm_castsi128_ps(_mm_set_epi32(int(0x80000000u), 0, int(0x80000000u), 0));
  const __m128 high =
      _mm_castsi128_ps(_mm_set_epi32(int(0x80000000u), int(0x80000000u), 0, 0));
  for (int i = 0; i < 4; ++i) {
    __m128 r = _mm_xor_ps(_mm_loadu_ps(p + 4 * i), sm.m[i]);
    // h = 1: (r0 + r1, r0 - r1, r2 + r3, r2 - r3).
    __m128 a = _mm_shuffle_ps(r, r, _MM_SHUFFLE(2, 2, 0, 0));
    __m128 b = _mm_xor_ps(_mm_shuffle_ps(r, r, _MM_SHUFFLE(3, 3, 1, 1)), odd);
    r = _mm_add_ps(a, b);
    // h = 2: (r0 + r2, r1 + r3, r0 - r2, r1 - r3).
    a = _mm_shuffle_ps(r, r, _MM_SHUFFLE(1, 0, 1, 0));
    b = _mm_xor_ps(_mm_shuffle_ps(r, r, _MM_SHUFFLE(3, 2, 3, 2)), high);
    v[i] = _mm_add_ps(a, b);
  }
  // h = 4.
  __m128 t0 = _mm_add_ps(v[0], v[1]), t1 = _mm_sub_ps(v[0], v[1]);
  __m128 t2 = _mm_add_ps(v[2], v[3]), t3 = _mm_sub_ps(v[2], v[3]);
  // h = 8, then the normalization by 1/4.
  const __m128 quarter = _mm_set1_ps(0.25f);
  v[0] = _mm_mul_ps(_mm_add_ps(t0, t2), quarter);
  v[1] = _mm_mul_ps(_mm_add_ps(t1, t3), quarter);
  v[2] = _mm_mul_ps(_mm_sub_ps(t0, t2), quarter);
  v[3] = _mm_mul_ps(_mm_sub_ps(t1, t3), quarter);
}

/// Lane-wise (mask ? a : b).
inline __m128i selectI(__m128i mask, __m128i a, __m128i b) {
  return _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b));
}

/// encodeE2M1Branchless on four lanes of scaled values.
inline __m128i encode4RN(__m128 v) {
  const __m128 a = absPs(v);
  __m128i c = _mm_setzero_si128();
  // Each comparison is all ones (-1) where true: subtracting counts it.
  c = _mm_sub_epi32(c, _mm_castps_si128(_mm_cmpgt_ps(a, _mm_set1_ps(0.25f))));
  c = _mm_sub_epi32(c, _mm_castps_si128(_mm_cmpge_ps(a, _mm_set1_ps(0.75f))));
  c = _mm_sub_epi32(c, _mm_castps_si128(_mm_cmpgt_ps(a, _mm_set1_ps(1.25f))));
  c = _mm_sub_epi32(c, _mm_castps_si128(_mm_cmpge_ps(a, _mm_set1_ps(1.75f))));
  c = _mm_sub_epi32(c, _mm_castps_si128(_mm_cmpgt_ps(a, _mm_set1_ps(2.5f))));
  c = _mm_sub_epi32(c, _mm_castps_si128(_mm_cmpge_ps(a, _mm_set1_ps(3.5f))));
  c = _mm_sub_epi32(c, _mm_castps_si128(_mm_cmpgt_ps(a, _mm_set1_ps(5.0f))));
  const __m128i sign = _mm_and_si128(_mm_srli_epi32(_mm_castps_si128(v), 28),
                                     _mm_set1_epi32(0x8));
  c = _mm_or_si128(c, sign);
  const __m128i nan = _mm_castps_si128(_mm_cmpunord_ps(v, v));
  return selectI(nan, _mm_set1_epi32(0x7), c);
}

/// encodeE2M1StochasticBranchless on four lanes; `r` holds one random byte
/// per 32-bit lane.
inline __m128i encode4SR(__m128 v, __m128i r) {
  const __m128 a = absPs(v);
  const __m128i absBits = _mm_castps_si128(a);
  __m128i t = _mm_setzero_si128();
  t = _mm_sub_epi32(t, _mm_castps_si128(_mm_cmpge_ps(a, _mm_set1_ps(0.5f))));
  t = _mm_sub_epi32(t, _mm_castps_si128(_mm_cmpge_ps(a, _mm_set1_ps(1.0f))));
  t = _mm_sub_epi32(t, _mm_castps_si128(_mm_cmpge_ps(a, _mm_set1_ps(1.5f))));
  t = _mm_sub_epi32(t, _mm_castps_si128(_mm_cmpge_ps(a, _mm_set1_ps(2.0f))));
  t = _mm_sub_epi32(t, _mm_castps_si128(_mm_cmpge_ps(a, _mm_set1_ps(3.0f))));
  t = _mm_sub_epi32(t, _mm_castps_si128(_mm_cmpge_ps(a, _mm_set1_ps(4.0f))));
  t = _mm_sub_epi32(t, _mm_castps_si128(_mm_cmpge_ps(a, _mm_set1_ps(6.0f))));
  const __m128i byteMask = _mm_set1_epi32(0xFF);
  // Lanes >= 0.5 (or NaN) never use `low`: its out-of-range conversions are
  // discarded.
  const __m128i low = _mm_cvttps_epi32(_mm_mul_ps(a, _mm_set1_ps(512.0f)));
  const __m128i mid = _mm_and_si128(_mm_srli_epi32(absBits, 15), byteMask);
  const __m128i high = _mm_and_si128(_mm_srli_epi32(absBits, 14), byteMask);
  const __m128i isLow = _mm_castps_si128(_mm_cmplt_ps(a, _mm_set1_ps(0.5f)));
  const __m128i isMid = _mm_castps_si128(_mm_cmplt_ps(a, _mm_set1_ps(1.0f)));
  const __m128i top8 = selectI(isLow, low, selectI(isMid, mid, high));
  __m128i c = _mm_add_epi32(t, _mm_srli_epi32(_mm_add_epi32(top8, r), 8));
  const __m128i seven = _mm_set1_epi32(0x7);
  c = selectI(_mm_cmpgt_epi32(c, seven), seven, c);
  const __m128i sign = _mm_and_si128(_mm_srli_epi32(_mm_castps_si128(v), 28),
                                     _mm_set1_epi32(0x8));
  c = _mm_or_si128(c, sign);
  const __m128i nan = _mm_castps_si128(_mm_cmpunord_ps(v, v));
  return selectI(nan, seven, c);
}

/// Packs 16 codes (four lanes each, element 0 first) into 8 bytes, the even
/// element in the low nibble.
inline void storeCodes(const __m128i codes[4], uint8_t *dst) {
  const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(codes[0], codes[1]),
                                         _mm_packs_epi32(codes[2], codes[3]));
  const __m128i lo = _mm_and_si128(bytes, _mm_set1_epi16(0x000F));
  const __m128i hi =
      _mm_and_si128(_mm_srli_epi16(bytes, 4), _mm_set1_epi16(0x00F0));
  const __m128i packed =
      _mm_packus_epi16(_mm_or_si128(lo, hi), _mm_setzero_si128());
  _mm_storel_epi64(reinterpret_cast<__m128i *>(dst), packed);
}

/// E4M3 codes of four non-negative, non-NaN lanes (encodeE4M3NonNegative).
inline __m128i encodeE4M3NonNegative4(__m128 v) {
  const __m128i u = _mm_castps_si128(v);
  const __m128i rounded =
      _mm_add_epi32(_mm_add_epi32(u, _mm_set1_epi32(0x7FFFF)),
                    _mm_and_si128(_mm_srli_epi32(u, 20), _mm_set1_epi32(1)));
  const __m128i normal =
      _mm_sub_epi32(_mm_srli_epi32(rounded, 20), _mm_set1_epi32(120 << 3));
  const __m128 s =
      _mm_add_ps(_mm_mul_ps(v, _mm_set1_ps(512.0f)), _mm_set1_ps(8388608.0f));
  const __m128i sub =
      _mm_sub_epi32(_mm_castps_si128(s), _mm_set1_epi32(0x4B000000));
  const __m128i isSub =
      _mm_castps_si128(_mm_cmplt_ps(v, _mm_set1_ps(0.015625f)));
  const __m128i c = selectI(isSub, sub, normal);
  const __m128i maxCode = _mm_set1_epi32(0x7E);
  return selectI(_mm_cmpgt_epi32(c, maxCode), maxCode, c);
}

/// (lo, hi) 32-bit halves of the four lane-wise products a * m.
inline void mulHiLo4(__m128i a, __m128i m, __m128i &lo, __m128i &hi) {
  const __m128i even = _mm_mul_epu32(a, m);                    // lanes 0, 2
  const __m128i odd = _mm_mul_epu32(_mm_srli_epi64(a, 32), m); // lanes 1, 3
  lo = _mm_unpacklo_epi32(_mm_shuffle_epi32(even, _MM_SHUFFLE(0, 0, 2, 0)),
                          _mm_shuffle_epi32(odd, _MM_SHUFFLE(0, 0, 2, 0)));
  hi = _mm_unpacklo_epi32(_mm_shuffle_epi32(even, _MM_SHUFFLE(0, 0, 3, 1)),
                          _mm_shuffle_epi32(odd, _MM_SHUFFLE(0, 0, 3, 1)));
}

/// Four philox4x32(seed, offset + group[k]) evaluations at once (the rounds
/// of philox4x32_10, lane k computing evaluation k). out[k] receives the 16
/// bytes of evaluation k in stochasticRoundingBits' order (x86 is
/// little-endian).
inline void philox4(const Context &c, const uint64_t group[4], __m128i out[4]) {
  alignas(16) uint32_t lo[4], hi[4];
  for (int k = 0; k < 4; ++k) {
    const uint64_t ctr = c.offset + group[k];
    lo[k] = static_cast<uint32_t>(ctr);
    hi[k] = static_cast<uint32_t>(ctr >> 32);
  }
  __m128i c0 = _mm_load_si128(reinterpret_cast<const __m128i *>(lo));
  __m128i c1 = _mm_load_si128(reinterpret_cast<const __m128i *>(hi));
  __m128i c2 = _mm_setzero_si128(), c3 = _mm_setzero_si128();
  uint32_t k0 = static_cast<uint32_t>(c.seed);
  uint32_t k1 = static_cast<uint32_t>(c.seed >> 32);
  const __m128i m0 = _mm_set1_epi32(int(0xD2511F53u));
  const __m128i m1 = _mm_set1_epi32(int(0xCD9E8D57u));
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    __m128i lo0, hi0, lo1, hi1;
    mulHiLo4(c0, m0, lo0, hi0);
    mulHiLo4(c2, m1, lo1, hi1);
    const __m128i n0 =
        _mm_xor_si128(_mm_xor_si128(hi1, c1), _mm_set1_epi32(int(k0)));
    const __m128i n2 =
        _mm_xor_si128(_mm_xor_si128(hi0, c3), _mm_set1_epi32(int(k1)));
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  // Transpose: word w of evaluation k is lane k of c_w.
  const __m128i t0 = _mm_unpacklo_epi32(c0, c1); // c0[0] c1[0] c0[1] c1[1]
  const __m128i t1 = _mm_unpacklo_epi32(c2, c3); // c2[0] c3[0] c2[1] c3[1]
  const __m128i t2 = _mm_unpackhi_epi32(c0, c1); // c0[2] c1[2] c0[3] c1[3]
  const __m128i t3 = _mm_unpackhi_epi32(c2, c3);
  out[0] = _mm_unpacklo_epi64(t0, t1);
  out[1] = _mm_unpackhi_epi64(t0, t1);
  out[2] = _mm_unpacklo_epi64(t2, t3);
  out[3] = _mm_unpackhi_epi64(t2, t3);
}

float amaxSSE(const Context &c, int64_t r0, int64_t r1, bool hadamard,
              const SignMasks &sm) {
  const float *p = c.x + r0 * c.cols;
  const int64_t n = (r1 - r0) * c.cols; // a multiple of 16
  __m128 acc[4] = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(),
                   _mm_setzero_ps()};
  for (int64_t k = 0; k < n; k += 16) {
    __m128 v[4];
    if (hadamard) {
      hadamardSSE(p + k, sm, v);
    } else {
      for (int i = 0; i < 4; ++i)
        v[i] = _mm_loadu_ps(p + k + 4 * i);
    }
    for (int i = 0; i < 4; ++i)
      acc[i] = absMaxAcc(acc[i], v[i]);
  }
  // No lane of acc is NaN: any order gives the same maximum.
  const __m128 m =
      _mm_max_ps(_mm_max_ps(acc[0], acc[1]), _mm_max_ps(acc[2], acc[3]));
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, m);
  return std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
}

/// Blocks are processed in groups of four along a row (of 1x16 blocks or of
/// 16x16 tiles): four maxima, then the four scales and multipliers in one
/// set of vector operations, then the codes block by block.
template <int TileRows, bool Stochastic, bool Hadamard>
void quantizeRowsSSE(const Context &c, int64_t r0, int64_t r1,
                     const SignMasks &sm) {
  const __m128 vSEncOver6 = _mm_set1_ps(c.sEncOver6);
  const __m128 vSDec = _mm_set1_ps(c.sDec);
  const __m128 vMax = _mm_set1_ps(kFltMax);
  const __m128 one = _mm_set1_ps(1.0f);
  // Transformed blocks (Hadamard only): [block][row][4 registers].
  __m128 buf[Hadamard ? 4 : 1][Hadamard ? TileRows : 1][4];
  (void)buf;
  for (int64_t rb = r0; rb < r1; rb += TileRows) {
    for (int64_t cb = 0; cb < c.blocksPerRow; cb += 4) {
      const int nb =
          static_cast<int>(std::min<int64_t>(4, c.blocksPerRow - cb));
      __m128 mx[4];
      for (int k = 0; k < 4; ++k) {
        __m128 acc0 = _mm_setzero_ps(), acc1 = _mm_setzero_ps();
        for (int i = 0; i < TileRows && k < nb; ++i) {
          const float *p = c.x + (rb + i) * c.cols + (cb + k) * kBlockSize;
          __m128 v[4];
          if (Hadamard) {
            hadamardSSE(p, sm, v);
            for (int q = 0; q < 4; ++q)
              buf[Hadamard ? k : 0][Hadamard ? i : 0][q] = v[q];
          } else {
            for (int q = 0; q < 4; ++q)
              v[q] = _mm_loadu_ps(p + 4 * q);
          }
          acc0 = absMaxAcc(acc0, v[0]);
          acc1 = absMaxAcc(acc1, v[1]);
          acc0 = absMaxAcc(acc0, v[2]);
          acc1 = absMaxAcc(acc1, v[3]);
        }
        mx[k] = _mm_max_ps(acc0, acc1); // neither is NaN
      }
      _MM_TRANSPOSE4_PS(mx[0], mx[1], mx[2], mx[3]);
      const __m128 blockAmax =
          _mm_max_ps(_mm_max_ps(mx[0], mx[1]), _mm_max_ps(mx[2], mx[3]));
      // v = min(blockAmax * (sEnc/6), FLT_MAX): MINPS returns its second
      // operand when either is NaN, so FLT_MAX goes first as in the scalar
      // `if (v > FLT_MAX) v = FLT_MAX`.
      const __m128 v = _mm_min_ps(vMax, _mm_mul_ps(blockAmax, vSEncOver6));
      alignas(16) int32_t sb[4];
      _mm_store_si128(reinterpret_cast<__m128i *>(sb),
                      encodeE4M3NonNegative4(v));
      // Lanes outside [+0, +Inf] (NaN, a sign bit) take the generic
      // encoder: the sign bit of (bits > 0x7F800000 as int32) | bits.
      const __m128i vBits = _mm_castps_si128(v);
      const __m128i outside = _mm_or_si128(
          _mm_cmpgt_epi32(vBits, _mm_set1_epi32(0x7F800000)), vBits);
      if (const int bad = _mm_movemask_ps(_mm_castsi128_ps(outside))) {
        alignas(16) float vl[4];
        _mm_store_ps(vl, v);
        for (int k = 0; k < 4; ++k)
          if (bad & (1 << k))
            sb[k] = encodeE4M3(vl[k]);
      }
      const __m128 dec = _mm_set_ps(c.decode[sb[3]], c.decode[sb[2]],
                                    c.decode[sb[1]], c.decode[sb[0]]);
      const __m128 m =
          _mm_min_ps(vMax, _mm_div_ps(one, _mm_mul_ps(dec, vSDec)));
      alignas(16) float ms[4];
      _mm_store_ps(ms, m);
      // Stochastic rounding bytes of the four blocks, row by row.
      __m128i rnd[Stochastic ? TileRows : 1][4];
      if (Stochastic) {
        for (int i = 0; i < TileRows; ++i) {
          uint64_t group[4];
          for (int k = 0; k < 4; ++k)
            group[k] = static_cast<uint64_t>((rb + i) * c.cols +
                                             (cb + k) * kBlockSize) /
                       16;
          philox4(c, group, rnd[Stochastic ? i : 0]);
        }
      }
      for (int k = 0; k < nb; ++k) {
        const __m128 vm = _mm_set1_ps(ms[k]);
        for (int i = 0; i < TileRows; ++i) {
          const int64_t row = rb + i;
          c.scales[row * c.blocksPerRow + cb + k] = static_cast<uint8_t>(sb[k]);
          const int64_t idx = row * c.cols + (cb + k) * kBlockSize;
          __m128 x[4];
          if (Hadamard) {
            for (int q = 0; q < 4; ++q)
              x[q] = buf[Hadamard ? k : 0][Hadamard ? i : 0][q];
          } else {
            for (int q = 0; q < 4; ++q)
              x[q] = _mm_loadu_ps(c.x + idx + 4 * q);
          }
          __m128i codes[4];
          if (Stochastic) {
            const __m128i r8 = rnd[Stochastic ? i : 0][k];
            const __m128i zero = _mm_setzero_si128();
            const __m128i r16lo = _mm_unpacklo_epi8(r8, zero);
            const __m128i r16hi = _mm_unpackhi_epi8(r8, zero);
            const __m128i r32[4] = {_mm_unpacklo_epi16(r16lo, zero),
                                    _mm_unpackhi_epi16(r16lo, zero),
                                    _mm_unpacklo_epi16(r16hi, zero),
                                    _mm_unpackhi_epi16(r16hi, zero)};
            for (int q = 0; q < 4; ++q)
              codes[q] = encode4SR(_mm_mul_ps(x[q], vm), r32[q]);
          } else {
            for (int q = 0; q < 4; ++q)
              codes[q] = encode4RN(_mm_mul_ps(x[q], vm));
          }
          storeCodes(codes, c.data + idx / 2);
        }
      }
    }
  }
}

#endif // NVFP4_HAVE_SSE2

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

template <template <int, bool, bool> class Fn, typename... Args>
void dispatch(int tileRows, bool stochastic, bool hadamard, Args &&...args) {
#define NVFP4_DISPATCH(T, S, H)                                                \
  if (tileRows == T && stochastic == S && hadamard == H)                       \
    return Fn<T, S, H>::run(std::forward<Args>(args)...);
  NVFP4_DISPATCH(1, false, false)
  NVFP4_DISPATCH(1, false, true)
  NVFP4_DISPATCH(1, true, false)
  NVFP4_DISPATCH(1, true, true)
  NVFP4_DISPATCH(16, false, false)
  NVFP4_DISPATCH(16, false, true)
  NVFP4_DISPATCH(16, true, false)
  NVFP4_DISPATCH(16, true, true)
#undef NVFP4_DISPATCH
}

template <int T, bool S, bool H> struct ScalarRows {
  static void run(const Context &c, int64_t r0, int64_t r1) {
    quantizeRowsScalar<T, S, H>(c, r0, r1);
  }
};

#ifdef NVFP4_HAVE_SSE2
template <int T, bool S, bool H> struct SSERows {
  static void run(const Context &c, int64_t r0, int64_t r1,
                  const SignMasks &sm) {
    quantizeRowsSSE<T, S, H>(c, r0, r1, sm);
  }
};
#endif

std::optional<std::string> checkAmax(const QuantizeOptions &opts) {
  if (opts.amax && !(*opts.amax >= 0.0f))
    return "explicit amax must be a non-negative number or +Inf (got " +
           std::to_string(*opts.amax) + ")";
  return std::nullopt;
}

/// Splits [0, rows) into at most `numThreads` contiguous ranges whose
/// boundaries are multiples of `granule`.
std::vector<std::pair<int64_t, int64_t>>
splitRows(int64_t rows, int64_t granule, int numThreads) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  const int64_t groups = rows / granule;
  if (groups == 0)
    return ranges;
  const int64_t parts = std::min<int64_t>(std::max(numThreads, 1), groups);
  for (int64_t i = 0; i < parts; ++i) {
    const int64_t g0 = groups * i / parts, g1 = groups * (i + 1) / parts;
    ranges.emplace_back(g0 * granule, g1 * granule);
  }
  return ranges;
}

template <typename Fn>
void runParallel(const std::vector<std::pair<int64_t, int64_t>> &ranges,
                 Fn fn) {
  if (ranges.size() <= 1) {
    for (auto &r : ranges)
      fn(r.first, r.second, size_t(0));
    return;
  }
  runOnThreads(static_cast<int>(ranges.size()), [&](int i) {
    fn(ranges[i].first, ranges[i].second, static_cast<size_t>(i));
  });
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

bool vectorKernelsAvailable() {
#ifdef NVFP4_HAVE_SSE2
  return true;
#else
  return false;
#endif
}

KernelPath defaultKernelPath() {
  return vectorKernelsAvailable() ? KernelPath::Vector : KernelPath::Scalar;
}

const float *e4m3DecodeTable() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int i = 0; i < 256; ++i)
      t[i] = decodeE4M3(static_cast<uint8_t>(i));
    return t;
  }();
  return table.data();
}

void hadamard16(const float *in, float *out,
                const std::array<int8_t, 16> &signs, KernelPath path) {
#ifdef NVFP4_HAVE_SSE2
  if (path == KernelPath::Vector) {
    __m128 v[4];
    hadamardSSE(in, SignMasks(signs), v);
    for (int i = 0; i < 4; ++i)
      _mm_storeu_ps(out + 4 * i, v[i]);
    return;
  }
#endif
  (void)path;
  hadamardScalar(in, out, signs);
}

std::optional<std::string>
quantizeWithKernels(const float *x, int64_t rows, int64_t cols,
                    const QuantizeOptions &opts, QuantizedTensor &out,
                    int numThreads, KernelPath path) {
  if (auto err = checkQuantizable(rows, cols, opts.block))
    return err;
  if (auto err = checkAmax(opts))
    return err;
#ifndef NVFP4_HAVE_SSE2
  path = KernelPath::Scalar;
#endif
  out.rows = rows;
  out.cols = cols;
  out.block = opts.block;
  // Every byte is written below: no need to clear.
  out.data.resize(static_cast<size_t>(rows * cols / 2));
  out.scales.resize(static_cast<size_t>(rows * cols / kBlockSize));

  const int tileRows = opts.block.rows; // 1 or 16
  const auto ranges = splitRows(rows, tileRows, numThreads);

  Context c;
  c.x = x;
  c.cols = cols;
  c.blocksPerRow = cols / kBlockSize;
  c.decode = e4m3DecodeTable();
  c.signs = opts.signs;
  c.seed = opts.seed;
  c.offset = opts.offset;
  c.data = out.data.data();
  c.scales = out.scales.data();
#ifdef NVFP4_HAVE_SSE2
  const SignMasks sm(opts.signs);
#endif

  // 1. Tensor amax of the (transformed) input, unless given. With the RHT
  //    each group is transformed here and again in step 3, in registers;
  //    both passes compute the same values.
  float amax;
  if (opts.amax) {
    amax = *opts.amax;
  } else {
    std::vector<float> partial(std::max<size_t>(ranges.size(), 1), 0.0f);
    runParallel(ranges, [&](int64_t r0, int64_t r1, size_t i) {
#ifdef NVFP4_HAVE_SSE2
      if (path == KernelPath::Vector) {
        partial[i] = amaxSSE(c, r0, r1, opts.hadamard, sm);
        return;
      }
#endif
      partial[i] = amaxScalar(c, r0, r1, opts.hadamard);
    });
    amax = 0.0f;
    for (float v : partial)
      amax = absMaxAccumulate(amax, v);
  }

  // 2. Global scales: S_enc, and S_dec = 1 / S_enc computed once.
  const float sEnc = globalEncodeScale(amax);
  c.sDec = 1.0f / sEnc;
  c.sEncOver6 = sEnc * (1.0f / 6.0f);
  out.amax = amax;

  // 3. Block scales and element codes.
  const bool stochastic = opts.rounding == Rounding::Stochastic;
  runParallel(ranges, [&](int64_t r0, int64_t r1, size_t) {
#ifdef NVFP4_HAVE_SSE2
    if (path == KernelPath::Vector) {
      dispatch<SSERows>(tileRows, stochastic, opts.hadamard, c, r0, r1, sm);
      return;
    }
#endif
    dispatch<ScalarRows>(tileRows, stochastic, opts.hadamard, c, r0, r1);
  });
  return std::nullopt;
}

void dequantizeWithKernels(const QuantizedTensor &t, float *out) {
  float e2m1[16];
  for (int i = 0; i < 16; ++i)
    e2m1[i] = decodeE2M1(static_cast<uint8_t>(i));
  const float *e4m3 = e4m3DecodeTable();
  if (checkTensor(t))
    return;
  const float amax = t.amax;
  const bool decodeScale = t.tensorScale == TensorScale::Decode;
  const int64_t n = t.rows * t.cols;
  const int64_t blocks = n / kBlockSize;
  const uint8_t *data = t.data.data();
  for (int64_t b = 0; b < blocks; ++b) {
    // The block's factor (dequantizeScale), then one product each.
    const float scaled = e4m3[t.scales[b]] * amax;
    const float s = decodeScale ? scaled : scaled * kInvE2M1TimesE4M3Max;
    const uint8_t *q = data + 8 * b;
    float *o = out + 16 * b;
    for (int k = 0; k < 8; ++k) {
      o[2 * k] = e2m1[q[k] & 0xF] * s;
      o[2 * k + 1] = e2m1[q[k] >> 4] * s;
    }
  }
}

} // namespace detail
} // namespace nvfp4
