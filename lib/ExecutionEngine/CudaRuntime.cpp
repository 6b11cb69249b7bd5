//===- CudaRuntime.cpp - mgpu* entry points on the CUDA driver API --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_cuda_runtime: the C functions that MLIR's `gpu-to-llvm` lowering
// calls (`mgpuModuleLoad`, `mgpuLaunchKernel`, `mgpuMemAlloc`, ...) and those
// the host code of the tcgen05 matmul calls (`nvfp4CudaTensorMapEncode2D`,
// `nvfp4CudaMultiprocessorCount`, ...), implemented on the CUDA driver API.
// Programs lowered with the `nvfp4-to-gpu-executable` pipeline run with
//
//   mlir-runner -e main -entry-point-result=void
//     -shared-libs=libnvfp4_cuda_runtime.so,libmlir_c_runner_utils.so,...
//
// All work happens in the primary context of one device (ordinal 0, or the
// one chosen by `mgpuSetDefaultDevice` / the NVFP4_CUDA_DEVICE environment
// variable before the first call). Every driver call is checked; a failure is
// reported on stderr as
//
//   nvfp4-cuda-runtime: <entry point>: <driver call> failed: <CUresult name>
//     (<description>)
//
// and ends the process with exit status 1: the generated host code has no
// way to observe an error, and continuing would only compute garbage or
// crash later. See docs/gpu-runtime.md.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/ExecutionEngine/CudaRuntime.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05TensorMap.h"
#include "nvfp4/ExecutionEngine/CudaTensorMap.h"

#include <cuda.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

namespace {

/// Reports a failed driver call and ends the process.
[[noreturn]] void fail(const char *entry, const char *call, CUresult result) {
  const char *name = nullptr;
  const char *description = nullptr;
  // These two only fail for an unknown code, and then leave the pointers
  // null.
  (void)cuGetErrorName(result, &name);
  (void)cuGetErrorString(result, &description);
  // The toolkit's stub libcuda cannot describe its own error code.
  if (!name && result == CUDA_ERROR_STUB_LIBRARY) {
    name = "CUDA_ERROR_STUB_LIBRARY";
    description = "the toolkit's stub libcuda was loaded instead of the "
                  "driver's libcuda.so.1";
  }
  std::fprintf(
      stderr, "nvfp4-cuda-runtime: %s: %s failed: %s (%s) [CUresult %d]\n",
      entry, call, name ? name : "unknown CUresult",
      description ? description : "no description", static_cast<int>(result));
  std::fflush(stderr);
  std::exit(EXIT_FAILURE);
}

/// Reports a misuse that the driver would not catch (or would crash on) and
/// ends the process.
[[noreturn]] void failUsage(const char *entry, const char *message) {
  std::fprintf(stderr, "nvfp4-cuda-runtime: %s: %s\n", entry, message);
  std::fflush(stderr);
  std::exit(EXIT_FAILURE);
}

/// failUsage with a printf-style message.
[[noreturn]] __attribute__((format(printf, 2, 3))) void
failUsagef(const char *entry, const char *format, ...) {
  std::fprintf(stderr, "nvfp4-cuda-runtime: %s: ", entry);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
  std::fflush(stderr);
  std::exit(EXIT_FAILURE);
}

/// Checks the result of driver call `call` made by entry point `entry`.
#define NVFP4_CU_CHECK(entry, call)                                            \
  do {                                                                         \
    CUresult nvfp4Result = (call);                                             \
    if (nvfp4Result != CUDA_SUCCESS)                                           \
      fail(entry, #call, nvfp4Result);                                         \
  } while (false)

/// The device ordinal used by the next context creation. Set by
/// mgpuSetDefaultDevice; initialized from NVFP4_CUDA_DEVICE.
int32_t &defaultDevice() {
  static int32_t device = [] {
    const char *env = std::getenv("NVFP4_CUDA_DEVICE");
    if (!env || !*env)
      return 0;
    char *end = nullptr;
    long value = std::strtol(env, &end, 10);
    if (*end != '\0' || value < 0 || value > INT32_MAX)
      failUsage("NVFP4_CUDA_DEVICE", "not a device ordinal");
    return static_cast<int32_t>(value);
  }();
  return device;
}

/// Primary contexts retained so far, by device ordinal.
struct ContextTable {
  std::mutex mutex;
  bool initialized = false;
  std::vector<CUcontext> contexts;
};

ContextTable &contextTable() {
  static ContextTable table;
  return table;
}

/// Makes the primary context of the default device current on the calling
/// thread, retaining it (and initializing the driver) on first use.
void makeContextCurrent(const char *entry) {
  int32_t ordinal = defaultDevice();
  CUcontext context = nullptr;
  {
    ContextTable &table = contextTable();
    std::lock_guard<std::mutex> lock(table.mutex);
    if (!table.initialized) {
      NVFP4_CU_CHECK(entry, cuInit(0));
      int count = 0;
      NVFP4_CU_CHECK(entry, cuDeviceGetCount(&count));
      if (count <= 0)
        failUsage(entry, "no CUDA device is visible");
      table.contexts.assign(static_cast<size_t>(count), nullptr);
      table.initialized = true;
    }
    if (ordinal < 0 || static_cast<size_t>(ordinal) >= table.contexts.size()) {
      std::fprintf(stderr,
                   "nvfp4-cuda-runtime: %s: device ordinal %" PRId32
                   " out of range (%zu devices)\n",
                   entry, ordinal, table.contexts.size());
      std::exit(EXIT_FAILURE);
    }
    CUcontext &slot = table.contexts[static_cast<size_t>(ordinal)];
    if (!slot) {
      CUdevice device;
      NVFP4_CU_CHECK(entry, cuDeviceGet(&device, ordinal));
      NVFP4_CU_CHECK(entry, cuDevicePrimaryCtxRetain(&slot, device));
    }
    context = slot;
  }
  CUcontext current = nullptr;
  NVFP4_CU_CHECK(entry, cuCtxGetCurrent(&current));
  if (current != context)
    NVFP4_CU_CHECK(entry, cuCtxSetCurrent(context));
}

CUdeviceptr toDevicePtr(void *ptr) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(ptr));
}

