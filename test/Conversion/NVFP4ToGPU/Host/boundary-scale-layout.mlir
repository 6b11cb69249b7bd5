// Scale layouts at function boundaries (nvfp4.scale_layout,
// BoundaryScaleLayout.cpp): on the tcgen05 targets every NVFP4 argument and
// result whose scales can be whole 128x4 atoms is in the atoms layout
// unless declared row_major; the matmul kernel reads such arguments'
// scales by bulk copies, quantize kernels write such results in atoms, and
// every other reader or writer gets a relayout on the host. The lowering
// implements the attributes and drops them, leaving on each argument and
// result in atoms the record nvfp4.lowered_scale_layout for drivers of the
// lowered function (launch plans).
//
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu="target=sm_100a" \
// RUN: | FileCheck %s --implicit-check-not="nvfp4.scale_layout ="
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu="target=sm_100a boundary-scale-layout=row-major" \
// RUN: | FileCheck %s --check-prefix=ROWMAJOR --implicit-check-not="nvfp4.scale_layout ="
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu="target=sm_120a" \
// RUN: | FileCheck %s --check-prefix=SM120 --implicit-check-not="nvfp4.scale_layout ="
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu="target=sm_100a report-fallbacks" -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark
// RUN: not nvfp4-opt %s --split-input-file --convert-nvfp4-to-gpu="target=sm_100a boundary-scale-layout=swizzled" -o /dev/null 2>&1 \
// RUN: | FileCheck %s --check-prefix=BAD
// The executable pipeline lowers every case.
// RUN: nvfp4-opt %s --split-input-file --nvfp4-to-gpu-executable="target=sm_100a" -o /dev/null
// RUN: nvfp4-opt %s --split-input-file --nvfp4-to-gpu-executable="target=sm_120a" -o /dev/null

// BAD: error: convert-nvfp4-to-gpu: unsupported boundary-scale-layout 'swizzled' (supported: atoms, row-major)

// Both arguments in atoms: the kernel takes the disassembled scales of each
// as they are (`_sfatoms_ab`), with no relayout.
// CHECK-LABEL: func.func @gemm(
// CHECK-SAME:      %[[A:[^:]*]]: !nvfp4.tensor<256x512, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>}, %[[B:[^:]*]]: !nvfp4.tensor<256x512, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>})
// CHECK-DAG:     %{{.*}}, %[[BS:.*]], %[[BG:.*]] = nvfp4.disassemble %[[B]]
// CHECK-DAG:     %{{.*}}, %[[AS:.*]], %[[AG:.*]] = nvfp4.disassemble %[[A]]
// CHECK-NOT:     linalg.transpose
// CHECK-DAG:     %[[ASBUF:.*]] = bufferization.to_buffer %[[AS]] read_only
// CHECK-DAG:     %[[BSBUF:.*]] = bufferization.to_buffer %[[BS]] read_only
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32_sfatoms_ab
// CHECK-SAME:      %[[ASBUF]] : memref<256x32xf8E4M3FN>, %[[AG]] : f32, {{.*}}, %[[BSBUF]] : memref<256x32xf8E4M3FN>, %[[BG]] : f32
// ROWMAJOR-LABEL: func.func @gemm(
// ROWMAJOR-SAME:   %{{[^:]*}}: !nvfp4.tensor<256x512, 1x16>, %{{[^:]*}}: !nvfp4.tensor<256x512, 1x16>) -> tensor
// ROWMAJOR-NOT:    linalg.transpose
// ROWMAJOR:        gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32 blocks
// SM120-LABEL:   func.func @gemm(
// SM120-SAME:      %{{[^:]*}}: !nvfp4.tensor<256x512, 1x16>, %{{[^:]*}}: !nvfp4.tensor<256x512, 1x16>) -> tensor
// SM120-NOT:       linalg.transpose
// SM120:           gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m256n256k512_1x16_1x16_f32_t128x128 blocks
func.func @gemm(%a: !nvfp4.tensor<256x512, 1x16>, %b: !nvfp4.tensor<256x512, 1x16>) -> tensor<256x256xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16> -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}

// -----

