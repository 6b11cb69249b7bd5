//===- QuantizeBench.cpp - nvfp4 quantize kernels vs memcpy on a GPU ------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// nvfp4-bench-gpu-quantize: loads the kernel module produced by
// `nvfp4-opt --nvfp4-to-ptx` for one `nvfp4.quantize` of an M x K tensor
// (f32 or bf16 input, 1x16 or 16x16 blocks, round to nearest, computed
// amax; see bench/gpu/run-quantize.sh), launches its two kernels (amax, then
// quantize) the way the lowering does, and reports in the same run:
//
//   - the quantization's time per call and its GB/s: bytes read (the input,
//     twice: once by each kernel) plus bytes written (packed codes, compact
//     scales), and the input-only figure M K sizeof(input) / time;
//   - device-to-device cuMemcpy GB/s (read + write) on the input's byte
//     count: the bandwidth roof.
//
// Times are CUDA events around `--iters` back-to-back calls after
// `--warmup` ones; the median of `--repeats` such measurements is printed.
// Needs a GPU; see bench/gpu/README.md.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <algorithm>
#include <cmath>
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
  std::fprintf(stderr, "nvfp4-bench-gpu-quantize: %s: %s\n", what, detail);
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

#define CU(call) check((call), #call)

// The launch geometry of the quantize lowering (QuantizeLayout.h): 128
// threads, one 16-element block per thread; the amax kernel uses at most
// 256 CTAs.
constexpr int64_t kThreads = 128;
constexpr int64_t kMaxAmaxCtas = 256;

struct Options {
  std::string kernels;
  int64_t m = 8192, k = 8192;
  int blockRows = 1;
  std::string type = "f32";
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
    else if (a == "--k")
      o.k = std::atoll(next());
    else if (a == "--block-rows")
      o.blockRows = std::atoi(next());
    else if (a == "--type")
      o.type = next();
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
  if (o.m <= 0 || o.k <= 0 || o.k % 16)
    die("bad shape", "M must be positive, K a positive multiple of 16");
  if (o.blockRows != 1 && o.blockRows != 16)
    die("bad --block-rows", "1 or 16");
  if (o.blockRows == 16 && o.m % 16)
    die("bad shape", "M must be a multiple of 16 for 16x16 blocks");
  if (o.type != "f32" && o.type != "bf16")
    die("bad --type", "f32 or bf16");
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

/// A lowered memref argument: allocated and aligned pointers, offset,
/// sizes, strides (row-major, identity layout).
struct MemRef {
  CUdeviceptr allocated, aligned;
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;
  MemRef(CUdeviceptr p, std::vector<int64_t> shape)
      : allocated(p), aligned(p), sizes(std::move(shape)),
        strides(sizes.size()) {
    int64_t s = 1;
    for (size_t i = sizes.size(); i-- > 0;) {
      strides[i] = s;
      s *= sizes[i];
    }
  }
  void push(std::vector<void *> &params) {
    params.push_back(&allocated);
    params.push_back(&aligned);
    params.push_back(&offset);
    for (int64_t &v : sizes)
      params.push_back(&v);
    for (int64_t &v : strides)
      params.push_back(&v);
  }
};

CUfunction getKernel(CUmodule module, const std::string &name) {
  CUfunction f;
  if (cuModuleGetFunction(&f, module, name.c_str()) != CUDA_SUCCESS)
    die("kernel not in the module (generate it with bench/gpu/run-quantize.sh)",
        name.c_str());
  return f;
}

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

  std::ifstream in(o.kernels, std::ios::binary);
  if (!in)
    die("cannot read", o.kernels.c_str());
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string image = buffer.str();
  image.push_back('\0'); // PTX text is NUL-terminated for the JIT
  CUmodule module;
  CU(cuModuleLoadData(&module, image.data()));
  const std::string shape = std::to_string(o.m) + "x" + std::to_string(o.k);
  CUfunction amaxKernel = getKernel(module, "nvfp4_amax_" + shape + "_" + o.type);
  CUfunction quantizeKernel = getKernel(
      module, "nvfp4_quantize_" + shape + "_" + std::to_string(o.blockRows) +
                  "x16_" + o.type + "_rn");

