//===- GPUToEmulator.h - Run generated kernels on the host ------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Passes that turn the kernels the GPU lowerings emit (after the kernel-side
// passes that feed ptxas) into host code executed by libnvfp4_gpu_emulator,
// and their launches into calls of it. See docs/emulator.md.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_GPUTOEMULATOR_GPUTOEMULATOR_H
#define NVFP4_CONVERSION_GPUTOEMULATOR_GPUTOEMULATOR_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace nvfp4 {

#define GEN_PASS_DECL_EMULATEGPUKERNELS
#define GEN_PASS_DECL_EMULATEGPULAUNCHES
#include "nvfp4/Conversion/Passes.h.inc"

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_CONVERSION_GPUTOEMULATOR_GPUTOEMULATOR_H
