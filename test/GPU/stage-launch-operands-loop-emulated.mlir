// Kernels in loops, compiled for the GPU: a weight quantized before an
// scf.for, an activation carried through the loop's iter_args and
// quantized, multiplied and rescaled (on the host) at each iteration, and an
// scf.while that runs a matmul until the host sees its result grow past a
// bound. Each loop body's launches are staged in its own block, the loop
// itself counts as a host operation on the buffers its body uses. The
// results equal the CPU reference lowering's bit for bit on each target,
// with buffers kept on the device and copied around each launch.
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v "base@" > %t.cpu
// RUN: for options in "target=sm_120a" "target=sm_100a" "target=sm_90a" \
// RUN:                "target=sm_90a copies-per-launch=true"; do \
// RUN:   nvfp4-opt %s --nvfp4-to-gpu-emulation="$options" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib \
// RUN:   | grep -v "base@" > %t.gpu || exit 1; \
// RUN:   cmp %t.cpu %t.gpu || exit 1; \
// RUN: done
// RUN: FileCheck %s --input-file=%t.cpu
// CHECK: iterations 3
// CHECK-NEXT: {{^}}[
// CHECK: while
// CHECK-NEXT: {{^}}[

func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(memref<*xi32>)

#id = affine_map<(d0, d1) -> (d0, d1)>

// h <- (quantize(h) x quantize(w)^T) / 64, three times.
func.func @iterate(%x: tensor<128x128xf32>, %w: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %inv = arith.constant 0.015625 : f32
  %qw = nvfp4.quantize %w : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 16x16>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x) -> (tensor<128x128xf32>) {
    %qh = nvfp4.quantize %h : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
    %y = nvfp4.matmul %qh, %qw : !nvfp4.tensor<128x128, 1x16>, !nvfp4.tensor<128x128, 16x16> -> tensor<128x128xf32>
    %e = tensor.empty() : tensor<128x128xf32>
    %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%y : tensor<128x128xf32>) outs(%e : tensor<128x128xf32>) {
    ^bb0(%v: f32, %o: f32):
      %m = arith.mulf %v, %inv : f32
      linalg.yield %m : f32
    } -> tensor<128x128xf32>
    scf.yield %s : tensor<128x128xf32>
  }
  return %r : tensor<128x128xf32>
}

// y <- quantize(y) x quantize(w)^T while |y[1][1]| < 1e6 (at most 4 times).
func.func @grow(%x: tensor<128x128xf32>, %w: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %bound = arith.constant 1.0e6 : f32
  %qw = nvfp4.quantize %w : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 16x16>
  %r:2 = scf.while (%y = %x, %n = %c0) : (tensor<128x128xf32>, index) -> (tensor<128x128xf32>, index) {
    %v = tensor.extract %y[%c1, %c1] : tensor<128x128xf32>
    %a = math.absf %v : f32
    %small = arith.cmpf olt, %a, %bound : f32
    %more = arith.cmpi ult, %n, %c4 : index
    %go = arith.andi %small, %more : i1
    scf.condition(%go) %y, %n : tensor<128x128xf32>, index
  } do {
  ^bb0(%y: tensor<128x128xf32>, %n: index):
    %qy = nvfp4.quantize %y : tensor<128x128xf32> -> !nvfp4.tensor<128x128, 1x16>
    %z = nvfp4.matmul %qy, %qw : !nvfp4.tensor<128x128, 1x16>, !nvfp4.tensor<128x128, 16x16> -> tensor<128x128xf32>
    %n1 = arith.addi %n, %c1 : index
    scf.yield %z, %n1 : tensor<128x128xf32>, index
  }
  return %r#0 : tensor<128x128xf32>
}

func.func @print(%y: tensor<128x128xf32>) {
  %bits = arith.bitcast %y : tensor<128x128xf32> to tensor<128x128xi32>
  %bm = bufferization.to_buffer %bits : tensor<128x128xi32> to memref<128x128xi32>
  %bu = memref.cast %bm : memref<128x128xi32> to memref<*xi32>
  call @printMemrefI32(%bu) : (memref<*xi32>) -> ()
  return
}

func.func @main() {
  %mode = arith.constant 0 : i32
  %xm = memref.alloc() : memref<128x128xf32>
  %xu = memref.cast %xm : memref<128x128xf32> to memref<*xf32>
  %s1 = arith.constant 21 : i64
  call @nvfp4RtFill(%xu, %s1, %mode) : (memref<*xf32>, i64, i32) -> ()
  %wm = memref.alloc() : memref<128x128xf32>
  %wu = memref.cast %wm : memref<128x128xf32> to memref<*xf32>
  %s2 = arith.constant 22 : i64
  call @nvfp4RtFill(%wu, %s2, %mode) : (memref<*xf32>, i64, i32) -> ()
  %x = bufferization.to_tensor %xm restrict : memref<128x128xf32> to tensor<128x128xf32>
  %w = bufferization.to_tensor %wm restrict : memref<128x128xf32> to tensor<128x128xf32>
  %three = arith.constant 3 : index
  vector.print str "iterations "
  vector.print %three : index
  %r = call @iterate(%x, %w) : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  call @print(%r) : (tensor<128x128xf32>) -> ()
  vector.print str "while\n"
  %g = call @grow(%x, %w) : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  call @print(%g) : (tensor<128x128xf32>) -> ()
  return
}