// A declared row-major: only B's atoms are read.
// CHECK-LABEL: func.func @gemm_row_major_a(
// CHECK-SAME:    %{{[^:]*}}: !nvfp4.tensor<256x512, 1x16>, %{{[^:]*}}: !nvfp4.tensor<256x512, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>}) -> tensor
// CHECK-NOT:     linalg.transpose
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32_sfatoms_b blocks
func.func @gemm_row_major_a(%a: !nvfp4.tensor<256x512, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>},
                            %b: !nvfp4.tensor<256x512, 1x16>) -> tensor<256x256xf32> {
  // REMARK: boundary-scale-layout.mlir:[[@LINE+1]]:8: remark: nvfp4: fallback: the producer warp loads and stores the row-major scales of operand #0 of the tcgen05 matmul instead of bulk-copying 128x4 atoms: argument #0 of @gemm_row_major_a has row-major scales at the function boundary (its nvfp4.scale_layout, or boundary-scale-layout=row-major)
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16> -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}

// -----

// The dequantize kernel reads row-major scales: the argument's atoms
// ([2 x 128 rows] x 4 columns: 2 row blocks, 1 column block) are relaid out
// on the host, i8 bytes [2, 1, 32, 4, 4] -> [2, 4, 32, 1, 4], and
// reassembled with the argument's data and amax for the kernel.
// CHECK-LABEL: func.func @dequantize_arg(
// CHECK-SAME:      %[[A:[^:]*]]: !nvfp4.tensor<2x128x64, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>})
// CHECK:         %[[D:.*]], %[[S:.*]], %[[G:.*]] = nvfp4.disassemble %[[A]]
// CHECK:         %[[BYTES:.*]] = arith.bitcast %[[S]] : tensor<2x128x4xf8E4M3FN> to tensor<2x128x4xi8>
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[BYTES]] {{\[\[}}0, 1, 2]] : tensor<2x128x4xi8> into tensor<1024xi8>
// CHECK:         %[[ATOMS:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2, 3, 4]] output_shape [2, 1, 32, 4, 4]
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[ATOMS]] : tensor<2x1x32x4x4xi8>) outs(%{{.*}} : tensor<2x4x32x1x4xi8>) permutation = [0, 3, 2, 1, 4]
// CHECK:         %[[TFLAT:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1, 2, 3, 4]] : tensor<2x4x32x1x4xi8> into tensor<1024xi8>
// CHECK:         %[[RM:.*]] = tensor.expand_shape %[[TFLAT]] {{\[\[}}0, 1, 2]] output_shape [2, 128, 4]
// CHECK:         %[[RMS:.*]] = arith.bitcast %[[RM]] : tensor<2x128x4xi8> to tensor<2x128x4xf8E4M3FN>
// CHECK:         %[[RMBUF:.*]] = bufferization.to_buffer %[[RMS]] read_only
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_2x128x64_1x16_f32
// CHECK-SAME:      %[[RMBUF]] : memref<2x128x4xf8E4M3FN>, %[[G]] : f32
// SM120-LABEL:   func.func @dequantize_arg(
// SM120-NOT:       linalg.transpose
// SM120:           gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_2x128x64_1x16_f32
func.func @dequantize_arg(%a: !nvfp4.tensor<2x128x64, 1x16>) -> tensor<2x128x64xf32> {
  // REMARK: boundary-scale-layout.mlir:[[@LINE+1]]:8: remark: nvfp4: fallback: operand #0 arrives with its scales in the atoms layout (its nvfp4.scale_layout) and is relaid out to row-major on the host: 'nvfp4.dequantize' reads row-major scales here
  %x = nvfp4.dequantize %a : !nvfp4.tensor<2x128x64, 1x16> -> tensor<2x128x64xf32>
  return %x : tensor<2x128x64xf32>
}

// -----

// A result in atoms that only leaves the function: the quantize kernel
// writes it in atoms (`_sfatoms`), returned as the kernel wrote it.
// CHECK-LABEL: func.func @quantize_result(
// CHECK-SAME:    -> (!nvfp4.tensor<256x512, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>})
// CHECK:         %[[SBUF:.*]] = memref.alloc() {alignment = 16 : i64} : memref<256x32xf8E4M3FN>
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_256x512_1x16_bf16_rn_sfatoms
// CHECK:         %[[S:.*]] = bufferization.to_tensor %[[SBUF]]
// CHECK:         %[[Q:.*]] = nvfp4.assemble %{{.*}}, %[[S]], %{{.*}}
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[Q]]
// ROWMAJOR-LABEL: func.func @quantize_result(
// ROWMAJOR-SAME:   -> !nvfp4.tensor<256x512, 1x16> {
// ROWMAJOR:        gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_256x512_1x16_bf16_rn blocks
func.func @quantize_result(%x: tensor<256x512xbf16>) -> !nvfp4.tensor<256x512, 1x16> {
  %q = nvfp4.quantize %x : tensor<256x512xbf16> -> !nvfp4.tensor<256x512, 1x16>
  return %q : !nvfp4.tensor<256x512, 1x16>
}

