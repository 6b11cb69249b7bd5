// The kernels of run-time M under emulation, every line printed diffed
// against the CPU lowering (bit-exact with the reference library):
// - M = 3, unbatched: quantize, amax and matmul kernels of run-time M;
// - M = 3, batched (mma.sync): each batch's A rows and compact scale rows
//   start M rows after the previous batch's;
// - M = 0: the quantize and amax kernels launch one CTA that stores
//   nothing, the mma.sync matmul one row of CTAs that skip their body (A
//   has no byte to read; the emulator's checkers stay on). The result has
//   0 rows, the amax is 0. On tcgen05 targets M = 0 is a run-time error:
//   the runtime's tensor-map encode refuses A's empty tensor (docs/gpu.md,
//   "Run-time sizes"); the batched matmul runs on the host there.
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN:   > %t.cpu.txt
// RUN: FileCheck %s --input-file=%t.cpu.txt
// RUN: for target in sm_120a sm_90a; do \
// RUN:   nvfp4-opt %s --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   > %t.$target.txt || exit 1; \
// RUN:   diff %t.cpu.txt %t.$target.txt || exit 1; \
// RUN: done
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_100a" \
// RUN: | not %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib,%nvfp4_cpu_runtime_lib \
// RUN:   2>&1 | FileCheck %s --check-prefix=TCGEN05
// TCGEN05: nvfp4CudaTensorMapEncode2D: tensor dimension not in 1..2^32

// CHECK: rows 0
// CHECK-NEXT: amax 0
// CHECK-NEXT: rows 3
// CHECK-NEXT: amax 5
// CHECK-NEXT: y[0][5] {{[1-9]}}
// CHECK-NEXT: y[1][17] {{[1-9]}}
// CHECK-NEXT: y[2][31] {{[1-9]}}
// CHECK-NEXT: batched rows 3
// CHECK-NEXT: z[0][2][7] {{[1-9]}}
// CHECK-NEXT: z[1][0][30] {{[1-9]}}
// CHECK-NEXT: z[1][2][31] {{[1-9]}}
func.func @linear(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>)
    -> (tensor<?x32xf32>, f32) {
  %qx = nvfp4.quantize %x : tensor<?x64xf32> -> !nvfp4.tensor<?x64, 1x16>
  %qw = nvfp4.quantize %w : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 16x16>
  %y = nvfp4.matmul %qx, %qw : !nvfp4.tensor<?x64, 1x16>, !nvfp4.tensor<32x64, 16x16> -> tensor<?x32xf32>
  %a = nvfp4.amax %x : tensor<?x64xf32>
  return %y, %a : tensor<?x32xf32>, f32
}

func.func @run(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %y, %a = call @linear(%x, %w) : (tensor<?x64xf32>, tensor<32x64xf32>) -> (tensor<?x32xf32>, f32)
  %rows = tensor.dim %y, %c0 : tensor<?x32xf32>
  vector.print str "rows "
  vector.print %rows : index
  vector.print str "amax "
  vector.print %a : f32
  %c1 = arith.constant 1 : index
  %nonempty = arith.cmpi ugt, %rows, %c1 : index
  scf.if %nonempty {
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %c17 = arith.constant 17 : index
    %c31 = arith.constant 31 : index
    %v0 = tensor.extract %y[%c0, %c5] : tensor<?x32xf32>
    %v1 = tensor.extract %y[%c1, %c17] : tensor<?x32xf32>
    %v2 = tensor.extract %y[%c2, %c31] : tensor<?x32xf32>
    vector.print str "y[0][5] "
    vector.print %v0 : f32
    vector.print str "y[1][17] "
    vector.print %v1 : f32
    vector.print str "y[2][31] "
    vector.print %v2 : f32
  }
  return
}

func.func @batched(%x: tensor<2x?x64xf32>, %w: tensor<2x32x64xf32>)
    -> tensor<2x?x32xf32> {
  %qx = nvfp4.quantize %x : tensor<2x?x64xf32> -> !nvfp4.tensor<2x?x64, 1x16>
  %qw = nvfp4.quantize %w : tensor<2x32x64xf32> -> !nvfp4.tensor<2x32x64, 16x16>
  %z = nvfp4.matmul %qx, %qw : !nvfp4.tensor<2x?x64, 1x16>, !nvfp4.tensor<2x32x64, 16x16> -> tensor<2x?x32xf32>
  return %z : tensor<2x?x32xf32>
}

