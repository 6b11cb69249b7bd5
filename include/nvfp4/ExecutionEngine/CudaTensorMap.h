//===- CudaTensorMap.h - Encode a tcgen05 tensor map on the driver -*- C++ -*-//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The one `cuTensorMapEncodeTiled` call behind every TMA tensor map of the
// tcgen05 kernels: libnvfp4_cuda_runtime's nvfp4CudaTensorMapEncode2D (the
// lowered host code's) and bench/gpu's PlanLauncher (a launch plan's) encode
// the same map from the same parameters. Header-only, CUDA driver API only;
// the callers check the map first (Tcgen05TensorMap.h).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_EXECUTIONENGINE_CUDATENSORMAP_H
#define NVFP4_EXECUTIONENGINE_CUDATENSORMAP_H

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05TensorMap.h"

#include <cuda.h>

#include <cstdint>

namespace nvfp4::gpu {

static_assert(sizeof(CUtensorMap) == tcgen05::kTensorMapObjectBytes,
              "CUtensorMap is a 128-byte object");

/// Encodes `map` into `tensorMap`: a 2-D tensor of bytes, element strides
/// 1, no interleave, the map's swizzle, L2 promotion 256B (a box row is one
/// 128-byte K tile, the next K tile of the same rows follows in memory),
/// no out-of-bounds fill.
inline CUresult encodeByteTensorMap2D(CUtensorMap *tensorMap,
                                      const tcgen05::ByteTensorMap2D &map) {
  void *globalAddress =
      reinterpret_cast<void *>(static_cast<uintptr_t>(map.globalAddress));
  const cuuint64_t globalDim[2] = {map.innerBytes, map.outerRows};
  const cuuint64_t globalStrides[1] = {map.rowStrideBytes};
  const cuuint32_t boxDim[2] = {static_cast<cuuint32_t>(map.boxInnerBytes),
                                static_cast<cuuint32_t>(map.boxOuterRows)};
  const cuuint32_t elementStrides[2] = {1, 1};
  return cuTensorMapEncodeTiled(
      tensorMap, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, globalAddress, globalDim,
      globalStrides, boxDim, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      static_cast<CUtensorMapSwizzle>(map.swizzle),
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

} // namespace nvfp4::gpu

#endif // NVFP4_EXECUTIONENGINE_CUDATENSORMAP_H
