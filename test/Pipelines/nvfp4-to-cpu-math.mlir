// RUN: nvfp4-opt %s --nvfp4-to-cpu | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-cpu | FileCheck %s --check-prefix=LEFT
// RUN: nvfp4-opt %s --nvfp4-to-cpu \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils \
// RUN: | FileCheck %s --check-prefix=EXEC
// The GPU pipelines' host code lowers every op the same way, with the same
// results.
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_120a" \
// RUN: | %mlir_runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils \
// RUN: | FileCheck %s --check-prefix=EXEC
// RUN: nvfp4-opt %s --nvfp4-to-gpu-executable="target=sm_100a format=isa" | FileCheck %s

// Every math op a frontend emits lowers completely: LLVM intrinsics where
// LLVM has one, `clampf` expanded, integer powers outlined, and the rest
// (exact GELU's `erf`, `erfc`, `cbrt`, inverse hyperbolics) as calls to the
// C library, on scalars, vectors (unrolled) and f16 (through f32); the
// result runs under mlir-runner, which resolves the libm symbols in its
// own process.
// CHECK-DAG: llvm.func @erff(f32) -> f32
// CHECK-DAG: llvm.func @erfcf(f32) -> f32
// CHECK-DAG: llvm.func @cbrtf(f32) -> f32
// CHECK-DAG: llvm.func @asinhf(f32) -> f32
// CHECK-DAG: llvm.func @acoshf(f32) -> f32
// CHECK-DAG: llvm.func @atanhf(f32) -> f32
// CHECK-DAG: llvm.func @erf(f64) -> f64
// CHECK-DAG: llvm.func linkonce_odr @__mlir_math_ipowi_i32
// LEFT-NOT: {{(^ *|= )(builtin|func|scf|cf|linalg|tensor|memref|vector|arith|math|bufferization)\.}}

// Columns: erf, erfc, tan, atan, atan2(a, a + 1), cbrt, tanh, sinh, cosh,
// asin, acos, asinh, acosh(|a| + 1), atanh, expm1, log1p, rsqrt(a + 1),
// powf(a + 1, a), fpowi(a, 3), clampf(a, -0.25, 0.25) (defined as
// maximumf(minimumf(a, -0.25), 0.25), so 0.25), ipowi, erf on f16 and on
// f64, isfinite(powf).
// EXEC: [-0.711156,   1.71116,   -0.931596,   -0.643501,   -1.24905,   -0.90856,   -0.635149,   -0.822317,   1.29468,   -0.848062,   2.41886,   -0.693147,   1.15881,   -0.972955,   -0.527633,   -1.38629,   2,   2.82843,   -0.421875,   0.25,   0,   -0.710938,   -0.711156,   1],
// EXEC: [0.140316,   0.859684,   0.125655,   0.124355,   0.110657,   0.5,   0.124353,   0.125326,   1.00782,   0.125328,   1.44547,   0.124677,   0.494933,   0.125657,   0.133148,   0.117783,   0.942809,   1.01483,   0.00195312,   0.25,   9,   0.140259,   0.140316,   1],
// EXEC: [0.711156,   0.288844,   0.931596,   0.643501,   0.404892,   0.90856,   0.635149,   0.822317,   1.29468,   0.848062,   0.722734,   0.693147,   1.15881,   0.972955,   1.117,   0.559616,   0.755929,   1.52152,   0.421875,   0.25,   36,   0.710938,   0.711156,   1]]
// EXEC: ( -0.842701, 0, 0.5205, 0.995322 )
// PyTorch's `x ** 2`, `x ** 1` and `x ** -2` (aten.pow.Tensor_Scalar:
// `fpowi` with an i64 exponent) in an element-wise op the CPU pipeline
// vectorizes (a broadcast exponent, which `llvm.intr.powi` rejects): outlined
// as the integer powers are; the squares equal x * x bit for bit, the first
// powers x, and the negative powers 1 / (x * x).
// EXEC: fpowi mismatches: 0
// CHECK-DAG: llvm.func linkonce_odr @__mlir_math_fpowi_f32_i64

