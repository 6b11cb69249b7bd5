// report-fallbacks: a remark at every op whose GPU lowering takes a
// fallback, saying what was chosen instead of what and why; no remark where
// the kernel uses the hardware path; nothing at all without the option.

// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a report-fallbacks" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=RN-SOFT,SR-NOHW,MMA-BF16,HOST --implicit-check-not=remark
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a report-fallbacks" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=SR-NOHW,HOST --implicit-check-not=remark
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_121a report-fallbacks" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=SR-NOHW,HOST --implicit-check-not=remark
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_110a report-fallbacks" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=SR-NOHW,HOST --implicit-check-not=remark
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=SR-OFF,HOST --implicit-check-not=remark
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_103a report-fallbacks" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=SR-OFF,HOST --implicit-check-not=remark

// sm_100a with hardware-sr: both conversions and the matmul in hardware;
// only the ops without a kernel are reported.
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a hardware-sr=true report-fallbacks" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HOST --implicit-check-not=remark

// Off by default.
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: remark

// The pipelines forward the option.
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_90a report-fallbacks" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=RN-SOFT,SR-NOHW,MMA-BF16,HOST --implicit-check-not=remark

func.func @step(%x: tensor<128x256xf32>, %g: tensor<64x256xbf16>, %seed: i64,
                %w: !nvfp4.tensor<64x128, 16x16>, %q: !nvfp4.tensor<64x64, 1x16>)
    -> (tensor<128x64xf32>, !nvfp4.tensor<128x64, 16x16>, !nvfp4.tensor<64x64, 16x16>) {
  // Round to nearest: cvt.rn.satfinite.e2m1x2.f32 everywhere but sm_90a.
  // RN-SOFT: report-fallbacks.mlir:[[@LINE+1]]:8: remark: nvfp4: fallback: E2M1 rounding in software instead of cvt.rn.satfinite.e2m1x2.f32: sm_90a does not have the instruction
  %a = nvfp4.quantize %x : tensor<128x256xf32> -> !nvfp4.tensor<128x256, 1x16>
  // Stochastic rounding: in software unless hardware-sr selects cvt.rs
  // (sm_100a / sm_103a).
  // SR-NOHW: report-fallbacks.mlir:[[@LINE+2]]:8: remark: nvfp4: fallback: stochastic rounding in software (Philox4x32-10 random bits, integer rounding) instead of cvt.rs.satfinite.e2m1x4.f32: {{sm_90a|sm_110a|sm_120a|sm_121a}} does not have the instruction (sm_100a and sm_103a only)
  // SR-OFF: report-fallbacks.mlir:[[@LINE+1]]:8: remark: nvfp4: fallback: stochastic rounding in software (Philox4x32-10 random bits, integer rounding) instead of cvt.rs.satfinite.e2m1x4.f32: hardware-sr is off (the instruction's random-bit assignment is unverified on hardware, docs/gpu.md)
  %b = nvfp4.quantize %g rounding rs seed %seed offset 0
         : tensor<64x256xbf16> -> !nvfp4.tensor<64x256, 1x16>
  // The matmul: FP4 tensor cores everywhere but sm_90a.
  // MMA-BF16: report-fallbacks.mlir:[[@LINE+1]]:8: remark: nvfp4: fallback: bf16 MMAs (mma.sync m16n8k16, the operands dequantized to bf16 in registers, exactly) instead of the FP4 block-scaled MMA: sm_90a has no FP4 tensor cores; the accumulation order differs from the reference (docs/gpu.md)
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<64x256, 1x16> -> tensor<128x64xf32>
  // The transpose kernel: no remark.
  %t = nvfp4.transpose %w : !nvfp4.tensor<64x128, 16x16> -> !nvfp4.tensor<128x64, 16x16>
  // No GPU kernel: left for the host.
  // HOST: report-fallbacks.mlir:[[@LINE+1]]:8: remark: nvfp4: fallback: left for the host instead of a GPU kernel: convert-nvfp4-to-gpu has no kernel for 'nvfp4.rescale' (nvfp4-to-gpu-executable runs it on the CPU through the reference lowering)
  %r = nvfp4.rescale %q : !nvfp4.tensor<64x64, 1x16> -> !nvfp4.tensor<64x64, 16x16>
  return %c, %t, %r : tensor<128x64xf32>, !nvfp4.tensor<128x64, 16x16>, !nvfp4.tensor<64x64, 16x16>
}
