// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a report-fallbacks" 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a report-fallbacks" 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" | FileCheck %s --check-prefix=IR
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_120a" | FileCheck %s --check-prefix=MSG
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" 2>&1 | FileCheck %s --check-prefix=TC
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a" | FileCheck %s --check-prefix=TCIR

// Kernels of run-time sizes: the mma.sync matmul takes a run-time M and K,
// the quantize and amax kernels any run-time size, one kernel each for
// every size (named `mdyn`, `kdyn`, `dyn`). The ops no kernel takes at
// run-time sizes (dequantize, Hadamard, a 16x16 quantization of run-time
// rows) are left for the host,
// and so is the quantization an op left for the host reads, with a
// fallback remark each; a static chain beside them gets its kernels.

// MMA-NOT: remark: {{.*}}run_time_rows
// MMA-NOT: remark: {{.*}}%qc = nvfp4.quantize %xt
// MMA: remark: nvfp4: fallback: left for the host instead of a GPU kernel: convert-nvfp4-to-gpu has no kernel for run-time sizes
// MMA-NEXT: %qd = nvfp4.quantize %x
// MMA: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// MMA-NEXT: %d = nvfp4.dequantize
// MMA: remark: nvfp4: fallback: left for the host {{.*}} run-time sizes
// MMA-NEXT: %h = nvfp4.hadamard
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
// The quantization of a run-time last dimension (%qc) is the only kernel.
// IR-LABEL: func.func @left_for_host(
// IR-NOT: gpu.launch_func
// IR: gpu.launch_func @nvfp4_kernels::@nvfp4_amax_64xdyn_f32
// IR: gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_64xdyn_1x16_f32_rn
// IR-NOT: gpu.launch_func
// IR-LABEL: func.func @static(
// IR-COUNT-2: gpu.launch_func
// A run-time K (a weight gradient's token count): before the launches, the
// host checks each quantized input's run-time last dimension (a multiple of
// 16: blocks stay within rows), then the operands' K (equal, a multiple of
// 16), through the runtime's nvfp4CudaCheckShape with a message naming the
// op; the data buffers have the input's K, the scales K / 16 columns; one
// matmul kernel for every K, which reads K from A's data buffer.
// IR-LABEL: func.func @run_time_k(
// IR: %[[AIN:.*]] = bufferization.to_buffer %arg0 read_only : tensor<32x?xf32> to memref<32x?xf32>
// IR: %[[ACOLS:.*]] = memref.dim %[[AIN]], %c1{{.*}} : memref<32x?xf32>
// IR: %[[AREM:.*]] = arith.remui %[[ACOLS]], %c16
// IR: %[[AOK:.*]] = arith.cmpi eq, %[[AREM]], %c0
// IR: llvm.mlir.addressof @__nvfp4_shape_check_{{[0-9]+}}
// IR: %[[AOK32:.*]] = arith.extui %[[AOK]] : i1 to i32
// IR: llvm.call @nvfp4CudaCheckShape(%[[AOK32]], %{{.*}}) : (i32, !llvm.ptr) -> ()
// IR: gpu.launch_func @nvfp4_kernels::@nvfp4_amax_32xdyn_f32
// IR: %[[AK:.*]] = memref.dim %[[AIN]], %c1{{.*}} : memref<32x?xf32>
// IR: %[[ASCALECOLS:.*]] = arith.divui %[[AK]], %c16
// IR: %[[ADATA:.*]] = memref.alloc(%[[AK]]) {alignment = 16 : i64} : memref<32x?xf4E2M1FN>
// IR: %[[ASCALES:.*]] = memref.alloc(%[[ASCALECOLS]]) {alignment = 16 : i64} : memref<32x?xf8E4M3FN>
// IR: gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_32xdyn_1x16_f32_rn
// IR-SAME: %[[ADATA]] : memref<32x?xf4E2M1FN>, %[[ASCALES]] : memref<32x?xf8E4M3FN>
// IR: gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_16xdyn_1x16_f32_rn
// IR-SAME: %[[BDATA:[^ ]*]] : memref<16x?xf4E2M1FN>
// IR: %[[KA:.*]] = memref.dim %[[ADATA]], %c1{{.*}} : memref<32x?xf4E2M1FN>
// IR: %[[KB:.*]] = memref.dim %[[BDATA]], %c1{{.*}} : memref<16x?xf4E2M1FN>
// IR: %[[KEQ:.*]] = arith.cmpi eq, %[[KA]], %[[KB]] : index
// IR: %[[KEQ32:.*]] = arith.extui %[[KEQ]] : i1 to i32
// IR: llvm.call @nvfp4CudaCheckShape(%[[KEQ32]], %{{.*}})
// IR: %[[KREM:.*]] = arith.remui %[[KA]], %c16
// IR: %[[KOK:.*]] = arith.cmpi eq, %[[KREM]], %c0
// IR: %[[KOK32:.*]] = arith.extui %[[KOK]] : i1 to i32
// IR: llvm.call @nvfp4CudaCheckShape(%[[KOK32]], %{{.*}})
// IR: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m32n16kdyn_1x16_1x16_f32_t32x128
// IR-SAME: args(%[[ADATA]] : memref<32x?xf4E2M1FN>, %[[ASCALES]] : memref<32x?xf8E4M3FN>, %{{.*}} : f32, %[[BDATA]] : memref<16x?xf4E2M1FN>,
// In the kernels: M is the rows of A's data buffer; the quantize kernel's
// blocks are the input's elements / 16.
// IR-LABEL: gpu.func @nvfp4_amax_dynx64_f32(
// IR: gpu.grid_dim x
// IR-LABEL: gpu.func @nvfp4_quantize_dynx64_1x16_f32_rn(
// IR-SAME: %[[QIN:[^:]*]]: memref<?x64xf32>
// IR: %[[QROWS:.*]] = memref.dim %[[QIN]], %{{.*}}
// IR: %[[QELEMS:.*]] = arith.muli %[[QROWS]], %c64
// IR: arith.divui %[[QELEMS]], %c16
// In the kernel, K is the columns of A's data buffer: the K steps are
// ceil(K / 128), and the row's bytes K / 2 bound the copies.
// IR-LABEL: gpu.func @nvfp4_matmul_m32n16kdyn_1x16_1x16_f32_t32x128(
// IR-SAME: %[[KDATA:[^:]*]]: memref<32x?xf4E2M1FN>
// IR: %[[K:.*]] = memref.dim %[[KDATA]], %c1{{.*}} : memref<32x?xf4E2M1FN>
// IR: %[[KBITS:.*]] = arith.muli %[[K]], %c4
// IR: %[[ROWBYTES:.*]] = arith.divui %[[KBITS]], %c8
// IR: %[[KUP:.*]] = arith.addi %[[K]], %c127
// IR: %[[STEPS:.*]] = arith.divui %[[KUP]], %c128
// IR: scf.for %{{.*}} = %c0{{.*}} to %[[STEPS]] step %c1
// IR-LABEL: gpu.func @nvfp4_matmul_mdyn_n32k64_1x16_16x16_f32(
// IR-SAME: %[[KA:[^:]*]]: memref<?x64xf4E2M1FN>
// IR: %[[KM:.*]] = memref.dim %[[KA]], %{{.*}}
// IR: arith.cmpi ult, %{{.*}}, %[[KM]]

