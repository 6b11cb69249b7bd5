// The kernels of a run-time K under emulation, every value printed (the
// buffers' addresses dropped) diffed
// against the CPU lowering (bit-exact with the reference library): a
// weight-gradient GEMM dW = dY^T X, whose K is the token count. The quantize
// and amax kernels take the operands' run-time last dimension (with the
// Hadamard transform of the recipe's wgrad inputs), the mma.sync matmul
// (sm_120a, sm_90a) a run-time K:
// - K = 16: one K step, most of it zero-filled;
// - K = 80: one partial K step (128 codes a step);
// - K = 304: three steps, the last partial;
// - K = 0: no step; the result is zeros.
// The tcgen05 matmul (sm_100a) takes a run-time K too, read by both tensor
// maps (rows of K / 2 bytes) and the K loop of the producer and the MMA
// thread (256 codes a K tile), with the scales stored into the atoms byte by
// byte:
// - K = 32: one K tile, most of it zero-filled by TMA;
// - K = 96: one partial K tile;
// - K = 544: three K tiles, the last partial.
// The run-time shape rules are checked on the host before the launches: a
// last dimension that is not a multiple of 16, and operands whose K differ,
// stop the program with an error that names the op; on sm_100a, so do a K
// that is not a multiple of 32 (the tensor maps' row stride) and K = 0 (a
// tensor map describes a non-empty tensor).
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v base@ > %t.cpu.txt
// RUN: FileCheck %s --input-file=%t.cpu.txt
// RUN: for target in sm_120a sm_90a; do \
// RUN:   nvfp4-opt %s --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   > %t.$target.out || exit 1; \
// RUN:   grep -v base@ %t.$target.out > %t.$target.txt; \
// RUN:   diff %t.cpu.txt %t.$target.txt || exit 1; \
// RUN: done
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_120a" \
// RUN: | not %mlir_runner -e main_bad_k -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   2>&1 | FileCheck %s --check-prefix=BADK
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_120a" \
// RUN: | not %mlir_runner -e main_k_mismatch -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main_tcgen05 -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v base@ > %t.tcgen05.cpu.txt
// RUN: FileCheck %s --check-prefix=TCGEN05 --input-file=%t.tcgen05.cpu.txt
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_100a report-fallbacks" \
// RUN:   -o %t.sm_100a.mlir 2>&1 | FileCheck %s --check-prefix=KERNELS --allow-empty
// RUN: %mlir_runner %t.sm_100a.mlir -e main_tcgen05 -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN: | grep -v base@ > %t.tcgen05.sm_100a.txt
// RUN: diff %t.tcgen05.cpu.txt %t.tcgen05.sm_100a.txt
// RUN: not %mlir_runner %t.sm_100a.mlir -e main_k48 -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   2>&1 | FileCheck %s --check-prefix=K48
// RUN: not %mlir_runner %t.sm_100a.mlir -e main_k0 -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cuda_checks_lib \
// RUN:   2>&1 | FileCheck %s --check-prefix=K0
// KERNELS-NOT: remark: nvfp4: fallback
// K48: run-time-k-emulated.mlir:[[@LINE+27]]:{{[0-9]+}}: 'nvfp4.matmul' op: run-time shape check failed: K must be a multiple of 32
// K0: run-time-k-emulated.mlir:[[@LINE+26]]:{{[0-9]+}}: 'nvfp4.matmul' op: run-time shape check failed: K must not be 0
// TCGEN05-LABEL: K 32
// TCGEN05-NEXT: {{^\[\[.*[1-9]}}
// TCGEN05-LABEL: K 96
// TCGEN05-NEXT: {{^\[\[.*[1-9]}}
// TCGEN05-LABEL: K 544
// TCGEN05-NEXT: {{^\[\[.*[1-9]}}
// BADK: run-time-k-emulated.mlir:[[@LINE+17]]:{{[0-9]+}}: 'nvfp4.quantize' op: run-time shape check failed: the input's last dimension must be a multiple of 16
// MISMATCH: run-time-k-emulated.mlir:[[@LINE+26]]:{{[0-9]+}}: 'nvfp4.matmul' op: run-time shape check failed: the operands' K must be equal

