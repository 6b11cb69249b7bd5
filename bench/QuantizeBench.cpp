//===- QuantizeBench.cpp - Throughput of the reference quantizer ---------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4-bench-quantize: quantization throughput of the reference numerics
// library (NVFP4, and the OCP MX formats of nvfp4::mx) against a memcpy of
// the same number of bytes measured in the same run.
//
// Every benchmark reports
//   * items_per_second  - elements quantized per second,
//   * bytes_per_second  - f32 input bytes read per second (4 bytes/element),
//   * GB/s              - the same in 1e9 bytes/s,
//   * vs_memcpy         - bytes_per_second / memcpy bytes_per_second,
// and the parallel variants also `speedup` over their single-threaded run. A
// summary table follows the benchmark output; it checks the target "1x16 RNE
// quantization >= 25% of single-core memcpy bandwidth".
//
// With --benchmark_repetitions=N the summary uses the median of each.
//
// Extra flags (mixed freely with the Google Benchmark ones):
//   --rows=N --cols=N   problem size (default 4096 x 4096 = 64 MiB of f32)
//   --threads=N         threads for the parallel variant (default 2)
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/MX.h"
#include "nvfp4/Numerics/Numerics.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

int64_t gRows = 4096;
int64_t gCols = 4096;
int gThreads = 2;

constexpr const char *kMemcpyName = "memcpy";
constexpr const char *kBaselineName = "quantize/1x16/rn";

/// The shared f32 input: normally distributed with a few outliers, so block
/// scales vary over the E4M3 range as they do for real activations.
const std::vector<float> &input() {
  static const std::vector<float> data = [] {
    std::vector<float> v(static_cast<size_t>(gRows * gCols));
    std::mt19937 gen(1234);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float &x : v)
      x = normal(gen);
    for (size_t i = 0; i < v.size(); i += 4099)
      v[i] *= 64.0f;
    return v;
  }();
  return data;
}