/// Checks that a launch dimension fits the driver's unsigned int.
unsigned launchDim(const char *entry, const char *what, intptr_t value) {
  if (value <= 0 || static_cast<uint64_t>(value) > UINT32_MAX) {
    std::fprintf(stderr,
                 "nvfp4-cuda-runtime: %s: %s = %" PRIdPTR
                 " is not a valid launch dimension\n",
                 entry, what, value);
    std::exit(EXIT_FAILURE);
  }
  return static_cast<unsigned>(value);
}

/// The strided memref descriptor `gpu-to-llvm` passes to the host
/// registration functions: {allocated, aligned, offset, sizes[rank],
/// strides[rank]}.
struct MemRefDescriptorHeader {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[1]; // rank sizes, then rank strides
};

/// The first byte and the byte extent of the elements a memref descriptor
/// addresses. Empty memrefs have extent 0.
struct HostRange {
  void *begin;
  uint64_t bytes;
};

/// The range of a memref descriptor, every size computed with overflow
/// checks: a negative rank, size, stride or offset, a non-positive element
/// size, or a range beyond the address space ends the process with a
/// message.
HostRange memrefRange(const char *entry, int64_t rank,
                      const MemRefDescriptorHeader *descriptor,
                      int64_t elementSizeBytes) {
  if (!descriptor)
    failUsage(entry, "null memref descriptor");
  if (rank < 0)
    failUsagef(entry, "memref of negative rank %" PRId64, rank);
  if (elementSizeBytes <= 0)
    failUsagef(entry, "element size %" PRId64 " bytes, expected positive",
               elementSizeBytes);
  const int64_t *sizes = descriptor->sizesAndStrides;
  const int64_t *strides = sizes + rank;
  bool empty = false;
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes[i] < 0 || strides[i] < 0)
      failUsagef(entry,
                 "memref with a negative size or stride (dimension %" PRId64
                 ": size %" PRId64 ", stride %" PRId64 ")",
                 i, sizes[i], strides[i]);
    empty = empty || sizes[i] == 0;
  }
  if (empty)
    return {descriptor->aligned, 0};
  if (descriptor->offset < 0)
    failUsagef(entry, "memref with a negative offset %" PRId64,
               descriptor->offset);
  // Index of the last element + 1, in elements from the first one, then
  // bytes; every step checked.
  uint64_t extent = 1, offsetBytes = 0, bytes = 0, end = 0;
  bool overflow = false;
  for (int64_t i = 0; i < rank && !overflow; ++i) {
    uint64_t step;
    overflow =
        __builtin_mul_overflow(static_cast<uint64_t>(sizes[i] - 1),
                               static_cast<uint64_t>(strides[i]), &step) ||
        __builtin_add_overflow(extent, step, &extent);
  }
  const uint64_t elementBytes = static_cast<uint64_t>(elementSizeBytes);
  overflow =
      overflow || __builtin_mul_overflow(extent, elementBytes, &bytes) ||
      __builtin_mul_overflow(static_cast<uint64_t>(descriptor->offset),
                             elementBytes, &offsetBytes) ||
      __builtin_add_overflow(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(
                                 descriptor->aligned)),
                             offsetBytes, &end) ||
      __builtin_add_overflow(end, bytes, &end);
  if (overflow)
    failUsagef(entry,
               "memref of rank %" PRId64 " at %p (offset %" PRId64 ", %" PRId64
               "-byte elements) extends beyond the address space",
               rank, static_cast<void *>(descriptor->aligned),
               descriptor->offset, elementSizeBytes);
  return {descriptor->aligned + offsetBytes, bytes};
}

