//===- QuantizeBench.cpp - nvfp4 quantize kernels vs memcpy on a GPU ------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4-bench-gpu-quantize: runs the kernels of a one-quantize program
//
//   func.func @quantize(%x: tensor<MxKxT>) -> !nvfp4.tensor<MxK, Rx16>
//
// (T f32 or bf16, round to nearest, computed amax) lowered by
// `nvfp4-opt --nvfp4-to-ptx` (see bench/gpu/run-quantize.sh), through its
// launch plan (LaunchPlanReader.h: the amax and quantize kernels, their
// launch dimensions and arguments, all from the compiler), and reports in
// the same run:
//
//   - the time of one call (both kernels), as GB/s of the bytes moved (the
//     input read by both kernels, the packed codes and the compact scales
//     written) and as GB/s of input;
//   - device-to-device cuMemcpy GB/s of the input's bytes (the bandwidth
//     roof), and the ratio of the two;
//
// then checks the codes, the scales and the amax, bit for bit, against the
// reference library (nvfp4::quantize). Exits 1 when any differs. With
// --dry-run it only checks the plan against the PTX (no GPU needed). See
// bench/gpu/README.md.
//
//===----------------------------------------------------------------------===//

#include "LaunchPlanReader.h"
#include "PlanLauncher.h"

#include "nvfp4/Numerics/Numerics.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>

using namespace nvfp4::bench;

namespace {

int need(const LaunchPlan &plan, const std::string &source) {
  return requireSource(plan, source, "quantize", "bench/gpu/run-quantize.sh");
}

/// Counts the positions where `got` and `want` differ; prints the first few.
int64_t compareBytes(const char *what, const std::vector<uint8_t> &got,
                     const std::vector<uint8_t> &want) {
  if (got.size() != want.size())
    die("check", std::string(what) + ": " + std::to_string(got.size()) +
                     " bytes, the reference has " +
                     std::to_string(want.size()));
  int64_t differ = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i])
      continue;
    if (differ++ < 4)
      std::printf("  %s byte %zu: got 0x%02x, expected 0x%02x\n", what, i,
                  got[i], want[i]);
  }
  return differ;
}

} // namespace