  const int64_t m = o.m, k = o.k, numel = m * k, numBlocks = numel / 16;
  const size_t elemBytes = o.type == "f32" ? 4 : 2;
  const size_t inputBytes = size_t(numel) * elemBytes;
  const int64_t quantizeCtas = (numBlocks + kThreads - 1) / kThreads;
  const int64_t amaxCtas = std::min(quantizeCtas, kMaxAmaxCtas);

  // Input: normal values spanning a few binades (uniform in [-4, 4) times
  // 2^[-8, 8) per row), as f32 or the upper halves (bf16).
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> unit(-4.0f, 4.0f);
  std::vector<uint8_t> host(inputBytes);
  for (int64_t i = 0; i < numel; ++i) {
    float v = std::ldexp(unit(rng), int((i / k) % 16) - 8);
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    if (elemBytes == 4)
      std::memcpy(&host[4 * i], &bits, 4);
    else {
      uint16_t hi = uint16_t(bits >> 16);
      std::memcpy(&host[2 * i], &hi, 2);
    }
  }
  CUdeviceptr input, partials, data, scales, decode;
  const int64_t scaleRows = m / o.blockRows;
  CU(cuMemAlloc(&input, inputBytes));
  CU(cuMemcpyHtoD(input, host.data(), inputBytes));
  CU(cuMemAlloc(&partials, amaxCtas * sizeof(float)));
  CU(cuMemAlloc(&data, numel / 2));
  CU(cuMemAlloc(&scales, scaleRows * (k / 16)));
  CU(cuMemAlloc(&decode, sizeof(float)));

  MemRef inArg(input, {m, k}), partialsArg(partials, {amaxCtas}),
      dataArg(data, {m, k}), scalesArg(scales, {scaleRows, k / 16}),
      decodeArg(decode, {1});
  std::vector<void *> amaxParams, quantizeParams;
  inArg.push(amaxParams);
  partialsArg.push(amaxParams);
  inArg.push(quantizeParams);
  partialsArg.push(quantizeParams);
  dataArg.push(quantizeParams);
  scalesArg.push(quantizeParams);
  decodeArg.push(quantizeParams);

  double quantizeMs = timeMs(o, stream, [&] {
    CU(cuLaunchKernel(amaxKernel, unsigned(amaxCtas), 1, 1, kThreads, 1, 1, 0,
                      stream, amaxParams.data(), nullptr));
    CU(cuLaunchKernel(quantizeKernel, unsigned(quantizeCtas), 1, 1, kThreads,
                      1, 1, 0, stream, quantizeParams.data(), nullptr));
  });
  float sDec = 0.0f;
  CU(cuMemcpyDtoH(&sDec, decode, sizeof(float)));

  CUdeviceptr dst;
  CU(cuMemAlloc(&dst, inputBytes));
  double copyMs = timeMs(o, stream, [&] {
    CU(cuMemcpyDtoDAsync(dst, input, inputBytes, stream));
  });

  const double written = double(numel) / 2 + double(scaleRows * (k / 16));
  const double moved = 2.0 * double(inputBytes) + written;
  std::printf("device: %s (sm_%d%d)\n", deviceName, major, minor);
  std::printf("quantize %lldx%lld %s, %dx16 blocks, rn, computed amax "
              "(S_dec %g)\n",
              (long long)m, (long long)k, o.type.c_str(), o.blockRows, sDec);
  std::printf("nvfp4 quantize (amax + quantize kernels): %.3f ms, %.1f GB/s "
              "moved (input read twice + codes + scales), %.1f GB/s of "
              "input\n",
              quantizeMs, moved / (quantizeMs * 1e6),
              double(inputBytes) / (quantizeMs * 1e6));
  std::printf("memcpy device-to-device %zu bytes: %.3f ms, %.1f GB/s "
              "(read + write)\n",
              inputBytes, copyMs, 2.0 * double(inputBytes) / (copyMs * 1e6));

  for (CUdeviceptr p : {input, partials, data, scales, decode, dst})
    CU(cuMemFree(p));
  CU(cuModuleUnload(module));
  CU(cuStreamDestroy(stream));
  CU(cuDevicePrimaryCtxRelease(device));
  return 0;
}
