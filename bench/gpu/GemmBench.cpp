//===- GemmBench.cpp - nvfp4 GEMM kernel vs cuBLAS bf16 on a GPU ----------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4-bench-gpu: loads the kernel module produced by
// `nvfp4-opt --nvfp4-to-ptx` (PTX or cubin, see bench/gpu/run.sh), launches
// the 2-D f32-result matmul kernel of an M x N x K problem on random packed
// E2M1 operands and E4M3 scales, and reports in the same run:
//
//   - its TFLOP/s (2 M N K per launch),
//   - cuBLAS bf16 x bf16 -> f32 GEMM (cublasGemmEx, f32 compute) TFLOP/s on
//     the same shape,
//   - device-to-device cuMemcpy GB/s on the byte count of the f32 operands
//     (the bandwidth roof of a quantize kernel, which reads f32 and writes
//     about a quarter of it).
//
// Times are CUDA events around `--iters` back-to-back launches after
// `--warmup` ones; the median of `--repeats` such measurements is printed.
// Needs a GPU; see bench/gpu/README.md.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Conversion/NVFP4ToGPU/MmaLayout.h"

#include <cublas_v2.h>
#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const char *what, const char *detail) {
  std::fprintf(stderr, "nvfp4-bench-gpu: %s: %s\n", what, detail);
  std::exit(1);
}

void check(CUresult r, const char *call) {
  if (r == CUDA_SUCCESS)
    return;
  const char *name = nullptr, *desc = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &desc);
  std::string detail = std::string(name ? name : "unknown CUresult") + " (" +
                       (desc ? desc : "no description") + ")";
  die(call, detail.c_str());
}

void checkBlas(cublasStatus_t s, const char *call) {
  if (s != CUBLAS_STATUS_SUCCESS)
    die(call, cublasGetStatusString(s));
}

#define CU(call) check((call), #call)
#define BLAS(call) checkBlas((call), #call)

struct Options {
  std::string kernels;
  int64_t m = 4096, n = 4096, k = 4096;
  int blockRowsB = 16;
  int warmup = 5, iters = 20, repeats = 5;
};

Options parse(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char * {
      if (i + 1 >= argc)
        die("option needs a value", a.c_str());
      return argv[++i];
    };
    if (a == "--kernels")
      o.kernels = next();
    else if (a == "--m")
      o.m = std::atoll(next());
    else if (a == "--n")
      o.n = std::atoll(next());
    else if (a == "--k")
      o.k = std::atoll(next());
    else if (a == "--b-block-rows")
      o.blockRowsB = std::atoi(next());
    else if (a == "--warmup")
      o.warmup = std::atoi(next());
    else if (a == "--iters")
      o.iters = std::atoi(next());
    else if (a == "--repeats")
      o.repeats = std::atoi(next());
    else
      die("unknown option (see bench/gpu/README.md)", a.c_str());
  }
  if (o.kernels.empty())
    die("missing option", "--kernels <file.ptx|file.cubin>");
  if (o.m <= 0 || o.n <= 0 || o.k <= 0 || o.m % 64 || o.n % 64 || o.k % 64)
    die("bad shape", "M, N and K must be positive multiples of 64");
  if (o.blockRowsB != 1 && o.blockRowsB != 16)
    die("bad --b-block-rows", "1 or 16");
  if (o.iters <= 0 || o.repeats <= 0 || o.warmup < 0)
    die("bad counts", "--iters and --repeats must be positive");
  return o;
}

