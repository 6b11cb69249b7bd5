//===- OracleShared.h - CUDA toolkit host conversions as oracles -*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Thin wrappers over the host-side conversions of the CUDA toolkit headers
// cuda_fp4.h and cuda_fp8.h. Only the headers are used: no GPU, no runtime.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_UNITTESTS_NUMERICS_ORACLESHARED_H
#define NVFP4_UNITTESTS_NUMERICS_ORACLESHARED_H

#include <cuda_fp4.h>
#include <cuda_fp8.h>

#include <cstdint>

namespace oracle {

inline uint8_t e2m1(float x) {
  return static_cast<uint8_t>(
      __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest) & 0xF);
}

inline uint8_t e4m3(float x) {
  return static_cast<uint8_t>(
      __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
}

inline float halfToFloat(__half_raw h) { return __half2float(__half(h)); }

inline float decodeE2M1(uint8_t code) {
  return halfToFloat(__nv_cvt_fp4_to_halfraw(code & 0xF, __NV_E2M1));
}

inline float decodeE4M3(uint8_t code) {
  return halfToFloat(__nv_cvt_fp8_to_halfraw(code, __NV_E4M3));
}

inline uint8_t e5m2(float x) {
  return static_cast<uint8_t>(
      __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2));
}

inline float decodeE5M2(uint8_t code) {
  return halfToFloat(__nv_cvt_fp8_to_halfraw(code, __NV_E5M2));
}

/// E8M0 rounding toward zero to a power of two, saturating: the shared
/// exponent of the OCP MX specification.
inline uint8_t e8m0RoundDown(float x) {
  return static_cast<uint8_t>(
      __nv_cvt_float_to_e8m0(x, __NV_SATFINITE, cudaRoundZero));
}

/// The E8M0 byte's value through its bf16 conversion (exact: bf16 has f32's
/// exponent range, and 2^-127 is a bf16 subnormal).
inline float decodeE8M0(uint8_t code) {
  __nv_bfloat16_raw raw = __nv_cvt_e8m0_to_bf16raw(code);
  uint32_t bits = static_cast<uint32_t>(raw.x) << 16;
  float f;
  __builtin_memcpy(&f, &bits, sizeof(f));
  return f;
}

} // namespace oracle

#endif // NVFP4_UNITTESTS_NUMERICS_ORACLESHARED_H
