//===- GPUEmulatorHostApi.cpp - The mgpu* host API on host memory ---------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The host functions programs lowered with gpu-to-llvm call, for the GPU
// emulator: device memory is host memory (allocations recorded for the
// out-of-bounds checker), streams and events are no-ops, every launch runs
// to completion.
//
//===----------------------------------------------------------------------===//

#include "GPUEmulatorState.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

using namespace nvfp4::emulator::detail;

std::map<uintptr_t, uint64_t> &nvfp4::emulator::detail::deviceAllocations() {
  static std::map<uintptr_t, uint64_t> allocations;
  return allocations;
}

bool nvfp4::emulator::detail::inDeviceAllocation(uintptr_t begin,
                                                 uint64_t bytes) {
  const auto &allocations = deviceAllocations();
  auto it = allocations.upper_bound(begin);
  if (it == allocations.begin())
    return false;
  --it;
  return bytes <= it->second && begin - it->first <= it->second - bytes;
}

extern "C" void *mgpuStreamCreate() {
  static int stream;
  return &stream;
}
extern "C" void mgpuStreamDestroy(void *) {}
extern "C" void mgpuStreamSynchronize(void *) {}
extern "C" void mgpuStreamWaitEvent(void *, void *) {}
extern "C" void *mgpuEventCreate() {
  static int event;
  return &event;
}
extern "C" void mgpuEventDestroy(void *) {}
extern "C" void mgpuEventSynchronize(void *) {}
extern "C" void mgpuEventRecord(void *, void *) {}

extern "C" void *mgpuMemAlloc(uint64_t sizeBytes, void *, bool) {
  // 256-byte aligned, as cuMemAlloc's allocations are; recorded for the
  // out-of-bounds checker.
  void *ptr = nullptr;
  if (posix_memalign(&ptr, 256, sizeBytes ? sizeBytes : 1) != 0)
    fail("mgpuMemAlloc: cannot allocate %" PRIu64 " bytes", sizeBytes);
  deviceAllocations()[reinterpret_cast<uintptr_t>(ptr)] = sizeBytes;
  return ptr;
}
extern "C" void mgpuMemFree(void *ptr, void *) {
  deviceAllocations().erase(reinterpret_cast<uintptr_t>(ptr));
  std::free(ptr);
}
/// Where `ptr` points: device memory (an emulated allocation) or the host.
static const char *memorySide(void *ptr) {
  return inDeviceAllocation(reinterpret_cast<uintptr_t>(ptr), 1) ? "device"
                                                                 : "host";
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *) {
  // With NVFP4_GPU_EMULATOR_REPORT, a line per copy: the traffic between
  // host and device that a program's staging causes.
  if (reportMemory())
    std::fprintf(stderr, "nvfp4-gpu-emulator: copy %s-to-%s %zu bytes\n",
                 memorySide(src), memorySide(dst), sizeBytes);
  if (sizeBytes)
    std::memmove(dst, src, sizeBytes);
}
extern "C" void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             void *) {
  auto *words = static_cast<unsigned int *>(dst);
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
}
extern "C" void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             void *) {
  auto *halves = static_cast<unsigned short *>(dst);
  for (size_t i = 0; i < count; ++i)
    halves[i] = value;
}
extern "C" void mgpuMemHostRegister(void *, uint64_t) {}
extern "C" void mgpuMemHostUnregister(void *) {}
extern "C" void mgpuMemHostRegisterMemRef(int64_t, void *, int64_t) {}
extern "C" void mgpuMemHostUnregisterMemRef(int64_t, void *, int64_t) {}
extern "C" void mgpuSetDefaultDevice(int32_t) {}
