// NVFP4 values crossing function boundaries with their scales in the 128x4
// atoms layout (nvfp4.scale_layout, the default of the tcgen05 targets):
// the quantize kernels write the results of @quantize in atoms, @gemm's
// matmul kernel reads both arguments' atoms by bulk copies, and every other
// reader gets the scales relaid out to row-major on the host: @dequantize's
// kernel, @gemm_rm's argument declared row-major (relaid out at the call),
// @to_row_major's result declared row-major, and main's own disassemble of
// a call result; @from_row_major relays its row-major argument out into the
// atoms of its result (explicitly atoms, also on sm_120a and on the CPU).
// Every byte main prints (GEMM results and dequantized values as f32 bits,
// the codes and scales of the row-major result) equals the CPU reference
// lowering's, on sm_100a with atoms (1-CTA kernels, and the CTA pair, whose
// CTAs each copy the atoms of all B rows) and with
// boundary-scale-layout=row-major, and on sm_120a (no atoms).
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v "base@" > %t.cpu
// RUN: for options in "target=sm_100a" "target=sm_100a tcgen05-cta-pair=on" "target=sm_100a boundary-scale-layout=row-major" "target=sm_120a"; do \
// RUN:   nvfp4-opt %s --nvfp4-to-gpu-emulation="$options" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | grep -v "base@" > %t.gpu || exit 1; \
// RUN:   cmp %t.cpu %t.gpu || exit 1; \
// RUN: done
// RUN: FileCheck %s --input-file=%t.cpu
// CHECK-COUNT-8: {{^}}[
//
// What runs where on sm_100a: the atoms kernels, and the host relayouts.
// The lowering implements the layouts and drops the attributes.
// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu=target=sm_100a | FileCheck %s --check-prefix=LOWERED --implicit-check-not="nvfp4.scale_layout ="
// LOWERED-LABEL: func.func @quantize(
// LOWERED:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_256x512_1x16_f32_rn_sfatoms
// LOWERED-NOT:     linalg.transpose
// LOWERED-LABEL: func.func @gemm(
// LOWERED-NOT:     linalg.transpose
// LOWERED:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32_sfatoms_ab
// LOWERED-LABEL: func.func @gemm_rm(
// LOWERED-NOT:     linalg.transpose
// LOWERED:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32_sfatoms_b
// LOWERED-LABEL: func.func @dequantize(
// LOWERED:         linalg.transpose ins(%{{.*}} : tensor<2x8x32x4x4xi8>) outs(%{{.*}} : tensor<2x4x32x8x4xi8>) permutation = [0, 3, 2, 1, 4]
// LOWERED:         gpu.launch_func @nvfp4_kernels::@nvfp4_dequantize_256x512_1x16_f32
// LOWERED-LABEL: func.func @to_row_major(
// LOWERED:         linalg.transpose ins(%{{.*}} : tensor<2x8x32x4x4xi8>) outs(%{{.*}} : tensor<2x4x32x8x4xi8>) permutation = [0, 3, 2, 1, 4]
// LOWERED-LABEL: func.func @from_row_major(
// LOWERED:         linalg.transpose ins(%{{.*}} : tensor<2x4x32x8x4xi8>) outs(%{{.*}} : tensor<2x8x32x4x4xi8>) permutation = [0, 3, 2, 1, 4]
// LOWERED:         return
// main: each call result arrives in atoms; @gemm, @dequantize and
// @to_row_major take its components unchanged, @gemm_rm and main's own
// disassemble a row-major copy, main's matmul reads it as atoms.
// LOWERED-LABEL: func.func @main(
// LOWERED:         %[[QA:.*]] = call @quantize(
// LOWERED:         %[[AD:.*]], %[[AS:.*]], %[[AG:.*]] = nvfp4.disassemble %[[QA]]
// LOWERED:         arith.bitcast %[[AS]] : tensor<256x32xf8E4M3FN> to tensor<256x32xi8>
// LOWERED:         linalg.transpose ins(%{{.*}} : tensor<2x8x32x4x4xi8>) outs(%{{.*}} : tensor<2x4x32x8x4xi8>) permutation = [0, 3, 2, 1, 4]
// LOWERED:         %[[QARM:.*]] = nvfp4.assemble %[[AD]], %{{.*}}, %[[AG]]
// LOWERED:         %[[QB:.*]] = call @quantize(
// LOWERED:         call @gemm(%[[QA]], %[[QB]])
// LOWERED:         nvfp4.disassemble %[[QARM]]
// LOWERED:         call @gemm_rm(%[[QARM]], %[[QB]])
// LOWERED:         call @dequantize(%[[QA]])
// LOWERED:         call @to_row_major(%[[QB]])
// LOWERED:         %[[AS_BUF:.*]] = bufferization.to_buffer %[[AS]] read_only
// LOWERED:         gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m256n256k512_t256_1x16_1x16_f32_sfatoms_a
// LOWERED-SAME:      %[[AS_BUF]] : memref<256x32xf8E4M3FN>, %[[AG]] : f32

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>)

func.func @quantize(%x: tensor<256x512xf32>) -> !nvfp4.tensor<256x512, 1x16> {
  %q = nvfp4.quantize %x : tensor<256x512xf32> -> !nvfp4.tensor<256x512, 1x16>
  return %q : !nvfp4.tensor<256x512, 1x16>
}
func.func @gemm(%a: !nvfp4.tensor<256x512, 1x16>, %b: !nvfp4.tensor<256x512, 1x16>) -> tensor<256x256xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16> -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}
func.func @gemm_rm(%a: !nvfp4.tensor<256x512, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>},
                   %b: !nvfp4.tensor<256x512, 1x16>) -> tensor<256x256xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16> -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}