/// Checks that the `bytes` bytes at `ptr` (the `what` of entry point
/// `entry`) do not wrap around the address space and, when `ptr` is device
/// memory the driver allocated, that they lie within that allocation: a copy
/// or memset past its end would corrupt a neighbouring allocation or fault
/// asynchronously, long after the call. Host memory (pageable or
/// registered) is not checked: the driver does not know its extent. Needs
/// the context current.
void checkDeviceRange(const char *entry, const char *what, const void *ptr,
                      uint64_t bytes) {
  const uint64_t begin =
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ptr));
  uint64_t end;
  if (__builtin_add_overflow(begin, bytes, &end))
    failUsagef(entry,
               "%s: %" PRIu64 " bytes at %p wrap around the address space",
               what, bytes, ptr);
  CUmemorytype type = CU_MEMORYTYPE_HOST;
  if (cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                            static_cast<CUdeviceptr>(begin)) != CUDA_SUCCESS ||
      type != CU_MEMORYTYPE_DEVICE)
    return;
  CUdeviceptr base = 0;
  size_t size = 0;
  if (cuMemGetAddressRange(&base, &size, static_cast<CUdeviceptr>(begin)) !=
      CUDA_SUCCESS)
    return;
  const uint64_t allocationEnd = static_cast<uint64_t>(base) + size;
  if (end > allocationEnd)
    failUsagef(entry,
               "%s: %" PRIu64 " bytes at %p, expected at most the %" PRIu64
               " bytes left in its device allocation (%zu bytes at 0x%" PRIx64
               ")",
               what, bytes, ptr, allocationEnd - begin, size,
               static_cast<uint64_t>(base));
}

} // namespace

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

