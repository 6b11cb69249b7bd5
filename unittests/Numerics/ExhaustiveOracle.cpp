//===- ExhaustiveOracle.cpp - All 2^32 f32 vs the CUDA toolkit ------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Compares encodeE2M1 and encodeE4M3 with cuda_fp4.h / cuda_fp8.h host
// conversions on every f32 bit pattern, and so the branch-free encoders of
// the quantization kernels (lib/Numerics/QuantizeKernels.h): E2M1 on every
// input, E4M3 on [+0, +Inf] (the only inputs the kernels give it), and the
// stochastic E2M1 encoder against encodeE2M1Stochastic with two rbits per
// input. Slow (minutes), so it is a plain tool, not part of the test suite:
//
//   nvfp4-exhaustive-oracle [threads]     (default 2)
//
// Exits 0 when there is no mismatch.
//
//===----------------------------------------------------------------------===//

#include "OracleShared.h"

#include "nvfp4/Numerics/Numerics.h"

#include "QuantizeKernels.h"

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
  std::atomic<uint64_t> fastE2M1Mismatch{0}, fastE4M3Mismatch{0},
      fastSRMismatch{0};
  std::atomic<uint32_t> firstBad{0};
  std::atomic<bool> anyBad{false};
  const uint64_t total = uint64_t(1) << 32;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      const uint64_t lo = total * t / threads, hi = total * (t + 1) / threads;
      uint64_t bad2 = 0, bad8 = 0, fast2 = 0, fast8 = 0, fastSR = 0;
      for (uint64_t b = lo; b < hi; ++b) {
        const uint32_t u = static_cast<uint32_t>(b);
        float x;
        std::memcpy(&x, &u, sizeof(x));
        const bool m2 = nvfp4::encodeE2M1(x) != oracle::e2m1(x);
        const bool m8 = nvfp4::encodeE4M3(x) != oracle::e4m3(x);
        const bool f2 =
            nvfp4::detail::encodeE2M1Branchless(x) != oracle::e2m1(x);
        const bool f8 =
            u <= 0x7F800000u &&
            nvfp4::detail::encodeE4M3NonNegative(x) != oracle::e4m3(x);
        // Two rbits per input, r and 255 - r, from a hash of the input.
        const uint8_t r =
            static_cast<uint8_t>((b * 0x9E3779B97F4A7C15ull) >> 56);
        bool fsr = false;
        for (uint8_t rb : {r, static_cast<uint8_t>(255 - r)})
          fsr |= nvfp4::detail::encodeE2M1StochasticBranchless(x, rb) !=
                 nvfp4::encodeE2M1Stochastic(x, rb);
        bad2 += m2;
        bad8 += m8;
        fast2 += f2;
        fast8 += f8;
        fastSR += fsr;
        if ((m2 || m8 || f2 || f8 || fsr) && !anyBad.exchange(true))
          firstBad = u;
      }
      e2m1Mismatch += bad2;
      e4m3Mismatch += bad8;
      fastE2M1Mismatch += fast2;
      fastE4M3Mismatch += fast8;
      fastSRMismatch += fastSR;
    });
  for (auto &th : pool)
    th.join();
  const double secs = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  std::printf(
      "nvfp4-exhaustive-oracle: 4294967296 f32 inputs, %d threads, "
      "%.1f s\n  E2M1 (cuda_fp4.h, cudaRoundNearest) mismatches: %llu\n"
      "  E4M3 (cuda_fp8.h, __NV_SATFINITE) mismatches:    %llu\n"
      "  kernel E2M1 (branch-free) vs cuda_fp4.h mismatches:       %llu\n"
      "  kernel E4M3 (branch-free, [+0, +Inf]) vs cuda_fp8.h:      %llu\n"
      "  kernel E2M1 SR vs encodeE2M1Stochastic (2 rbits/input):   %llu\n",
      threads, secs, static_cast<unsigned long long>(e2m1Mismatch),
      static_cast<unsigned long long>(e4m3Mismatch),
      static_cast<unsigned long long>(fastE2M1Mismatch),
      static_cast<unsigned long long>(fastE4M3Mismatch),
      static_cast<unsigned long long>(fastSRMismatch));
  if (anyBad)
    std::printf("  first mismatching input bits: 0x%08x\n",
                static_cast<unsigned>(firstBad));
  return anyBad ? 1 : 0;
}
