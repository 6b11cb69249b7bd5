//===- PlanLauncher.cpp - Run a launch plan's kernels on a GPU ------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "PlanLauncher.h"

#include "nvfp4/ExecutionEngine/CudaTensorMap.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace nvfp4::bench {

namespace {
std::string toolName = "nvfp4-bench";
} // namespace

void setToolName(const char *argv0) {
  std::string name = argv0;
  size_t slash = name.rfind('/');
  toolName = slash == std::string::npos ? name : name.substr(slash + 1);
}

void die(const char *what, const std::string &detail) {
  std::fprintf(stderr, "%s: %s: %s\n", toolName.c_str(), what, detail.c_str());
  std::exit(1);
}

void checkCu(CUresult r, const char *call) {
  if (r == CUDA_SUCCESS)
    return;
  const char *name = nullptr, *desc = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &desc);
  die(call, std::string(name ? name : "unknown CUresult") + " (" +
                (desc ? desc : "no description") + ") [CUresult " +
                std::to_string(int(r)) + "]");
}

bool loadPlan(const std::string &kernelsPath, const std::string &planPath,
              LaunchPlan &plan, std::string &image) {
  std::string planText;
  if (!readFile(kernelsPath, image))
    die("cannot read", kernelsPath);
  if (!readFile(planPath, planText))
    die("cannot read", planPath);
  if (std::string error = parseLaunchPlan(planText, plan); !error.empty())
    die("bad plan", error);
  const bool isPtx = image.find(".entry") != std::string::npos;
  if (isPtx) {
    if (std::string error = checkPlanAgainstPtx(plan, image); !error.empty())
      die("plan and kernels disagree", error);
  } else if (std::string error = checkPlan(plan); !error.empty()) {
    die("bad plan", error);
  }
  return isPtx;
}

BenchOptions parseBenchOptions(int argc, char **argv,
                               const ExtraOption &extra) {
  BenchOptions o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::function<const char *()> next = [&]() -> const char * {
      if (i + 1 >= argc)
        die("option needs a value", a);
      return argv[++i];
    };
    if (a == "--kernels")
      o.kernels = next();
    else if (a == "--plan")
      o.plan = next();
    else if (a == "--dry-run")
      o.dryRun = true;
    else if (a == "--warmup")
      o.timing.warmup = std::atoi(next());
    else if (a == "--iters")
      o.timing.iters = std::atoi(next());
    else if (a == "--repeats")
      o.timing.repeats = std::atoi(next());
    else if (!extra || !extra(a, next))
      die("unknown option (see bench/gpu/README.md)", a);
  }
  if (o.kernels.empty() || o.plan.empty())
    die("missing option", "--kernels <file.ptx|file.cubin> --plan <file>");
  if (o.timing.iters <= 0 || o.timing.repeats <= 0 || o.timing.warmup < 0)
    die("bad counts", "--iters and --repeats must be positive, --warmup "
                      "non-negative");
  return o;
}

int requireSource(const LaunchPlan &plan, const std::string &source,
                  const char *program, const char *script) {
  int id = plan.find(source);
  if (id < 0)
    die((std::string("not a ") + program + " program's plan").c_str(),
        "no launch argument is " + source + " (see " + script + ")");
  return id;
}

void printDryRun(const LaunchPlan &plan, bool isPtx, const std::string &what) {
  std::printf("plan of @%s: %zu launch(es), %s; %s\n", plan.function.c_str(),
              plan.launches.size(), what.c_str(),
              isPtx ? "parameters match the PTX" : "cubin (not checked)");
  for (const PlanLaunch &l : plan.launches)
    std::printf("  %s\n", describeLaunch(l).c_str());
}