// The batched matmul with A = [2, 3, 64], x[b][i][k] = 1 + 2i + 4b + k / 8,
// B = w[b][n][k] = (n + b) / 16.
func.func @run_batched() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %xbase = tensor.empty() : tensor<2x3x64xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%xbase : tensor<2x3x64xf32>) {
  ^bb0(%out: f32):
    %b = linalg.index 0 : index
    %i = linalg.index 1 : index
    %k = linalg.index 2 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %b4 = arith.muli %b, %c4 : index
    %i2 = arith.muli %i, %c2 : index
    %k8 = arith.divui %k, %c8 : index
    %s0 = arith.addi %b4, %i2 : index
    %s1 = arith.addi %s0, %k8 : index
    %s2 = arith.addi %s1, %c1 : index
    %si = arith.index_cast %s2 : index to i32
    %v = arith.sitofp %si : i32 to f32
    linalg.yield %v : f32
  } -> tensor<2x3x64xf32>
  %wbase = tensor.empty() : tensor<2x32x64xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%wbase : tensor<2x32x64xf32>) {
  ^bb0(%out: f32):
    %b = linalg.index 0 : index
    %n = linalg.index 1 : index
    %s = arith.addi %b, %n : index
    %si = arith.index_cast %s : index to i32
    %sf = arith.sitofp %si : i32 to f32
    %sixteenth = arith.constant 0.0625 : f32
    %v = arith.mulf %sf, %sixteenth : f32
    linalg.yield %v : f32
  } -> tensor<2x32x64xf32>
  %xd = tensor.cast %x : tensor<2x3x64xf32> to tensor<2x?x64xf32>
  %z = call @batched(%xd, %w) : (tensor<2x?x64xf32>, tensor<2x32x64xf32>) -> tensor<2x?x32xf32>
  %rows = tensor.dim %z, %c1 : tensor<2x?x32xf32>
  vector.print str "batched rows "
  vector.print %rows : index
  %c7 = arith.constant 7 : index
  %c30 = arith.constant 30 : index
  %c31 = arith.constant 31 : index
  %v0 = tensor.extract %z[%c0, %c2, %c7] : tensor<2x?x32xf32>
  %v1 = tensor.extract %z[%c1, %c0, %c30] : tensor<2x?x32xf32>
  %v2 = tensor.extract %z[%c1, %c2, %c31] : tensor<2x?x32xf32>
  vector.print str "z[0][2][7] "
  vector.print %v0 : f32
  vector.print str "z[1][0][30] "
  vector.print %v1 : f32
  vector.print str "z[1][2][31] "
  vector.print %v2 : f32
  return
}

func.func @main() {
  // x[i][k] = 1 + 2i, w[n][k] = n / 16: y[i][n] is about 4 (1 + 2i) n.
  %empty = tensor.empty() : tensor<0x64xf32>
  %x0 = tensor.cast %empty : tensor<0x64xf32> to tensor<?x64xf32>
  %wbase = tensor.empty() : tensor<32x64xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%wbase : tensor<32x64xf32>) {
  ^bb0(%out: f32):
    %n = linalg.index 0 : index
    %ni = arith.index_cast %n : index to i32
    %nf = arith.sitofp %ni : i32 to f32
    %tenth = arith.constant 0.0625 : f32
    %v = arith.mulf %nf, %tenth : f32
    linalg.yield %v : f32
  } -> tensor<32x64xf32>
  call @run(%x0, %w) : (tensor<?x64xf32>, tensor<32x64xf32>) -> ()
  %xbase = tensor.empty() : tensor<3x64xf32>
  %x3 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel"]}
      outs(%xbase : tensor<3x64xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %if = arith.sitofp %ii : i32 to f32
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %t = arith.mulf %if, %two : f32
    %v = arith.addf %t, %one : f32
    linalg.yield %v : f32
  } -> tensor<3x64xf32>
  %x3d = tensor.cast %x3 : tensor<3x64xf32> to tensor<?x64xf32>
  call @run(%x3d, %w) : (tensor<?x64xf32>, tensor<32x64xf32>) -> ()
  call @run_batched() : () -> ()
  return
}
