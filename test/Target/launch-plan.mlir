// The launch plan of programs lowered by nvfp4-to-ptx: values numbered in
// order of first use, named by where they come from (a function argument
// or a component of an NVFP4 one, a function result or a component of one,
// a temporary), then each launch with the dimensions, shared memory and
// argument numbers of its gpu.launch_func. Each value is checked against
// the kernel argument it was passed as.
//
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_90a" -o %t.sm90.mlir
// RUN: nvfp4-translate --nvfp4-extract-launch-plan %t.sm90.mlir \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: FileCheck %s --check-prefix=IR90 --input-file=%t.sm90.mlir
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_120a" \
// RUN:   | nvfp4-translate --nvfp4-extract-launch-plan \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SM120
// RUN: nvfp4-opt %s --nvfp4-to-ptx="target=sm_100a" \
// RUN:   | nvfp4-translate --nvfp4-extract-launch-plan \
// RUN:   | FileCheck %s --check-prefix=SM100

// On sm_100a the tcgen05 kernels take a tensor map after each operand's
// codes (and after the staged 16x16-block scales of B), their persistent
// grid is one CTA per SM up to one per tile, and A's scales arrive in
// atoms (the default for eligible arguments).
// SM100: # nvfp4 launch plan 2
// SM100-NEXT: function gemm
// SM100-NEXT: buffer 0 f4E2M1FN 256x512 arg0.data
// SM100-NEXT: tensormap 1 of 0 bytes 256x256 stride 256 box 128x128 swizzle 3
// SM100-NEXT: buffer 2 f8E4M3FN 256x32 arg0.scales atoms
// SM100-NEXT: scalar 3 f32 arg0.amax
// SM100-NEXT: buffer 4 f4E2M1FN 128x512 arg1.data
// SM100-NEXT: tensormap 5 of 4 bytes 256x128 stride 256 box 128x128 swizzle 3
// SM100-NEXT: buffer 6 f8E4M3FN 8x32 arg1.scales{{$}}
// SM100-NEXT: tensormap 7 of 6 bytes 32x8 stride 32 box 16x8 swizzle 0
// SM100-NEXT: scalar 8 f32 arg1.amax
// SM100-NEXT: buffer 9 f32 256x128 result0
// SM100-NEXT: launch nvfp4_tcgen05_matmul_m256n128k512_t128_1x16_16x16_f32_sfatoms_a_sfstaged_b grid min(sm_count,2) 1 1 block 224 1 1 cluster 1 1 1 shared {{[1-9][0-9]+}} args 0 1 2 3 4 5 6 7 8 9
// SM100-NEXT: end
// SM100-NEXT: function gemm_acc
// SM100: launch nvfp4_tcgen05_matmul_m64n64k256_t64_1x16_16x16_bf16_acc_sfstaged_b grid min(sm_count,1) 1 1 {{.*}} args 0 1 2 3 4 5 6 7 8 9 10
// SM100: function quantize

// CHECK: # nvfp4 launch plan 2
// CHECK-NEXT: function gemm
// CHECK-NEXT: buffer 0 f4E2M1FN 256x512 arg0.data
// CHECK-NEXT: buffer 1 f8E4M3FN 256x32 arg0.scales
// CHECK-NEXT: scalar 2 f32 arg0.amax
// CHECK-NEXT: buffer 3 f4E2M1FN 128x512 arg1.data
// CHECK-NEXT: buffer 4 f8E4M3FN 8x32 arg1.scales
// CHECK-NEXT: scalar 5 f32 arg1.amax
// CHECK-NEXT: buffer 6 f32 256x128 result0
// SM90-NEXT: launch nvfp4_matmul_m256n128k512_1x16_16x16_f32_t128x64 grid 2 2 1 block 256 1 1 cluster 1 1 1 shared 53376 args 0 1 2 3 4 5 6
// SM120-NEXT: launch nvfp4_matmul_m256n128k512_1x16_16x16_f32_t128x64 grid 2 2 1 block 256 1 1 cluster 1 1 1 shared 55488 args 0 1 2 3 4 5 6
// CHECK-NEXT: end
// IR90: %[[GX:.*]] = arith.constant 2 : index
// IR90: %[[SHARED:.*]] = arith.constant 53376 : i32
// IR90: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m256n128k512_1x16_16x16_f32_t128x64
// IR90-SAME: blocks in (%[[GX]],
// IR90-SAME: dynamic_shared_memory_size %[[SHARED]]
// IR90-SAME: args(%{{.*}} : memref<256x512xf4E2M1FN>, %{{.*}} : memref<256x32xf8E4M3FN>, %amax : f32, %{{.*}} : memref<128x512xf4E2M1FN>, %{{.*}} : memref<8x32xf8E4M3FN>, %amax_{{[0-9]+}} : f32, %alloc : memref<256x128xf32>)
func.func @gemm(%a: !nvfp4.tensor<256x512, 1x16>, %b: !nvfp4.tensor<128x512, 16x16>) -> tensor<256x128xf32> {
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x512, 1x16>, !nvfp4.tensor<128x512, 16x16> -> tensor<256x128xf32>
  return %c : tensor<256x128xf32>
}