double medianMs(const Timing &timing, CUstream stream,
                const std::function<void()> &body) {
  CUevent start, stop;
  NVFP4_CU(cuEventCreate(&start, CU_EVENT_DEFAULT));
  NVFP4_CU(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  for (int i = 0; i < timing.warmup; ++i)
    body();
  NVFP4_CU(cuStreamSynchronize(stream));
  std::vector<double> samples;
  for (int r = 0; r < timing.repeats; ++r) {
    NVFP4_CU(cuEventRecord(start, stream));
    for (int i = 0; i < timing.iters; ++i)
      body();
    NVFP4_CU(cuEventRecord(stop, stream));
    NVFP4_CU(cuEventSynchronize(stop));
    float ms = 0;
    NVFP4_CU(cuEventElapsedTime(&ms, start, stop));
    samples.push_back(ms / timing.iters);
  }
  NVFP4_CU(cuEventDestroy(start));
  NVFP4_CU(cuEventDestroy(stop));
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

Device::Device() {
  NVFP4_CU(cuInit(0));
  NVFP4_CU(cuDeviceGet(&device, 0));
  char buffer[256] = {0};
  NVFP4_CU(cuDeviceGetName(buffer, sizeof(buffer), device));
  name = buffer;
  NVFP4_CU(cuDeviceGetAttribute(
      &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  NVFP4_CU(cuDeviceGetAttribute(
      &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  NVFP4_CU(cuDeviceGetAttribute(
      &multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  NVFP4_CU(cuDevicePrimaryCtxRetain(&context, device));
  NVFP4_CU(cuCtxSetCurrent(context));
}

Device::~Device() { cuDevicePrimaryCtxRelease(device); }

PlanLauncher::PlanLauncher(const LaunchPlan &plan, const std::string &image,
                           const Device &device)
    : plan(plan) {
  // The driver's JIT error for PTX of another architecture does not say so.
  if (image.find(".entry") != std::string::npos)
    if (std::string error = checkPtxRunsOn(image, device.major, device.minor);
        !error.empty())
      die("wrong device", error);
  std::string text = image;
  text.push_back('\0'); // PTX text is NUL-terminated for the JIT
  NVFP4_CU(cuModuleLoadData(&module, text.data()));
  for (const PlanLaunch &launch : plan.launches) {
    CUfunction f;
    if (cuModuleGetFunction(&f, module, launch.kernel.c_str()) != CUDA_SUCCESS)
      die("kernel not in the module", launch.kernel);
    if (launch.sharedBytes > 48 * 1024)
      NVFP4_CU(
          cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             int(launch.sharedBytes)));
    functions.push_back(f);
    std::array<unsigned, 3> grid;
    if (std::string error =
            resolveGrid(launch, device.multiprocessors, grid.data());
        !error.empty())
      die("bad grid", error);
    grids.push_back(grid);
  }
  allocations.assign(plan.values.size(), 0);
  storage.resize(plan.values.size());
  tensorMaps.resize(plan.values.size());
  for (size_t i = 0; i < plan.values.size(); ++i) {
    const PlanValue &value = plan.values[i];
    if (value.isTensorMap()) {
      encodeTensorMap(i);
      continue;
    }
    if (!value.isBuffer()) {
      uint64_t bits = 0;
      if (value.source.rfind("const=0x", 0) == 0)
        bits = std::strtoull(value.source.c_str() + 8, nullptr, 16);
      storage[i] = {int64_t(bits)};
      continue;
    }
    NVFP4_CU(cuMemAlloc(&allocations[i],
                        size_t(std::max<int64_t>(value.byteSize(), 1))));
    // allocated, aligned, offset, sizes, row-major strides.
    std::vector<int64_t> &d = storage[i];
    d = {int64_t(allocations[i]), int64_t(allocations[i]), 0};
    d.insert(d.end(), value.shape.begin(), value.shape.end());
    std::vector<int64_t> strides(value.shape.size());
    int64_t stride = 1;
    for (size_t k = value.shape.size(); k-- > 0;) {
      strides[k] = stride;
      stride *= value.shape[k];
    }
    d.insert(d.end(), strides.begin(), strides.end());
  }
  for (const PlanLaunch &launch : plan.launches) {
    std::vector<void *> p;
    for (unsigned id : launch.args) {
      if (plan.values[id].isTensorMap()) {
        p.push_back(&tensorMaps[id]);
        continue;
      }
      for (int64_t &word : storage[id])
        p.push_back(&word);
    }
    params.push_back(std::move(p));
  }
}

void PlanLauncher::encodeTensorMap(size_t id) {
  // As libnvfp4_cuda_runtime's nvfp4CudaTensorMapEncode2D, which the
  // lowered program's host code calls, over the buffer's device allocation
  // (allocated before: maps follow their buffer in a plan). loadPlan
  // checked the parameters and the span (checkPlan).
  const PlanTensorMap &m = plan.values[id].tensorMap;
  NVFP4_CU(nvfp4::gpu::encodeByteTensorMap2D(
      &tensorMaps[id],
      nvfp4::gpu::tcgen05::byteTensorMap2D(
          allocations[m.of], m.innerBytes, m.outerRows, m.rowStrideBytes,
          m.boxInnerBytes, m.boxOuterRows, m.swizzle)));
}

PlanLauncher::~PlanLauncher() {
  for (CUdeviceptr p : allocations)
    if (p)
      cuMemFree(p);
  if (module)
    cuModuleUnload(module);
}

void PlanLauncher::upload(int id, const std::vector<uint8_t> &bytes) {
  if (int64_t(bytes.size()) != plan.values[id].byteSize())
    die("upload", "size mismatch for " + plan.values[id].source);
  NVFP4_CU(cuMemcpyHtoD(allocations[id], bytes.data(), bytes.size()));
}

void PlanLauncher::fill(int id, uint8_t byte) {
  NVFP4_CU(
      cuMemsetD8(allocations[id], byte, size_t(plan.values[id].byteSize())));
}

std::vector<uint8_t> PlanLauncher::download(int id) const {
  std::vector<uint8_t> bytes(size_t(plan.values[id].byteSize()));
  NVFP4_CU(cuMemcpyDtoH(bytes.data(), allocations[id], bytes.size()));
  return bytes;
}

void PlanLauncher::setScalar(int id, uint64_t bits) {
  storage[id][0] = int64_t(bits);
}

void PlanLauncher::launchAll(CUstream stream) {
  for (size_t i = 0; i < plan.launches.size(); ++i) {
    const PlanLaunch &l = plan.launches[i];
    const std::array<unsigned, 3> &grid = grids[i];
    if (l.cluster[0] * l.cluster[1] * l.cluster[2] == 1) {
      NVFP4_CU(cuLaunchKernel(functions[i], grid[0], grid[1], grid[2],
                              l.block[0], l.block[1], l.block[2], l.sharedBytes,
                              stream, params[i].data(), nullptr));
      continue;
    }
    CUlaunchConfig config;
    std::memset(&config, 0, sizeof(config));
    config.gridDimX = grid[0];
    config.gridDimY = grid[1];
    config.gridDimZ = grid[2];
    config.blockDimX = l.block[0];
    config.blockDimY = l.block[1];
    config.blockDimZ = l.block[2];
    config.sharedMemBytes = l.sharedBytes;
    config.hStream = stream;
    CUlaunchAttribute attribute;
    std::memset(&attribute, 0, sizeof(attribute));
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = l.cluster[0];
    attribute.value.clusterDim.y = l.cluster[1];
    attribute.value.clusterDim.z = l.cluster[2];
    config.attrs = &attribute;
    config.numAttrs = 1;
    NVFP4_CU(
        cuLaunchKernelEx(&config, functions[i], params[i].data(), nullptr));
  }
}

} // namespace nvfp4::bench
