//===- CudaRuntime.h - mgpu* entry points of libnvfp4_cuda_runtime -*- C++ -*-//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The C ABI that MLIR 22's `gpu-to-llvm` lowering emits calls to, and the
// entry points the host code of the tcgen05 matmul calls, as implemented by
// libnvfp4_cuda_runtime on the CUDA driver API. The types are
// those of cuda.h (redeclared here so that including this header does not
// need the toolkit); `intptr_t` launch dimensions match MLIR's `index`.
//
// Semantics shared by every function: the work happens in the primary
// context of the default device (ordinal 0, NVFP4_CUDA_DEVICE, or
// mgpuSetDefaultDevice before the first call); a failing driver call is
// reported on stderr with the entry point, the call and the CUresult name and
// description, and ends the process with exit status 1. So is a misuse the
// driver would not report (or would crash on): every size an entry point
// computes from its arguments (memref extents, word counts, tensor-map
// spans) is computed with overflow checks, and a byte range that wraps
// around the address space, or runs past the end of the device allocation
// it starts in, is rejected before any copy, memset or tensor map touches
// it. See docs/gpu-runtime.md.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_EXECUTIONENGINE_CUDARUNTIME_H
#define NVFP4_EXECUTIONENGINE_CUDARUNTIME_H

#include <cstddef>
#include <cstdint>

typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

extern "C" {

/// Loads a cubin or fatbin (`gpu-module-to-binary{format=bin|fatbin}`) of
/// `sizeBytes` bytes. Called from the global constructor `gpu-to-llvm`
/// creates for each `gpu.binary`.
CUmodule mgpuModuleLoad(void *data, size_t sizeBytes);

/// JIT-compiles and loads NUL-terminated PTX text
/// (`gpu-module-to-binary{format=isa}`) at driver optimization level
/// `optLevel` (clamped to 0..4); prints the JIT error log on failure.
CUmodule mgpuModuleLoadJIT(void *data, int optLevel);

/// Unloads `module`; a null module is ignored.
void mgpuModuleUnload(CUmodule module);

/// Returns the kernel `name` of `module`; an unknown name is an error.
CUfunction mgpuModuleGetFunction(CUmodule module, const char *name);

/// Launches `function` on `stream` (null: the legacy default stream) with
/// `params` pointing at the `paramsCount` kernel arguments. Dimensions must
/// be in 1..2^32-1. Dynamic shared memory above 48 KiB is opted into per
/// kernel. With NVFP4_CUDA_SYNC_LAUNCH set, synchronizes the stream after
/// the launch so that a faulting kernel is reported at its launch.
void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t paramsCount);

/// Launches `function` with thread-block clusters of the given dimensions
/// (`gpu.launch_func ... clusters in (...)`, sm_90 and later).
void mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, CUstream stream, void **params,
                             void **extra);

/// Creates a non-blocking stream.
CUstream mgpuStreamCreate();
/// Destroys `stream`; null is ignored.
void mgpuStreamDestroy(CUstream stream);
/// Waits for the work queued on `stream`.
void mgpuStreamSynchronize(CUstream stream);
/// Makes `stream` wait for `event`.
void mgpuStreamWaitEvent(CUstream stream, CUevent event);

/// Creates an event without timing.
CUevent mgpuEventCreate();
/// Destroys `event`; null is ignored.
void mgpuEventDestroy(CUevent event);
/// Waits for `event`.
void mgpuEventSynchronize(CUevent event);
/// Records `event` on `stream`.
void mgpuEventRecord(CUevent event, CUstream stream);

/// Allocates `sizeBytes` of device memory (managed memory when
/// `isHostShared`); 0 bytes gives null. Not stream-ordered.
void *mgpuMemAlloc(uint64_t sizeBytes, CUstream stream, bool isHostShared);
/// Frees device memory after the work queued on `stream` (when not null)
/// has finished; null is ignored.
void mgpuMemFree(void *ptr, CUstream stream);
/// Copies `sizeBytes` between any two of host and device memory (unified
/// addressing), asynchronously on `stream`. A source or destination range
/// that wraps around, or that starts in a device allocation and runs past
/// its end, is an error.
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, CUstream stream);
/// Sets `count` 32-bit words at `dst` to `value` on `stream`; the range is
/// checked as mgpuMemcpy's.
void mgpuMemset32(void *dst, unsigned int value, size_t count,
                  CUstream stream);
/// Sets `count` 16-bit words at `dst` to `value` on `stream`; the range is
/// checked as mgpuMemcpy's.
void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  CUstream stream);

/// Page-locks `sizeBytes` of host memory at `ptr` (portable to every
/// context); null or 0 bytes are ignored, a range that wraps around the
/// address space is an error.
void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
/// Undoes mgpuMemHostRegister; null is ignored.
void mgpuMemHostUnregister(void *ptr);
/// Page-locks the elements a ranked memref descriptor ({allocated, aligned,
/// offset, sizes[rank], strides[rank]}) addresses, from its first to its
/// last element, strided layouts included. A negative rank, size, stride or
/// offset, a non-positive element size, or an extent beyond the address
/// space (all computed with overflow checks) is an error.
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes);
/// Undoes mgpuMemHostRegisterMemRef.
void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes);

/// Selects the device whose primary context the following calls use.
void mgpuSetDefaultDevice(int32_t device);

/// The number of streaming multiprocessors of the default device (the grid
/// size of the persistent tcgen05 matmul kernel).
int32_t nvfp4CudaMultiprocessorCount();

/// A shape rule of a kernel on run-time sizes, checked by the host code
/// before the launch: unless `holds`, prints `message` (which names the op,
/// its location and the rule) and ends the process with a failure.
void nvfp4CudaCheckShape(int32_t holds, const char *message);

/// Encodes a rank-2 TMA tensor map of bytes (CU_TENSOR_MAP_DATA_TYPE_UINT8)
/// into the 128 bytes at `tensorMap` (host memory, 64-byte aligned): the
/// device buffer at `globalAddress`, `outerRows` rows of `innerBytes` bytes,
/// `rowStrideBytes` apart, read in boxes of `boxOuterRows` x `boxInnerBytes`
/// with the shared-memory swizzle `swizzle` (a CUtensorMapSwizzle: 0 none, 1
/// 32B, 2 64B, 3 128B). The parameters are checked first against the rules
/// of cuTensorMapEncodeTiled (nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05TensorMap.h);
/// a broken rule is reported by name. The span of the map, (outerRows - 1) *
/// rowStrideBytes + innerBytes bytes from `globalAddress`, must not overflow
/// and, when the address is in a device allocation, must lie within it.
/// The map is a host object: the launch passes it by value, as a
/// grid-constant kernel parameter, so that nothing is allocated, copied to
/// the device or freed (docs/gpu-runtime.md).
void nvfp4CudaTensorMapEncode2D(void *tensorMap, void *globalAddress,
                                uint64_t innerBytes, uint64_t outerRows,
                                uint64_t rowStrideBytes, uint32_t boxInnerBytes,
                                uint32_t boxOuterRows, int32_t swizzle);

} // extern "C"

#endif // NVFP4_EXECUTIONENGINE_CUDARUNTIME_H
