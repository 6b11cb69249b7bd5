//===- GemmBench.cpp - nvfp4 GEMM kernel vs cuBLAS bf16 on a GPU ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4-bench-gpu: runs the kernels of a one-GEMM program
//
//   func.func @gemm(%a: !nvfp4.tensor<MxK, Rx16>, %b: !nvfp4.tensor<NxK, Rx16>)
//       -> tensor<MxNxf32>
//
// lowered by `nvfp4-opt --nvfp4-to-ptx` (see bench/gpu/run.sh) for sm_90a,
// sm_100a/103a/110a or sm_120a/121a, through its
// launch plan (LaunchPlanReader.h: the kernels, their launch dimensions and
// arguments, all from the compiler), on random packed E2M1 codes and finite
// E4M3 scales, and reports in the same run:
//
//   - its TFLOP/s (2 M N K per call of the function),
//   - cuBLAS bf16 x bf16 -> f32 GEMM (cublasGemmEx, f32 compute) TFLOP/s on
//     the same shape, on random bf16 operands, and the ratio of the two,
//   - device-to-device cuMemcpy GB/s of an M x K f32 tensor;
//
// then checks the GPU's result, bit for bit, against the reference library
// (nvfp4::matmul) on --check-rows rows of C (16-row groups spread over M).
// Exits 1 when a result differs. Times are CUDA events around `--iters`
// back-to-back calls after `--warmup` ones; the median of `--repeats` is
// printed. With --dry-run it only checks the plan against the PTX (no GPU
// needed). See bench/gpu/README.md.
//
//===----------------------------------------------------------------------===//

#include "LaunchPlanReader.h"
#include "PlanLauncher.h"

#include "nvfp4/Numerics/Numerics.h"

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

using namespace nvfp4::bench;

namespace {

/// The plan value `source` of a GEMM program, which must exist.
int need(const LaunchPlan &plan, const std::string &source) {
  return requireSource(plan, source, "GEMM", "bench/gpu/run.sh");
}

/// One NVFP4 operand of the GEMM as its plan values describe it.
struct Operand {
  int data, scales, amax;
  int64_t rows, k, blockRows;
};

Operand operand(const LaunchPlan &plan, const std::string &arg) {
  Operand op{need(plan, arg + ".data"),
             need(plan, arg + ".scales"),
             need(plan, arg + ".amax"),
             0,
             0,
             0};
  const PlanValue &data = plan.values[op.data];
  const PlanValue &scales = plan.values[op.scales];
  if (data.shape.size() != 2 || scales.shape.size() != 2 ||
      data.type != "f4E2M1FN" || scales.type != "f8E4M3FN")
    die("unsupported operand", arg + ": expected 2-D NVFP4 (batched or "
                                     "MX GEMMs are not benchmarked)");
  op.rows = data.shape[0];
  op.k = data.shape[1];
  if (scales.shape[1] * 16 != op.k || scales.shape[0] == 0 ||
      op.rows % scales.shape[0])
    die("unsupported operand",
        arg + ": scales are not [rows / R, K / 16] (row-major, or in atoms "
              "for R = 1)");
  op.blockRows = op.rows / scales.shape[0];
  if (plan.values[op.scales].scaleAtoms && op.blockRows != 1)
    die("unsupported operand", arg + ": scales of 16x16 blocks in atoms (the "
                                     "atoms hold one scale per row)");
  return op;
}

/// Random packed codes, finite E4M3 scales in [2^-3, 2^3], amax 6 * 448.
/// A plan does not say what kind of tensor scale an argument has: the
/// program run.sh writes takes amaxes (the type's default), as the reference
/// here does.
void fillOperand(PlanLauncher &launcher, const LaunchPlan &plan,
                 const Operand &op, std::mt19937 &rng,
                 nvfp4::QuantizedTensor &host) {
  host.rows = op.rows;
  host.cols = op.k;
  host.block = {int(op.blockRows), 16};
  host.amax = 6.0f * 448.0f;
  host.data.resize(size_t(plan.values[op.data].byteSize()));
  for (auto &b : host.data)
    b = uint8_t(rng() & 0xFF);
  std::vector<uint8_t> compact(size_t(plan.values[op.scales].byteSize()));
  for (auto &b : compact)
    b = uint8_t((4 + rng() % 7) << 3 | (rng() & 7)); // exponent 4..10
  launcher.upload(op.data, host.data);
  // Scales the program takes in 128x4 atoms (sm_100a's default for
  // eligible arguments) go up swizzled.
  launcher.upload(op.scales,
                  plan.values[op.scales].scaleAtoms
                      ? nvfp4::swizzleScales(compact.data(),
                                             plan.values[op.scales].shape[0],
                                             plan.values[op.scales].shape[1])
                      : compact);
  uint32_t amaxBits;
  std::memcpy(&amaxBits, &host.amax, 4);
  launcher.setScalar(op.amax, amaxBits);
  // The reference keeps a 16x16 tile's scale on each of its 16 rows.
  const int64_t kBlocks = op.k / 16;
  host.scales.resize(size_t(op.rows * kBlocks));
  for (int64_t r = 0; r < op.rows; ++r)
    std::memcpy(&host.scales[r * kBlocks], &compact[r / op.blockRows * kBlocks],
                size_t(kBlocks));
}

/// Rows [row, row + count) of `t`.
nvfp4::QuantizedTensor rowsOf(const nvfp4::QuantizedTensor &t, int64_t row,
                              int64_t count) {
  nvfp4::QuantizedTensor s = t;
  s.rows = count;
  const int64_t dataRow = t.cols / 2, scaleRow = t.cols / 16;
  s.data.assign(t.data.begin() + row * dataRow,
                t.data.begin() + (row + count) * dataRow);
  s.scales.assign(t.scales.begin() + row * scaleRow,
                  t.scales.begin() + (row + count) * scaleRow);
  return s;
}

} // namespace