func.func @dequantize(%a: !nvfp4.tensor<256x512, 1x16>) -> tensor<256x512xf32> {
  %x = nvfp4.dequantize %a : !nvfp4.tensor<256x512, 1x16> -> tensor<256x512xf32>
  return %x : tensor<256x512xf32>
}
func.func @to_row_major(%a: !nvfp4.tensor<256x512, 1x16>)
    -> (!nvfp4.tensor<256x512, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>}) {
  return %a : !nvfp4.tensor<256x512, 1x16>
}

func.func @from_row_major(%a: !nvfp4.tensor<256x512, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>})
    -> (!nvfp4.tensor<256x512, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>}) {
  return %a : !nvfp4.tensor<256x512, 1x16>
}

func.func @print_f32_bits(%t: tensor<256x256xf32>) {
  %bits = arith.bitcast %t : tensor<256x256xf32> to tensor<256x256xi32>
  %m = bufferization.to_buffer %bits : tensor<256x256xi32> to memref<256x256xi32>
  %u = memref.cast %m : memref<256x256xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}
func.func @print_scales(%s: tensor<256x32xf8E4M3FN>) {
  %s8 = arith.bitcast %s : tensor<256x32xf8E4M3FN> to tensor<256x32xi8>
  %s32 = arith.extui %s8 : tensor<256x32xi8> to tensor<256x32xi32>
  %m = bufferization.to_buffer %s32 : tensor<256x32xi32> to memref<256x32xi32>
  %u = memref.cast %m : memref<256x32xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func @main() {
  %mode = arith.constant 0 : i32
  %xm = memref.alloc() : memref<256x512xf32>
  %xu = memref.cast %xm : memref<256x512xf32> to memref<*xf32>
  %xs = arith.constant 11 : i64
  call @nvfp4RtFill(%xu, %xs, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<256x512xf32> to tensor<256x512xf32>
  %wm = memref.alloc() : memref<256x512xf32>
  %wu = memref.cast %wm : memref<256x512xf32> to memref<*xf32>
  %ws = arith.constant 12 : i64
  call @nvfp4RtFill(%wu, %ws, %mode) : (memref<*xf32>, i64, i32) -> ()
  %w = bufferization.to_tensor %wm restrict : memref<256x512xf32> to tensor<256x512xf32>

  %qa = call @quantize(%x) : (tensor<256x512xf32>) -> !nvfp4.tensor<256x512, 1x16>
  %qb = call @quantize(%w) : (tensor<256x512xf32>) -> !nvfp4.tensor<256x512, 1x16>
  %c = call @gemm(%qa, %qb) : (!nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16>) -> tensor<256x256xf32>
  call @print_f32_bits(%c) : (tensor<256x256xf32>) -> ()
  // main's own view of a call result: row-major scales.
  %d, %s, %g = nvfp4.disassemble %qa : !nvfp4.tensor<256x512, 1x16>
  call @print_scales(%s) : (tensor<256x32xf8E4M3FN>) -> ()
  %crm = call @gemm_rm(%qa, %qb) : (!nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16>) -> tensor<256x256xf32>
  call @print_f32_bits(%crm) : (tensor<256x256xf32>) -> ()
  %deq = call @dequantize(%qa) : (!nvfp4.tensor<256x512, 1x16>) -> tensor<256x512xf32>
  %deqbits = arith.bitcast %deq : tensor<256x512xf32> to tensor<256x512xi32>
  %dm = bufferization.to_buffer %deqbits : tensor<256x512xi32> to memref<256x512xi32>
  %du = memref.cast %dm : memref<256x512xi32> to memref<*xi32>
  call @printMemrefI32(%du) : (memref<*xi32>) -> ()
  %r = call @to_row_major(%qb) : (!nvfp4.tensor<256x512, 1x16>) -> !nvfp4.tensor<256x512, 1x16>
  %rd, %rs, %rg = nvfp4.disassemble %r : !nvfp4.tensor<256x512, 1x16>
  call @print_scales(%rs) : (tensor<256x32xf8E4M3FN>) -> ()
  %rd4 = arith.bitcast %rd : tensor<256x512xf4E2M1FN> to tensor<256x512xi4>
  %rd32 = arith.extui %rd4 : tensor<256x512xi4> to tensor<256x512xi32>
  %rdm = bufferization.to_buffer %rd32 : tensor<256x512xi32> to memref<256x512xi32>
  %rdu = memref.cast %rdm : memref<256x512xi32> to memref<*xi32>
  call @printMemrefI32(%rdu) : (memref<*xi32>) -> ()
  // A matmul in main of a call result and a row-major value.
  %cm = nvfp4.matmul %qa, %r : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16> -> tensor<256x256xf32>
  call @print_f32_bits(%cm) : (tensor<256x256xf32>) -> ()
  // Back into atoms (explicitly, on every target), read by main's matmul.
  %back = call @from_row_major(%r) : (!nvfp4.tensor<256x512, 1x16>) -> !nvfp4.tensor<256x512, 1x16>
  %cb = nvfp4.matmul %back, %qa : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<256x512, 1x16> -> tensor<256x256xf32>
  call @print_f32_bits(%cb) : (tensor<256x256xf32>) -> ()
  return
}
