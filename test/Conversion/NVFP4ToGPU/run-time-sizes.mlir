// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a report-fallbacks" 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a report-fallbacks" 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" | FileCheck %s --check-prefix=IR
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" 2>&1 | FileCheck %s --check-prefix=TC
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" | FileCheck %s --check-prefix=TCIR

// Kernels of run-time sizes: the mma.sync matmul takes a run-time M, the
// quantize and amax kernels run-time rows, one kernel each for every size
// (named `mdyn`, `dyn`). The ops no kernel takes at run-time sizes
// (dequantize, Hadamard, a run-time last dimension, a 16x16 quantization
// of run-time rows) are left for the host,
// and so is the quantization an op left for the host reads, with a
// fallback remark each; a static chain beside them gets its kernels.

// MMA-NOT: remark: {{.*}}run_time_rows
// MMA: remark: nvfp4: fallback: left for the host instead of a GPU kernel: convert-nvfp4-to-gpu has no kernel for run-time sizes
// MMA-NEXT: %qd = nvfp4.quantize %x
// MMA: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// MMA-NEXT: %d = nvfp4.dequantize
// MMA: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// MMA-NEXT: %h = nvfp4.hadamard
// MMA: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// MMA-NEXT: %qc = nvfp4.quantize %xt
// MMA: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// MMA-NEXT: %q16 = nvfp4.quantize %x
// MMA-NOT: no kernel for run-time sizes

// The matmul of run-time M: A's buffers, the static weight's, and a result
// allocated with M rows, A's data buffer's; max(1, ceil(M / 64)) rows of
// CTAs.
// IR-LABEL: func.func @run_time_rows(
// IR: %[[XIN:.*]] = bufferization.to_buffer %arg0 read_only : tensor<?x64xf32> to memref<?x64xf32>
// IR: gpu.launch_func @nvfp4_kernels::@nvfp4_amax_dynx64_f32 blocks in (%[[AMAXCTAS:[^,]*]],
// IR-SAME: args(%[[XIN]] : memref<?x64xf32>, %[[PARTIALS:[^ ]*]] : memref<?xf32>)
// IR: %[[XROWS:.*]] = memref.dim %[[XIN]], %{{.*}} : memref<?x64xf32>
// IR-NEXT: %[[XDATA:.*]] = memref.alloc(%[[XROWS]]) {alignment = 16 : i64} : memref<?x64xf4E2M1FN>
// IR-NEXT: %[[XSCALES:.*]] = memref.alloc(%[[XROWS]]) {alignment = 16 : i64} : memref<?x4xf8E4M3FN>
// IR: gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_dynx64_1x16_f32_rn blocks in
// IR-SAME: args(%[[XIN]] : memref<?x64xf32>, %[[PARTIALS]] : memref<?xf32>, %[[XDATA]] : memref<?x64xf4E2M1FN>, %[[XSCALES]] : memref<?x4xf8E4M3FN>,
// IR: %[[M:.*]] = memref.dim %[[XDATA]], %{{.*}} : memref<?x64xf4E2M1FN>
// IR-NEXT: %[[Y:.*]] = memref.alloc(%[[M]]) : memref<?x32xf32>
// IR: %[[CEIL:.*]] = arith.ceildivui %[[M]], %c64
// IR: %[[ROWTILES:.*]] = arith.maxui %[[CEIL]], %c1
// IR: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_mdyn_n32k64_1x16_16x16_f32 blocks in (%{{[^,]*}}, %[[ROWTILES]], %{{[^)]*}})
// IR-SAME: args(%[[XDATA]] : memref<?x64xf4E2M1FN>, %[[XSCALES]] : memref<?x4xf8E4M3FN>, %{{.*}} : f32, %{{.*}} : memref<32x64xf4E2M1FN>, %{{.*}} : memref<2x4xf8E4M3FN>, %{{.*}} : f32, %[[Y]] : memref<?x32xf32>)
// The amax: its own kernel.
// IR: gpu.launch_func @nvfp4_kernels::@nvfp4_amax_dynx64_f32
// IR-LABEL: func.func @left_for_host(
// IR-NOT: gpu.launch_func
// IR-LABEL: func.func @static(
// IR-COUNT-2: gpu.launch_func
// In the kernels: M is the rows of A's data buffer; the quantize kernel's
// blocks are the input's elements / 16.
// IR-LABEL: gpu.func @nvfp4_amax_dynx64_f32(
// IR: gpu.grid_dim x
// IR-LABEL: gpu.func @nvfp4_quantize_dynx64_1x16_f32_rn(
// IR-SAME: %[[QIN:[^:]*]]: memref<?x64xf32>
// IR: %[[QROWS:.*]] = memref.dim %[[QIN]], %{{.*}}
// IR: %[[QELEMS:.*]] = arith.muli %[[QROWS]], %c64
// IR: arith.divui %[[QELEMS]], %c16
// IR-LABEL: gpu.func @nvfp4_matmul_mdyn_n32k64_1x16_16x16_f32(
// IR-SAME: %[[KA:[^:]*]]: memref<?x64xf4E2M1FN>
// IR: %[[KM:.*]] = memref.dim %[[KA]], %{{.*}}
// IR: arith.cmpi ult, %{{.*}}, %[[KM]]

