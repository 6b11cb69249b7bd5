// RUN: nvfp4-opt %s -canonicalize -split-input-file | FileCheck %s

// quantize(dequantize(q)) with identical parameters is q.
// CHECK-LABEL: func @requantize_folds
// CHECK-SAME: (%[[Q:.*]]: !nvfp4.tensor<64x64, 1x16>)
// CHECK-NEXT: return %[[Q]]
func.func @requantize_folds(%q: !nvfp4.tensor<64x64, 1x16>) -> !nvfp4.tensor<64x64, 1x16> {
  %d = nvfp4.dequantize %q : !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xf32>
  %r = nvfp4.quantize %d : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x16>
  return %r : !nvfp4.tensor<64x64, 1x16>
}

// -----

// CHECK-LABEL: func @requantize_2d_folds
// CHECK-SAME: (%[[Q:.*]]: !nvfp4.tensor<64x64, 16x16>)
// CHECK-NEXT: return %[[Q]]
func.func @requantize_2d_folds(%q: !nvfp4.tensor<64x64, 16x16>) -> !nvfp4.tensor<64x64, 16x16> {
  %d = nvfp4.dequantize %q : !nvfp4.tensor<64x64, 16x16> -> tensor<64x64xf32>
  %r = nvfp4.quantize %d : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 16x16>
  return %r : !nvfp4.tensor<64x64, 16x16>
}

// -----

// A decode-scaled tensor re-quantized is a new, amax-scaled encoding.
// CHECK-LABEL: func @requantize_decode_scale
// CHECK: nvfp4.dequantize
// CHECK: nvfp4.quantize
func.func @requantize_decode_scale(%q: !nvfp4.tensor<64x64, 1x16, decode>) -> !nvfp4.tensor<64x64, 1x16> {
  %d = nvfp4.dequantize %q : !nvfp4.tensor<64x64, 1x16, decode> -> tensor<64x64xf32>
  %r = nvfp4.quantize %d : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x16>
  return %r : !nvfp4.tensor<64x64, 1x16>
}

// -----

// A different block layout is a real re-quantization.
// CHECK-LABEL: func @requantize_other_block
// CHECK: nvfp4.dequantize
// CHECK: nvfp4.quantize
func.func @requantize_other_block(%q: !nvfp4.tensor<64x64, 1x16>) -> !nvfp4.tensor<64x64, 16x16> {
  %d = nvfp4.dequantize %q : !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xf32>
  %r = nvfp4.quantize %d : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 16x16>
  return %r : !nvfp4.tensor<64x64, 16x16>
}

// -----

// A bf16 dequantization rounds the values: not folded.
// CHECK-LABEL: func @requantize_bf16
// CHECK: nvfp4.dequantize
// CHECK: nvfp4.quantize
func.func @requantize_bf16(%q: !nvfp4.tensor<64x64, 1x16>) -> !nvfp4.tensor<64x64, 1x16> {
  %d = nvfp4.dequantize %q : !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xbf16>
  %r = nvfp4.quantize %d : tensor<64x64xbf16> -> !nvfp4.tensor<64x64, 1x16>
  return %r : !nvfp4.tensor<64x64, 1x16>
}

// -----

// Stochastic rounding, an explicit amax or a Hadamard transform change the
// encoding: not folded.
// CHECK-LABEL: func @requantize_changed_parameters
// CHECK-COUNT-3: nvfp4.quantize
func.func @requantize_changed_parameters(%q: !nvfp4.tensor<64x64, 1x16>, %a: f32)
    -> (!nvfp4.tensor<64x64, 1x16>, !nvfp4.tensor<64x64, 1x16>, !nvfp4.tensor<64x64, 1x16>) {
  %d = nvfp4.dequantize %q : !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xf32>
  %0 = nvfp4.quantize %d rounding rs offset 0 : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x16>
  %1 = nvfp4.quantize %d amax %a : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x16>
  %2 = nvfp4.quantize %d hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x16>
  return %0, %1, %2 : !nvfp4.tensor<64x64, 1x16>, !nvfp4.tensor<64x64, 1x16>, !nvfp4.tensor<64x64, 1x16>
}

// -----