func.func private @printMemrefF32(tensor<*xf32>)

/// One element per op; the function of the element.
func.func @unary(%x: tensor<8xf32>) -> tensor<8x24xf32> {
  %e = tensor.empty() : tensor<8x24xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 1 : index
    %c1 = arith.constant 1.0 : f32
    %ap1 = arith.addf %a, %c1 : f32
    %ax = math.absf %a : f32
    %axp1 = arith.addf %ax, %c1 : f32
    %v0 = math.erf %a : f32
    %v1 = math.erfc %a : f32
    %v2 = math.tan %a : f32
    %v3 = math.atan %a : f32
    %v4 = math.atan2 %a, %ap1 : f32
    %v5 = math.cbrt %a : f32
    %v6 = math.tanh %a : f32
    %v7 = math.sinh %a : f32
    %v8 = math.cosh %a : f32
    %v9 = math.asin %a : f32
    %v10 = math.acos %a : f32
    %v11 = math.asinh %a : f32
    %v12 = math.acosh %axp1 : f32
    %v13 = math.atanh %a : f32
    %v14 = math.expm1 %a : f32
    %v15 = math.log1p %a : f32
    %v16 = math.rsqrt %ap1 : f32
    %v17 = math.powf %ap1, %a : f32
    %c3 = arith.constant 3 : i32
    %v18 = math.fpowi %a, %c3 : f32, i32
    %lo = arith.constant -0.25 : f32
    %hi = arith.constant 0.25 : f32
    %v19 = math.clampf %a to [%lo, %hi] : f32
    // ipowi with a runtime exponent: (round(4a) + 3)^(j - 18).
    %i4 = arith.constant 4.0 : f32
    %a4 = arith.mulf %a, %i4 : f32
    %ai = arith.fptosi %a4 : f32 to i32
    %b = arith.addi %ai, %c3 : i32
    %ji = arith.index_cast %j : index to i32
    %c18 = arith.constant 18 : i32
    %n = arith.subi %ji, %c18 : i32
    %c2 = arith.constant 2 : i32
    %n2 = arith.maxsi %n, %c2 : i32
    %p = math.ipowi %b, %n2 : i32
    %v20 = arith.sitofp %p : i32 to f32
    // f16 and f64 go through the same calls (f16 via f32).
    %h = arith.truncf %a : f32 to f16
    %he = math.erf %h : f16
    %v21 = arith.extf %he : f16 to f32
    %d = arith.extf %a : f32 to f64
    %de = math.erf %d : f64
    %v22 = arith.truncf %de : f64 to f32
    %s = math.isfinite %v17 : f32
    %v23 = arith.uitofp %s : i1 to f32
    %vals = vector.from_elements %v0, %v1, %v2, %v3, %v4, %v5, %v6, %v7, %v8, %v9, %v10, %v11, %v12, %v13, %v14, %v15, %v16, %v17, %v18, %v19, %v20, %v21, %v22, %v23 : vector<24xf32>
    %r = vector.extract %vals[%j] : f32 from vector<24xf32>
    linalg.yield %r : f32
  } -> tensor<8x24xf32>
  return %r : tensor<8x24xf32>
}

/// erf on a vector (unrolled into libm calls).
func.func @vector_erf(%x: vector<4xf32>) -> vector<4xf32> {
  %r = math.erf %x : vector<4xf32>
  return %r : vector<4xf32>
}

