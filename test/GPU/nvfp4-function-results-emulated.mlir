// A function compiled for the GPU that returns an NVFP4 tensor its quantize
// kernel wrote: the kernel's E2M1 / E4M3 outputs that host code reads are
// allocated as packed bytes (the kernel writes them through a memref.view)
// and unpacked on the host into the codes the reference lowering takes
// (nvfp4-gpu-pack-launch-operands). The caller reads the codes, the scales
// and the amax, and dequantizes the result with the GPU kernel; all equal
// the CPU reference lowering's bytes.
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v "base@" > %t.cpu
// RUN: for target in sm_120a sm_100a sm_90a; do \
// RUN:   nvfp4-opt %s --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | grep -v "base@" > %t.gpu || exit 1; \
// RUN:   cmp %t.cpu %t.gpu || exit 1; \
// RUN: done
// RUN: FileCheck %s --input-file=%t.cpu
// CHECK-COUNT-4: {{^}}[
// RUN: nvfp4-opt %s --nvfp4-to-ptx=target=sm_120a \
// RUN: | nvfp4-opt --nvfp4-gpu-pack-launch-operands | FileCheck %s --check-prefix=PACK
// PACK-LABEL: func.func @quantize_weight(
// PACK:         %[[BYTES:.*]] = memref.alloc() {alignment = 16 : i64} : memref<4096xi8>
// PACK:         %[[VIEW:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<4096xi8> to memref<64x128xf4E2M1FN>
// PACK:         %[[SBYTES:.*]] = memref.alloc() {alignment = 16 : i64} : memref<32xi8>
// PACK:         %[[SVIEW:.*]] = memref.view %[[SBYTES]][%{{.*}}][] : memref<32xi8> to memref<4x8xf8E4M3FN>
// PACK:         gpu.launch_func @nvfp4_kernels::@nvfp4_quantize_64x128_16x16_f32_rn {{.*}}, %[[VIEW]] : memref<64x128xf4E2M1FN>, %[[SVIEW]] : memref<4x8xf8E4M3FN>,
// PACK:         %[[PACKED:.*]] = bufferization.to_tensor %[[BYTES]] restrict writable : memref<4096xi8> to tensor<4096xi8>
// PACK:         %[[LO:.*]] = arith.andi %[[PACKED]]
// PACK:         %[[HI:.*]] = arith.shrui %[[PACKED]]
// PACK:         %[[EVEN:.*]] = tensor.insert_slice %[[LO]] into %{{.*}}[0] [4096] [2]
// PACK:         %[[CODES:.*]] = tensor.insert_slice %[[HI]] into %[[EVEN]][1] [4096] [2]
// PACK:         %[[SHAPED:.*]] = tensor.expand_shape %[[CODES]] {{\[\[}}0, 1]] output_shape [64, 128]
// PACK:         %[[I4:.*]] = arith.trunci %[[SHAPED]] : tensor<64x128xi8> to tensor<64x128xi4>
// PACK:         %[[DATA:.*]] = arith.bitcast %[[I4]] : tensor<64x128xi4> to tensor<64x128xf4E2M1FN>
// PACK:         %[[SPACKED:.*]] = bufferization.to_tensor %[[SBYTES]]
// PACK:         %[[SSHAPED:.*]] = tensor.expand_shape %[[SPACKED]]
// PACK:         %[[SCALES:.*]] = arith.bitcast %[[SSHAPED]] : tensor<4x8xi8> to tensor<4x8xf8E4M3FN>
// PACK:         nvfp4.assemble %[[DATA]], %[[SCALES]], %{{.*}}

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>)
func.func private @printMemrefF32(memref<*xf32>)
func.func @quantize_weight(%x: tensor<64x128xf32>) -> !nvfp4.tensor<64x128, 16x16> {
  %q = nvfp4.quantize %x : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 16x16>
  return %q : !nvfp4.tensor<64x128, 16x16>
}
func.func @main() {
  %m = memref.alloc() : memref<64x128xf32>
  %u = memref.cast %m : memref<64x128xf32> to memref<*xf32>
  %s = arith.constant 5 : i64
  %mode = arith.constant 0 : i32
  call @nvfp4RtFill(%u, %s, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %m restrict : memref<64x128xf32> to tensor<64x128xf32>
  %q = call @quantize_weight(%x) : (tensor<64x128xf32>) -> !nvfp4.tensor<64x128, 16x16>
  %data, %scales, %amax = nvfp4.disassemble %q : !nvfp4.tensor<64x128, 16x16>
  %d4 = arith.bitcast %data : tensor<64x128xf4E2M1FN> to tensor<64x128xi4>
  %d32 = arith.extui %d4 : tensor<64x128xi4> to tensor<64x128xi32>
  %s8 = arith.bitcast %scales : tensor<4x8xf8E4M3FN> to tensor<4x8xi8>
  %s32 = arith.extui %s8 : tensor<4x8xi8> to tensor<4x8xi32>
  %dm = bufferization.to_buffer %d32 : tensor<64x128xi32> to memref<64x128xi32>
  %du = memref.cast %dm : memref<64x128xi32> to memref<*xi32>
  call @printMemrefI32(%du) : (memref<*xi32>) -> ()
  %sm = bufferization.to_buffer %s32 : tensor<4x8xi32> to memref<4x8xi32>
  %su = memref.cast %sm : memref<4x8xi32> to memref<*xi32>
  call @printMemrefI32(%su) : (memref<*xi32>) -> ()
  %am = memref.alloc() : memref<1xf32>
  %c0 = arith.constant 0 : index
  memref.store %amax, %am[%c0] : memref<1xf32>
  %au = memref.cast %am : memref<1xf32> to memref<*xf32>
  call @printMemrefF32(%au) : (memref<*xf32>) -> ()
  %deq = nvfp4.dequantize %q : !nvfp4.tensor<64x128, 16x16> -> tensor<64x128xf32>
  %bits = arith.bitcast %deq : tensor<64x128xf32> to tensor<64x128xi32>
  %bm = bufferization.to_buffer %bits : tensor<64x128xi32> to memref<64x128xi32>
  %bu = memref.cast %bm : memref<64x128xi32> to memref<*xi32>
  call @printMemrefI32(%bu) : (memref<*xi32>) -> ()
  return
}