// -----

// A result in atoms that the dequantize kernel also reads: the quantize
// kernel writes row-major scales, relaid out into atoms before the return.
// CHECK-LABEL: func.func @quantize_result_and_dequantize(
// CHECK-SAME:    -> (!nvfp4.tensor<256x512, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>}, tensor<256x512xf32>)
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_256x512_1x16_bf16_rn blocks
// CHECK:         %[[Q:.*]] = nvfp4.assemble
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_256x512_1x16_f32
// CHECK:         %[[D:.*]], %[[S:.*]], %[[G:.*]] = nvfp4.disassemble %[[Q]]
// CHECK:         %[[BYTES:.*]] = arith.bitcast %[[S]]
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[BYTES]]
// CHECK:         %[[RM:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2, 3, 4]] output_shape [2, 4, 32, 8, 4]
// CHECK:         linalg.transpose ins(%[[RM]] : tensor<2x4x32x8x4xi8>) outs(%{{.*}} : tensor<2x8x32x4x4xi8>) permutation = [0, 3, 2, 1, 4]
// CHECK:         %[[AS:.*]] = arith.bitcast %{{.*}} : tensor<256x32xi8> to tensor<256x32xf8E4M3FN>
// CHECK:         %[[QA:.*]] = nvfp4.assemble %[[D]], %[[AS]], %[[G]]
// CHECK:         return %[[QA]], %{{.*}} : !nvfp4.tensor<256x512, 1x16>, tensor<256x512xf32>
func.func @quantize_result_and_dequantize(%x: tensor<256x512xbf16>) -> (!nvfp4.tensor<256x512, 1x16>, tensor<256x512xf32>) {
  %q = nvfp4.quantize %x : tensor<256x512xbf16> -> !nvfp4.tensor<256x512, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<256x512, 1x16> -> tensor<256x512xf32>
  // REMARK: boundary-scale-layout.mlir:[[@LINE+1]]:3: remark: nvfp4: fallback: operand #0 leaves with its scales in the atoms layout (the nvfp4.scale_layout of the result) and is relaid out from row-major on the host: 'nvfp4.quantize' does not write its scales in atoms
  return %q, %d : !nvfp4.tensor<256x512, 1x16>, tensor<256x512xf32>
}

// -----

// Calls: the callee's first argument and its result are in atoms, its
// second argument row-major. The quantization, passed to both, is relaid
// out into atoms for the first; the result arrives in atoms and is relaid
// out to row-major for the dequantize kernel; its scales pass unchanged to
// the matmul kernel, which reads them as atoms (`_sfatoms_a`).
// CHECK-LABEL: func.func @caller(
// CHECK-SAME:    %{{[^:]*}}: tensor<256x512xbf16>, %{{[^:]*}}: !nvfp4.tensor<256x512, 1x16>) -> (tensor
// CHECK:         %[[Q:.*]] = nvfp4.assemble
// CHECK:         %[[QD:.*]], %[[QS:.*]], %[[QG:.*]] = nvfp4.disassemble %[[Q]]
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<2x4x32x8x4xi8>) outs(%{{.*}} : tensor<2x8x32x4x4xi8>)
// CHECK:         %[[QA:.*]] = nvfp4.assemble %[[QD]], %{{.*}}, %[[QG]]
// CHECK:         %[[R:.*]] = call @callee(%[[QA]], %[[Q]])
// CHECK:         %[[RD:.*]], %[[RS:.*]], %[[RG:.*]] = nvfp4.disassemble %[[R]]
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<2x8x32x4x4xi8>) outs(%{{.*}} : tensor<2x4x32x8x4xi8>)
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_256x512_1x16_f32
// CHECK:         %[[RSBUF:.*]] = bufferization.to_buffer %[[RS]] read_only
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32_sfatoms_a
// CHECK-SAME:      %[[RSBUF]] : memref<256x32xf8E4M3FN>, %[[RG]] : f32
func.func private @callee(!nvfp4.tensor<256x512, 1x16>,
                          !nvfp4.tensor<256x512, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>})
    -> !nvfp4.tensor<256x512, 1x16>
