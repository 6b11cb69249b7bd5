//===- Tcgen05TensorMap.h - TMA tensor maps of the tcgen05 kernel -*- C++ -*-//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The TMA tensor maps through which the tcgen05 matmul kernel loads its A and
// B tiles (and staged 16x16-block scales), and the rules
// `cuTensorMapEncodeTiled` imposes on them (CUDA driver API, "Tensor Map Object
// Management"), as constexpr functions free of MLIR and CUDA. The lowering
// (Tcgen05Matmul.cpp) checks a matmul's tensor maps before it emits the kernel;
// libnvfp4_cuda_runtime (lib/ExecutionEngine/CudaRuntime.cpp) checks the
// parameters the generated host code passes before it calls the driver; the
// unit test (Tcgen05TensorMapTest.cpp) checks the rules themselves.
//
// An operand's packed E2M1 data [batch, rows, K] is viewed as the 2-D byte
// tensor [batch * rows, K / 2] (innermost dimension first in the driver's
// convention: {K / 2, batch * rows}, row stride K / 2 bytes); the box is one
// K tile of one CTA tile: {128 bytes, tile rows}. With
// CU_TENSOR_MAP_SWIZZLE_128B, TMA writes the box row after row, 128 bytes
// each, and xors the 16-byte chunk index with bits [7,10) of the offset
// within each 1024-byte span: the canonical K-major 128-byte-swizzled layout
// the MMA descriptors read (Tcgen05Descriptors.h, sw128ChunkOffset).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05TENSORMAP_H
#define NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05TENSORMAP_H

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Descriptors.h"

#include <cstdint>
#include <initializer_list>
#include <optional>