// The lossy dequantize(quantize(x)) is never folded to x.
// CHECK-LABEL: func @fake_quant_kept
// CHECK: %[[Q:.*]] = nvfp4.quantize
// CHECK: %[[D:.*]] = nvfp4.dequantize %[[Q]]
// CHECK: return %[[D]]
func.func @fake_quant_kept(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %q = nvfp4.quantize %x : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x16>
  %d = nvfp4.dequantize %q : !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// A single-use Hadamard transform is fused into the quantization.
// CHECK-LABEL: func @fuse_hadamard
// CHECK-SAME: (%[[X:.*]]: tensor<64x64xbf16>)
// CHECK-NOT: nvfp4.hadamard
// CHECK: nvfp4.quantize %[[X]] rounding rs offset 8 hadamard [1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1] : tensor<64x64xbf16>
func.func @fuse_hadamard(%x: tensor<64x64xbf16>) -> !nvfp4.tensor<64x64, 1x16> {
  %h = nvfp4.hadamard %x signs [1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1] : tensor<64x64xbf16>
  %q = nvfp4.quantize %h rounding rs offset 8 : tensor<64x64xbf16> -> !nvfp4.tensor<64x64, 1x16>
  return %q : !nvfp4.tensor<64x64, 1x16>
}

// -----

// The default sign vector is made explicit when fused.
// CHECK-LABEL: func @fuse_hadamard_default_signs
// CHECK-NOT: nvfp4.hadamard
// CHECK: nvfp4.quantize %{{.*}} hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1]
func.func @fuse_hadamard_default_signs(%x: tensor<32x32xf32>) -> !nvfp4.tensor<32x32, 1x16> {
  %h = nvfp4.hadamard %x : tensor<32x32xf32>
  %q = nvfp4.quantize %h : tensor<32x32xf32> -> !nvfp4.tensor<32x32, 1x16>
  return %q : !nvfp4.tensor<32x32, 1x16>
}

// -----

// A transform with other users is not duplicated.
// CHECK-LABEL: func @hadamard_multi_use
// CHECK: %[[H:.*]] = nvfp4.hadamard
// CHECK: nvfp4.quantize %[[H]] :
func.func @hadamard_multi_use(%x: tensor<32x32xf32>) -> (!nvfp4.tensor<32x32, 1x16>, tensor<32x32xf32>) {
  %h = nvfp4.hadamard %x : tensor<32x32xf32>
  %q = nvfp4.quantize %h : tensor<32x32xf32> -> !nvfp4.tensor<32x32, 1x16>
  return %q, %h : !nvfp4.tensor<32x32, 1x16>, tensor<32x32xf32>
}

// -----

// A quantization that already transforms its input is left alone.
// CHECK-LABEL: func @hadamard_twice
// CHECK: %[[H:.*]] = nvfp4.hadamard
// CHECK: nvfp4.quantize %[[H]] hadamard
func.func @hadamard_twice(%x: tensor<32x32xf32>) -> !nvfp4.tensor<32x32, 1x16> {
  %h = nvfp4.hadamard %x : tensor<32x32xf32>
  %q = nvfp4.quantize %h hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<32x32xf32> -> !nvfp4.tensor<32x32, 1x16>
  return %q : !nvfp4.tensor<32x32, 1x16>
}

// -----

// An amax of the input computed before the quantization is its tensor amax:
// the quantization takes it as its operand (the earliest one).
// CHECK-LABEL: func @use_computed_amax
// CHECK-SAME: (%[[X:.*]]: tensor<32x32xbf16>, %[[SEED:.*]]: i64)
// CHECK: %[[A:.*]] = nvfp4.amax %[[X]]
// CHECK: %[[A2:.*]] = nvfp4.amax %[[X]]
// CHECK: nvfp4.quantize %[[X]] amax %[[A]] rounding rs seed %[[SEED]] offset 0 :
// CHECK: return
func.func @use_computed_amax(%x: tensor<32x32xbf16>, %seed: i64) -> (!nvfp4.tensor<32x32, 1x16>, f32, f32) {
  %a = nvfp4.amax %x : tensor<32x32xbf16>
  %a2 = nvfp4.amax %x : tensor<32x32xbf16>
  %q = nvfp4.quantize %x rounding rs seed %seed offset 0 : tensor<32x32xbf16> -> !nvfp4.tensor<32x32, 1x16>
  return %q, %a, %a2 : !nvfp4.tensor<32x32, 1x16>, f32, f32
}

// -----

// Left alone: an amax after the quantization, in another block, of the
// untransformed input of a Hadamard quantization, or with an amax operand.
// CHECK-LABEL: func @computed_amax_not_used
// CHECK: nvfp4.quantize %{{.*}} : tensor<32x32xf32>
// CHECK: scf.if
// CHECK: nvfp4.quantize %{{.*}} hadamard
// CHECK: nvfp4.quantize %{{.*}} amax %{{.*}} : tensor<32x32xf32>
func.func @computed_amax_not_used(%x: tensor<32x32xf32>, %c: i1, %m: f32) -> (!nvfp4.tensor<32x32, 1x16>, f32, f32, !nvfp4.tensor<32x32, 1x16>, !nvfp4.tensor<32x32, 1x16>) {
  %q = nvfp4.quantize %x : tensor<32x32xf32> -> !nvfp4.tensor<32x32, 1x16>
  %a = nvfp4.amax %x : tensor<32x32xf32>
  %b = scf.if %c -> f32 {
    %a1 = nvfp4.amax %x : tensor<32x32xf32>
    scf.yield %a1 : f32
  } else {
    scf.yield %m : f32
  }
  %qh = nvfp4.quantize %x hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<32x32xf32> -> !nvfp4.tensor<32x32, 1x16>
  %qm = nvfp4.quantize %x amax %m : tensor<32x32xf32> -> !nvfp4.tensor<32x32, 1x16>
  return %q, %a, %b, %qh, %qm : !nvfp4.tensor<32x32, 1x16>, f32, f32, !nvfp4.tensor<32x32, 1x16>, !nvfp4.tensor<32x32, 1x16>
}

// -----

// CHECK-LABEL: func @transpose_twice
// CHECK-SAME: (%[[W:.*]]: !nvfp4.tensor<32x64, 16x16>)
// CHECK-NEXT: return %[[W]]
func.func @transpose_twice(%w: !nvfp4.tensor<32x64, 16x16>) -> !nvfp4.tensor<32x64, 16x16> {
  %t = nvfp4.transpose %w : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<64x32, 16x16>
  %u = nvfp4.transpose %t : !nvfp4.tensor<64x32, 16x16> -> !nvfp4.tensor<32x64, 16x16>
  return %u : !nvfp4.tensor<32x64, 16x16>
}

// -----

// CHECK-LABEL: func @transpose_once
// CHECK: nvfp4.transpose
func.func @transpose_once(%w: !nvfp4.tensor<32x64, 16x16>) -> !nvfp4.tensor<64x32, 16x16> {
  %t = nvfp4.transpose %w : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<64x32, 16x16>
  return %t : !nvfp4.tensor<64x32, 16x16>
}

// -----

// CHECK-LABEL: func @assemble_disassemble
// CHECK-SAME: (%[[Q:.*]]: !nvfp4.tensor<32x64, 1x16>)
// CHECK-NEXT: return %[[Q]]
func.func @assemble_disassemble(%q: !nvfp4.tensor<32x64, 1x16>) -> !nvfp4.tensor<32x64, 1x16> {
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 1x16>
  %r = nvfp4.assemble %d, %s, %g : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN> -> !nvfp4.tensor<32x64, 1x16>
  return %r : !nvfp4.tensor<32x64, 1x16>
}

// -----

// Components of different tensors do not fold.
// CHECK-LABEL: func @assemble_mixed
// CHECK: nvfp4.assemble
func.func @assemble_mixed(%q: !nvfp4.tensor<32x64, 1x16>, %g2: f32) -> !nvfp4.tensor<32x64, 1x16> {
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 1x16>
  %r = nvfp4.assemble %d, %s, %g2 : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN> -> !nvfp4.tensor<32x64, 1x16>
  return %r : !nvfp4.tensor<32x64, 1x16>
}

// -----

// CHECK-LABEL: func @disassemble_assemble
// CHECK-SAME: (%[[D:.*]]: tensor<32x64xf4E2M1FN>, %[[S:.*]]: tensor<2x4xf8E4M3FN>, %[[G:.*]]: f32)
// CHECK-NEXT: return %[[D]], %[[S]], %[[G]]
func.func @disassemble_assemble(%d: tensor<32x64xf4E2M1FN>, %s: tensor<2x4xf8E4M3FN>, %g: f32)
    -> (tensor<32x64xf4E2M1FN>, tensor<2x4xf8E4M3FN>, f32) {
  %q = nvfp4.assemble %d, %s, %g : tensor<32x64xf4E2M1FN>, tensor<2x4xf8E4M3FN> -> !nvfp4.tensor<32x64, 16x16>
  %0:3 = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 16x16>
  return %0#0, %0#1, %0#2 : tensor<32x64xf4E2M1FN>, tensor<2x4xf8E4M3FN>, f32
}

// -----

// MX components round-trip through assemble / disassemble in both orders.
// CHECK-LABEL: func @mx_assemble_disassemble
// CHECK-SAME: (%[[Q:.*]]: !nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>, %[[D:.*]]: tensor<32x64xf4E2M1FN>, %[[S:.*]]: tensor<32x2xf8E8M0FNU>)
// CHECK-NEXT: return %[[Q]], %[[D]], %[[S]]
func.func @mx_assemble_disassemble(%q: !nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>, %d: tensor<32x64xf4E2M1FN>, %s: tensor<32x2xf8E8M0FNU>)
    -> (!nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>, tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU>) {
  %qd, %qs = nvfp4.disassemble %q : !nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>
  %r = nvfp4.assemble %qd, %qs : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> -> !nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>
  %m = nvfp4.assemble %d, %s : tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU> -> !nvfp4.tensor<32x64, 1x32, mxfp4>
  %md, %ms = nvfp4.disassemble %m : !nvfp4.tensor<32x64, 1x32, mxfp4>
  return %r, %md, %ms : !nvfp4.tensor<32x64, 1x32, mxfp8_e4m3>, tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU>
}

// -----

// An MX tensor re-quantized is not folded: a block whose largest element is
// below the format's top binade gets a smaller shared scale.
// CHECK-LABEL: func @mx_requantize_kept
// CHECK: %[[D:.*]] = nvfp4.dequantize
// CHECK: %[[R:.*]] = nvfp4.quantize %[[D]]
// CHECK: return %[[R]]
func.func @mx_requantize_kept(%q: !nvfp4.tensor<64x64, 1x32, mxfp4>) -> !nvfp4.tensor<64x64, 1x32, mxfp4> {
  %d = nvfp4.dequantize %q : !nvfp4.tensor<64x64, 1x32, mxfp4> -> tensor<64x64xf32>
  %r = nvfp4.quantize %d : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x32, mxfp4>
  return %r : !nvfp4.tensor<64x64, 1x32, mxfp4>
}

// -----

// MX quantization fuses no Hadamard transform and takes no amax operand.
// CHECK-LABEL: func @mx_quantize_kept
// CHECK: %[[H:.*]] = nvfp4.hadamard %{{.*}} : tensor<64x64xf32>
// CHECK: nvfp4.quantize %[[H]] : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x32, mxfp4>
// CHECK: %[[A:.*]] = nvfp4.amax %[[X:.*]] :
// CHECK: nvfp4.quantize %[[X]] : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x32, mxfp8_e4m3>
func.func @mx_quantize_kept(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> (!nvfp4.tensor<64x64, 1x32, mxfp4>, f32, !nvfp4.tensor<64x64, 1x32, mxfp8_e4m3>) {
  %h = nvfp4.hadamard %x : tensor<64x64xf32>
  %q = nvfp4.quantize %h : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x32, mxfp4>
  %a = nvfp4.amax %y : tensor<64x64xf32>
  %r = nvfp4.quantize %y : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x32, mxfp8_e4m3>
  return %q, %a, %r : !nvfp4.tensor<64x64, 1x32, mxfp4>, f32, !nvfp4.tensor<64x64, 1x32, mxfp8_e4m3>
}

// -----

// Unused pure ops are removed.
// CHECK-LABEL: func @dead
// CHECK-NOT: nvfp4.
// CHECK: return
func.func @dead(%x: tensor<32x32xf32>) {
  %q = nvfp4.quantize %x : tensor<32x32xf32> -> !nvfp4.tensor<32x32, 1x16>
  %m = nvfp4.matmul %q, %q : !nvfp4.tensor<32x32, 1x16>, !nvfp4.tensor<32x32, 1x16> -> tensor<32x32xf32>
  return
}