void setThroughput(benchmark::State &state) {
  int64_t elems = gRows * gCols;
  int64_t bytes = elems * static_cast<int64_t>(sizeof(float));
  state.SetItemsProcessed(state.iterations() * elems);
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["GB/s"] = benchmark::Counter(
      static_cast<double>(bytes) * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Memcpy(benchmark::State &state) {
  const std::vector<float> &src = input();
  std::vector<float> dst(src.size(), 0.0f);
  size_t bytes = src.size() * sizeof(float);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  setThroughput(state);
}

void BM_Quantize(benchmark::State &state, nvfp4::QuantizeOptions opts,
                 int threads) {
  const std::vector<float> &x = input();
  nvfp4::QuantizedTensor out;
  for (auto _ : state) {
    std::optional<std::string> error =
        threads > 1 ? nvfp4::quantizeParallel(x.data(), gRows, gCols, opts,
                                              out, threads)
                    : nvfp4::quantize(x.data(), gRows, gCols, opts, out);
    if (error) {
      state.SkipWithError(error->c_str());
      return;
    }
    benchmark::DoNotOptimize(out.data.data());
    benchmark::ClobberMemory();
  }
  setThroughput(state);
}

void BM_Dequantize(benchmark::State &state) {
  nvfp4::QuantizedTensor t;
  nvfp4::QuantizeOptions opts;
  if (auto error = nvfp4::quantize(input().data(), gRows, gCols, opts, t)) {
    state.SkipWithError(error->c_str());
    return;
  }
  std::vector<float> out(static_cast<size_t>(gRows * gCols));
  for (auto _ : state) {
    nvfp4::dequantize(t, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  // Bytes: the f32 output written, to compare with the quantizers' input.
  setThroughput(state);
}

/// nvfp4::mx::quantize of the input to `type` on `threads` threads.
void BM_MxQuantize(benchmark::State &state, nvfp4::mx::ElementType type,
                   int threads) {
  const std::vector<float> &x = input();
  nvfp4::mx::Tensor out;
  for (auto _ : state) {
    if (auto error =
            nvfp4::mx::quantize(x.data(), gRows, gCols, type, out, threads)) {
      state.SkipWithError(error->c_str());
      return;
    }
    benchmark::DoNotOptimize(out.data.data());
    benchmark::ClobberMemory();
  }
  setThroughput(state);
}

void BM_MxDequantize(benchmark::State &state, nvfp4::mx::ElementType type) {
  nvfp4::mx::Tensor t;
  if (auto error = nvfp4::mx::quantize(input().data(), gRows, gCols, type, t)) {
    state.SkipWithError(error->c_str());
    return;
  }
  std::vector<float> out(static_cast<size_t>(gRows * gCols));
  for (auto _ : state) {
    nvfp4::mx::dequantize(t, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  setThroughput(state);
}

nvfp4::QuantizeOptions options(nvfp4::BlockShape block, bool stochastic,
                               bool hadamard, bool givenAmax = false) {
  nvfp4::QuantizeOptions opts;
  opts.block = block;
  opts.rounding = stochastic ? nvfp4::Rounding::Stochastic
                             : nvfp4::Rounding::NearestEven;
  opts.seed = 0x5eed;
  opts.offset = 0;
  opts.hadamard = hadamard;
  if (givenAmax)
    opts.amax = 64.0f * 6.0f;
  return opts;
}

void registerBenchmarks() {
  const nvfp4::BlockShape b1x16{1, 16}, b16x16{16, 16};
  auto reg = [](const std::string &name, auto fn, auto... args) {
    benchmark::RegisterBenchmark(name.c_str(), fn, args...)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  };
  // memcpy first: the reporter needs its bandwidth for the ratios.
  reg(kMemcpyName, BM_Memcpy);
  reg(kBaselineName, BM_Quantize, options(b1x16, false, false), 1);
  reg("quantize/1x16/rn/given-amax", BM_Quantize,
      options(b1x16, false, false, /*givenAmax=*/true), 1);
  reg("quantize/16x16/rn", BM_Quantize, options(b16x16, false, false), 1);
  reg("quantize/1x16/rn/rht", BM_Quantize, options(b1x16, false, true), 1);
  reg("quantize/1x16/sr", BM_Quantize, options(b1x16, true, false), 1);
  reg("quantize/1x16/sr/rht", BM_Quantize, options(b1x16, true, true), 1);
  reg("quantize/1x16/rn/threads:" + std::to_string(gThreads), BM_Quantize,
      options(b1x16, false, false), gThreads);
  reg("dequantize/1x16", BM_Dequantize);
  using nvfp4::mx::ElementType;
  reg("mx/quantize/mxfp4", BM_MxQuantize, ElementType::E2M1, 1);
  reg("mx/quantize/mxfp8_e4m3", BM_MxQuantize, ElementType::E4M3, 1);
  reg("mx/quantize/mxfp8_e5m2", BM_MxQuantize, ElementType::E5M2, 1);
  reg("mx/quantize/mxfp4/threads:" + std::to_string(gThreads), BM_MxQuantize,
      ElementType::E2M1, gThreads);
  reg("mx/dequantize/mxfp4", BM_MxDequantize, ElementType::E2M1);
  reg("mx/dequantize/mxfp8_e5m2", BM_MxDequantize, ElementType::E5M2);
}

/// Adds `vs_memcpy` (and `speedup` for the parallel run) to each run and
/// prints a summary table at the end.
class RatioReporter : public benchmark::ConsoleReporter {
public:
  explicit RatioReporter(bool color)
      : ConsoleReporter(color ? OO_ColorTabular : OO_Tabular) {}

  void ReportRuns(const std::vector<Run> &reports) override {
    std::vector<Run> runs = reports;
    for (Run &run : runs) {
      if (run.error_occurred)
        continue;
      // With --benchmark_repetitions the median aggregate is what the
      // summary uses; the other aggregates (mean, stddev, cv) are left alone.
      bool median = run.run_type == Run::RT_Aggregate &&
                    run.aggregate_name == "median";
      if (run.run_type != Run::RT_Iteration && !median)
        continue;
      const std::string &name = run.run_name.function_name;
      double bw = bandwidth(run);
      if (name == kMemcpyName)
        memcpyBw = bw;
      if (memcpyBw > 0)
        run.counters["vs_memcpy"] = benchmark::Counter(bw / memcpyBw);
      // A parallel run's speedup over its single-threaded run.
      if (size_t at = name.find("/threads:"); at != std::string::npos) {
        auto single = results.find(name.substr(0, at));
        if (single != results.end() && single->second > 0)
          run.counters["speedup"] = benchmark::Counter(bw / single->second);
      }
      if (!results.count(name))
        order.push_back(name);
      results[name] = bw;
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void printSummary() const {
    if (memcpyBw <= 0) {
      std::printf("\nsummary: memcpy did not run; no ratios\n");
      return;
    }
    std::printf("\nsummary (%lld x %lld f32 = %.1f MiB per pass; bandwidth = "
                "f32 bytes read / s)\n",
                static_cast<long long>(gRows), static_cast<long long>(gCols),
                static_cast<double>(gRows * gCols * 4) / (1 << 20));
    std::printf("  %-32s %10s %12s %10s\n", "benchmark", "GB/s",
                "Gelem/s", "vs memcpy");
    for (const std::string &name : order) {
      double bw = results.at(name);
      std::printf("  %-32s %10.2f %12.3f %9.1f%%\n", name.c_str(), bw * 1e-9,
                  bw * 0.25e-9, 100.0 * bw / memcpyBw);
    }
    auto it = results.find(kBaselineName);
    if (it != results.end()) {
      double ratio = it->second / memcpyBw;
      std::printf("target: 1x16 RNE quantize >= 25%% of memcpy bandwidth: "
                  "%.1f%% -> %s\n",
                  100.0 * ratio, ratio >= 0.25 ? "MET" : "NOT MET");
    }
    std::string parallel =
        std::string(kBaselineName) + "/threads:" + std::to_string(gThreads);
    auto pit = results.find(parallel);
    if (pit != results.end() && it != results.end())
      std::printf("parallel: quantizeParallel(%d threads) speedup over 1 "
                  "thread: %.2fx\n",
                  gThreads, pit->second / it->second);
  }

private:
  static double bandwidth(const Run &run) {
    auto it = run.counters.find("bytes_per_second");
    return it == run.counters.end() ? 0.0 : static_cast<double>(it->second);
  }

  double memcpyBw = 0;
  std::vector<std::string> order;
  std::map<std::string, double> results;
};

bool parseInt(const char *arg, const char *flag, int64_t &value) {
  size_t n = std::strlen(flag);
  if (std::strncmp(arg, flag, n) != 0)
    return false;
  char *end = nullptr;
  long long v = std::strtoll(arg + n, &end, 10);
  if (!end || *end != '\0' || v <= 0) {
    std::fprintf(stderr, "invalid value in '%s'\n", arg);
    std::exit(1);
  }
  value = v;
  return true;
}

} // namespace

int main(int argc, char **argv) {
  // Strip our flags; the rest goes to Google Benchmark.
  std::vector<char *> args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    int64_t threads = gThreads;
    if (parseInt(argv[i], "--rows=", gRows) ||
        parseInt(argv[i], "--cols=", gCols))
      continue;
    if (parseInt(argv[i], "--threads=", threads)) {
      gThreads = static_cast<int>(threads);
      continue;
    }
    args.push_back(argv[i]);
  }
  if (auto error = nvfp4::checkQuantizable(gRows, gCols, {16, 16})) {
    std::fprintf(stderr, "nvfp4-bench-quantize: %s\n", error->c_str());
    return 1;
  }
  int benchArgc = static_cast<int>(args.size());
  benchmark::Initialize(&benchArgc, args.data());
  if (benchmark::ReportUnrecognizedArguments(benchArgc, args.data()))
    return 1;
  registerBenchmarks();
  RatioReporter reporter(isatty(fileno(stdout)) != 0);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.printSummary();
  benchmark::Shutdown();
  return 0;
}