extern "C" CUmodule mgpuModuleLoad(void *data, size_t sizeBytes) {
  const char *entry = "mgpuModuleLoad";
  if (!data || sizeBytes == 0)
    failUsage(entry, "empty kernel binary");
  makeContextCurrent(entry);
  CUmodule module = nullptr;
  NVFP4_CU_CHECK(entry, cuModuleLoadData(&module, data));
  return module;
}

extern "C" CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  const char *entry = "mgpuModuleLoadJIT";
  if (!data)
    failUsage(entry, "empty kernel binary");
  makeContextCurrent(entry);
  // PTX text, JIT-compiled by the driver; its log is printed on failure.
  constexpr unsigned kLogSize = 16384;
  static thread_local char errorLog[kLogSize];
  errorLog[0] = '\0';
  if (optLevel < 0)
    optLevel = 0;
  if (optLevel > 4)
    optLevel = 4;
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {reinterpret_cast<void *>(static_cast<uintptr_t>(optLevel)),
                    errorLog,
                    reinterpret_cast<void *>(static_cast<uintptr_t>(kLogSize))};
  CUmodule module = nullptr;
  CUresult result = cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS) {
    if (errorLog[0])
      std::fprintf(stderr, "nvfp4-cuda-runtime: PTX JIT log:\n%s\n", errorLog);
    fail(entry, "cuModuleLoadDataEx(&module, data, 3, options, values)",
         result);
  }
  return module;
}

extern "C" void mgpuModuleUnload(CUmodule module) {
  const char *entry = "mgpuModuleUnload";
  if (!module)
    return;
  makeContextCurrent(entry);
  NVFP4_CU_CHECK(entry, cuModuleUnload(module));
}

extern "C" CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  const char *entry = "mgpuModuleGetFunction";
  if (!module || !name)
    failUsage(entry, "no module or no kernel name");
  makeContextCurrent(entry);
  CUfunction function = nullptr;
  CUresult result = cuModuleGetFunction(&function, module, name);
  if (result != CUDA_SUCCESS) {
    std::fprintf(stderr, "nvfp4-cuda-runtime: kernel '%s'\n", name);
    fail(entry, "cuModuleGetFunction(&function, module, name)", result);
  }
  return function;
}

/// Sets the dynamic shared memory limit of `function` when a launch asks for
/// more than the default 48 KiB.
static void allowSharedMemory(const char *entry, CUfunction function,
                              int32_t smem) {
  if (smem <= 48 * 1024)
    return;
  NVFP4_CU_CHECK(
      entry, cuFuncSetAttribute(function,
                                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                smem));
}

extern "C" void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t smem, CUstream stream,
                                 void **params, void **extra,
                                 size_t /*paramsCount*/) {
  const char *entry = "mgpuLaunchKernel";
  if (!function)
    failUsage(entry, "no kernel");
  if (smem < 0)
    failUsage(entry, "negative dynamic shared memory size");
  unsigned gx = launchDim(entry, "gridX", gridX);
  unsigned gy = launchDim(entry, "gridY", gridY);
  unsigned gz = launchDim(entry, "gridZ", gridZ);
  unsigned bx = launchDim(entry, "blockX", blockX);
  unsigned by = launchDim(entry, "blockY", blockY);
  unsigned bz = launchDim(entry, "blockZ", blockZ);
  makeContextCurrent(entry);
  allowSharedMemory(entry, function, smem);
  NVFP4_CU_CHECK(entry, cuLaunchKernel(function, gx, gy, gz, bx, by, bz,
                                       static_cast<unsigned>(smem), stream,
                                       params, extra));
  if (std::getenv("NVFP4_CUDA_SYNC_LAUNCH"))
    NVFP4_CU_CHECK(entry, cuStreamSynchronize(stream));
}

