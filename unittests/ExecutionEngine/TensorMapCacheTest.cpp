//===- TensorMapCacheTest.cpp - Tests of the tensor-map cache -------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The cache libnvfp4_cuda_runtime keeps device tensor maps in: a map is
// built once per distinct parameter set, handed out again while cached,
// never freed while acquired, and idle maps are freed least recently
// released first beyond the capacity. The device side is modelled by
// counters (build returns fresh addresses, free records them).
//
//===----------------------------------------------------------------------===//

#include "TensorMapCache.h"

#include "gtest/gtest.h"

#include <set>
#include <vector>

using nvfp4::runtime::TensorMapCache;
using nvfp4::runtime::TensorMapKey;

namespace {

/// A cache over a modelled device: every build returns a new address.
struct ModelledDevice {
  uint64_t nextAddress = 0x1000;
  std::vector<TensorMapKey> built;
  std::vector<uint64_t> freed;
  std::set<uint64_t> live;

  TensorMapCache makeCache(size_t idleCapacity) {
    return TensorMapCache(
        [this](const TensorMapKey &key) {
          built.push_back(key);
          uint64_t address = nextAddress;
          nextAddress += 0x100;
          live.insert(address);
          return address;
        },
        [this](uint64_t address) {
          EXPECT_EQ(live.erase(address), 1u) << "freed twice or never built";
          freed.push_back(address);
        },
        idleCapacity);
  }
};

TensorMapKey keyOf(uint64_t address, uint64_t rows = 128) {
  TensorMapKey key;
  key.globalAddress = address;
  key.innerBytes = 512;
  key.outerRows = rows;
  key.rowStrideBytes = 512;
  key.boxInnerBytes = 128;
  key.boxOuterRows = 128;
  key.swizzle = 3;
  return key;
}

TEST(TensorMapCache, SameParametersReuseTheDeviceCopy) {
  ModelledDevice device;
  TensorMapCache cache = device.makeCache(8);
  uint64_t first = cache.acquire(keyOf(0xA000));
  EXPECT_TRUE(cache.release(first));
  // The next launch with the same buffer and shape: no new map.
  uint64_t second = cache.acquire(keyOf(0xA000));
  EXPECT_EQ(first, second);
  EXPECT_EQ(device.built.size(), 1u);
  EXPECT_TRUE(device.freed.empty());
  EXPECT_TRUE(cache.release(second));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.idleSize(), 1u);
}

TEST(TensorMapCache, EveryParameterIsPartOfTheKey) {
  ModelledDevice device;
  TensorMapCache cache = device.makeCache(16);
  TensorMapKey base = keyOf(0xA000);
  std::vector<TensorMapKey> variants(8, base);
  variants[1].globalAddress += 16;
  variants[2].innerBytes += 16;
  variants[3].outerRows += 1;
  variants[4].rowStrideBytes += 16;
  variants[5].boxInnerBytes = 64;
  variants[6].boxOuterRows = 64;
  variants[7].swizzle = 0;
  std::set<uint64_t> addresses;
  for (const TensorMapKey &key : variants)
    addresses.insert(cache.acquire(key));
  EXPECT_EQ(addresses.size(), variants.size());
  EXPECT_EQ(device.built.size(), variants.size());
}

TEST(TensorMapCache, AcquiredMapsAreNeverFreed) {
  ModelledDevice device;
  // No idle map may stay: a release frees at once, but only the last one.
  TensorMapCache cache = device.makeCache(0);
  uint64_t a = cache.acquire(keyOf(0xA000));
  uint64_t b = cache.acquire(keyOf(0xA000));
  EXPECT_EQ(a, b);
  EXPECT_TRUE(cache.release(a));
  EXPECT_TRUE(device.freed.empty());
  EXPECT_TRUE(cache.release(b));
  EXPECT_EQ(device.freed, std::vector<uint64_t>{a});
  EXPECT_EQ(cache.size(), 0u);
  // A freed map is built anew.
  uint64_t c = cache.acquire(keyOf(0xA000));
  EXPECT_NE(c, a);
  EXPECT_EQ(device.built.size(), 2u);
}

TEST(TensorMapCache, IdleMapsBeyondTheCapacityAreFreedOldestFirst) {
  ModelledDevice device;
  TensorMapCache cache = device.makeCache(2);
  std::vector<uint64_t> maps;
  for (uint64_t i = 0; i < 4; ++i)
    maps.push_back(cache.acquire(keyOf(0xA000 + 0x1000 * i)));
  // Release in the order 2, 0, 3, 1: 2 and 0 are evicted when 3 and 1
  // become idle.
  for (int i : {2, 0, 3, 1})
    EXPECT_TRUE(cache.release(maps[i]));
  EXPECT_EQ(device.freed, (std::vector<uint64_t>{maps[2], maps[0]}));
  EXPECT_EQ(cache.idleSize(), 2u);
  // Reacquiring an idle map takes it out of the idle list: releasing
  // another one then evicts the older of the rest.
  EXPECT_EQ(cache.acquire(keyOf(0xA000 + 0x3000)), maps[3]);
  uint64_t fresh = cache.acquire(keyOf(0xF000));
  EXPECT_TRUE(cache.release(fresh));
  EXPECT_EQ(device.freed, (std::vector<uint64_t>{maps[2], maps[0]}));
  EXPECT_TRUE(cache.release(maps[3]));
  EXPECT_EQ(device.freed, (std::vector<uint64_t>{maps[2], maps[0], maps[1]}));
  cache.clearIdle();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_TRUE(device.live.empty());
}

TEST(TensorMapCache, ReleasingAnUnknownOrIdleMapIsRefused) {
  ModelledDevice device;
  TensorMapCache cache = device.makeCache(4);
  EXPECT_FALSE(cache.release(0x1234));
  uint64_t a = cache.acquire(keyOf(0xA000));
  EXPECT_TRUE(cache.release(a));
  EXPECT_FALSE(cache.release(a));
  EXPECT_EQ(cache.idleSize(), 1u);
  EXPECT_TRUE(device.freed.empty());
}

} // namespace
