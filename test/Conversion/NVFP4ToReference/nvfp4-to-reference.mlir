// RUN: nvfp4-opt %s --convert-nvfp4-to-reference="kernels=inline" --split-input-file | FileCheck %s
// RUN: nvfp4-opt %s --convert-nvfp4-to-reference="kernels=inline fake-quant=true" --split-input-file | FileCheck %s --check-prefix=FAKE

// Function boundaries: an NVFP4 tensor becomes codes, scales and the decode
// scale; f4E2M1FN / f8E4M3FN tensors become i8 tensors.
// CHECK-LABEL: func.func @signature
// CHECK-SAME: (%[[D:.*]]: tensor<32x64xi8>, %[[S:.*]]: tensor<2x4xi8>, %[[G:.*]]: f32, %{{.*}}: tensor<4x16xi8>)
// CHECK-SAME: -> (tensor<32x64xi8>, tensor<2x4xi8>, f32)
// CHECK: return %[[D]], %[[S]], %[[G]] : tensor<32x64xi8>, tensor<2x4xi8>, f32
func.func @signature(%q: !nvfp4.tensor<32x64, 16x16>, %c: tensor<4x16xf4E2M1FN>)
    -> !nvfp4.tensor<32x64, 16x16> {
  return %q : !nvfp4.tensor<32x64, 16x16>
}

// -----

// CHECK-LABEL: func.func @call
// CHECK: %[[R:.*]]:3 = call @signature2(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<16x32xi8>, tensor<16x2xi8>, f32) -> (tensor<16x32xi8>, tensor<16x2xi8>, f32)
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func private @signature2(!nvfp4.tensor<16x32, 1x16>) -> !nvfp4.tensor<16x32, 1x16>
func.func @call(%q: !nvfp4.tensor<16x32, 1x16>) -> !nvfp4.tensor<16x32, 1x16> {
  %r = call @signature2(%q) : (!nvfp4.tensor<16x32, 1x16>) -> !nvfp4.tensor<16x32, 1x16>
  return %r : !nvfp4.tensor<16x32, 1x16>
}

// -----

// Round-to-nearest quantization: amax over 16-lane vectors, S_enc =
// fminf(2688 / amax, FLT_MAX), per-block E4M3 scale and reciprocal
// multiplier, E2M1 codes written as vector<16xi8>; the amax is the tensor's
// f32 component. No Philox without stochastic rounding.
// CHECK-LABEL: func.func @quantize_rn
// CHECK-SAME: (%[[X:.*]]: tensor<32x64xf32>) -> (tensor<32x64xi8>, tensor<32x4xi8>, f32)
// CHECK: vector.transfer_read %[[X]]{{.*}} : tensor<32x64xf32>, vector<16xf32>
// CHECK: arith.constant 2.688000e+03 : f32
// CHECK: %[[Q:.*]] = arith.divf %{{.*}}, %[[AMAX:.*]] : f32
// CHECK: arith.cmpf ugt, %[[Q]]
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: %[[RES:.*]]:2 = scf.for
// CHECK: scf.for
// CHECK: tensor.insert %{{.*}} : tensor<32x4xi8>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: arith.trunci %{{.*}} : vector<16xi32> to vector<16xi8>
// CHECK: vector.transfer_write %{{.*}} : vector<16xi8>, tensor<32x64xi8>
// CHECK-NOT: arith.mului_extended
// CHECK: return %[[RES]]#0, %[[RES]]#1, %[[AMAX]]
func.func @quantize_rn(%x: tensor<32x64xf32>) -> !nvfp4.tensor<32x64, 1x16> {
  %q = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  return %q : !nvfp4.tensor<32x64, 1x16>
}

// -----

