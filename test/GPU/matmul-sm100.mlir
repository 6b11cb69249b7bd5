// nvfp4.matmul on an sm_100 GPU (B200 / GB200) through
// nvfp4-to-gpu-executable{target=sm_100a} and libnvfp4_cuda_runtime: the
// persistent, warp-specialized tcgen05 kernel with TMA loads, checked
// against the reference GEMM within the accumulation-order bound of
// docs/gpu-runtime.md, once with the kernels as PTX (JIT-compiled by the
// driver), once as a cubin from ptxas, and once more as PTX with
// tcgen05-cta-pair=off, which puts every case on the 1-CTA kernel. Needs a
// GPU of compute capability 10.0; lit reports it UNSUPPORTED elsewhere.
//
// The cases cover the three tile widths and the pipeline's corners:
//  0. 256 x 512 x 1024, 1x16 x 16x16, f32: the 128x256 tile (4 stages, one
//     accumulator), K tiles = stages;
//  1. 2 x 128 x 384 x 512, bf16 result and bf16 accumulator input: the
//     128x128 tile (6 stages, two accumulators), the batch in the rows of
//     the tensor maps;
//  2. 16384 x 192 x 256, 16x16 x 1x16, f32: the 64-wide tile and one K tile
//     per tile, so that the 6 stages rotate across tiles, and every CTA (or
//     cluster) of the persistent grid computes two or more tiles (the
//     accumulators alternate): 384 tiles of 128x64 with
//     tcgen05-cta-pair=off, 192 CTA-pair tiles of 256x64 with the default
//     (auto);
//  3. 128 x 128 x 2560 with an f32 accumulator input: 10 K tiles through
//     6 stages (the phases wrap within a tile);
//
// and, with the default tcgen05-cta-pair=auto (M a multiple of 256 and at
// least 74 tiles of 256 x N), the CTA pair (cta_group::2, clusters of two
// CTAs) besides case 2:
//  4. 2048 x 2560 x 512, 1x16 x 16x16, f32: 80 tiles of 256x256 (each CTA
//     loads its 128 rows of A and 128 of the 256 B rows and stores the
//     scales of all 256 B rows, two atoms per MMA; 5 stages, one
//     accumulator);
//  5. 6400 x 192 x 1792, 16x16 x 1x16, bf16 result and bf16 accumulator
//     input: 75 tiles of 256x64 (B halves of 32 rows; 6 stages, two
//     accumulators), 7 K tiles through 6 stages (the phases of the leader's
//     full barrier, which counts both CTAs' lanes and bytes, wrap within a
//     tile).
//
// REQUIRES: gpu, gpu-sm_100, nvfp4-cuda-runtime, ptxas
// RUN: nvfp4-opt %s --nvfp4-to-gpu-executable="target=sm_100a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %s
// RUN: nvfp4-opt %s \
// RUN:   --nvfp4-to-gpu-executable="target=sm_100a format=bin cuda-path=%cuda_path" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-gpu-executable="target=sm_100a tcgen05-cta-pair=off" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | FileCheck %s