extern "C" void mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                                        intptr_t clusterY, intptr_t clusterZ,
                                        intptr_t gridX, intptr_t gridY,
                                        intptr_t gridZ, intptr_t blockX,
                                        intptr_t blockY, intptr_t blockZ,
                                        int32_t smem, CUstream stream,
                                        void **params, void **extra) {
  const char *entry = "mgpuLaunchClusterKernel";
  if (!function)
    failUsage(entry, "no kernel");
  if (smem < 0)
    failUsage(entry, "negative dynamic shared memory size");
  CUlaunchConfig config;
  std::memset(&config, 0, sizeof(config));
  config.gridDimX = launchDim(entry, "gridX", gridX);
  config.gridDimY = launchDim(entry, "gridY", gridY);
  config.gridDimZ = launchDim(entry, "gridZ", gridZ);
  config.blockDimX = launchDim(entry, "blockX", blockX);
  config.blockDimY = launchDim(entry, "blockY", blockY);
  config.blockDimZ = launchDim(entry, "blockZ", blockZ);
  config.sharedMemBytes = static_cast<unsigned>(smem);
  config.hStream = stream;
  CUlaunchAttribute attribute;
  std::memset(&attribute, 0, sizeof(attribute));
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = launchDim(entry, "clusterX", clusterX);
  attribute.value.clusterDim.y = launchDim(entry, "clusterY", clusterY);
  attribute.value.clusterDim.z = launchDim(entry, "clusterZ", clusterZ);
  config.attrs = &attribute;
  config.numAttrs = 1;
  makeContextCurrent(entry);
  allowSharedMemory(entry, function, smem);
  NVFP4_CU_CHECK(entry, cuLaunchKernelEx(&config, function, params, extra));
  if (std::getenv("NVFP4_CUDA_SYNC_LAUNCH"))
    NVFP4_CU_CHECK(entry, cuStreamSynchronize(stream));
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

extern "C" CUstream mgpuStreamCreate() {
  const char *entry = "mgpuStreamCreate";
  makeContextCurrent(entry);
  CUstream stream = nullptr;
  NVFP4_CU_CHECK(entry, cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

extern "C" void mgpuStreamDestroy(CUstream stream) {
  const char *entry = "mgpuStreamDestroy";
  if (!stream)
    return;
  makeContextCurrent(entry);
  NVFP4_CU_CHECK(entry, cuStreamDestroy(stream));
}

extern "C" void mgpuStreamSynchronize(CUstream stream) {
  const char *entry = "mgpuStreamSynchronize";
  makeContextCurrent(entry);
  NVFP4_CU_CHECK(entry, cuStreamSynchronize(stream));
}

extern "C" void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  const char *entry = "mgpuStreamWaitEvent";
  if (!event)
    failUsage(entry, "no event");
  makeContextCurrent(entry);
  NVFP4_CU_CHECK(entry, cuStreamWaitEvent(stream, event, 0));
}

extern "C" CUevent mgpuEventCreate() {
  const char *entry = "mgpuEventCreate";
  makeContextCurrent(entry);
  CUevent event = nullptr;
  NVFP4_CU_CHECK(entry, cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

extern "C" void mgpuEventDestroy(CUevent event) {
  const char *entry = "mgpuEventDestroy";
  if (!event)
    return;
  makeContextCurrent(entry);
  NVFP4_CU_CHECK(entry, cuEventDestroy(event));
}

extern "C" void mgpuEventSynchronize(CUevent event) {
  const char *entry = "mgpuEventSynchronize";
  if (!event)
    failUsage(entry, "no event");
  makeContextCurrent(entry);
  NVFP4_CU_CHECK(entry, cuEventSynchronize(event));
}

extern "C" void mgpuEventRecord(CUevent event, CUstream stream) {
  const char *entry = "mgpuEventRecord";
  if (!event)
    failUsage(entry, "no event");
  makeContextCurrent(entry);
  NVFP4_CU_CHECK(entry, cuEventRecord(event, stream));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, CUstream stream,
                              bool isHostShared) {
  const char *entry = "mgpuMemAlloc";
  (void)stream; // Allocations are not stream-ordered.
  if (sizeBytes == 0)
    return nullptr;
  makeContextCurrent(entry);
  CUdeviceptr ptr = 0;
  if (isHostShared)
    NVFP4_CU_CHECK(entry,
                   cuMemAllocManaged(&ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL));
  else
    NVFP4_CU_CHECK(entry, cuMemAlloc(&ptr, sizeBytes));
  return reinterpret_cast<void *>(static_cast<uintptr_t>(ptr));
}

extern "C" void mgpuMemFree(void *ptr, CUstream stream) {
  const char *entry = "mgpuMemFree";
  if (!ptr)
    return;
  makeContextCurrent(entry);
  // Work queued on `stream` may still use the buffer.
  if (stream)
    NVFP4_CU_CHECK(entry, cuStreamSynchronize(stream));
  NVFP4_CU_CHECK(entry, cuMemFree(toDevicePtr(ptr)));
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           CUstream stream) {
  const char *entry = "mgpuMemcpy";
  if (sizeBytes == 0)
    return;
  if (!dst || !src)
    failUsage(entry, "null source or destination");
  makeContextCurrent(entry);
  checkDeviceRange(entry, "destination", dst, sizeBytes);
  checkDeviceRange(entry, "source", src, sizeBytes);
  // Unified addressing: the driver tells host from device pointers.
  NVFP4_CU_CHECK(entry, cuMemcpyAsync(toDevicePtr(dst), toDevicePtr(src),
                                      sizeBytes, stream));
}

extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             CUstream stream) {
  const char *entry = "mgpuMemset32";
  if (count == 0)
    return;
  if (!dst)
    failUsage(entry, "null destination");
  uint64_t bytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), uint64_t(4), &bytes))
    failUsagef(entry, "%zu 32-bit words do not fit in the address space",
               count);
  makeContextCurrent(entry);
  checkDeviceRange(entry, "destination", dst, bytes);
  NVFP4_CU_CHECK(entry,
                 cuMemsetD32Async(toDevicePtr(dst), value, count, stream));
}

extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             CUstream stream) {
  const char *entry = "mgpuMemset16";
  if (count == 0)
    return;
  if (!dst)
    failUsage(entry, "null destination");
  uint64_t bytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), uint64_t(2), &bytes))
    failUsagef(entry, "%zu 16-bit words do not fit in the address space",
               count);
  makeContextCurrent(entry);
  checkDeviceRange(entry, "destination", dst, bytes);
  NVFP4_CU_CHECK(entry,
                 cuMemsetD16Async(toDevicePtr(dst), value, count, stream));
}

extern "C" void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  const char *entry = "mgpuMemHostRegister";
  if (!ptr || sizeBytes == 0)
    return;
  uint64_t end;
  if (__builtin_add_overflow(
          static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ptr)), sizeBytes,
          &end))
    failUsagef(entry, "%" PRIu64 " bytes at %p wrap around the address space",
               sizeBytes, ptr);
  makeContextCurrent(entry);
  NVFP4_CU_CHECK(
      entry, cuMemHostRegister(ptr, sizeBytes, CU_MEMHOSTREGISTER_PORTABLE));
}

extern "C" void mgpuMemHostUnregister(void *ptr) {
  const char *entry = "mgpuMemHostUnregister";
  if (!ptr)
    return;
  makeContextCurrent(entry);
  NVFP4_CU_CHECK(entry, cuMemHostUnregister(ptr));
}

extern "C" void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                          int64_t elementSizeBytes) {
  HostRange range =
      memrefRange("mgpuMemHostRegisterMemRef", rank,
                  static_cast<const MemRefDescriptorHeader *>(descriptor),
                  elementSizeBytes);
  mgpuMemHostRegister(range.begin, range.bytes);
}

