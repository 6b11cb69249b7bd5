// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(func.func(nvfp4-infer-roles))' | FileCheck %s

// Attention written as one 2-D matmul per head (as importers emit MobileBERT
// and other encoders): a forward contraction of two run-time activations is
// attention whether batched or not, so layers start at the projections that
// feed it. Two blocks of: Q, K, V projections, per head (2 heads) the scores
// Q_h K_h^T and P_h V_h, the output projection, a two-matmul FFN. Every
// contraction of block l gets nvfp4.layer = l (before, each projection with
// a new input opened a layer: 8 layers for 2 blocks).
// CHECK-LABEL: func.func @encoder
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "activation"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "activation"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "activation"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "activation"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 0 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "activation"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "activation"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "activation"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "activation"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// CHECK: linalg.matmul {{.*}}{nvfp4.kind = ["activation", "weight"], nvfp4.layer = 1 : i64, nvfp4.role = "fprop"}
// CHECK-NOT: linalg.matmul
func.func @encoder(%x: tensor<16x32xf32>, %wq0: tensor<32x32xf32>, %wk0: tensor<32x32xf32>, %wv0: tensor<32x32xf32>, %wo0: tensor<32x32xf32>, %w10: tensor<64x32xf32>, %w20: tensor<32x64xf32>, %wq1: tensor<32x32xf32>, %wk1: tensor<32x32xf32>, %wv1: tensor<32x32xf32>, %wo1: tensor<32x32xf32>, %w11: tensor<64x32xf32>, %w21: tensor<32x64xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e16x32 = tensor.empty() : tensor<16x32xf32>
  %e16x16 = tensor.empty() : tensor<16x16xf32>
  %e16x64 = tensor.empty() : tensor<16x64xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r2 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %wq0 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r4 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %wk0 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z3 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r6 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %wv0 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z5 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %qh7 = tensor.extract_slice %r2[0, 0] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %kh8 = tensor.extract_slice %r4[0, 0] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %vh9 = tensor.extract_slice %r6[0, 0] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %z10 = linalg.fill ins(%zero : f32) outs(%e16x16 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r11 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%qh7, %kh8 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z10 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %vt12 = linalg.transpose ins(%vh9 : tensor<16x16xf32>) outs(%e16x16 : tensor<16x16xf32>) permutation = [1, 0]
  %z13 = linalg.fill ins(%zero : f32) outs(%e16x16 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r14 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%r11, %vt12 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z13 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %cat15 = tensor.insert_slice %r14 into %e16x32[0, 0] [16, 16] [1, 1] : tensor<16x16xf32> into tensor<16x32xf32>
  %qh16 = tensor.extract_slice %r2[0, 16] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %kh17 = tensor.extract_slice %r4[0, 16] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %vh18 = tensor.extract_slice %r6[0, 16] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %z19 = linalg.fill ins(%zero : f32) outs(%e16x16 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r20 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%qh16, %kh17 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z19 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %vt21 = linalg.transpose ins(%vh18 : tensor<16x16xf32>) outs(%e16x16 : tensor<16x16xf32>) permutation = [1, 0]
  %z22 = linalg.fill ins(%zero : f32) outs(%e16x16 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r23 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%r20, %vt21 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z22 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %cat24 = tensor.insert_slice %r23 into %cat15[0, 16] [16, 16] [1, 1] : tensor<16x16xf32> into tensor<16x32xf32>
  %z25 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r26 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%cat24, %wo0 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z25 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %res27 = linalg.add ins(%x, %r26 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %z28 = linalg.fill ins(%zero : f32) outs(%e16x64 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r29 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%res27, %w10 : tensor<16x32xf32>, tensor<64x32xf32>) outs(%z28 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %z30 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r31 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%r29, %w20 : tensor<16x64xf32>, tensor<32x64xf32>) outs(%z30 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %res32 = linalg.add ins(%res27, %r31 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %z33 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r34 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%res32, %wq1 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z33 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %z35 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r36 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%res32, %wk1 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z35 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %z37 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r38 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%res32, %wv1 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z37 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %qh39 = tensor.extract_slice %r34[0, 0] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %kh40 = tensor.extract_slice %r36[0, 0] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %vh41 = tensor.extract_slice %r38[0, 0] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %z42 = linalg.fill ins(%zero : f32) outs(%e16x16 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r43 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%qh39, %kh40 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z42 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %vt44 = linalg.transpose ins(%vh41 : tensor<16x16xf32>) outs(%e16x16 : tensor<16x16xf32>) permutation = [1, 0]
  %z45 = linalg.fill ins(%zero : f32) outs(%e16x16 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r46 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%r43, %vt44 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z45 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %cat47 = tensor.insert_slice %r46 into %e16x32[0, 0] [16, 16] [1, 1] : tensor<16x16xf32> into tensor<16x32xf32>
  %qh48 = tensor.extract_slice %r34[0, 16] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %kh49 = tensor.extract_slice %r36[0, 16] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %vh50 = tensor.extract_slice %r38[0, 16] [16, 16] [1, 1] : tensor<16x32xf32> to tensor<16x16xf32>
  %z51 = linalg.fill ins(%zero : f32) outs(%e16x16 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r52 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%qh48, %kh49 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z51 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %vt53 = linalg.transpose ins(%vh50 : tensor<16x16xf32>) outs(%e16x16 : tensor<16x16xf32>) permutation = [1, 0]
  %z54 = linalg.fill ins(%zero : f32) outs(%e16x16 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %r55 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%r52, %vt53 : tensor<16x16xf32>, tensor<16x16xf32>) outs(%z54 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %cat56 = tensor.insert_slice %r55 into %cat47[0, 16] [16, 16] [1, 1] : tensor<16x16xf32> into tensor<16x32xf32>
  %z57 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r58 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%cat56, %wo1 : tensor<16x32xf32>, tensor<32x32xf32>) outs(%z57 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %res59 = linalg.add ins(%res32, %r58 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %z60 = linalg.fill ins(%zero : f32) outs(%e16x64 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r61 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%res59, %w11 : tensor<16x32xf32>, tensor<64x32xf32>) outs(%z60 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %z62 = linalg.fill ins(%zero : f32) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r63 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%r61, %w21 : tensor<16x64xf32>, tensor<32x64xf32>) outs(%z62 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %res64 = linalg.add ins(%res59, %r63 : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e16x32 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %res64 : tensor<16x32xf32>
}