/// Median milliseconds per call of `body` (timed with events on `stream`).
double timeMs(const Options &o, CUstream stream,
              const std::function<void()> &body) {
  CUevent start, stop;
  CU(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CU(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  for (int i = 0; i < o.warmup; ++i)
    body();
  CU(cuStreamSynchronize(stream));
  std::vector<double> samples;
  for (int r = 0; r < o.repeats; ++r) {
    CU(cuEventRecord(start, stream));
    for (int i = 0; i < o.iters; ++i)
      body();
    CU(cuEventRecord(stop, stream));
    CU(cuEventSynchronize(stop));
    float ms = 0;
    CU(cuEventElapsedTime(&ms, start, stop));
    samples.push_back(ms / o.iters);
  }
  CU(cuEventDestroy(start));
  CU(cuEventDestroy(stop));
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

CUdeviceptr allocFilled(size_t bytes, std::mt19937 &rng,
                        const std::function<uint8_t(std::mt19937 &)> &gen) {
  std::vector<uint8_t> host(bytes);
  for (auto &b : host)
    b = gen(rng);
  CUdeviceptr d;
  CU(cuMemAlloc(&d, bytes));
  CU(cuMemcpyHtoD(d, host.data(), bytes));
  return d;
}

/// The parameters of a lowered 2-D memref argument: allocated and aligned
/// pointers, offset, sizes, strides.
struct MemRef2D {
  CUdeviceptr allocated, aligned;
  int64_t offset, size0, size1, stride0, stride1;
  MemRef2D(CUdeviceptr p, int64_t rows, int64_t cols)
      : allocated(p), aligned(p), offset(0), size0(rows), size1(cols),
        stride0(cols), stride1(1) {}
  void push(std::vector<void *> &params) {
    for (void *p : {(void *)&allocated, (void *)&aligned, (void *)&offset,
                    (void *)&size0, (void *)&size1, (void *)&stride0,
                    (void *)&stride1})
      params.push_back(p);
  }
};

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  CU(cuInit(0));
  CUdevice device;
  CU(cuDeviceGet(&device, 0));
  char deviceName[256] = {0};
  CU(cuDeviceGetName(deviceName, sizeof(deviceName), device));
  int major = 0, minor = 0;
  CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                          device));
  CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                          device));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, device));
  CU(cuCtxSetCurrent(ctx));
  CUstream stream;
  CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  // The kernel module (PTX text is NUL-terminated for the JIT).
  std::ifstream in(o.kernels, std::ios::binary);
  if (!in)
    die("cannot read", o.kernels.c_str());
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string image = buffer.str();
  image.push_back('\0');
  CUmodule module;
  CU(cuModuleLoadData(&module, image.data()));
  // The CTA tile convert-nvfp4-to-gpu selects for this shape (no `tile`
  // option in bench/gpu/run.sh).
  const nvfp4::gpu::TileShape tile = nvfp4::gpu::selectTileShape(o.m, o.n);
  std::string kernelName = "nvfp4_matmul_m" + std::to_string(o.m) + "n" +
                           std::to_string(o.n) + "k" + std::to_string(o.k) +
                           "_1x16_" + std::to_string(o.blockRowsB) +
                           "x16_f32";
  if (!(tile == nvfp4::gpu::kTile64x64))
    kernelName +=
        "_t" + std::to_string(tile.m) + "x" + std::to_string(tile.n);
  CUfunction kernel;
  CUresult found = cuModuleGetFunction(&kernel, module, kernelName.c_str());
  if (found != CUDA_SUCCESS)
    die("kernel not in the module (generate it with bench/gpu/run.sh)",
        kernelName.c_str());

  // Operands: packed E2M1 codes (any byte), E4M3 scales in [2^-3, 2^3]
  // (finite, no NaN), decode scales 1.
  const int64_t m = o.m, n = o.n, k = o.k;
  std::mt19937 rng(1234);
  auto anyByte = [](std::mt19937 &r) { return uint8_t(r() & 0xFF); };
  auto scaleByte = [](std::mt19937 &r) {
    return uint8_t((4 + r() % 7) << 3 | (r() & 7)); // exponent 4..10
  };
  CUdeviceptr aData = allocFilled(m * k / 2, rng, anyByte);
  CUdeviceptr bData = allocFilled(n * k / 2, rng, anyByte);
  CUdeviceptr aScales = allocFilled(m * k / 16, rng, scaleByte);
  const int64_t bScaleRows = n / o.blockRowsB;
  CUdeviceptr bScales = allocFilled(bScaleRows * k / 16, rng, scaleByte);
  CUdeviceptr c;
  CU(cuMemAlloc(&c, m * n * sizeof(float)));
  float one = 1.0f;
  std::vector<void *> params;
  MemRef2D ad(aData, m, k), as(aScales, m, k / 16), bd(bData, n, k),
      bs(bScales, bScaleRows, k / 16), cd(c, m, n);
  ad.push(params);
  as.push(params);
  params.push_back(&one);
  bd.push(params);
  bs.push(params);
  params.push_back(&one);
  cd.push(params);
  double flops = 2.0 * double(m) * double(n) * double(k);
  double nvfp4Ms = timeMs(o, stream, [&] {
    CU(cuLaunchKernel(kernel, unsigned(n / tile.n), unsigned(m / tile.m), 1,
                      unsigned(tile.threads()), 1, 1, 0, stream,
                      params.data(), nullptr));
  });

  // cuBLAS: C[M, N] = A[M, K] * B[N, K]^T in bf16 with f32 accumulation
  // (column-major: C^T = B * A^T).
  CUdeviceptr a16, b16, c32;
  CU(cuMemAlloc(&a16, m * k * 2));
  CU(cuMemAlloc(&b16, n * k * 2));
  CU(cuMemAlloc(&c32, m * n * 4));
  CU(cuMemsetD16(a16, 0x3F80, m * k)); // 1.0 in bf16
  CU(cuMemsetD16(b16, 0x3F80, n * k));
  cublasHandle_t handle;
  BLAS(cublasCreate(&handle));
  BLAS(cublasSetStream(handle, reinterpret_cast<cudaStream_t>(stream)));
  float alpha = 1.0f, beta = 0.0f;
  double blasMs = timeMs(o, stream, [&] {
    BLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m),
                      int(k), &alpha, reinterpret_cast<void *>(b16),
                      CUDA_R_16BF, int(k), reinterpret_cast<void *>(a16),
                      CUDA_R_16BF, int(k), &beta,
                      reinterpret_cast<void *>(c32), CUDA_R_32F, int(n),
                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  });

  // Device-to-device copy of the f32 operand bytes of an M x K tensor.
  size_t copyBytes = size_t(m) * size_t(k) * sizeof(float);
  CUdeviceptr src, dst;
  CU(cuMemAlloc(&src, copyBytes));
  CU(cuMemAlloc(&dst, copyBytes));
  CU(cuMemsetD32(src, 0, copyBytes / 4));
  double copyMs = timeMs(o, stream, [&] {
    CU(cuMemcpyDtoDAsync(dst, src, copyBytes, stream));
  });

  std::printf("device: %s (sm_%d%d)\n", deviceName, major, minor);
  std::printf("shape: M=%lld N=%lld K=%lld, B blocks %dx16\n", (long long)m,
              (long long)n, (long long)k, o.blockRowsB);
  std::printf("nvfp4 kernel %s: %.3f ms, %.1f TFLOP/s\n", kernelName.c_str(),
              nvfp4Ms, flops / (nvfp4Ms * 1e9));
  std::printf("cuBLAS bf16 GEMM (f32 accumulate): %.3f ms, %.1f TFLOP/s\n",
              blasMs, flops / (blasMs * 1e9));
  std::printf("memcpy device-to-device %zu bytes: %.3f ms, %.1f GB/s "
              "(read + write)\n",
              copyBytes, copyMs, 2.0 * double(copyBytes) / (copyMs * 1e6));

  BLAS(cublasDestroy(handle));
  for (CUdeviceptr p : {aData, bData, aScales, bScales, c, a16, b16, c32, src,
                        dst})
    CU(cuMemFree(p));
  CU(cuModuleUnload(module));
  CU(cuStreamDestroy(stream));
  CU(cuDevicePrimaryCtxRelease(device));
  return 0;
}