// CHECK-LABEL: K 16
// CHECK-NEXT: {{^\[\[.*[1-9]}}
// CHECK-LABEL: K 80
// CHECK-NEXT: {{^\[\[.*[1-9]}}
// CHECK-LABEL: K 304
// CHECK-NEXT: {{^\[\[.*[1-9]}}
// CHECK-LABEL: K 0
// CHECK-NEXT: {{^\[\[0, 0, }}
// CHECK-NOT: {{[1-9]}}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @wgrad(%dyt: tensor<48x?xf32>, %xt: tensor<32x?xf32>)
    -> tensor<48x32xf32> {
  %qdy = nvfp4.quantize %dyt hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<48x?xf32> -> !nvfp4.tensor<48x?, 1x16>
  %qx = nvfp4.quantize %xt hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<32x?xf32> -> !nvfp4.tensor<32x?, 1x16>
  %dw = nvfp4.matmul %qdy, %qx : !nvfp4.tensor<48x?, 1x16>, !nvfp4.tensor<32x?, 1x16> -> tensor<48x32xf32>
  return %dw : tensor<48x32xf32>
}

func.func @mismatched(%a: tensor<48x?xf32>, %b: tensor<32x?xf32>)
    -> tensor<48x32xf32> {
  %qa = nvfp4.quantize %a : tensor<48x?xf32> -> !nvfp4.tensor<48x?, 1x16>
  %qb = nvfp4.quantize %b : tensor<32x?xf32> -> !nvfp4.tensor<32x?, 1x16>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<48x?, 1x16>, !nvfp4.tensor<32x?, 1x16> -> tensor<48x32xf32>
  return %y : tensor<48x32xf32>
}

// An operand of `rows` x K, element (r, k) = ((3r + 5k + seed) mod 23 - 11)
// / 4: every block mixes signs and magnitudes.
func.func @operand(%rows: index, %k: index, %seed: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %k) : tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %r = linalg.index 0 : index
    %c = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c23 = arith.constant 23 : index
    %r3 = arith.muli %r, %c3 : index
    %c5k = arith.muli %c, %c5 : index
    %s0 = arith.addi %r3, %c5k : index
    %s1 = arith.addi %s0, %seed : index
    %m = arith.remui %s1, %c23 : index
    %mi = arith.index_cast %m : index to i32
    %mf = arith.sitofp %mi : i32 to f32
    %eleven = arith.constant 11.0 : f32
    %quarter = arith.constant 0.25 : f32
    %d = arith.subf %mf, %eleven : f32
    %v = arith.mulf %d, %quarter : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

func.func @run(%k: index) {
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  vector.print str "K "
  vector.print %k : index
  %dy = call @operand(%c48, %k, %c1) : (index, index, index) -> tensor<?x?xf32>
  %x = call @operand(%c32, %k, %c7) : (index, index, index) -> tensor<?x?xf32>
  %dyt = tensor.cast %dy : tensor<?x?xf32> to tensor<48x?xf32>
  %xt = tensor.cast %x : tensor<?x?xf32> to tensor<32x?xf32>
  %dw = call @wgrad(%dyt, %xt) : (tensor<48x?xf32>, tensor<32x?xf32>) -> tensor<48x32xf32>
  %m = bufferization.to_buffer %dw : tensor<48x32xf32> to memref<48x32xf32>
  %u = memref.cast %m : memref<48x32xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c80 = arith.constant 80 : index
  %c304 = arith.constant 304 : index
  call @run(%c16) : (index) -> ()
  call @run(%c80) : (index) -> ()
  call @run(%c304) : (index) -> ()
  call @run(%c0) : (index) -> ()
  return
}

func.func @main_bad_k() {
  %c40 = arith.constant 40 : index
  call @run(%c40) : (index) -> ()
  return
}

func.func @main_k_mismatch() {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %a = call @operand(%c48, %c32, %c0) : (index, index, index) -> tensor<?x?xf32>
  %b = call @operand(%c32, %c64, %c0) : (index, index, index) -> tensor<?x?xf32>
  %ad = tensor.cast %a : tensor<?x?xf32> to tensor<48x?xf32>
  %bd = tensor.cast %b : tensor<?x?xf32> to tensor<32x?xf32>
  %y = call @mismatched(%ad, %bd) : (tensor<48x?xf32>, tensor<32x?xf32>) -> tensor<48x32xf32>
  return
}

func.func @main_tcgen05() {
  %c32 = arith.constant 32 : index
  %c96 = arith.constant 96 : index
  %c544 = arith.constant 544 : index
  call @run(%c32) : (index) -> ()
  call @run(%c96) : (index) -> ()
  call @run(%c544) : (index) -> ()
  return
}

func.func @main_k48() {
  %c48 = arith.constant 48 : index
  call @run(%c48) : (index) -> ()
  return
}

func.func @main_k0() {
  %c0 = arith.constant 0 : index
  call @run(%c0) : (index) -> ()
  return
}
