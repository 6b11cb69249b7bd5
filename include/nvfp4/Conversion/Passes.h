//===- Passes.h - NVFP4 conversion passes -----------------------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_PASSES_H
#define NVFP4_CONVERSION_PASSES_H

#include "nvfp4/Conversion/GPUToEmulator/GPUToEmulator.h"
#include "nvfp4/Conversion/NVFP4ToGPU/NVFP4ToGPU.h"
#include "nvfp4/Conversion/NVFP4ToReference/NVFP4ToReference.h"

namespace mlir::nvfp4 {

/// Generate the code for registering conversion passes.
#define GEN_PASS_REGISTRATION
#include "nvfp4/Conversion/Passes.h.inc"

} // namespace mlir::nvfp4

#endif // NVFP4_CONVERSION_PASSES_H
