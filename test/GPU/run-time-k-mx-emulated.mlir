// MX GEMMs of run-time K under emulation, every value printed (the buffers'
// addresses dropped) diffed against the CPU lowering: MXFP8 (E4M3 x E5M2)
// and MXFP4 weight-gradient GEMMs dW = A B^T whose K is a run-time size, at
// K = 32 (one K step, mostly zero-filled), 96 (one partial step) and 544
// (several steps, the last partial), on the mma.sync kernels (sm_120a) and
// the tcgen05 kernels (sm_100a). The MX quantizations of run-time size run on
// the host (no kernel takes them); their E4M3 / E5M2 / E2M1 codes reach the
// kernels packed into bytes whose run-time sizes the launch reads from the
// codes (nvfp4-gpu-pack-launch-operands), as do the host's shape checks and,
// on sm_100a, the tensor maps.
//
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN: | grep -v base@ > %t.cpu.txt
// RUN: FileCheck %s --input-file=%t.cpu.txt
// RUN: for target in sm_120a sm_100a; do \
// RUN:   nvfp4-opt %s --convert-nvfp4-to-gpu="target=$target" \
// RUN:   | FileCheck %s --check-prefix=KERNELS-$target || exit 1; \
// RUN:   nvfp4-opt %s --nvfp4-to-gpu-emulation="target=$target" \
// RUN:   | %mlir_runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib \
// RUN:   | grep -v base@ > %t.$target.txt || exit 1; \
// RUN:   diff %t.cpu.txt %t.$target.txt || exit 1; \
// RUN: done
// RUN: for target in sm_120a sm_100a; do \
// RUN:   nvfp4-opt %s --nvfp4-to-ptx="target=$target" -o %t.$target.ptx.mlir || exit 1; \
// RUN:   nvfp4-translate --nvfp4-extract-ptx %t.$target.ptx.mlir -o %t.$target.ptx || exit 1; \
// RUN: done
// RUN: %if ptxas %{ %ptxas -arch=sm_120a %t.sm_120a.ptx -o %t.sm_120a.cubin %}
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.sm_100a.ptx -o %t.sm_100a.cubin %}

// KERNELS-sm_120a-DAG: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m48n32kdyn_mxfp8_e4m3_mxfp8_e5m2_f32
// KERNELS-sm_120a-DAG: gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m48n32kdyn_mxfp4_mxfp4_f32
// KERNELS-sm_100a-DAG: gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m48n32kdyn_t64_mxfp8_e4m3_mxfp8_e5m2_f32
// KERNELS-sm_100a-DAG: gpu.launch_func @nvfp4_kernels::@nvfp4_tcgen05_matmul_m48n32kdyn_t64_mxfp4_mxfp4_f32

// CHECK-LABEL: K 32
// CHECK-NEXT: {{^\[\[.*[1-9]}}
// CHECK: {{^\[\[.*[1-9]}}
// CHECK-LABEL: K 96
// CHECK-NEXT: {{^\[\[.*[1-9]}}
// CHECK: {{^\[\[.*[1-9]}}
// CHECK-LABEL: K 544
// CHECK-NEXT: {{^\[\[.*[1-9]}}
// CHECK: {{^\[\[.*[1-9]}}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @wgrad_mxfp8(%a: tensor<48x?xf32>, %b: tensor<32x?xf32>) -> tensor<48x32xf32> {
  %qa = nvfp4.quantize %a : tensor<48x?xf32> -> !nvfp4.tensor<48x?, 1x32, mxfp8_e4m3>
  %qb = nvfp4.quantize %b : tensor<32x?xf32> -> !nvfp4.tensor<32x?, 1x32, mxfp8_e5m2>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<48x?, 1x32, mxfp8_e4m3>, !nvfp4.tensor<32x?, 1x32, mxfp8_e5m2> -> tensor<48x32xf32>
  return %y : tensor<48x32xf32>
}

func.func @wgrad_mxfp4(%a: tensor<48x?xf32>, %b: tensor<32x?xf32>) -> tensor<48x32xf32> {
  %qa = nvfp4.quantize %a : tensor<48x?xf32> -> !nvfp4.tensor<48x?, 1x32, mxfp4>
  %qb = nvfp4.quantize %b : tensor<32x?xf32> -> !nvfp4.tensor<32x?, 1x32, mxfp4>
  %y = nvfp4.matmul %qa, %qb : !nvfp4.tensor<48x?, 1x32, mxfp4>, !nvfp4.tensor<32x?, 1x32, mxfp4> -> tensor<48x32xf32>
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

func.func @print(%t: tensor<48x32xf32>) {
  %m = bufferization.to_buffer %t : tensor<48x32xf32> to memref<48x32xf32>
  %u = memref.cast %m : memref<48x32xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @run(%k: index) {
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  vector.print str "K "
  vector.print %k : index
  %a = call @operand(%c48, %k, %c1) : (index, index, index) -> tensor<?x?xf32>
  %b = call @operand(%c32, %k, %c7) : (index, index, index) -> tensor<?x?xf32>
  %at = tensor.cast %a : tensor<?x?xf32> to tensor<48x?xf32>
  %bt = tensor.cast %b : tensor<?x?xf32> to tensor<32x?xf32>
  %y8 = call @wgrad_mxfp8(%at, %bt) : (tensor<48x?xf32>, tensor<32x?xf32>) -> tensor<48x32xf32>
  call @print(%y8) : (tensor<48x32xf32>) -> ()
  %y4 = call @wgrad_mxfp4(%at, %bt) : (tensor<48x?xf32>, tensor<32x?xf32>) -> tensor<48x32xf32>
  call @print(%y4) : (tensor<48x32xf32>) -> ()
  return
}

func.func @main() {
  %c32 = arith.constant 32 : index
  %c96 = arith.constant 96 : index
  %c544 = arith.constant 544 : index
  call @run(%c32) : (index) -> ()
  call @run(%c96) : (index) -> ()
  call @run(%c544) : (index) -> ()
  return
}