int main(int argc, char **argv) {
  setToolName(argv[0]);
  int64_t checkRows = 256;
  BenchOptions o = parseBenchOptions(
      argc, argv, [&](const std::string &option, const auto &value) {
        if (option != "--check-rows")
          return false;
        checkRows = std::atoll(value());
        if (checkRows < 0)
          die("bad --check-rows", "must be non-negative");
        return true;
      });
  std::string image;
  LaunchPlan plan;
  const bool isPtx = loadPlan(o.kernels, o.plan, plan, image);
  Operand a = operand(plan, "arg0"), b = operand(plan, "arg1");
  const int c = need(plan, "result0");
  const int64_t m = a.rows, n = b.rows, k = a.k;
  if (b.k != k || plan.values[c].type != "f32" ||
      plan.values[c].shape != std::vector<int64_t>{m, n})
    die("not a GEMM program's plan", "expected A [M, K], B [N, K] and an "
                                     "f32 result [M, N]");
  if (o.dryRun) {
    printDryRun(
        plan, isPtx,
        "GEMM M=" + std::to_string(m) + " N=" + std::to_string(n) +
            " K=" + std::to_string(k) + ", A " + std::to_string(a.blockRows) +
            "x16" + (plan.values[a.scales].scaleAtoms ? " (atoms)" : "") +
            ", B " + std::to_string(b.blockRows) + "x16" +
            (plan.values[b.scales].scaleAtoms ? " (atoms)" : "") + " blocks");
    return 0;
  }

  Device device;
  CUstream stream;
  NVFP4_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  PlanLauncher launcher(plan, image, device);
  std::mt19937 rng(1234);
  nvfp4::QuantizedTensor ha, hb;
  fillOperand(launcher, plan, a, rng, ha);
  fillOperand(launcher, plan, b, rng, hb);
  launcher.fill(c, 0xFF); // NaN: a result the kernels never write shows
  const double flops = 2.0 * double(m) * double(n) * double(k);
  double nvfp4Ms =
      medianMs(o.timing, stream, [&] { launcher.launchAll(stream); });
  NVFP4_CU(cuStreamSynchronize(stream));
  std::vector<uint8_t> result = launcher.download(c);

  // cuBLAS: C[M, N] = A[M, K] * B[N, K]^T in bf16 with f32 accumulation
  // (column-major: C^T = B * A^T), on random bf16 in [-1, 1).
  CUdeviceptr a16, b16, c32;
  auto randomBf16 = [&](CUdeviceptr &p, int64_t count) {
    std::vector<uint16_t> host(static_cast<size_t>(count));
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    for (auto &h : host) {
      float v = unit(rng);
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      h = uint16_t(bits >> 16);
    }
    NVFP4_CU(cuMemAlloc(&p, size_t(count) * 2));
    NVFP4_CU(cuMemcpyHtoD(p, host.data(), size_t(count) * 2));
  };
  randomBf16(a16, m * k);
  randomBf16(b16, n * k);
  NVFP4_CU(cuMemAlloc(&c32, size_t(m * n) * 4));
  cublasHandle_t handle;
  auto blas = [](cublasStatus_t s, const char *call) {
    if (s != CUBLAS_STATUS_SUCCESS)
      die(call, cublasGetStatusString(s));
  };
  blas(cublasCreate(&handle), "cublasCreate");
  blas(cublasSetStream(handle, reinterpret_cast<cudaStream_t>(stream)),
       "cublasSetStream");
  float alpha = 1.0f, beta = 0.0f;
  double blasMs = medianMs(o.timing, stream, [&] {
    blas(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), int(k),
                      &alpha, reinterpret_cast<void *>(b16), CUDA_R_16BF,
                      int(k), reinterpret_cast<void *>(a16), CUDA_R_16BF,
                      int(k), &beta, reinterpret_cast<void *>(c32), CUDA_R_32F,
                      int(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
         "cublasGemmEx");
  });

  // Device-to-device copy of the f32 bytes of an M x K tensor.
  const size_t copyBytes = size_t(m) * size_t(k) * sizeof(float);
  CUdeviceptr src, dst;
  NVFP4_CU(cuMemAlloc(&src, copyBytes));
  NVFP4_CU(cuMemAlloc(&dst, copyBytes));
  NVFP4_CU(cuMemsetD32(src, 0, copyBytes / 4));
  double copyMs = medianMs(o.timing, stream, [&] {
    NVFP4_CU(cuMemcpyDtoDAsync(dst, src, copyBytes, stream));
  });

  const double nvfp4Tflops = flops / (nvfp4Ms * 1e9);
  const double blasTflops = flops / (blasMs * 1e9);
  std::printf("device: %s (sm_%d%d)\n", device.name.c_str(), device.major,
              device.minor);
  std::printf("shape: M=%lld N=%lld K=%lld, A blocks %lldx16, B blocks "
              "%lldx16\n",
              (long long)m, (long long)n, (long long)k, (long long)a.blockRows,
              (long long)b.blockRows);
  for (const PlanLaunch &l : plan.launches)
    std::printf("kernel %s\n", describeLaunch(l).c_str());
  std::printf("nvfp4 GEMM: %.3f ms, %.1f TFLOP/s\n", nvfp4Ms, nvfp4Tflops);
  std::printf("cuBLAS bf16 GEMM (f32 accumulate): %.3f ms, %.1f TFLOP/s\n",
              blasMs, blasTflops);
  std::printf("ratio nvfp4 / cuBLAS bf16: %.2f\n", nvfp4Tflops / blasTflops);
  std::printf("memcpy device-to-device %zu bytes: %.3f ms, %.1f GB/s "
              "(read + write)\n",
              copyBytes, copyMs, 2.0 * double(copyBytes) / (copyMs * 1e6));

  // The check: 16-row groups of C spread over M (the last one may be
  // shorter) against nvfp4::matmul.
  const int64_t groups = (m + 15) / 16;
  int64_t wanted = checkRows == 0 ? groups : (checkRows + 15) / 16;
  wanted = std::min(wanted, groups);
  int64_t checked = 0, checkedRows = 0, mismatches = 0, shown = 0;
  std::vector<float> ref;
  for (int64_t g = 0; g < wanted; ++g) {
    int64_t group = wanted == 1 ? 0 : g * (groups - 1) / (wanted - 1);
    int64_t row = group * 16, rows = std::min<int64_t>(16, m - row);
    ref.assign(size_t(rows * n), 0.0f);
    nvfp4::matmul(rowsOf(ha, row, rows), hb, ref.data());
    checkedRows += rows;
    for (int64_t i = 0; i < rows * n; ++i) {
      float got;
      std::memcpy(&got, &result[size_t((row * n + i) * 4)], 4);
      ++checked;
      if (std::memcmp(&got, &ref[i], 4) == 0)
        continue;
      if (shown++ < 4)
        std::printf("  C[%lld, %lld]: got %a, expected %a\n",
                    (long long)(row + i / n), (long long)(i % n), got, ref[i]);
      ++mismatches;
    }
  }
  std::printf("check against the reference library: %lld of %lld results "
              "(%lld rows) differ\n",
              (long long)mismatches, (long long)checked,
              (long long)checkedRows);

  blas(cublasDestroy(handle), "cublasDestroy");
  for (CUdeviceptr p : {a16, b16, c32, src, dst})
    NVFP4_CU(cuMemFree(p));
  NVFP4_CU(cuStreamDestroy(stream));
  return mismatches == 0 ? 0 : 1;
}