// The second argument is the accumulator, the bf16 result the third
// buffer; the operands swap roles (B is the first argument).
// CHECK-NEXT: function gemm_acc
// CHECK-NEXT: buffer 0 f4E2M1FN 64x256 arg1.data
// CHECK-NEXT: buffer 1 f8E4M3FN 64x16 arg1.scales
// CHECK-NEXT: scalar 2 f32 arg1.amax
// CHECK-NEXT: buffer 3 f4E2M1FN 64x256 arg0.data
// CHECK-NEXT: buffer 4 f8E4M3FN 4x16 arg0.scales
// CHECK-NEXT: scalar 5 f32 arg0.amax
// CHECK-NEXT: buffer 6 bf16 64x64 arg2
// CHECK-NEXT: buffer 7 bf16 64x64 result0
// SM90-NEXT: launch nvfp4_matmul_m64n64k256_1x16_16x16_bf16_acc grid 1 1 1 block 128 1 1 cluster 1 1 1 shared 34944 args 0 1 2 3 4 5 6 7
// SM120-NEXT: launch nvfp4_matmul_m64n64k256_1x16_16x16_bf16_acc grid 1 1 1 block 128 1 1 cluster 1 1 1 shared 36032 args 0 1 2 3 4 5 6 7
// CHECK-NEXT: end
func.func @gemm_acc(%b: !nvfp4.tensor<64x256, 16x16>, %a: !nvfp4.tensor<64x256, 1x16>, %c: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %y = nvfp4.matmul %a, %b acc(%c : tensor<64x64xbf16>) : !nvfp4.tensor<64x256, 1x16>, !nvfp4.tensor<64x256, 16x16> -> tensor<64x64xbf16>
  return %y : tensor<64x64xbf16>
}

// Two launches share the input and the amax partials (a temporary); the
// codes, scales and amax are the components of the NVFP4 result.
// CHECK-NEXT: function quantize
// CHECK-NEXT: buffer 0 f32 64x128 arg0
// CHECK-NEXT: buffer 1 f32 4 temp
// CHECK-NEXT: launch nvfp4_amax_64x128_f32 grid 4 1 1 block 128 1 1 cluster 1 1 1 shared 0 args 0 1
// CHECK-NEXT: buffer 2 f4E2M1FN 64x128 result0.data
// CHECK-NEXT: buffer 3 f8E4M3FN 4x8 result0.scales
// CHECK-NEXT: buffer 4 f32 1 result0.amax
// CHECK-NEXT: launch nvfp4_quantize_64x128_16x16_f32_rn grid 4 1 1 block 128 1 1 cluster 1 1 1 shared 0 args 0 1 2 3 4
// CHECK-NEXT: end
// CHECK-NOT: {{.}}
func.func @quantize(%x: tensor<64x128xf32>) -> !nvfp4.tensor<64x128, 16x16> {
  %q = nvfp4.quantize %x : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 16x16>
  return %q : !nvfp4.tensor<64x128, 16x16>
}

// A function without launches has no plan.
func.func @host_only(%x: f32) -> f32 {
  return %x : f32
}