// The messages: the op, its location and the rule.
// MSG-DAG: llvm.mlir.global internal constant @{{.*}}("{{.*}}run-time-sizes.mlir:[[@LINE+86]]:9: 'nvfp4.quantize' op: run-time shape check failed: the input's last dimension must be a multiple of 16\00")
// MSG-DAG: llvm.mlir.global internal constant @{{.*}}("{{.*}}run-time-sizes.mlir:[[@LINE+99]]:8: 'nvfp4.matmul' op: run-time shape check failed: the operands' K must be equal\00")
// MSG-DAG: llvm.mlir.global internal constant @{{.*}}("{{.*}}run-time-sizes.mlir:[[@LINE+98]]:8: 'nvfp4.matmul' op: run-time shape check failed: K must be a multiple of 16\00")
// MSG-DAG: llvm.func @nvfp4CudaCheckShape(i32, !llvm.ptr)

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
// The tcgen05 matmul of run-time K: before any tensor map is encoded, the
// host checks that the operands' K (their data buffers' columns) are equal,
// not 0 and a multiple of 32; each operand's tensor map then gets rows of
// K * 4 / 8 bytes (its row bytes and its row stride), and the kernel (the
// 1-CTA kernel, compact scales) counts ceil(K / 256) K tiles from A's data
// buffer.
// TCIR-LABEL: func.func @run_time_k(
// TCIR: gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_32xdyn_1x16_f32_rn
// TCIR-SAME: %[[TKA:[^ ]*]] : memref<32x?xf4E2M1FN>
// TCIR: gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_16xdyn_1x16_f32_rn
// TCIR-SAME: %[[TKB:[^ ]*]] : memref<16x?xf4E2M1FN>
// TCIR: %[[TKAK:.*]] = memref.dim %[[TKA]], %c1{{.*}} : memref<32x?xf4E2M1FN>
// TCIR: %[[TKBK:.*]] = memref.dim %[[TKB]], %c1{{.*}} : memref<16x?xf4E2M1FN>
// TCIR: arith.cmpi eq, %[[TKAK]], %[[TKBK]] : index
// TCIR: llvm.call @nvfp4CudaCheckShape(
// TCIR: arith.cmpi ne, %[[TKAK]], %c0{{.*}} : index
// TCIR: llvm.call @nvfp4CudaCheckShape(
// TCIR: arith.remui %[[TKAK]], %c32{{.*}} : index
// TCIR: llvm.call @nvfp4CudaCheckShape(
// TCIR: %[[TAK:.*]] = memref.dim %[[TKA]], %c1{{.*}} : memref<32x?xf4E2M1FN>
// TCIR: %[[TABITS:.*]] = arith.muli %[[TAK]], %c4{{.*}} : index
// TCIR: %[[TABYTES:.*]] = arith.divui %[[TABITS]], %c8{{.*}} : index
// TCIR: %[[TABYTES64:.*]] = arith.index_castui %[[TABYTES]] : index to i64
// TCIR: llvm.call @nvfp4CudaTensorMapEncode2D(%{{[^,]*}}, %{{[^,]*}}, %[[TABYTES64]], %c32_i64, %[[TABYTES64]],
// TCIR: %[[TBK:.*]] = memref.dim %[[TKB]], %c1{{.*}} : memref<16x?xf4E2M1FN>
// TCIR: %[[TBBITS:.*]] = arith.muli %[[TBK]], %c4{{.*}} : index
// TCIR: %[[TBBYTES:.*]] = arith.divui %[[TBBITS]], %c8{{.*}} : index
// TCIR: %[[TBBYTES64:.*]] = arith.index_castui %[[TBBYTES]] : index to i64
// TCIR: llvm.call @nvfp4CudaTensorMapEncode2D(%{{[^,]*}}, %{{[^,]*}}, %[[TBBYTES64]], %c16_i64, %[[TBBYTES64]],
// TCIR: gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m32n16kdyn_t64_1x16_1x16_f32
// TCIR-SAME: args(%[[TKA]] : memref<32x?xf4E2M1FN>,
// TCIR-SAME: %[[TKB]] : memref<16x?xf4E2M1FN>,
// TCIR-LABEL: gpu.func @nvfp4_tcgen05_matmul_m32n16kdyn_t64_1x16_1x16_f32(
// TCIR-SAME: %[[KDATA:[^:]*]]: memref<32x?xf4E2M1FN>
// TCIR: %[[KCOLS:.*]] = memref.dim %[[KDATA]], %{{.*}} : memref<32x?xf4E2M1FN>
// TCIR-NEXT: %[[KI32:.*]] = arith.index_castui %[[KCOLS]] : index to i32
// TCIR-NEXT: %[[KPLUS:.*]] = arith.addi %[[KI32]], %{{.*}} : i32
// TCIR-NEXT: %[[KTILES:.*]] = arith.divui %[[KPLUS]], %{{.*}} : i32
// TCIR: scf.for %{{.*}} = %{{.*}} to %[[KTILES]] step
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

func.func @run_time_k(%a: tensor<32x?xf32>, %b: tensor<16x?xf32>)
    -> tensor<32x16xf32> {
  %qa = nvfp4.quantize %a : tensor<32x?xf32> -> !nvfp4.tensor<32x?, 1x16>
  %qb = nvfp4.quantize %b : tensor<16x?xf32> -> !nvfp4.tensor<16x?, 1x16>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<32x?, 1x16>, !nvfp4.tensor<16x?, 1x16> -> tensor<32x16xf32>
  return %y : tensor<32x16xf32>
}