namespace nvfp4::gpu::tcgen05 {

/// The shared-memory swizzle of a tensor map; the values are those of
/// CUtensorMapSwizzle (the 128-byte modes with 32/64-byte atoms are not
/// used).
enum class TensorMapSwizzle : int32_t { None = 0, B32 = 1, B64 = 2, B128 = 3 };

/// The span whose 16-byte chunks a swizzle mode permutes (0: none).
constexpr int64_t swizzleSpanBytes(TensorMapSwizzle swizzle) {
  switch (swizzle) {
  case TensorMapSwizzle::None:
    return 0;
  case TensorMapSwizzle::B32:
    return 32;
  case TensorMapSwizzle::B64:
    return 64;
  case TensorMapSwizzle::B128:
    return 128;
  }
  return -1;
}

/// A rank-2 tiled tensor map of bytes (CU_TENSOR_MAP_DATA_TYPE_UINT8,
/// CU_TENSOR_MAP_INTERLEAVE_NONE, element strides 1).
struct ByteTensorMap2D {
  /// Device address of byte (0, 0).
  uint64_t globalAddress = 0;
  /// globalDim = {innerBytes, outerRows}, globalStrides = {rowStrideBytes}.
  uint64_t innerBytes = 0, outerRows = 0, rowStrideBytes = 0;
  /// boxDim = {boxInnerBytes, boxOuterRows}.
  uint64_t boxInnerBytes = 0, boxOuterRows = 0;
  TensorMapSwizzle swizzle = TensorMapSwizzle::None;
};

/// What makes a tensor map invalid (the first rule it breaks).
enum class TensorMapIssue {
  None,
  UnknownSwizzle,
  AddressNotAligned,
  DimensionOutOfRange,
  StrideNotMultipleOf16,
  StrideOutOfRange,
  StrideBelowRowBytes,
  BoxOutOfRange,
  BoxInnerNotMultipleOf16,
  BoxInnerExceedsSwizzleSpan,
};

/// Limits of cuTensorMapEncodeTiled.
inline constexpr uint64_t kTensorMapAddressAlignment = 16;
inline constexpr uint64_t kTensorMapMaxDimension = uint64_t(1) << 32;
inline constexpr uint64_t kTensorMapStrideAlignment = 16;
/// The same in E2M1 codes (two per byte): K must be a multiple of it.
inline constexpr int64_t kTensorMapStrideAlignmentCodes =
    2 * static_cast<int64_t>(kTensorMapStrideAlignment);
inline constexpr uint64_t kTensorMapStrideLimit = uint64_t(1) << 40;
inline constexpr uint64_t kTensorMapMaxBoxDimension = 256;
inline constexpr uint64_t kTensorMapBoxInnerAlignment = 16;
/// The tensor map object itself must be 64-byte aligned.
inline constexpr uint64_t kTensorMapObjectAlignment = 64;
inline constexpr uint64_t kTensorMapObjectBytes = 128;

/// Checks `map` against the requirements cuTensorMapEncodeTiled documents
/// for its parameters: a 16-byte aligned global address; dimensions in
/// 1..2^32; strides multiples of 16 below 2^40 (and, rows being stored one
/// after the other, not below the row); box dimensions in 1..256 with an
/// inner extent that is a multiple of 16 bytes and, when swizzled, at most
/// the swizzle span.
constexpr TensorMapIssue checkByteTensorMap2D(const ByteTensorMap2D &map) {
  int64_t span = swizzleSpanBytes(map.swizzle);
  if (span < 0)
    return TensorMapIssue::UnknownSwizzle;
  if (map.globalAddress % kTensorMapAddressAlignment != 0)
    return TensorMapIssue::AddressNotAligned;
  for (uint64_t dim : {map.innerBytes, map.outerRows})
    if (dim == 0 || dim > kTensorMapMaxDimension)
      return TensorMapIssue::DimensionOutOfRange;
  if (map.rowStrideBytes % kTensorMapStrideAlignment != 0)
    return TensorMapIssue::StrideNotMultipleOf16;
  if (map.rowStrideBytes >= kTensorMapStrideLimit)
    return TensorMapIssue::StrideOutOfRange;
  if (map.rowStrideBytes < map.innerBytes)
    return TensorMapIssue::StrideBelowRowBytes;
  for (uint64_t box : {map.boxInnerBytes, map.boxOuterRows})
    if (box == 0 || box > kTensorMapMaxBoxDimension)
      return TensorMapIssue::BoxOutOfRange;
  if (map.boxInnerBytes % kTensorMapBoxInnerAlignment != 0)
    return TensorMapIssue::BoxInnerNotMultipleOf16;
  if (span != 0 && map.boxInnerBytes > static_cast<uint64_t>(span))
    return TensorMapIssue::BoxInnerExceedsSwizzleSpan;
  return TensorMapIssue::None;
}

/// A sentence for diagnostics and runtime errors.
constexpr const char *describeTensorMapIssue(TensorMapIssue issue) {
  switch (issue) {
  case TensorMapIssue::None:
    return "valid";
  case TensorMapIssue::UnknownSwizzle:
    return "unknown swizzle mode";
  case TensorMapIssue::AddressNotAligned:
    return "global address not 16-byte aligned";
  case TensorMapIssue::DimensionOutOfRange:
    return "tensor dimension not in 1..2^32";
  case TensorMapIssue::StrideNotMultipleOf16:
    return "row stride not a multiple of 16 bytes";
  case TensorMapIssue::StrideOutOfRange:
    return "row stride not below 2^40 bytes";
  case TensorMapIssue::StrideBelowRowBytes:
    return "row stride smaller than a row";
  case TensorMapIssue::BoxOutOfRange:
    return "box dimension not in 1..256";
  case TensorMapIssue::BoxInnerNotMultipleOf16:
    return "inner box extent not a multiple of 16 bytes";
  case TensorMapIssue::BoxInnerExceedsSwizzleSpan:
    return "inner box extent larger than the swizzle span";
  }
  return "unknown issue";
}

/// The map of the parameters of `nvfp4CudaTensorMapCreate2D` (its runtime
/// entry points, on the CUDA driver and in the GPU emulator).
constexpr ByteTensorMap2D byteTensorMap2D(uint64_t globalAddress,
                                          uint64_t innerBytes,
                                          uint64_t outerRows,
                                          uint64_t rowStrideBytes,
                                          uint32_t boxInnerBytes,
                                          uint32_t boxOuterRows,
                                          int32_t swizzle) {
  ByteTensorMap2D map;
  map.globalAddress = globalAddress;
  map.innerBytes = innerBytes;
  map.outerRows = outerRows;
  map.rowStrideBytes = rowStrideBytes;
  map.boxInnerBytes = boxInnerBytes;
  map.boxOuterRows = boxOuterRows;
  map.swizzle = static_cast<TensorMapSwizzle>(swizzle);
  return map;
}

/// The bytes from the map's first byte to its last (`outerRows` rows of
/// `innerBytes`, `rowStrideBytes` apart), or nothing when the span or its
/// end overflows 64 bits (checkByteTensorMap2D bounds the dimensions, not
/// their product).
constexpr std::optional<uint64_t> tensorMapSpanBytes(const ByteTensorMap2D &map) {
  if (map.outerRows == 0)
    return std::nullopt;
  const uint64_t rows = map.outerRows - 1;
  if (map.rowStrideBytes != 0 && rows > UINT64_MAX / map.rowStrideBytes)
    return std::nullopt;
  const uint64_t span = rows * map.rowStrideBytes;
  if (span > UINT64_MAX - map.innerBytes ||
      span + map.innerBytes > UINT64_MAX - map.globalAddress)
    return std::nullopt;
  return span + map.innerBytes;
}

/// The tensor map of an operand of the tcgen05 kernel: `batch` (1 when
/// unbatched) x `rows` x `k` codes of `elementBits` bits (packed E2M1: 4;
/// MXFP8: 8) at `globalAddress`, read in boxes of one K tile (128 bytes) x
/// `tileRows` rows with the 128-byte swizzle.
constexpr ByteTensorMap2D operandTensorMap(uint64_t globalAddress,
                                           int64_t batch, int64_t rows,
                                           int64_t k, int64_t tileRows,
                                           int64_t elementBits = 4) {
  ByteTensorMap2D map;
  map.globalAddress = globalAddress;
  map.innerBytes = static_cast<uint64_t>(k * elementBits / 8);
  map.outerRows = static_cast<uint64_t>(batch * rows);
  map.rowStrideBytes = map.innerBytes;
  map.boxInnerBytes = static_cast<uint64_t>(kTileRowBytes);
  map.boxOuterRows = static_cast<uint64_t>(tileRows);
  map.swizzle = TensorMapSwizzle::B128;
  return map;
}

/// The tensor map of an operand's 16x16-block scales (E4M3 bytes, row-major
/// [batch * rows / 16, K / 16]) at `globalAddress`, which the producer loads
/// into the start of the operand's scale atoms in the stage (ScaleStaging,
/// Tcgen05Descriptors.h): one box is the 16 scales
/// of one NVFP4 K tile of the staged scale rows of a CTA tile of
/// `tileRows` rows, {16 bytes, stagedScaleRowsOf(tileRows)}, unswizzled. K must
/// be a multiple of the K tile (256), for the 16-byte row stride.
constexpr ByteTensorMap2D stagedScaleTensorMap(uint64_t globalAddress,
                                               int64_t batch, int64_t rows,
                                               int64_t k, int64_t tileRows) {
  ByteTensorMap2D map;
  map.globalAddress = globalAddress;
  map.innerBytes = static_cast<uint64_t>(k / kStagedScaleBlockRows);
  map.outerRows = static_cast<uint64_t>(batch * rows / kStagedScaleBlockRows);
  map.rowStrideBytes = map.innerBytes;
  map.boxInnerBytes = static_cast<uint64_t>(kStagedScaleRowBytes);
  map.boxOuterRows = static_cast<uint64_t>(stagedScaleRowsOf(tileRows));
  map.swizzle = TensorMapSwizzle::None;
  return map;
}

/// TMA tile coordinates are signed 32-bit: the kernel addresses rows up to
/// `batch * rows - 1`.
constexpr bool tensorMapRowsFitCoordinates(int64_t batch, int64_t rows) {
  return batch * rows <= (int64_t(1) << 31) - 1;
}

} // namespace nvfp4::gpu::tcgen05

#endif // NVFP4_CONVERSION_NVFP4TOGPU_TCGEN05TENSORMAP_H