extern "C" void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                            int64_t elementSizeBytes) {
  HostRange range =
      memrefRange("mgpuMemHostUnregisterMemRef", rank,
                  static_cast<const MemRefDescriptorHeader *>(descriptor),
                  elementSizeBytes);
  if (range.bytes != 0)
    mgpuMemHostUnregister(range.begin);
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

extern "C" void mgpuSetDefaultDevice(int32_t device) {
  if (device < 0)
    failUsage("mgpuSetDefaultDevice", "negative device ordinal");
  defaultDevice() = device;
}

extern "C" void nvfp4CudaCheckShape(int32_t holds, const char *message) {
  if (holds)
    return;
  std::fprintf(stderr, "nvfp4-cuda-runtime: %s\n",
               message ? message : "a run-time shape check failed");
  std::fflush(stderr);
  std::exit(EXIT_FAILURE);
}

extern "C" int32_t nvfp4CudaMultiprocessorCount() {
  const char *entry = "nvfp4CudaMultiprocessorCount";
  makeContextCurrent(entry);
  CUdevice device;
  NVFP4_CU_CHECK(entry, cuCtxGetDevice(&device));
  int count = 0;
  NVFP4_CU_CHECK(entry,
                 cuDeviceGetAttribute(
                     &count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  if (count <= 0)
    failUsage(entry, "the device reports no multiprocessor");
  return count;
}

//===----------------------------------------------------------------------===//
// TMA tensor maps
//===----------------------------------------------------------------------===//

extern "C" void
nvfp4CudaTensorMapEncode2D(void *tensorMap, void *globalAddress,
                           uint64_t innerBytes, uint64_t outerRows,
                           uint64_t rowStrideBytes, uint32_t boxInnerBytes,
                           uint32_t boxOuterRows, int32_t swizzle) {
  namespace tc = nvfp4::gpu::tcgen05;
  const char *entry = "nvfp4CudaTensorMapEncode2D";
  if (!tensorMap ||
      reinterpret_cast<uintptr_t>(tensorMap) % tc::kTensorMapObjectAlignment !=
          0)
    failUsage(entry, "the map is null or not 64-byte aligned");
  if (!globalAddress)
    failUsage(entry, "null global address");
  const tc::ByteTensorMap2D map = tc::byteTensorMap2D(
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(globalAddress)),
      innerBytes, outerRows, rowStrideBytes, boxInnerBytes, boxOuterRows,
      swizzle);
  // The driver would answer CUDA_ERROR_INVALID_VALUE without saying which
  // rule was broken.
  if (tc::TensorMapIssue issue = tc::checkByteTensorMap2D(map);
      issue != tc::TensorMapIssue::None) {
    std::fprintf(stderr,
                 "nvfp4-cuda-runtime: %s: %s (address %p, %" PRIu64
                 " x %" PRIu64 " bytes, row stride %" PRIu64 ", box %" PRIu32
                 " x %" PRIu32 ", swizzle %" PRId32 ")\n",
                 entry, tc::describeTensorMapIssue(issue), globalAddress,
                 outerRows, innerBytes, rowStrideBytes, boxOuterRows,
                 boxInnerBytes, swizzle);
    std::exit(EXIT_FAILURE);
  }
  // The bytes the map covers.
  const std::optional<uint64_t> spanBytes = tc::tensorMapSpanBytes(map);
  if (!spanBytes)
    failUsagef(entry,
               "%" PRIu64 " rows of %" PRIu64 " bytes, row stride %" PRIu64
               ", at %p extend beyond the address space",
               outerRows, innerBytes, rowStrideBytes, globalAddress);
  makeContextCurrent(entry);
  // TMA reads every byte of the tensor the map describes: they must lie in
  // the device buffer.
  checkDeviceRange(entry, "tensor", globalAddress, *spanBytes);
  // Encoding is host work only: the launch copies the map into the kernel's
  // parameters.
  NVFP4_CU_CHECK(entry, nvfp4::gpu::encodeByteTensorMap2D(
                            static_cast<CUtensorMap *>(tensorMap), map));
}
