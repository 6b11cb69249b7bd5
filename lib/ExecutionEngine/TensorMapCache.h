//===- TensorMapCache.h - Reuse of device tensor maps -----------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The tcgen05 matmul's host code asks libnvfp4_cuda_runtime for a TMA tensor
// map of each operand before every launch and gives it back after it. A
// tensor map is a pure function of its parameters (address, dimensions,
// stride, box, swizzle), so a map built once stays valid for every later
// request with the same parameters, whatever happened to the buffer in
// between: the cache hands out the same device copy again instead of
// encoding, allocating and copying a new one, and frees nothing on release.
// Released maps stay cached (idle) up to a capacity; beyond it the least
// recently released idle map is freed. Maps in use are never freed.
//
// The cache is independent of CUDA (the runtime passes functions that build
// and free a device copy), so that it is unit-tested on any machine
// (unittests/ExecutionEngine/TensorMapCacheTest.cpp). Internal to the
// runtime; not thread-safe (the runtime locks around it).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EXECUTIONENGINE_TENSORMAPCACHE_H
#define NVFP4_LIB_EXECUTIONENGINE_TENSORMAPCACHE_H

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <tuple>

namespace nvfp4::runtime {

/// The parameters a 2-D byte tensor map is encoded from.
struct TensorMapKey {
  uint64_t globalAddress = 0, innerBytes = 0, outerRows = 0, rowStrideBytes = 0;
  uint32_t boxInnerBytes = 0, boxOuterRows = 0;
  int32_t swizzle = 0;

  friend bool operator<(const TensorMapKey &a, const TensorMapKey &b) {
    auto fields = [](const TensorMapKey &k) {
      return std::tie(k.globalAddress, k.innerBytes, k.outerRows,
                      k.rowStrideBytes, k.boxInnerBytes, k.boxOuterRows,
                      k.swizzle);
    };
    return fields(a) < fields(b);
  }
};

/// Device copies of tensor maps, reference-counted by acquire / release.
class TensorMapCache {
public:
  /// Builds the device copy of the map of a key; returns its address (never
  /// 0).
  using BuildFn = std::function<uint64_t(const TensorMapKey &)>;
  /// Frees a device copy (the caller makes sure no queued work reads it).
  using FreeFn = std::function<void(uint64_t)>;

  /// At most `idleCapacity` released maps stay cached.
  TensorMapCache(BuildFn build, FreeFn free, size_t idleCapacity)
      : build(std::move(build)), free(std::move(free)),
        idleCapacity(idleCapacity) {}
  TensorMapCache(const TensorMapCache &) = delete;
  TensorMapCache &operator=(const TensorMapCache &) = delete;

  /// The device copy of the map of `key`: a cached one, or a new one.
  uint64_t acquire(const TensorMapKey &key) {
    auto [it, inserted] = entries.try_emplace(key);
    Entry &entry = it->second;
    if (inserted) {
      entry.device = build(key);
      byDevice[entry.device] = it;
    } else if (entry.users == 0) {
      idle.erase(entry.idlePosition);
    }
    ++entry.users;
    return entry.device;
  }

  /// Gives back one acquisition of `device`. Returns false (and changes
  /// nothing) when `device` is not a map this cache handed out, or has no
  /// acquisition left.
  bool release(uint64_t device) {
    auto found = byDevice.find(device);
    if (found == byDevice.end() || found->second->second.users == 0)
      return false;
    Entry &entry = found->second->second;
    if (--entry.users == 0) {
      entry.idlePosition = idle.insert(idle.end(), found->second);
      evictIdleBeyond(idleCapacity);
    }
    return true;
  }

  /// Frees every idle map (maps still acquired stay).
  void clearIdle() { evictIdleBeyond(0); }

  /// Maps cached (in use or idle), and those idle.
  size_t size() const { return entries.size(); }
  size_t idleSize() const { return idle.size(); }

private:
  struct Entry;
  using EntryMap = std::map<TensorMapKey, Entry>;
  struct Entry {
    uint64_t device = 0;
    int64_t users = 0;
    /// The entry's place in `idle` while users == 0.
    std::list<EntryMap::iterator>::iterator idlePosition;
  };

  /// Frees the least recently released idle maps until at most `capacity`
  /// remain.
  void evictIdleBeyond(size_t capacity) {
    while (idle.size() > capacity) {
      EntryMap::iterator oldest = idle.front();
      idle.pop_front();
      free(oldest->second.device);
      byDevice.erase(oldest->second.device);
      entries.erase(oldest);
    }
  }

  BuildFn build;
  FreeFn free;
  size_t idleCapacity;
  EntryMap entries;
  std::map<uint64_t, EntryMap::iterator> byDevice;
  /// Idle entries, least recently released first.
  std::list<EntryMap::iterator> idle;
};

} // namespace nvfp4::runtime

#endif // NVFP4_LIB_EXECUTIONENGINE_TENSORMAPCACHE_H