// On tcgen05 targets the matmul of run-time M is the 1-CTA kernel: A's
// tensor map has M rows, read from A's data buffer at launch (M = 0 is an
// error of the runtime's encode: no tensor map is empty), the result M
// rows, and the persistent grid min(#SMs, ceil(M / 128) x N tiles, at least
// 1) CTAs; the kernel counts its tiles from the same M.
// TC-NOT: remark: {{.*}}run_time_rows
// TC: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// TC-NEXT: %qd = nvfp4.quantize %x
// TCIR-LABEL: func.func @run_time_rows(
// TCIR: %[[M:.*]] = memref.dim %[[A:.*]], %{{.*}} : memref<?x64xf4E2M1FN>
// TCIR-NEXT: %[[M64:.*]] = arith.index_castui %[[M]] : index to i64
// TCIR: llvm.call @nvfp4CudaTensorMapEncode2D(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %[[M64]],
// TCIR: %[[Y:.*]] = memref.alloc(%[[M]]) : memref<?x32xf32>
// TCIR: %[[MI32:.*]] = arith.index_castui %[[M]] : index to i32
// TCIR: %[[ROWTILES:.*]] = arith.ceildivui %[[MI32]], %c128_i32
// TCIR: %[[TILES:.*]] = arith.muli %[[ROWTILES]], %c1_i32
// TCIR: %[[ATLEAST1:.*]] = arith.maxui %[[TILES]], %c1_i32
// TCIR: %[[CTAS:.*]] = arith.minui %{{.*}}, %[[ATLEAST1]] : i32
// TCIR: gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_mdyn_n32k64_t64_1x16_16x16_f32
// TCIR-SAME: args(%[[A]] : memref<?x64xf4E2M1FN>,
// TCIR-SAME: %[[Y]] : memref<?x32xf32>)
// TCIR-LABEL: gpu.func @nvfp4_tcgen05_matmul_mdyn_n32k64_t64_1x16_16x16_f32(
// TCIR-SAME: %[[KA:[^:]*]]: memref<?x64xf4E2M1FN>
// TCIR: %[[KM:.*]] = memref.dim %[[KA]], %{{.*}}
// TCIR-NEXT: %[[KMI32:.*]] = arith.index_castui %[[KM]] : index to i32
// TCIR: arith.cmpi ult, %{{.*}}, %[[KMI32]] : i32
func.func @run_time_rows(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>)
    -> (tensor<?x32xf32>, f32) {
  %qx = nvfp4.quantize %x : tensor<?x64xf32> -> !nvfp4.tensor<?x64, 1x16>
  %qw = nvfp4.quantize %w : tensor<64x32xf32> -> !nvfp4.tensor<64x32, 16x16>
  %qwt = nvfp4.transpose %qw : !nvfp4.tensor<64x32, 16x16> -> !nvfp4.tensor<32x64, 16x16>
  %y = nvfp4.matmul %qx, %qwt : !nvfp4.tensor<?x64, 1x16>, !nvfp4.tensor<32x64, 16x16> -> tensor<?x32xf32>
  %a = nvfp4.amax %x : tensor<?x64xf32>
  return %y, %a : tensor<?x32xf32>, f32
}

func.func @left_for_host(%x: tensor<?x64xf32>, %xt: tensor<64x?xf32>)
    -> (tensor<?x64xf32>, tensor<?x64xf32>, !nvfp4.tensor<64x?, 1x16>,
        !nvfp4.tensor<?x64, 16x16>) {
  %qd = nvfp4.quantize %x : tensor<?x64xf32> -> !nvfp4.tensor<?x64, 1x16>
  %d = nvfp4.dequantize %qd : !nvfp4.tensor<?x64, 1x16> -> tensor<?x64xf32>
  %h = nvfp4.hadamard %x : tensor<?x64xf32>
  %qc = nvfp4.quantize %xt : tensor<64x?xf32> -> !nvfp4.tensor<64x?, 1x16>
  %q16 = nvfp4.quantize %x : tensor<?x64xf32> -> !nvfp4.tensor<?x64, 16x16>
  return %d, %h, %qc, %q16 : tensor<?x64xf32>, tensor<?x64xf32>, !nvfp4.tensor<64x?, 1x16>, !nvfp4.tensor<?x64, 16x16>
}

func.func @static(%x: tensor<32x64xf32>) -> !nvfp4.tensor<32x64, 1x16> {
  %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  return %q : !nvfp4.tensor<32x64, 1x16>
}