// Stochastic rounding with the RHT on a bf16 3D input with 16x16 blocks: the
// input is widened, reshaped to 2D, transformed by butterflies
// (vector.shuffle), and each block draws 10 Philox rounds of 2 mulhi/lo.
// CHECK-LABEL: func.func @quantize_rs_hadamard
// CHECK-SAME: (%[[X:.*]]: tensor<2x32x64xbf16>, %[[SEED:.*]]: i64)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x32x64xf32> into tensor<64x64xf32>
// CHECK: vector.shuffle
// CHECK: arith.constant dense<2.500000e-01> : vector<16xf32>
// CHECK: arith.constant 5 : i64
// CHECK-COUNT-20: arith.mului_extended
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [2, 32, 64] : tensor<64x64xi8> into tensor<2x32x64xi8>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [2, 2, 4] : tensor<4x4xi8> into tensor<2x2x4xi8>
func.func @quantize_rs_hadamard(%x: tensor<2x32x64xbf16>, %seed: i64) -> !nvfp4.tensor<2x32x64, 16x16> {
  %q = nvfp4.quantize %x rounding rs seed %seed offset 5 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<2x32x64xbf16> -> !nvfp4.tensor<2x32x64, 16x16>
  return %q : !nvfp4.tensor<2x32x64, 16x16>
}

// -----

// An explicit amax replaces the reduction.
// CHECK-LABEL: func.func @quantize_amax
// CHECK-SAME: (%[[X:.*]]: tensor<16xf32>, %[[A:.*]]: f32)
// CHECK: tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [1, 16] : tensor<16xf32> into tensor<1x16xf32>
// CHECK-NOT: vector.transfer_read
// CHECK: arith.divf %{{.*}}, %[[A]] : f32
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<1x16xi8> into tensor<16xi8>
func.func @quantize_amax(%x: tensor<16xf32>, %amax: f32) -> !nvfp4.tensor<16, 1x16> {
  %q = nvfp4.quantize %x amax %amax : tensor<16xf32> -> !nvfp4.tensor<16, 1x16>
  return %q : !nvfp4.tensor<16, 1x16>
}

// -----