int main(int argc, char **argv) {
  setToolName(argv[0]);
  BenchOptions o = parseBenchOptions(argc, argv, nullptr);
  std::string image;
  LaunchPlan plan;
  const bool isPtx = loadPlan(o.kernels, o.plan, plan, image);
  const int x = need(plan, "arg0"), data = need(plan, "result0.data"),
            scales = need(plan, "result0.scales"),
            amax = need(plan, "result0.amax");
  const PlanValue &input = plan.values[x];
  if (input.shape.size() != 2 ||
      (input.type != "f32" && input.type != "bf16") ||
      plan.values[data].shape != input.shape ||
      plan.values[scales].shape.size() != 2 ||
      plan.values[scales].shape[1] * 16 != input.shape[1] ||
      plan.values[scales].shape[0] == 0 ||
      input.shape[0] % plan.values[scales].shape[0] ||
      plan.values[amax].type != "f32" || plan.values[amax].numElements() != 1)
    die("not a quantize program's plan",
        "expected a 2-D f32 or bf16 input, codes of its shape, compact "
        "scales [M / R, K / 16] and an f32 amax");
  const int64_t m = input.shape[0], k = input.shape[1];
  const int64_t blockRows = m / plan.values[scales].shape[0];
  if (plan.values[scales].scaleAtoms && blockRows != 1)
    die("not a quantize program's plan",
        "scales of 16x16 blocks in atoms (the atoms hold one scale per row)");
  if (o.dryRun) {
    printDryRun(
        plan, isPtx,
        "quantize " + std::to_string(m) + "x" + std::to_string(k) + " " +
            input.type + ", " + std::to_string(blockRows) + "x16 blocks" +
            (plan.values[scales].scaleAtoms ? ", scales in atoms" : ""));
    return 0;
  }

  Device device;
  CUstream stream;
  NVFP4_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  PlanLauncher launcher(plan, image, device);

  // Input: normal values spanning a few binades (uniform in [-4, 4) times
  // 2^[-8, 8) by row), as f32 or bf16 (the upper halves: the reference
  // quantizes the same values widened to f32).
  const int64_t numel = m * k;
  const bool isF32 = input.type == "f32";
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> unit(-4.0f, 4.0f);
  std::vector<float> values(static_cast<size_t>(numel));
  std::vector<uint8_t> bytes(size_t(input.byteSize()));
  for (int64_t i = 0; i < numel; ++i) {
    float v = std::ldexp(unit(rng), int((i / k) % 16) - 8);
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    if (!isF32) {
      bits &= 0xFFFF0000u;
      std::memcpy(&v, &bits, 4);
      uint16_t hi = uint16_t(bits >> 16);
      std::memcpy(&bytes[size_t(2 * i)], &hi, 2);
    } else {
      std::memcpy(&bytes[size_t(4 * i)], &bits, 4);
    }
    values[size_t(i)] = v;
  }
  launcher.upload(x, bytes);
  for (int id : {data, scales, amax})
    launcher.fill(id, 0xFF);

  double quantizeMs =
      medianMs(o.timing, stream, [&] { launcher.launchAll(stream); });
  NVFP4_CU(cuStreamSynchronize(stream));
  std::vector<uint8_t> gotData = launcher.download(data),
                       gotScales = launcher.download(scales),
                       gotAmax = launcher.download(amax);

  CUdeviceptr dst, src;
  const size_t inputBytes = size_t(input.byteSize());
  NVFP4_CU(cuMemAlloc(&src, inputBytes));
  NVFP4_CU(cuMemAlloc(&dst, inputBytes));
  NVFP4_CU(cuMemcpyHtoD(src, bytes.data(), inputBytes));
  double copyMs = medianMs(o.timing, stream, [&] {
    NVFP4_CU(cuMemcpyDtoDAsync(dst, src, inputBytes, stream));
  });

  const double written =
      double(plan.values[data].byteSize() + plan.values[scales].byteSize());
  const double moved = 2.0 * double(inputBytes) + written;
  const double quantizeGBs = moved / (quantizeMs * 1e6);
  const double copyGBs = 2.0 * double(inputBytes) / (copyMs * 1e6);
  std::printf("device: %s (sm_%d%d)\n", device.name.c_str(), device.major,
              device.minor);
  std::printf("quantize %lldx%lld %s, %lldx16 blocks, rn, computed amax%s\n",
              (long long)m, (long long)k, input.type.c_str(),
              (long long)blockRows,
              plan.values[scales].scaleAtoms ? ", scales in atoms" : "");
  for (const PlanLaunch &l : plan.launches)
    std::printf("kernel %s\n", describeLaunch(l).c_str());
  std::printf("nvfp4 quantize (all kernels): %.3f ms, %.1f GB/s moved (input "
              "read twice + codes + scales), %.1f GB/s of input\n",
              quantizeMs, quantizeGBs, double(inputBytes) / (quantizeMs * 1e6));
  std::printf("memcpy device-to-device %zu bytes: %.3f ms, %.1f GB/s (read + "
              "write)\n",
              inputBytes, copyMs, copyGBs);
  std::printf("ratio quantize / memcpy (GB/s moved): %.2f\n",
              quantizeGBs / copyGBs);

  // The check: the whole tensor against nvfp4::quantize.
  nvfp4::QuantizeOptions options;
  options.block = {int(blockRows), 16};
  nvfp4::QuantizedTensor want;
  if (auto error = nvfp4::quantizeParallel(
          values.data(), m, k, options, want,
          int(std::max(1u, std::thread::hardware_concurrency()))))
    die("reference quantize", *error);
  const int64_t kBlocks = k / 16;
  std::vector<uint8_t> wantScales(gotScales.size());
  for (int64_t r = 0; r < m / blockRows; ++r)
    std::memcpy(&wantScales[size_t(r * kBlocks)],
                &want.scales[size_t(r * blockRows * kBlocks)], size_t(kBlocks));
  // Scales the program returns in 128x4 atoms are compared in that layout.
  if (plan.values[scales].scaleAtoms)
    wantScales =
        nvfp4::swizzleScales(wantScales.data(), m / blockRows, kBlocks);
  std::vector<uint8_t> wantAmax(4);
  std::memcpy(wantAmax.data(), &want.amax, 4);
  int64_t differ = compareBytes("codes", gotData, want.data) +
                   compareBytes("scales", gotScales, wantScales) +
                   compareBytes("amax", gotAmax, wantAmax);
  std::printf("check against the reference library: %lld of %zu bytes "
              "(codes, scales, amax) differ\n",
              (long long)differ,
              gotData.size() + gotScales.size() + gotAmax.size());

  for (CUdeviceptr p : {src, dst})
    NVFP4_CU(cuMemFree(p));
  NVFP4_CU(cuStreamDestroy(stream));
  return differ == 0 ? 0 : 1;
}