// CHECK: gpu matmul [256x1024] x [512x1024]: outside bound 0 (of 131072)
// CHECK: gpu matmul [2x128x512] x [2x384x512] acc bf16: outside bound 0 (of 98304)
// CHECK: gpu matmul [16384x256] x [192x256]: outside bound 0 (of 3145728)
// CHECK: gpu matmul [128x2560] x [128x2560] acc: outside bound 0 (of 16384)
// CHECK: gpu matmul [2048x512] x [2560x512]: outside bound 0 (of 5242880)
// CHECK: gpu matmul [6400x1792] x [192x1792] acc bf16: outside bound 0 (of 1228800)
// CHECK-NOT: outside bound

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4RtQuantizeReference(memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmul(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMatmulBF16(memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64 attributes {llvm.emit_c_interface}

func.func @matmul_0() {
  %xm = memref.alloc() : memref<256x1024xf32>
  %xu = memref.cast %xm : memref<256x1024xf32> to memref<*xf32>
  %xseed = arith.constant 200 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<512x1024xf32>
  %wu = memref.cast %wm : memref<512x1024xf32> to memref<*xf32>
  %wseed = arith.constant 201 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<256x1024xi8>
  %asm = memref.alloc() : memref<256x64xi8>
  %adu = memref.cast %adm : memref<256x1024xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<256x64xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<256x1024xi8> to tensor<256x1024xi8>
  %ad4 = arith.trunci %ad8 : tensor<256x1024xi8> to tensor<256x1024xi4>
  %ad = arith.bitcast %ad4 : tensor<256x1024xi4> to tensor<256x1024xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<256x64xi8> to tensor<256x64xi8>
  %as = arith.bitcast %as8 : tensor<256x64xi8> to tensor<256x64xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<256x1024xf4E2M1FN>, tensor<256x64xf8E4M3FN> -> !nvfp4.tensor<256x1024, 1x16>
  %bdm = memref.alloc() : memref<512x1024xi8>
  %bsm = memref.alloc() : memref<32x64xi8>
  %bdu = memref.cast %bdm : memref<512x1024xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<32x64xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<512x1024xi8> to tensor<512x1024xi8>
  %bd4 = arith.trunci %bd8 : tensor<512x1024xi8> to tensor<512x1024xi4>
  %bd = arith.bitcast %bd4 : tensor<512x1024xi4> to tensor<512x1024xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<32x64xi8> to tensor<32x64xi8>
  %bs = arith.bitcast %bs8 : tensor<32x64xi8> to tensor<32x64xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<512x1024xf4E2M1FN>, tensor<32x64xf8E4M3FN> -> !nvfp4.tensor<512x1024, 16x16>
  %cm = memref.alloc() : memref<256x512xf32>
  %cu = memref.cast %cm : memref<256x512xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<256x1024, 1x16>, !nvfp4.tensor<512x1024, 16x16> -> tensor<256x512xf32>
  %ym = bufferization.to_buffer %y : tensor<256x512xf32> to memref<256x512xf32>
  %yu = memref.cast %ym : memref<256x512xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_1() {
  %xm = memref.alloc() : memref<2x128x512xf32>
  %xu = memref.cast %xm : memref<2x128x512xf32> to memref<*xf32>
  %xseed = arith.constant 210 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<2x384x512xf32>
  %wu = memref.cast %wm : memref<2x384x512xf32> to memref<*xf32>
  %wseed = arith.constant 211 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<2x128x512xi8>
  %asm = memref.alloc() : memref<2x128x32xi8>
  %adu = memref.cast %adm : memref<2x128x512xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2x128x32xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<2x128x512xi8> to tensor<2x128x512xi8>
  %ad4 = arith.trunci %ad8 : tensor<2x128x512xi8> to tensor<2x128x512xi4>
  %ad = arith.bitcast %ad4 : tensor<2x128x512xi4> to tensor<2x128x512xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<2x128x32xi8> to tensor<2x128x32xi8>
  %as = arith.bitcast %as8 : tensor<2x128x32xi8> to tensor<2x128x32xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<2x128x512xf4E2M1FN>, tensor<2x128x32xf8E4M3FN> -> !nvfp4.tensor<2x128x512, 1x16>
  %bdm = memref.alloc() : memref<2x384x512xi8>
  %bsm = memref.alloc() : memref<2x24x32xi8>
  %bdu = memref.cast %bdm : memref<2x384x512xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<2x24x32xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<2x384x512xi8> to tensor<2x384x512xi8>
  %bd4 = arith.trunci %bd8 : tensor<2x384x512xi8> to tensor<2x384x512xi4>
  %bd = arith.bitcast %bd4 : tensor<2x384x512xi4> to tensor<2x384x512xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<2x24x32xi8> to tensor<2x24x32xi8>
  %bs = arith.bitcast %bs8 : tensor<2x24x32xi8> to tensor<2x24x32xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<2x384x512xf4E2M1FN>, tensor<2x24x32xf8E4M3FN> -> !nvfp4.tensor<2x384x512, 16x16>
  %cm = memref.alloc() : memref<2x128x384xf32>
  %cu = memref.cast %cm : memref<2x128x384xf32> to memref<*xf32>
  %cseed = arith.constant 212 : i64
  %cmode = arith.constant 0 : i32
  call @nvfp4RtFill(%cu, %cseed, %cmode) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<2x128x384xf32> to tensor<2x128x384xf32>
  %cb = arith.truncf %c : tensor<2x128x384xf32> to tensor<2x128x384xbf16>
  %cw = arith.extf %cb : tensor<2x128x384xbf16> to tensor<2x128x384xf32>
  %cwm = bufferization.to_buffer %cw : tensor<2x128x384xf32> to memref<2x128x384xf32>
  %cwu = memref.cast %cwm : memref<2x128x384xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb acc(%cb : tensor<2x128x384xbf16>) : !nvfp4.tensor<2x128x512, 1x16>, !nvfp4.tensor<2x384x512, 16x16> -> tensor<2x128x384xbf16>
  %yb = arith.bitcast %y : tensor<2x128x384xbf16> to tensor<2x128x384xi16>
  %ym = bufferization.to_buffer %yb : tensor<2x128x384xi16> to memref<2x128x384xi16>
  %yu = memref.cast %ym : memref<2x128x384xi16> to memref<*xi16>
  %hasacc = arith.constant 1 : i32
  %n = call @nvfp4GpuCheckMatmulBF16(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cwu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64
  return
}
func.func @matmul_2() {
  %xm = memref.alloc() : memref<16384x256xf32>
  %xu = memref.cast %xm : memref<16384x256xf32> to memref<*xf32>
  %xseed = arith.constant 220 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<192x256xf32>
  %wu = memref.cast %wm : memref<192x256xf32> to memref<*xf32>
  %wseed = arith.constant 221 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<16384x256xi8>
  %asm = memref.alloc() : memref<1024x16xi8>
  %adu = memref.cast %adm : memref<16384x256xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<1024x16xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<16384x256xi8> to tensor<16384x256xi8>
  %ad4 = arith.trunci %ad8 : tensor<16384x256xi8> to tensor<16384x256xi4>
  %ad = arith.bitcast %ad4 : tensor<16384x256xi4> to tensor<16384x256xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<1024x16xi8> to tensor<1024x16xi8>
  %as = arith.bitcast %as8 : tensor<1024x16xi8> to tensor<1024x16xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<16384x256xf4E2M1FN>, tensor<1024x16xf8E4M3FN> -> !nvfp4.tensor<16384x256, 16x16>
  %bdm = memref.alloc() : memref<192x256xi8>
  %bsm = memref.alloc() : memref<192x16xi8>
  %bdu = memref.cast %bdm : memref<192x256xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<192x16xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<192x256xi8> to tensor<192x256xi8>
  %bd4 = arith.trunci %bd8 : tensor<192x256xi8> to tensor<192x256xi4>
  %bd = arith.bitcast %bd4 : tensor<192x256xi4> to tensor<192x256xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<192x16xi8> to tensor<192x16xi8>
  %bs = arith.bitcast %bs8 : tensor<192x16xi8> to tensor<192x16xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<192x256xf4E2M1FN>, tensor<192x16xf8E4M3FN> -> !nvfp4.tensor<192x256, 1x16>
  %cm = memref.alloc() : memref<16384x192xf32>
  %cu = memref.cast %cm : memref<16384x192xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<16384x256, 16x16>, !nvfp4.tensor<192x256, 1x16> -> tensor<16384x192xf32>
  %ym = bufferization.to_buffer %y : tensor<16384x192xf32> to memref<16384x192xf32>
  %yu = memref.cast %ym : memref<16384x192xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_3() {
  %xm = memref.alloc() : memref<128x2560xf32>
  %xu = memref.cast %xm : memref<128x2560xf32> to memref<*xf32>
  %xseed = arith.constant 230 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<128x2560xf32>
  %wu = memref.cast %wm : memref<128x2560xf32> to memref<*xf32>
  %wseed = arith.constant 231 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<128x2560xi8>
  %asm = memref.alloc() : memref<128x160xi8>
  %adu = memref.cast %adm : memref<128x2560xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<128x160xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<128x2560xi8> to tensor<128x2560xi8>
  %ad4 = arith.trunci %ad8 : tensor<128x2560xi8> to tensor<128x2560xi4>
  %ad = arith.bitcast %ad4 : tensor<128x2560xi4> to tensor<128x2560xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<128x160xi8> to tensor<128x160xi8>
  %as = arith.bitcast %as8 : tensor<128x160xi8> to tensor<128x160xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<128x2560xf4E2M1FN>, tensor<128x160xf8E4M3FN> -> !nvfp4.tensor<128x2560, 1x16>
  %bdm = memref.alloc() : memref<128x2560xi8>
  %bsm = memref.alloc() : memref<128x160xi8>
  %bdu = memref.cast %bdm : memref<128x2560xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<128x160xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<128x2560xi8> to tensor<128x2560xi8>
  %bd4 = arith.trunci %bd8 : tensor<128x2560xi8> to tensor<128x2560xi4>
  %bd = arith.bitcast %bd4 : tensor<128x2560xi4> to tensor<128x2560xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<128x160xi8> to tensor<128x160xi8>
  %bs = arith.bitcast %bs8 : tensor<128x160xi8> to tensor<128x160xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<128x2560xf4E2M1FN>, tensor<128x160xf8E4M3FN> -> !nvfp4.tensor<128x2560, 1x16>
  %cm = memref.alloc() : memref<128x128xf32>
  %cu = memref.cast %cm : memref<128x128xf32> to memref<*xf32>
  %cseed = arith.constant 232 : i64
  %cmode = arith.constant 0 : i32
  call @nvfp4RtFill(%cu, %cseed, %cmode) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<128x128xf32> to tensor<128x128xf32>
  %y = nvfp4.matmul %qa, %qb acc(%c : tensor<128x128xf32>) : !nvfp4.tensor<128x2560, 1x16>, !nvfp4.tensor<128x2560, 1x16> -> tensor<128x128xf32>
  %ym = bufferization.to_buffer %y : tensor<128x128xf32> to memref<128x128xf32>
  %yu = memref.cast %ym : memref<128x128xf32> to memref<*xf32>
  %hasacc = arith.constant 1 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_4() {
  %xm = memref.alloc() : memref<2048x512xf32>
  %xu = memref.cast %xm : memref<2048x512xf32> to memref<*xf32>
  %xseed = arith.constant 240 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<2560x512xf32>
  %wu = memref.cast %wm : memref<2560x512xf32> to memref<*xf32>
  %wseed = arith.constant 241 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<2048x512xi8>
  %asm = memref.alloc() : memref<2048x32xi8>
  %adu = memref.cast %adm : memref<2048x512xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<2048x32xi8> to memref<*xi8>
  %aR = arith.constant 1 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<2048x512xi8> to tensor<2048x512xi8>
  %ad4 = arith.trunci %ad8 : tensor<2048x512xi8> to tensor<2048x512xi4>
  %ad = arith.bitcast %ad4 : tensor<2048x512xi4> to tensor<2048x512xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<2048x32xi8> to tensor<2048x32xi8>
  %as = arith.bitcast %as8 : tensor<2048x32xi8> to tensor<2048x32xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<2048x512xf4E2M1FN>, tensor<2048x32xf8E4M3FN> -> !nvfp4.tensor<2048x512, 1x16>
  %bdm = memref.alloc() : memref<2560x512xi8>
  %bsm = memref.alloc() : memref<160x32xi8>
  %bdu = memref.cast %bdm : memref<2560x512xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<160x32xi8> to memref<*xi8>
  %bR = arith.constant 16 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<2560x512xi8> to tensor<2560x512xi8>
  %bd4 = arith.trunci %bd8 : tensor<2560x512xi8> to tensor<2560x512xi4>
  %bd = arith.bitcast %bd4 : tensor<2560x512xi4> to tensor<2560x512xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<160x32xi8> to tensor<160x32xi8>
  %bs = arith.bitcast %bs8 : tensor<160x32xi8> to tensor<160x32xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<2560x512xf4E2M1FN>, tensor<160x32xf8E4M3FN> -> !nvfp4.tensor<2560x512, 16x16>
  %cm = memref.alloc() : memref<2048x2560xf32>
  %cu = memref.cast %cm : memref<2048x2560xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<2048x512, 1x16>, !nvfp4.tensor<2560x512, 16x16> -> tensor<2048x2560xf32>
  %ym = bufferization.to_buffer %y : tensor<2048x2560xf32> to memref<2048x2560xf32>
  %yu = memref.cast %ym : memref<2048x2560xf32> to memref<*xf32>
  %hasacc = arith.constant 0 : i32
  %n = call @nvfp4GpuCheckMatmul(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xf32>) -> i64
  return
}
func.func @matmul_5() {
  %xm = memref.alloc() : memref<6400x1792xf32>
  %xu = memref.cast %xm : memref<6400x1792xf32> to memref<*xf32>
  %xseed = arith.constant 250 : i64
  %xmode = arith.constant 0 : i32
  call @nvfp4RtFill(%xu, %xseed, %xmode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<192x1792xf32>
  %wu = memref.cast %wm : memref<192x1792xf32> to memref<*xf32>
  %wseed = arith.constant 251 : i64
  %wmode = arith.constant 0 : i32
  call @nvfp4RtFill(%wu, %wseed, %wmode) : (memref<*xf32>, i64, i32) -> ()
  %threads = arith.constant 1 : i32
  %adm = memref.alloc() : memref<6400x1792xi8>
  %asm = memref.alloc() : memref<400x112xi8>
  %adu = memref.cast %adm : memref<6400x1792xi8> to memref<*xi8>
  %asu = memref.cast %asm : memref<400x112xi8> to memref<*xi8>
  %aR = arith.constant 16 : i64
  %ag = call @nvfp4RtQuantizeReference(%xu, %adu, %asu, %aR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %ad8 = bufferization.to_tensor %adm restrict : memref<6400x1792xi8> to tensor<6400x1792xi8>
  %ad4 = arith.trunci %ad8 : tensor<6400x1792xi8> to tensor<6400x1792xi4>
  %ad = arith.bitcast %ad4 : tensor<6400x1792xi4> to tensor<6400x1792xf4E2M1FN>
  %as8 = bufferization.to_tensor %asm restrict : memref<400x112xi8> to tensor<400x112xi8>
  %as = arith.bitcast %as8 : tensor<400x112xi8> to tensor<400x112xf8E4M3FN>
  %qa = nvfp4.assemble %ad, %as, %ag : tensor<6400x1792xf4E2M1FN>, tensor<400x112xf8E4M3FN> -> !nvfp4.tensor<6400x1792, 16x16>
  %bdm = memref.alloc() : memref<192x1792xi8>
  %bsm = memref.alloc() : memref<192x112xi8>
  %bdu = memref.cast %bdm : memref<192x1792xi8> to memref<*xi8>
  %bsu = memref.cast %bsm : memref<192x112xi8> to memref<*xi8>
  %bR = arith.constant 1 : i64
  %bg = call @nvfp4RtQuantizeReference(%wu, %bdu, %bsu, %bR, %threads) : (memref<*xf32>, memref<*xi8>, memref<*xi8>, i64, i32) -> f32
  %bd8 = bufferization.to_tensor %bdm restrict : memref<192x1792xi8> to tensor<192x1792xi8>
  %bd4 = arith.trunci %bd8 : tensor<192x1792xi8> to tensor<192x1792xi4>
  %bd = arith.bitcast %bd4 : tensor<192x1792xi4> to tensor<192x1792xf4E2M1FN>
  %bs8 = bufferization.to_tensor %bsm restrict : memref<192x112xi8> to tensor<192x112xi8>
  %bs = arith.bitcast %bs8 : tensor<192x112xi8> to tensor<192x112xf8E4M3FN>
  %qb = nvfp4.assemble %bd, %bs, %bg : tensor<192x1792xf4E2M1FN>, tensor<192x112xf8E4M3FN> -> !nvfp4.tensor<192x1792, 1x16>
  %cm = memref.alloc() : memref<6400x192xf32>
  %cu = memref.cast %cm : memref<6400x192xf32> to memref<*xf32>
  %cseed = arith.constant 252 : i64
  %cmode = arith.constant 0 : i32
  call @nvfp4RtFill(%cu, %cseed, %cmode) : (memref<*xf32>, i64, i32) -> ()
  %c = bufferization.to_tensor %cm restrict : memref<6400x192xf32> to tensor<6400x192xf32>
  %cb = arith.truncf %c : tensor<6400x192xf32> to tensor<6400x192xbf16>
  %cw = arith.extf %cb : tensor<6400x192xbf16> to tensor<6400x192xf32>
  %cwm = bufferization.to_buffer %cw : tensor<6400x192xf32> to memref<6400x192xf32>
  %cwu = memref.cast %cwm : memref<6400x192xf32> to memref<*xf32>
  %y = nvfp4.matmul %qa, %qb acc(%cb : tensor<6400x192xbf16>) : !nvfp4.tensor<6400x1792, 16x16>, !nvfp4.tensor<192x1792, 1x16> -> tensor<6400x192xbf16>
  %yb = arith.bitcast %y : tensor<6400x192xbf16> to tensor<6400x192xi16>
  %ym = bufferization.to_buffer %yb : tensor<6400x192xi16> to memref<6400x192xi16>
  %yu = memref.cast %ym : memref<6400x192xi16> to memref<*xi16>
  %hasacc = arith.constant 1 : i32
  %n = call @nvfp4GpuCheckMatmulBF16(%adu, %asu, %ag, %aR, %bdu, %bsu, %bg, %bR, %hasacc, %cwu, %yu) : (memref<*xi8>, memref<*xi8>, f32, i64, memref<*xi8>, memref<*xi8>, f32, i64, i32, memref<*xf32>, memref<*xi16>) -> i64
  return
}
func.func @main() {
  call @matmul_0() : () -> ()
  call @matmul_1() : () -> ()
  call @matmul_2() : () -> ()
  call @matmul_3() : () -> ()
  call @matmul_4() : () -> ()
  call @matmul_5() : () -> ()
  return
}