/// x ** 2, x ** 1 and x ** -2 as a PyTorch export writes them, against
/// x * x, x and 1 / (x * x): the elements whose bits differ.
func.func @fpowi_mismatches(%x: tensor<4x64xf32>) -> i32 {
  %e = tensor.empty() : tensor<4x64xf32>
  %c2 = arith.constant 2 : i64
  %c1 = arith.constant 1 : i64
  %cm2 = arith.constant -2 : i64
  %zero = arith.constant 0 : i32
  %ei = tensor.empty() : tensor<i32>
  %acc = linalg.fill ins(%zero : i32) outs(%ei : tensor<i32>) -> tensor<i32>
  %sq = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.fpowi %a, %c2 : f32, i64
    linalg.yield %p : f32
  } -> tensor<4x64xf32>
  %id = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.fpowi %a, %c1 : f32, i64
    linalg.yield %p : f32
  } -> tensor<4x64xf32>
  %inv = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.fpowi %a, %cm2 : f32, i64
    linalg.yield %p : f32
  } -> tensor<4x64xf32>
  %n = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                       affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                       affine_map<(i, j) -> ()>],
      iterator_types = ["reduction", "reduction"]}
      ins(%x, %sq, %id, %inv : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x64xf32>)
      outs(%acc : tensor<i32>) {
  ^bb0(%a: f32, %s: f32, %i: f32, %v: f32, %c: i32):
    %one = arith.constant 1.0 : f32
    %aa = arith.mulf %a, %a : f32
    %ra = arith.divf %one, %aa : f32
    %bs = arith.bitcast %s : f32 to i32
    %baa = arith.bitcast %aa : f32 to i32
    %bi = arith.bitcast %i : f32 to i32
    %ba = arith.bitcast %a : f32 to i32
    %bv = arith.bitcast %v : f32 to i32
    %bra = arith.bitcast %ra : f32 to i32
    %d0 = arith.cmpi ne, %bs, %baa : i32
    %d1 = arith.cmpi ne, %bi, %ba : i32
    %d2 = arith.cmpi ne, %bv, %bra : i32
    %d01 = arith.ori %d0, %d1 : i1
    %d = arith.ori %d01, %d2 : i1
    %di = arith.extui %d : i1 to i32
    %r = arith.addi %c, %di : i32
    linalg.yield %r : i32
  } -> tensor<i32>
  %r = tensor.extract %n[] : tensor<i32>
  return %r : i32
}

func.func @main() {
  %x = arith.constant dense<[-0.75, -0.5, -0.25, 0.0, 0.125, 0.25, 0.5, 0.75]> : tensor<8xf32>
  %r = call @unary(%x) : (tensor<8xf32>) -> tensor<8x24xf32>
  %u = tensor.cast %r : tensor<8x24xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = arith.constant dense<[-1.0, 0.0, 0.5, 2.0]> : vector<4xf32>
  %e = call @vector_erf(%v) : (vector<4xf32>) -> vector<4xf32>
  vector.print %e : vector<4xf32>
  %px = arith.constant dense<[[-3.5, -1.25, -0.1, 0.3, 0.7, 1.1, 1.9, 2.6, 3.3, 4.4, 5.5, 6.6, 7.7, 8.8, 9.9, 10.1,
                               -3.7, -1.5, -0.7, 0.9, 1.7, 2.1, 2.9, 3.6, 4.3, 5.4, 6.5, 7.6, 8.7, 9.8, 1.0e-20, 1.0e20,
                               -4.5, -2.25, -0.3, 0.5, 0.8, 1.2, 1.8, 2.7, 3.1, 4.6, 5.7, 6.8, 7.9, 8.1, 9.2, 10.3,
                               -5.5, -3.25, -0.9, 0.2, 0.6, 1.3, 1.7, 2.8, 3.2, 4.7, 5.8, 6.9, 7.1, 8.2, 9.3, 10.4]]> : tensor<1x64xf32>
  %pe = tensor.empty() : tensor<4x64xf32>
  %pxs = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%px : tensor<1x64xf32>) outs(%pe : tensor<4x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %k = arith.constant 0.37 : f32
    %fk = arith.mulf %f, %k : f32
    %shifted = arith.addf %a, %fk : f32
    linalg.yield %shifted : f32
  } -> tensor<4x64xf32>
  %pm = call @fpowi_mismatches(%pxs) : (tensor<4x64xf32>) -> i32
  vector.print str "fpowi mismatches: "
  vector.print %pm : i32
  return
}
