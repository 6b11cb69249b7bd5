//===- GPUEmulationPipeline.cpp - The nvfp4-to-gpu-emulation pipeline -----===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Lowers an nvfp4 program as nvfp4-to-gpu-executable does, except that the
// kernels, once in the NVVM dialect (the IR the NVVM target would compile),
// become host functions that libnvfp4_gpu_emulator runs: the program runs
// under mlir-runner on a machine with no GPU, kernels included.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Pipelines/Pipelines.h"

#include "nvfp4/Conversion/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void mlir::nvfp4::buildNVFP4ToGPUEmulationPipeline(
    OpPassManager &pm, const NVFP4ToPTXPipelineOptions &options) {
  // 1. The kernels in the NVVM dialect, then as host functions.
  buildNVFP4ToNVVMKernelsPipeline(pm, options);
  pm.addPass(createEmulateGPUKernels());
  // 2. The host, as nvfp4-to-gpu-executable lowers it.
  buildGPUHostToLLVMPipeline(pm, options.copiesPerLaunch);
  // 3. Launches call the emulator.
  pm.addPass(createEmulateGPULaunches());
  addCheckLLVMLoweringPass(pm, "nvfp4-to-gpu-emulation");
}

void mlir::nvfp4::registerNVFP4ToGPUEmulationPipeline() {
  PassPipelineRegistration<NVFP4ToPTXPipelineOptions>(
      "nvfp4-to-gpu-emulation",
      "Lower an nvfp4 program to the LLVM dialect for mlir-runner with the "
      "GPU kernels emulated on the host: nvfp4-to-gpu-executable with the "
      "kernels (in the NVVM dialect, as the NVVM target gets them) run by "
      "libnvfp4_gpu_emulator",
      buildNVFP4ToGPUEmulationPipeline);
}
