# -*- Python -*-
# lit configuration of the NVFP4-MLIR regression tests.

import os
import shutil
import subprocess

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "NVFP4"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py", ".test", ".c"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.nvfp4_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py",
                   "lit.site.cfg.py", "Inputs", "Unit"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.shlib_ext))
config.substitutions.append(("%nvfp4_src_root", config.nvfp4_src_root))
config.substitutions.append(("%nvfp4_obj_root", config.nvfp4_obj_root))
config.substitutions.append(("%nvfp4_lib_dir",
                             os.path.join(config.nvfp4_obj_root, "lib")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "CUDA_PATH"])
llvm_config.use_default_substitutions()
# FileCheck, not, count, split-file from the LLVM tools directory.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.nvfp4_tools_dir, config.llvm_tools_dir]
tools = [
    "nvfp4-opt",
    "nvfp4-translate",
    "nvfp4-capi-test",
    "nvfp4-capi-program-test",
    ToolSubst("mlir-opt", unresolved="fatal"),
    ToolSubst("mlir-translate", unresolved="ignore"),
    ToolSubst("mlir-runner", unresolved="ignore"),
    ToolSubst("llc", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Optional tool: ptxas from the CUDA toolkit (PATH, then CUDA_PATH, then the
# path found at configure time). Tests that need it say `REQUIRES: ptxas`.
ptxas = shutil.which("ptxas")
if not ptxas and os.environ.get("CUDA_PATH"):
    candidate = os.path.join(os.environ["CUDA_PATH"], "bin", "ptxas")
    if os.access(candidate, os.X_OK):
        ptxas = candidate
if not ptxas and config.ptxas_executable and os.access(
        config.ptxas_executable, os.X_OK):
    ptxas = config.ptxas_executable
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    # The toolkit holding that ptxas (its bin/ directory's parent), for
    # `nvfp4-to-ptx{format=bin cuda-path=...}`.
    config.substitutions.append(
        ("%cuda_path", os.path.dirname(os.path.dirname(os.path.realpath(ptxas)))))

# Optional hardware: an NVIDIA GPU, and its compute capability as a feature
# (gpu-sm_90, gpu-sm_100, ...). Tests that need one say `REQUIRES: gpu`.
def _detect_gpu_arches():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return []
    try:
        out = subprocess.run(
            [smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    return ["sm_" + line.strip().replace(".", "")
            for line in out.stdout.splitlines() if line.strip()]

gpu_arches = _detect_gpu_arches()
if gpu_arches:
    config.available_features.add("gpu")
    for arch in gpu_arches:
        config.available_features.add("gpu-" + arch)

if config.enable_python:
    config.available_features.add("python")
    config.substitutions.append(("%nvfp4_python", config.python_executable))
    config.environment["PYTHONPATH"] = os.path.join(
        config.nvfp4_obj_root, "python_packages")

# CPU execution of programs lowered with nvfp4-to-cpu (test/Integration):
# mlir-runner with the MLIR runner utilities, the project's CPU kernels
# (libnvfp4_cpu_runtime, which the lowered nvfp4 ops call) and its reference
# runtime (the checks). Longer names first: lit substitutes in order.
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append((
    "%mlir_c_runner_utils",
    os.path.join(llvm_lib_dir, "libmlir_c_runner_utils" + config.shlib_ext)))
config.substitutions.append((
    "%mlir_runner_utils",
    os.path.join(llvm_lib_dir, "libmlir_runner_utils" + config.shlib_ext)))
config.substitutions.append((
    "%mlir_runner", os.path.join(config.llvm_tools_dir, "mlir-runner")))
config.substitutions.append((
    "%nvfp4_cpu_runtime_lib",
    os.path.join(config.nvfp4_obj_root, "lib",
                 "libnvfp4_cpu_runtime" + config.shlib_ext)))
config.substitutions.append((
    "%nvfp4_runtime_lib",
    os.path.join(config.nvfp4_obj_root, "lib",
                 "libnvfp4_reference_runtime" + config.shlib_ext)))

# The GPU emulator: programs lowered with nvfp4-to-gpu-emulation run their
# kernels on the host (docs/emulator.md).
config.substitutions.append((
    "%nvfp4_gpu_emulator_lib",
    os.path.join(config.nvfp4_obj_root, "lib",
                 "libnvfp4_gpu_emulator" + config.shlib_ext)))

# GPU execution of programs lowered with nvfp4-to-gpu-executable (test/GPU):
# libnvfp4_cuda_runtime (built when the CUDA toolkit is found) and the checks
# of GPU results. Tests that run kernels say
# `REQUIRES: gpu-sm_XX, nvfp4-cuda-runtime`.
nvfp4_cuda_runtime_lib = os.path.join(
    config.nvfp4_obj_root, "lib", "libnvfp4_cuda_runtime" + config.shlib_ext)
if os.path.exists(nvfp4_cuda_runtime_lib):
    config.available_features.add("nvfp4-cuda-runtime")
config.substitutions.append(("%nvfp4_cuda_runtime_lib", nvfp4_cuda_runtime_lib))
config.substitutions.append((
    "%nvfp4_cuda_checks_lib",
    os.path.join(config.nvfp4_obj_root, "lib",
                 "libnvfp4_cuda_runtime_checks" + config.shlib_ext)))
# The toolkit's stub libcuda (no driver behind it): lets a test load
# libnvfp4_cuda_runtime and check its error reporting on any machine.
if ptxas:
    cuda_stub_lib = os.path.join(
        os.path.dirname(os.path.dirname(os.path.realpath(ptxas))),
        "lib64", "stubs", "libcuda.so")
    if os.path.exists(cuda_stub_lib):
        config.available_features.add("cuda-stub")
        config.substitutions.append(("%cuda_stub_lib", cuda_stub_lib))

# The GPU benchmarks (bench/gpu, built when the toolkit's libcuda and cuBLAS
# are found): their --dry-run checks launch plans against the PTX anywhere,
# with the stub libcuda to load them.
if os.path.exists(os.path.join(config.nvfp4_tools_dir, "nvfp4-bench-gpu")):
    config.available_features.add("nvfp4-bench-gpu")

# The targets of one kernel family: sm_103a and sm_110a build the kernels
# of sm_100a, sm_121a those of sm_120a, for another target. Execution tests
# loop over `%sm100_family` and `%sm120_family`; the sanitizer run (below)
# checks the compiler and the emulator once per family.
sm100_family = ["sm_100a", "sm_103a", "sm_110a"]
sm120_family = ["sm_120a", "sm_121a"]
if getattr(config, "enable_sanitizers", False):
    sm100_family, sm120_family = sm100_family[:1], sm120_family[:1]
config.substitutions.append(("%sm100_family", " ".join(sm100_family)))
config.substitutions.append(("%sm120_family", " ".join(sm120_family)))

# A sanitizer build (NVFP4_ENABLE_SANITIZERS=ON): feature `sanitizers`. The
# project's shared objects (runtimes, plugin) are instrumented, and the stock
# mlir-runner and mlir-opt that load them are not: those run with the
# sanitizer runtimes preloaded (leak checking off, since their own
# allocations are not ours to check).
if getattr(config, "enable_sanitizers", False):
    config.available_features.add("sanitizers")
    preload = []
    for runtime in ("libasan.so", "libubsan.so"):
        try:
            path = subprocess.run(
                [getattr(config, "cxx_compiler", "") or "c++",
                 "-print-file-name=" + runtime],
                capture_output=True, text=True, timeout=30).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            path = ""
        if os.path.isabs(path) and os.path.exists(path):
            preload.append(os.path.realpath(path))
    host_env = "env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0:%s " % (
        ":".join(preload), os.environ.get("ASAN_OPTIONS", ""))
    hosts = ("mlir-runner", "mlir-opt", "mlir-opt-22")
    config.substitutions = [
        (key, host_env + value
         if os.path.basename(value.strip()) in hosts else value)
        for key, value in config.substitutions]