// nvfp4.amax: the input widened to f32 (exact) and viewed as 2D, then the
// tensor amax reduction of nvfp4.quantize: |x| by clearing the sign bit, a
// NaN-ignoring running maximum of 16 lanes over the blocks, then the lanes
// in order from 0.
// CHECK-LABEL: func.func @amax
// CHECK-SAME: (%[[X:.*]]: tensor<2x32x64xbf16>) -> f32
// CHECK: %[[W:.*]] = linalg.generic
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[X2:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<2x32x64xf32> into tensor<64x64xf32>
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: %[[LANES:.*]] = scf.for %{{.*}} = %{{.*}} to %c64 {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<16xf32>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4 {{.*}} -> (vector<16xf32>)
// CHECK: %[[V:.*]] = vector.transfer_read %[[X2]]{{.*}} : tensor<64x64xf32>, vector<16xf32>
// CHECK: %[[MASK:.*]] = arith.constant dense<2147483647> : vector<16xi32>
// CHECK: %[[BITS:.*]] = arith.bitcast %[[V]] : vector<16xf32> to vector<16xi32>
// CHECK: %[[ABSBITS:.*]] = arith.andi %[[BITS]], %[[MASK]]
// CHECK: %[[ABS:.*]] = arith.bitcast %[[ABSBITS]] : vector<16xi32> to vector<16xf32>
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[ABS]], %[[ACC:.*]] : vector<16xf32>
// CHECK: arith.select %[[GT]], %[[ABS]], %[[ACC]]
// CHECK: %[[L0:.*]] = vector.extract %[[LANES]][0] : f32 from vector<16xf32>
// CHECK: arith.cmpf ogt, %[[L0]], %{{.*}} : f32
// CHECK-COUNT-15: vector.extract %[[LANES]][{{[0-9]+}}] : f32 from vector<16xf32>
// CHECK: %[[A:.*]] = arith.select
// CHECK-NEXT: return %[[A]] : f32
func.func @amax(%x: tensor<2x32x64xbf16>) -> f32 {
  %a = nvfp4.amax %x : tensor<2x32x64xbf16>
  return %a : f32
}

// -----

// An f32 rank-1 input is only reshaped to [1, 16].
// CHECK-LABEL: func.func @amax_rank1
// CHECK-SAME: (%[[X:.*]]: tensor<16xf32>) -> f32
// CHECK-NOT: linalg.generic
// CHECK: %[[X2:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0, 1]] output_shape [1, 16] : tensor<16xf32> into tensor<1x16xf32>
// CHECK: vector.transfer_read %[[X2]]
// CHECK-NOT: nvfp4.amax
func.func @amax_rank1(%x: tensor<16xf32>) -> f32 {
  %a = nvfp4.amax %x : tensor<16xf32>
  return %a : f32
}

// -----

// Dequantization: one linalg.generic; the scale of element (i, j) of a 16x16
// tensor is read at (i floordiv 16, j floordiv 16); Transformer Engine's
// order q * ((s * amax) * fl(1/2688)).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[SC:.*]] = affine_map<(d0, d1) -> (d0 floordiv 16, d1 floordiv 16)>
// CHECK-LABEL: func.func @dequantize
// CHECK-SAME: (%[[D:.*]]: tensor<32x64xi8>, %[[S:.*]]: tensor<2x4xi8>, %[[G:.*]]: f32)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[SC]], #[[ID]]]
// CHECK-SAME: ins(%[[D]], %[[S]] : tensor<32x64xi8>, tensor<2x4xi8>)
// CHECK: %[[SA:.*]] = arith.mulf %[[SCALE:.*]], %[[G]] : f32
// CHECK: %[[F:.*]] = arith.mulf %[[SA]], %{{.*}} : f32
// CHECK: %[[V:.*]] = arith.mulf %[[Q:.*]], %[[F]] : f32
// CHECK: %[[T:.*]] = arith.truncf %[[V]] : f32 to bf16
// CHECK: linalg.yield %[[T]] : bf16
func.func @dequantize(%q: !nvfp4.tensor<32x64, 16x16>) -> tensor<32x64xbf16> {
  %y = nvfp4.dequantize %q : !nvfp4.tensor<32x64, 16x16> -> tensor<32x64xbf16>
  return %y : tensor<32x64xbf16>
}

// -----

// The exact GEMM: per 16-wide K block an exact vector sum, scaled by
// sA * sB and accumulated in increasing K; then * alpha, Transformer
// Engine's (amaxA * amaxB) * fl(1 / (36 * 448^2)), and + acc.
// FAKE, fake quantization: dequantize both operands and contract in f32.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: %[[GA:arg[0-9]+]]: f32, %{{arg[0-9]+}}: tensor<48x64xi8>, %{{arg[0-9]+}}: tensor<3x4xi8>, %[[GB:arg[0-9]+]]: f32, %{{arg[0-9]+}}: tensor<32x48xbf16>
// CHECK-DAG: %[[INV:.*]] = arith.constant 1.38401717E-7 : f32
// CHECK-DAG: %[[AB:.*]] = arith.mulf %[[GA]], %[[GB]] : f32
// CHECK: %[[GS:.*]] = arith.mulf %[[AB]], %[[INV]] : f32
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[K:.*]] = scf.for %{{.*}} = %{{.*}} to %c4 {{.*}} -> (f32)
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<16xf32> into f32
// CHECK: %[[C:.*]] = arith.mulf %[[K]], %[[GS]] : f32
// CHECK: tensor.extract %{{.*}} : tensor<1x32x48xf32>
// CHECK: arith.addf %[[C]]
// CHECK: tensor.insert
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// FAKE-LABEL: func.func @matmul
// FAKE-NOT: vector.reduction
// FAKE: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// FAKE: arith.mulf
// FAKE: arith.addf
// FAKE: arith.truncf %{{.*}} : f32 to bf16
func.func @matmul(%a: !nvfp4.tensor<32x64, 1x16>, %b: !nvfp4.tensor<48x64, 16x16>, %acc: tensor<32x48xbf16>) -> tensor<32x48xbf16> {
  %y = nvfp4.matmul %a, %b acc(%acc : tensor<32x48xbf16>) : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<48x64, 16x16> -> tensor<32x48xbf16>
  return %y : tensor<32x48xbf16>
}

