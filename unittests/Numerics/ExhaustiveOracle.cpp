//===- ExhaustiveOracle.cpp - All 2^32 f32 vs the CUDA toolkit ------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Compares encodeE2M1 and encodeE4M3 with cuda_fp4.h / cuda_fp8.h host
// conversions on every f32 bit pattern. Slow (minutes), so it is a plain
// tool, not part of the test suite:
//
//   nvfp4-exhaustive-oracle [threads]     (default 2)
//
// Exits 0 when there is no mismatch.
//
//===----------------------------------------------------------------------===//

#include "OracleShared.h"

#include "nvfp4/Numerics/Numerics.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

int main(int argc, char **argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  if (threads < 1)
    threads = 1;
  const auto start = std::chrono::steady_clock::now();
  std::atomic<uint64_t> e2m1Mismatch{0}, e4m3Mismatch{0};
  std::atomic<uint32_t> firstBad{0};
  std::atomic<bool> anyBad{false};
  const uint64_t total = uint64_t(1) << 32;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const uint64_t lo = total * t / threads, hi = total * (t + 1) / threads;
      uint64_t bad2 = 0, bad8 = 0;
      for (uint64_t b = lo; b < hi; ++b) {
        const uint32_t u = static_cast<uint32_t>(b);
        float x;
        std::memcpy(&x, &u, sizeof(x));
        const bool m2 = nvfp4::encodeE2M1(x) != oracle::e2m1(x);
        const bool m8 = nvfp4::encodeE4M3(x) != oracle::e4m3(x);
        bad2 += m2;
        bad8 += m8;
        if ((m2 || m8) && !anyBad.exchange(true))
          firstBad = u;
      }
      e2m1Mismatch += bad2;
      e4m3Mismatch += bad8;
    });
  for (auto &th : pool)
    th.join();
  const double secs = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  std::printf("nvfp4-exhaustive-oracle: 4294967296 f32 inputs, %d threads, "
              "%.1f s\n  E2M1 (cuda_fp4.h, cudaRoundNearest) mismatches: %llu\n"
              "  E4M3 (cuda_fp8.h, __NV_SATFINITE) mismatches:    %llu\n",
              threads, secs, static_cast<unsigned long long>(e2m1Mismatch),
              static_cast<unsigned long long>(e4m3Mismatch));
  if (anyBad)
    std::printf("  first mismatching input bits: 0x%08x\n",
                static_cast<unsigned>(firstBad));
  return anyBad ? 1 : 0;
}