func.func @caller(%x: tensor<256x512xbf16>, %w: !nvfp4.tensor<256x512, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>})
    -> (tensor<256x512xf32>, tensor<256x256xf32>) {
  %q = nvfp4.quantize %x : tensor<256x512xbf16> -> !nvfp4.tensor<256x512, 1x16>
  // The relayout of the call result, then that of its operand.
  // REMARK: boundary-scale-layout.mlir:[[@LINE+4]]:8: remark: nvfp4: fallback: operand #0 arrives with its scales in the atoms layout (its nvfp4.scale_layout) and is relaid out to row-major on the host: 'nvfp4.dequantize' reads row-major scales here
  // REMARK: boundary-scale-layout.mlir:[[@LINE+2]]:8: remark: nvfp4: fallback: operand #0 leaves with its scales in the atoms layout (the nvfp4.scale_layout of the callee's argument) and is relaid out from row-major on the host: 'nvfp4.quantize' does not write its scales in atoms
  // REMARK: boundary-scale-layout.mlir:[[@LINE+3]]:8: remark: nvfp4: fallback: the producer warp loads and stores the row-major scales of operand #1 of the tcgen05 matmul instead of bulk-copying 128x4 atoms: argument #1 of @caller has row-major scales at the function boundary (its nvfp4.scale_layout, or boundary-scale-layout=row-major)
  %r = call @callee(%q, %q) : (!nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16>) -> !nvfp4.tensor<256x512, 1x16>
  %d = nvfp4.dequantize %r : !nvfp4.tensor<256x512, 1x16> -> tensor<256x512xf32>
  %c = nvfp4.matmul %r, %w : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16> -> tensor<256x256xf32>
  return %d, %c : tensor<256x512xf32>, tensor<256x256xf32>
}

// -----

// Explicit atoms on sm_120a, whose kernels read row-major scales only.
// SM120-LABEL:   func.func @explicit_atoms(
// SM120-SAME:      %{{[^:]*}}: !nvfp4.tensor<256x512, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>}, %{{[^:]*}}: !nvfp4.tensor<256x512, 1x16>) -> tensor
// SM120:           linalg.transpose ins(%{{.*}} : tensor<2x8x32x4x4xi8>) outs(%{{.*}} : tensor<2x4x32x8x4xi8>)
// SM120:           gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m256n256k512_1x16_1x16_f32_t128x128 blocks
func.func @explicit_atoms(%a: !nvfp4.tensor<256x512, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>},
                          %b: !nvfp4.tensor<256x512, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>}) -> tensor<256x256xf32> {
  // REMARK: boundary-scale-layout.mlir:[[@LINE+1]]:8: remark: nvfp4: fallback: the producer warp loads and stores the row-major scales of operand #1 of the tcgen05 matmul instead of bulk-copying 128x4 atoms: argument #1 of @explicit_atoms has row-major scales at the function boundary (its nvfp4.scale_layout, or boundary-scale-layout=row-major)
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16> -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}

// -----

// What cannot be whole atoms stays row-major: 64 rows, K/16 = 2, 16x16
// blocks, MXFP4.
// CHECK-LABEL: func.func @ineligible(
// CHECK-NOT:     lowered_scale_layout
// CHECK-NOT:     linalg.transpose
// CHECK:         return %arg0, %arg1, %arg2, %arg3
func.func @ineligible(%a: !nvfp4.tensor<64x512, 1x16>, %b: !nvfp4.tensor<256x32, 1x16>,
                      %w: !nvfp4.tensor<256x512, 16x16>, %m: !nvfp4.tensor<256x512, 1x32, mxfp4>)
    -> (!nvfp4.tensor<64x512, 1x16>, !nvfp4.tensor<256x32, 1x16>, !nvfp4.tensor<256x512, 16x16>, !nvfp4.tensor<256x512, 1x32, mxfp4>) {
  return %a, %b, %w, %m : !nvfp4.tensor<64x512, 1x16>, !nvfp4.tensor<256x32, 1x16>, !nvfp4.tensor<256x512, 16x16>, !nvfp4.tensor<256x512, 1x32, mxfp4>
}

// -----

// An argument passed on as a result: atoms in, atoms out, untouched.
// CHECK-LABEL: func.func @pass_through(
// CHECK-SAME:      %[[A:[^:]*]]: !nvfp4.tensor<128x64, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>}) -> (!nvfp4.tensor<128x64, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>})
// CHECK-NOT:     linalg.transpose
// CHECK:         return %[[A]]
func.func @pass_through(%a: !nvfp4.tensor<128x64, 1x16>) -> !nvfp4.tensor<128x64, 1x16> {
  return %a : !nvfp4.tensor<128x64, 1x16>
}