// -----

// Decode tensor scales (a checkpoint's weight): dequantize multiplies the
// block scale by the decode scale and nothing else; the GEMM's alpha is the
// amax operand's fl(amax * fl(1/2688)) times the decode scale.
// CHECK-LABEL: func.func @decode_scale
// CHECK-SAME: %[[GW:arg[0-9]+]]: f32, %{{arg[0-9]+}}: tensor<32x64xi8>, %{{arg[0-9]+}}: tensor<32x4xi8>, %[[GX:arg[0-9]+]]: f32)
// CHECK: linalg.generic
// CHECK-NOT: 3.72023816E-4
// CHECK: %[[F:.*]] = arith.mulf %{{.*}}, %[[GW]] : f32
// CHECK-NEXT: arith.mulf %{{.*}}, %[[F]] : f32
// CHECK: linalg.yield
// CHECK-DAG: %[[INV:.*]] = arith.constant 3.72023816E-4 : f32
// CHECK-DAG: %[[DX:.*]] = arith.mulf %[[GX]], %[[INV]] : f32
// CHECK: %[[ALPHA:.*]] = arith.mulf %[[DX]], %[[GW]] : f32
// CHECK: arith.mulf %{{.*}}, %[[ALPHA]] : f32
func.func @decode_scale(%w: !nvfp4.tensor<64x64, 1x16, decode>, %x: !nvfp4.tensor<32x64, 1x16>) -> (tensor<64x64xf32>, tensor<32x64xf32>) {
  %d = nvfp4.dequantize %w : !nvfp4.tensor<64x64, 1x16, decode> -> tensor<64x64xf32>
  %y = nvfp4.matmul %x, %w : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<64x64, 1x16, decode> -> tensor<32x64xf32>
  return %d, %y : tensor<64x64xf32>, tensor<32x64xf32>
}

// -----

