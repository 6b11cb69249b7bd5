// RUN: nvfp4-opt %s --split-input-file --verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-infer-roles))' | FileCheck %s

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#km = affine_map<(d0, d1, d2) -> (d2, d0)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// A two-layer MLP training step without annotations: weights are the
// arguments used as the B operand, the second use of a weight (depending on
// the first) is its dgrad, contractions over the token dimension of an
// activation and a gradient are wgrads. Without attention, projections that
// do not share their input are separate layers, and a warning says that
// this count is a guess.

// CHECK-LABEL: func @mlp
// expected-warning @below {{nvfp4: 2 layers inferred without attention (a layer starts where the linear layers' input changes); annotate nvfp4.layer if these are not the model's blocks}}
func.func @mlp(%x: tensor<32x64xbf16>, %w1: tensor<128x64xbf16>,
               %w2: tensor<64x128xbf16>, %dy: tensor<32x64xbf16> loc("grad_out"))
    -> (tensor<128x64xf32>, tensor<64x128xf32>, tensor<32x64xbf16>) {
  %zb = arith.constant 0.0 : bf16
  %zf = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<32x128xbf16>
  %f0 = linalg.fill ins(%zb : bf16) outs(%e0 : tensor<32x128xbf16>) -> tensor<32x128xbf16>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"
  %h = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%x, %w1 : tensor<32x64xbf16>, tensor<128x64xbf16>)
         outs(%f0 : tensor<32x128xbf16>) -> tensor<32x128xbf16>
  // Elementwise ops are not contractions: no attributes.
  // CHECK: linalg.mul ins
  // CHECK-NOT: nvfp4.
  // CHECK-SAME: -> tensor<32x128xbf16>
  %a = linalg.mul ins(%h, %h : tensor<32x128xbf16>, tensor<32x128xbf16>)
         outs(%e0 : tensor<32x128xbf16>) -> tensor<32x128xbf16>
  %e1 = tensor.empty() : tensor<32x64xbf16>
  %f1 = linalg.fill ins(%zb : bf16) outs(%e1 : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["activation", "weight"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%a, %w2 : tensor<32x128xbf16>, tensor<64x128xbf16>)
         outs(%f1 : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  // The output gradient is named "grad_out"; it is combined with the
  // forward result as a loss gradient would be.
  %g = linalg.add ins(%dy, %y : tensor<32x64xbf16>, tensor<32x64xbf16>)
         outs(%e1 : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["gradient", "weight"], nvfp4.layer = 1 : i64, nvfp4.role = "dgrad"
  %da = linalg.matmul indexing_maps = [#mk, #kn, #mn]
         ins(%g, %w2 : tensor<32x64xbf16>, tensor<64x128xbf16>)
         outs(%f0 : tensor<32x128xbf16>) -> tensor<32x128xbf16>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %f2 = linalg.fill ins(%zf : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["gradient", "activation"], nvfp4.layer = 1 : i64, nvfp4.role = "wgrad"
  %dw2 = linalg.matmul indexing_maps = [#km, #kn, #mn]
         ins(%g, %a : tensor<32x64xbf16>, tensor<32x128xbf16>)
         outs(%f2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["gradient", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "dgrad"
  %dx = linalg.matmul indexing_maps = [#mk, #kn, #mn]
         ins(%da, %w1 : tensor<32x128xbf16>, tensor<128x64xbf16>)
         outs(%f1 : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  %e3 = tensor.empty() : tensor<128x64xf32>
  %f3 = linalg.fill ins(%zf : f32) outs(%e3 : tensor<128x64xf32>) -> tensor<128x64xf32>
  // A wgrad written X^T dY with the transpose materialized: the layer comes
  // from the weight whose dgrad shares the gradient operand.
  %e4 = tensor.empty() : tensor<128x32xbf16>
  %dat = linalg.transpose ins(%da : tensor<32x128xbf16>)
           outs(%e4 : tensor<128x32xbf16>) permutation = [1, 0]
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["gradient", "activation"], nvfp4.layer = 0 : i64, nvfp4.role = "wgrad"
  %dw1 = linalg.matmul
         ins(%dat, %x : tensor<128x32xbf16>, tensor<32x64xbf16>)
         outs(%f3 : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %dw1, %dw2, %dx : tensor<128x64xf32>, tensor<64x128xf32>, tensor<32x64xbf16>
}

// -----

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// Frontend annotations are kept; argument kinds name the weight even when
// it is the A operand (the activation is annotated too, otherwise its use
// as a B operand would make it a weight).

// CHECK-LABEL: func @annotated
func.func @annotated(%w: tensor<64x64xbf16> {nvfp4.kind = "weight"},
                     %x: tensor<32x64xbf16> {nvfp4.kind = "activation"},
                     %c: tensor<64x32xf32>)
    -> (tensor<64x32xf32>, tensor<32x64xf32>) {
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["weight", "activation"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"
  %0 = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%w, %x : tensor<64x64xbf16>, tensor<32x64xbf16>)
         outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  // CHECK: linalg.matmul
  // CHECK-SAME: nvfp4.kind = ["activation", "weight"], nvfp4.layer = 7 : i64, nvfp4.precision = "high", nvfp4.role = "dgrad"
  %1 = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%x, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
         outs(%e : tensor<32x64xf32>)
         {nvfp4.role = "dgrad", nvfp4.layer = 7 : i64, nvfp4.precision = "high",
          nvfp4.kind = ["activation", "weight"]} -> tensor<32x64xf32>
  return %0, %1 : tensor<64x32xf32>, tensor<32x64xf32>
}

// -----

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// Contractions whose role cannot be determined get a remark and no
// attributes.

// CHECK-LABEL: func @undetermined
// CHECK-NOT: nvfp4.role
// CHECK: return
func.func @undetermined(%a: tensor<32x64xbf16> {nvfp4.kind = "weight"},
                        %b: tensor<48x64xbf16> {nvfp4.kind = "weight"},
                        %c: tensor<32x48xf32>) -> tensor<32x48xf32> {
  // expected-remark @below {{nvfp4: role not determined: both operands are weights}}
  %0 = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%a, %b : tensor<32x64xbf16>, tensor<48x64xbf16>)
         outs(%c : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %0 : tensor<32x48xf32>
}

// -----

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#km = affine_map<(d0, d1, d2) -> (d2, d0)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// The backward pass of a three-layer MLP whose weights and upstream
// gradient are plain, unnamed arguments: nothing in the last layer's
// backward depends on its forward, so its dgrad is found by the weight
// dimension it contracts (W3's output dimension; the forward contracts its
// input dimension, and W3 is square, so only the dimension tells). No
// layer past the third is inferred.

// CHECK-LABEL: func @upstream_gradient_argument
// expected-warning @below {{nvfp4: 3 layers inferred without attention}}
func.func @upstream_gradient_argument(
    %x: tensor<32x64xf32>, %w1: tensor<128x64xf32>, %w2: tensor<64x128xf32>,
    %w3: tensor<64x64xf32>, %dy: tensor<32x64xf32>)
    -> (tensor<128x64xf32>, tensor<64x128xf32>, tensor<64x64xf32>) {
  %zf = arith.constant 0.0 : f32
  %e128 = tensor.empty() : tensor<32x128xf32>
  %f128 = linalg.fill ins(%zf : f32) outs(%e128 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %e64 = tensor.empty() : tensor<32x64xf32>
  %f64 = linalg.fill ins(%zf : f32) outs(%e64 : tensor<32x64xf32>) -> tensor<32x64xf32>
  // CHECK: %[[H1:.*]] = linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"} ins(%arg0, %arg1 :
  %h1 = linalg.matmul indexing_maps = [#mk, #nk, #mn]
          ins(%x, %w1 : tensor<32x64xf32>, tensor<128x64xf32>)
          outs(%f128 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %a1 = linalg.mul ins(%h1, %h1 : tensor<32x128xf32>, tensor<32x128xf32>)
          outs(%e128 : tensor<32x128xf32>) -> tensor<32x128xf32>
  // CHECK: %[[H2:.*]] = linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"} ins(%[[A1:.*]], %arg2 :
  %h2 = linalg.matmul indexing_maps = [#mk, #nk, #mn]
          ins(%a1, %w2 : tensor<32x128xf32>, tensor<64x128xf32>)
          outs(%f64 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %a2 = linalg.mul ins(%h2, %h2 : tensor<32x64xf32>, tensor<32x64xf32>)
          outs(%e64 : tensor<32x64xf32>) -> tensor<32x64xf32>
  // CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 2 : i64, nvfp4.role = "fprop"} ins(%[[A2:.*]], %arg3 :
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%a2, %w3 : tensor<32x64xf32>, tensor<64x64xf32>)
         outs(%f64 : tensor<32x64xf32>) -> tensor<32x64xf32>
  // The last layer's backward reads only arguments and forward activations.
  // CHECK: %[[DA2:.*]] = linalg.matmul {{.*}}{nvfp4.kind = ["gradient", "weight"], nvfp4.layer = 2 : i64, nvfp4.role = "dgrad"} ins(%arg4, %arg3 :
  %da2 = linalg.matmul indexing_maps = [#mk, #kn, #mn]
           ins(%dy, %w3 : tensor<32x64xf32>, tensor<64x64xf32>)
           outs(%f64 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %e3 = tensor.empty() : tensor<64x64xf32>
  %f3 = linalg.fill ins(%zf : f32) outs(%e3 : tensor<64x64xf32>) -> tensor<64x64xf32>
  // CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["gradient", "activation"], nvfp4.layer = 2 : i64, nvfp4.role = "wgrad"} ins(%arg4, %[[A2]] :
  %dw3 = linalg.matmul indexing_maps = [#km, #kn, #mn]
           ins(%dy, %a2 : tensor<32x64xf32>, tensor<32x64xf32>)
           outs(%f3 : tensor<64x64xf32>) -> tensor<64x64xf32>
  // Through the square: d(h2) = 2 h2 * d(a2).
  // CHECK: %[[DH2:.*]] = linalg.mul ins(%[[H2]], %[[DA2]] :
  %dh2 = linalg.mul ins(%h2, %da2 : tensor<32x64xf32>, tensor<32x64xf32>)
           outs(%e64 : tensor<32x64xf32>) -> tensor<32x64xf32>
  // CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["gradient", "weight"], nvfp4.layer = 1 : i64, nvfp4.role = "dgrad"} ins(%[[DH2]], %arg2 :
  %da1 = linalg.matmul indexing_maps = [#mk, #kn, #mn]
           ins(%dh2, %w2 : tensor<32x64xf32>, tensor<64x128xf32>)
           outs(%f128 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %f2 = linalg.fill ins(%zf : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  // CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["gradient", "activation"], nvfp4.layer = 1 : i64, nvfp4.role = "wgrad"} ins(%[[DH2]], %[[A1]] :
  %dw2 = linalg.matmul indexing_maps = [#km, #kn, #mn]
           ins(%dh2, %a1 : tensor<32x64xf32>, tensor<32x128xf32>)
           outs(%f2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %dh1 = linalg.mul ins(%h1, %da1 : tensor<32x128xf32>, tensor<32x128xf32>)
           outs(%e128 : tensor<32x128xf32>) -> tensor<32x128xf32>
  %e1 = tensor.empty() : tensor<128x64xf32>
  %f1 = linalg.fill ins(%zf : f32) outs(%e1 : tensor<128x64xf32>) -> tensor<128x64xf32>
  // CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["gradient", "activation"], nvfp4.layer = 0 : i64, nvfp4.role = "wgrad"} ins(%{{.*}}, %arg0 :
  %dw1 = linalg.matmul indexing_maps = [#km, #kn, #mn]
           ins(%dh1, %x : tensor<32x128xf32>, tensor<32x64xf32>)
           outs(%f1 : tensor<128x64xf32>) -> tensor<128x64xf32>
  return %dw1, %dw2, %dw3 : tensor<128x64xf32>, tensor<64x128xf32>, tensor<64x64xf32>
}


// -----

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#km = affine_map<(d0, d1, d2) -> (d2, d0)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// Run-time sizes: the token count M (and so the wgrad's K) is `?`. Roles,
// kinds and layers need no static size.

// CHECK-LABEL: func @run_time_tokens
func.func @run_time_tokens(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>,
                           %dy: tensor<?x32xf32>, %cy: tensor<?x32xf32>,
                           %cx: tensor<?x64xf32>, %cw: tensor<32x64xf32>)
    -> (tensor<?x32xf32>, tensor<?x64xf32>, tensor<32x64xf32>) {
  // CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"} ins(%arg0, %arg1 :
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%x, %w : tensor<?x64xf32>, tensor<32x64xf32>)
         outs(%cy : tensor<?x32xf32>) -> tensor<?x32xf32>
  // CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["gradient", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "dgrad"} ins(%arg2, %arg1 :
  %dx = linalg.matmul indexing_maps = [#mk, #kn, #mn]
          ins(%dy, %w : tensor<?x32xf32>, tensor<32x64xf32>)
          outs(%cx : tensor<?x64xf32>) -> tensor<?x64xf32>
  // CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["gradient", "activation"], nvfp4.layer = 0 : i64, nvfp4.role = "wgrad"} ins(%arg2, %arg0 :
  %dw = linalg.matmul indexing_maps = [#km, #kn, #mn]
          ins(%dy, %x : tensor<?x32xf32>, tensor<?x64xf32>)
          outs(%cw : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %y, %dx, %dw : tensor<?x32xf32>, tensor<?x64xf32>, tensor<32x64xf32>
}
