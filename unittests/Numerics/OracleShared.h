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

} // namespace oracle

#endif // NVFP4_UNITTESTS_NUMERICS_ORACLESHARED_H