// CHECK-LABEL: func.func @hadamard
// CHECK-SAME: (%[[X:.*]]: tensor<4x32xf32>)
// CHECK: %[[R:.*]] = scf.for
// CHECK: vector.transfer_read %[[X]]
// CHECK: arith.negf %{{.*}} : vector<16xf32>
// CHECK-COUNT-4: arith.subf
// CHECK: vector.transfer_write
// CHECK: return %[[R]]
func.func @hadamard(%x: tensor<4x32xf32>) -> tensor<4x32xf32> {
  %y = nvfp4.hadamard %x : tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// Rescale = dequantize (linalg.generic) then quantize.
// CHECK-LABEL: func.func @rescale
// CHECK: linalg.generic
// CHECK: scf.for
// CHECK: arith.mului_extended
func.func @rescale(%q: !nvfp4.tensor<32x64, 1x16>) -> !nvfp4.tensor<32x64, 16x16> {
  %r = nvfp4.rescale %q rounding rs offset 0 : !nvfp4.tensor<32x64, 1x16> -> !nvfp4.tensor<32x64, 16x16>
  return %r : !nvfp4.tensor<32x64, 16x16>
}

// -----

// Transpose moves codes and tile scales; the amax passes through.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[D:.*]]: tensor<32x64xi8>, %[[S:.*]]: tensor<2x4xi8>, %[[G:.*]]: f32)
// CHECK: %[[TD:.*]] = linalg.transpose ins(%[[D]] : tensor<32x64xi8>) outs(%{{.*}} : tensor<64x32xi8>) permutation = [1, 0]
// CHECK: %[[TS:.*]] = linalg.transpose ins(%[[S]] : tensor<2x4xi8>) outs(%{{.*}} : tensor<4x2xi8>) permutation = [1, 0]
// CHECK: return %[[TD]], %[[TS]], %[[G]]
func.func @transpose(%q: !nvfp4.tensor<32x64, 16x16>) -> !nvfp4.tensor<64x32, 16x16> {
  %t = nvfp4.transpose %q : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<64x32, 16x16>
  return %t : !nvfp4.tensor<64x32, 16x16>
}

// -----

// assemble / disassemble only regroup values; bitcasts of component tensors
// to their integer view narrow or widen the bytes; constants of component
// tensors become i8 constants. Other bitcasts and constants are left alone.
// CHECK-LABEL: func.func @components
// CHECK-SAME: (%[[D:.*]]: tensor<1x16xi8>, %[[S:.*]]: tensor<1x1xi8>, %[[G:.*]]: f32, %[[F:.*]]: tensor<4xf32>)
// CHECK-NOT: f8E4M3FN
// CHECK-NOT: f4E2M1FN
// CHECK: arith.constant dense<56> : tensor<1x1xi8>
// CHECK: %[[I4:.*]] = linalg.generic
// CHECK: arith.trunci %{{.*}} : i8 to i4
// CHECK: %[[FI:.*]] = arith.bitcast %[[F]] : tensor<4xf32> to tensor<4xi32>
// CHECK: return %[[D]], %{{.*}}, %[[G]], %[[I4]], %[[S]], %[[FI]] : tensor<1x16xi8>, tensor<1x1xi8>, f32, tensor<1x16xi4>, tensor<1x1xi8>, tensor<4xi32>
func.func @components(%q: !nvfp4.tensor<1x16, 1x16>, %f: tensor<4xf32>)
    -> (!nvfp4.tensor<1x16, 1x16>, tensor<1x16xi4>, tensor<1x1xi8>, tensor<4xi32>) {
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<1x16, 1x16>
  %c = arith.constant dense<56> : tensor<1x1xi8>
  %cs = arith.bitcast %c : tensor<1x1xi8> to tensor<1x1xf8E4M3FN>
  %r = nvfp4.assemble %d, %cs, %g : tensor<1x16xf4E2M1FN>, tensor<1x1xf8E4M3FN> -> !nvfp4.tensor<1x16, 1x16>
  %di = arith.bitcast %d : tensor<1x16xf4E2M1FN> to tensor<1x16xi4>
  %si = arith.bitcast %s : tensor<1x1xf8E4M3FN> to tensor<1x1xi8>
  %fi = arith.bitcast %f : tensor<4xf32> to tensor<4xi32>
  return %r, %di, %si, %fi : !nvfp4.tensor<1x16, 1x16>, tensor<1x16xi4>, tensor<1x1xi8>, tensor<4xi32>
}

// -----

// Functions without NVFP4 types are untouched.
// CHECK-LABEL: func.func @untouched
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[X]], %[[X]] : tensor<4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @untouched(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Structured control flow carries the three components.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: (%[[D:.*]]: tensor<16x32xi8>, %[[S:.*]]: tensor<16x2xi8>, %[[G:.*]]: f32
// CHECK: %[[R:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %[[D]], %{{.*}} = %[[S]], %{{.*}} = %[[G]]) -> (tensor<16x32xi8>, tensor<16x2xi8>, f32)
// CHECK: scf.yield %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xi8>, tensor<16x2xi8>, f32
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
func.func @loop(%q: !nvfp4.tensor<16x32, 1x16>, %n: index) -> !nvfp4.tensor<16x32, 1x16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %q) -> (!nvfp4.tensor<16x32, 1x16>) {
    %x = nvfp4.dequantize %acc : !nvfp4.tensor<16x32, 1x16> -> tensor<16x32xf32>
    %y = nvfp4.quantize %x : tensor<16x32xf32> -> !nvfp4.tensor<16x32, 1x16>
    scf.yield %y : !nvfp4.tensor<16x32, 1x16>
  }
  return %r : !nvfp4.tensor<16x32, 1x16>
}
