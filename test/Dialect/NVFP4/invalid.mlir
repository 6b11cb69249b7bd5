// RUN: nvfp4-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

// expected-error @+1 {{last dimension (100) must be a multiple of 16}}
func.func @type_last_dim(%a: !nvfp4.tensor<4x100, 1x16>) { return }

// -----

// The static dimensions of a run-time shape obey the rules.
// expected-error @+1 {{last dimension (100) must be a multiple of 16}}
func.func @type_dynamic_last_dim(%a: !nvfp4.tensor<?x100, 1x16>) { return }

// -----

// expected-error @+1 {{second-to-last dimension (8) must be a multiple of 16 for 16x16 blocks}}
func.func @type_dynamic_2d_rows(%a: !nvfp4.tensor<?x8x64, 16x16>) { return }

// -----

// expected-error @+1 {{NVFP4 tensor dimensions must be positive, got 0}}
func.func @type_dynamic_zero(%a: !nvfp4.tensor<?x0x64, 1x16>) { return }

// -----

// expected-error @+1 {{NVFP4 tensor shape ?x4611686018427387904x4611686018427387904x16 has more elements than a 64-bit index can count}}
func.func @type_dynamic_element_count_overflow(%a: !nvfp4.tensor<?x4611686018427387904x4611686018427387904x16, 1x16>) { return }

// -----

// expected-error @+1 {{second-to-last dimension (8) must be a multiple of 16 for 16x16 blocks}}
func.func @type_2d_rows(%a: !nvfp4.tensor<8x64, 16x16>) { return }

// -----

// expected-error @+1 {{16x16 blocks need a tensor of rank >= 2}}
func.func @type_2d_rank(%a: !nvfp4.tensor<64, 16x16>) { return }

// -----

// 2^62 x 2^62 x 16 elements: the product wraps around in int64.
// expected-error @+1 {{NVFP4 tensor shape 4611686018427387904x4611686018427387904x16 has more elements than a 64-bit index can count}}
func.func @type_element_count_overflow(%a: !nvfp4.tensor<4611686018427387904x4611686018427387904x16, 1x16>) { return }

// -----

// 2^58 x 16 elements fit in int64 ...
func.func @type_element_count_limit(%a: !nvfp4.tensor<288230376151711744x16, 1x16>) { return }

// -----

// ... 2^59 x 16 (2^63) do not.
// expected-error @+1 {{NVFP4 tensor shape 576460752303423488x16 has more elements than a 64-bit index can count}}
func.func @type_element_count_limit_plus_one(%a: !nvfp4.tensor<576460752303423488x16, 1x16>) { return }

// -----

// expected-error @+1 {{expected a format (`nvfp4`, `mxfp4`, `mxfp8_e4m3`, `mxfp8_e5m2`) or a tensor scale kind (`amax` or `decode`), got 'decoded'}}
func.func @type_tensor_scale(%a: !nvfp4.tensor<32x64, 1x16, decoded>) { return }

// -----

// expected-error @+1 {{expected a tensor scale kind (`amax` or `decode`), got 'mxfp4'}}
func.func @type_two_formats(%a: !nvfp4.tensor<32x64, 1x32, mxfp4, mxfp4>) { return }

// -----

// The format comes before the tensor-scale kind.
// expected-error @+1 {{expected '>', got 'nvfp4'}}
func.func @type_format_after_scale(%a: !nvfp4.tensor<32x64, 1x16, amax, nvfp4>) { return }

// -----

// expected-error @+1 {{format mxfp4 takes 1x32 blocks, got 1x16}}
func.func @type_mx_block(%a: !nvfp4.tensor<32x64, 1x16, mxfp4>) { return }

// -----

// expected-error @+1 {{format mxfp8_e4m3 takes 1x32 blocks, got 16x16}}
func.func @type_mx_block_2d(%a: !nvfp4.tensor<32x64, 16x16, mxfp8_e4m3>) { return }

// -----

// expected-error @+1 {{format mxfp8_e5m2 has no tensor scale; `decode` is NVFP4 only}}
func.func @type_mx_decode(%a: !nvfp4.tensor<32x64, 1x32, mxfp8_e5m2, decode>) { return }

// -----

// expected-error @+1 {{last dimension (48) must be a multiple of 32}}
func.func @type_mx_last_dim(%a: !nvfp4.tensor<4x48, 1x32, mxfp4>) { return }

// -----

// 2^58 x 32 = 2^63 elements.
// expected-error @+1 {{NVFP4 tensor shape 288230376151711744x32 has more elements than a 64-bit index can count}}
func.func @type_mx_element_count(%a: !nvfp4.tensor<288230376151711744x32, 1x32, mxfp8_e4m3>) { return }

// -----

// expected-error @+1 {{NVFP4 tensor dimensions must be positive, got 0}}
func.func @type_zero(%a: !nvfp4.tensor<0x64, 1x16>) { return }

// -----

// expected-error @+1 {{format nvfp4 takes 1x16 or 16x16 blocks, got 1x32}}
func.func @type_block(%a: !nvfp4.tensor<4x64, 1x32>) { return }

// -----

// expected-error @+1 {{block shape must be 1x16 or 16x16 (NVFP4) or 1x32 (MX), got 32x32}}
func.func @attr_block() attributes {b = #nvfp4.block<32x32>} { return }

// -----

// expected-error @+1 {{expected a block shape of the form RxC}}
func.func @attr_block_rank() attributes {b = #nvfp4.block<16>} { return }

// -----

// expected-error @+1 {{expected ','}}
func.func @type_missing_block(%a: !nvfp4.tensor<4x64>) { return }

// -----

// expected-error @+2 {{expected ::mlir::nvfp4::Rounding to be one of: rn, rs}}
// expected-error @+1 {{failed to parse NVFP4_RoundingAttr parameter 'value'}}
func.func @attr_rounding() attributes {r = #nvfp4<rounding rz>} { return }

//===----------------------------------------------------------------------===//
// nvfp4.quantize
//===----------------------------------------------------------------------===//

// -----

func.func @quantize_shape(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{input shape 128x64 does not match result shape 128x32}}
  %0 = nvfp4.quantize %x : tensor<128x64xf32> -> !nvfp4.tensor<128x32, 1x16>
  return
}

// -----

func.func @quantize_element_type(%x: tensor<128x64xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = nvfp4.quantize %x : tensor<128x64xi32> -> !nvfp4.tensor<128x64, 1x16>
  return
}

// -----

func.func @quantize_f8_input(%x: tensor<128x64xf8E4M3FN>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = nvfp4.quantize %x : tensor<128x64xf8E4M3FN> -> !nvfp4.tensor<128x64, 1x16>
  return
}

// -----

func.func @quantize_rs_needs_offset(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{stochastic rounding requires an 'offset'}}
  %0 = nvfp4.quantize %x rounding rs : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  return
}

// -----

func.func @quantize_negative_offset(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{'offset' must be non-negative, got -16}}
  %0 = nvfp4.quantize %x rounding rs offset -16 : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  return
}

// -----

func.func @quantize_rn_with_seed(%x: tensor<128x64xf32>, %s: i64) {
  // expected-error @+1 {{'seed' and 'offset' are only valid with stochastic rounding}}
  %0 = nvfp4.quantize %x seed %s : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  return
}

// -----

func.func @quantize_rn_with_offset(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{'seed' and 'offset' are only valid with stochastic rounding}}
  %0 = nvfp4.quantize %x offset 3 : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  return
}

// -----

func.func @quantize_signs_count(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{'hadamard' must have 16 entries, got 4}}
  %0 = nvfp4.quantize %x hadamard [1, 1, 1, 1] : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  return
}

// -----

func.func @quantize_signs_value(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{'hadamard' entries must be 1 or -1, got 2}}
  %0 = nvfp4.quantize %x hadamard [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2] : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  return
}

// -----

func.func @quantize_mx_amax(%x: tensor<128x64xf32>, %a: f32) {
  // expected-error @+1 {{an mxfp4 result has no tensor scale and takes no 'amax' operand}}
  %0 = nvfp4.quantize %x amax %a : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x32, mxfp4>
  return
}

// -----

func.func @quantize_mx_stochastic(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{an mxfp8_e4m3 result is rounded to nearest even; stochastic rounding is NVFP4 only}}
  %0 = nvfp4.quantize %x rounding rs offset 0 : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x32, mxfp8_e4m3>
  return
}

// -----

func.func @quantize_mx_hadamard(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{an mxfp8_e5m2 result takes no fused 'hadamard'; apply nvfp4.hadamard to the input first}}
  %0 = nvfp4.quantize %x hadamard [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x32, mxfp8_e5m2>
  return
}

// -----

func.func @quantize_mx_shape(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{input shape 128x64 does not match result shape 128x32}}
  %0 = nvfp4.quantize %x : tensor<128x64xf32> -> !nvfp4.tensor<128x32, 1x32, mxfp4>
  return
}

// -----

// expected-note @+1 {{prior use here}}
func.func @quantize_amax_type(%x: tensor<128x64xf32>, %a: f16) {
  // expected-error @+1 {{use of value '%a' expects different type than prior uses: 'f32' vs 'f16'}}
  %0 = nvfp4.quantize %x amax %a : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  return
}

//===----------------------------------------------------------------------===//
// nvfp4.amax
//===----------------------------------------------------------------------===//

// -----

func.func @amax_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{input must have rank >= 1, got 'tensor<f32>'}}
  %0 = nvfp4.amax %x : tensor<f32>
  return
}

// -----

func.func @amax_last_dim(%x: tensor<64x24xbf16>) {
  // expected-error @+1 {{input's last dimension must be a multiple of 16 (as nvfp4.quantize reads it), got 24}}
  %0 = nvfp4.amax %x : tensor<64x24xbf16>
  return
}

// -----

func.func @amax_element_type(%x: tensor<64x64xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = nvfp4.amax %x : tensor<64x64xi32>
  return
}

// -----

func.func @amax_f8_input(%x: tensor<64x64xf8E4M3FN>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = nvfp4.amax %x : tensor<64x64xf8E4M3FN>
  return
}

// -----

func.func @amax_result_type(%x: tensor<64x64xf32>) {
  // expected-error @+1 {{result #0 must be 32-bit float}}
  %0 = "nvfp4.amax"(%x) : (tensor<64x64xf32>) -> f16
  return
}

//===----------------------------------------------------------------------===//
// nvfp4.dequantize
//===----------------------------------------------------------------------===//

// -----

func.func @dequantize_shape(%q: !nvfp4.tensor<128x64, 1x16>) {
  // expected-error @+1 {{result shape 64x128 does not match input shape 128x64}}
  %0 = nvfp4.dequantize %q : !nvfp4.tensor<128x64, 1x16> -> tensor<64x128xf32>
  return
}

// -----

func.func @dequantize_element_type(%q: !nvfp4.tensor<128x64, 1x16>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float or bfloat16 type or 16-bit float values}}
  %0 = nvfp4.dequantize %q : !nvfp4.tensor<128x64, 1x16> -> tensor<128x64xf64>
  return
}

//===----------------------------------------------------------------------===//
// nvfp4.matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_k(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<64x128, 1x16>) {
  // expected-error @+1 {{contraction dimensions differ: lhs K = 256, rhs K = 128 (both operands are K-major)}}
  %0 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<64x128, 1x16> -> tensor<128x64xf32>
  return
}

// -----

func.func @matmul_nvfp4_with_mx(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<64x256, 1x32, mxfp4>) {
  // expected-error @+1 {{operands must both be NVFP4 or both MX, got nvfp4 and mxfp4 (no instruction mixes E4M3 and E8M0 block scales)}}
  %0 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<64x256, 1x32, mxfp4> -> tensor<128x64xf32>
  return
}

// -----

func.func @matmul_mx_with_nvfp4(%a: !nvfp4.tensor<128x256, 1x32, mxfp8_e5m2>, %b: !nvfp4.tensor<64x256, 16x16>) {
  // expected-error @+1 {{operands must both be NVFP4 or both MX, got mxfp8_e5m2 and nvfp4}}
  %0 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x32, mxfp8_e5m2>, !nvfp4.tensor<64x256, 16x16> -> tensor<128x64xf32>
  return
}

// -----

func.func @matmul_result(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<64x256, 1x16>) {
  // expected-error @+1 {{result shape 128x128 does not match the expected 128x64}}
  %0 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<64x256, 1x16> -> tensor<128x128xf32>
  return
}

// -----

func.func @matmul_rank_mismatch(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<2x64x256, 1x16>) {
  // expected-error @+1 {{operands must have the same rank, got 2 and 3}}
  %0 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<2x64x256, 1x16> -> tensor<128x64xf32>
  return
}

// -----

func.func @matmul_rank1(%a: !nvfp4.tensor<256, 1x16>, %b: !nvfp4.tensor<256, 1x16>) {
  // expected-error @+1 {{operands must be [M, K] and [N, K], or batched [B, M, K] and [B, N, K]; got rank 1}}
  %0 = nvfp4.matmul %a, %b : !nvfp4.tensor<256, 1x16>, !nvfp4.tensor<256, 1x16> -> tensor<1xf32>
  return
}

// -----

func.func @matmul_batch(%a: !nvfp4.tensor<2x32x64, 1x16>, %b: !nvfp4.tensor<3x48x64, 1x16>) {
  // expected-error @+1 {{batch dimensions differ: 2 and 3}}
  %0 = nvfp4.matmul %a, %b : !nvfp4.tensor<2x32x64, 1x16>, !nvfp4.tensor<3x48x64, 1x16> -> tensor<2x32x48xf32>
  return
}

// -----

func.func @matmul_result_type(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<64x256, 1x16>) {
  // expected-error @+1 {{result #0 must be ranked tensor of 32-bit float or bfloat16 type values}}
  %0 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<64x256, 1x16> -> tensor<128x64xf16>
  return
}

// -----

func.func @matmul_acc_type(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<64x256, 1x16>, %c: tensor<128x64xbf16>) {
  // expected-error @+1 {{accumulator type 'tensor<128x64xbf16>' does not match result type 'tensor<128x64xf32>'}}
  %0 = nvfp4.matmul %a, %b acc(%c : tensor<128x64xbf16>) : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<64x256, 1x16> -> tensor<128x64xf32>
  return
}

// -----

func.func @matmul_operand_not_nvfp4(%a: tensor<128x256xf32>, %b: !nvfp4.tensor<64x256, 1x16>) {
  // expected-error @+1 {{operand #0 must be a block-scaled tensor: NVFP4 (the default), MXFP4 or MXFP8, but got 'tensor<128x256xf32>'}}
  %0 = nvfp4.matmul %a, %b : tensor<128x256xf32>, !nvfp4.tensor<64x256, 1x16> -> tensor<128x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// nvfp4.hadamard
//===----------------------------------------------------------------------===//

// -----

func.func @hadamard_last_dim(%x: tensor<64x24xf32>) {
  // expected-error @+1 {{last dimension must be a multiple of 16, got 24}}
  %0 = nvfp4.hadamard %x : tensor<64x24xf32>
  return
}

// -----

func.func @hadamard_rank0(%x: tensor<f32>) {
  // expected-error @+1 {{input must have rank >= 1}}
  %0 = nvfp4.hadamard %x : tensor<f32>
  return
}

// -----

func.func @hadamard_signs(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'signs' must have 16 entries, got 2}}
  %0 = nvfp4.hadamard %x signs [1, -1] : tensor<64x32xf32>
  return
}

// -----

func.func @hadamard_sign_zero(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{'signs' entries must be 1 or -1, got 0}}
  %0 = nvfp4.hadamard %x signs [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0] : tensor<64x32xf32>
  return
}

// -----

func.func @hadamard_type(%x: tensor<64x32xf32>) {
  // expected-error @+1 {{requires the same type for all operands and results}}
  %0 = "nvfp4.hadamard"(%x) : (tensor<64x32xf32>) -> tensor<64x32xbf16>
  return
}

//===----------------------------------------------------------------------===//
// nvfp4.rescale
//===----------------------------------------------------------------------===//

// -----

func.func @rescale_shape(%q: !nvfp4.tensor<64x64, 1x16>) {
  // expected-error @+1 {{input shape 64x64 does not match result shape 64x32}}
  %0 = nvfp4.rescale %q : !nvfp4.tensor<64x64, 1x16> -> !nvfp4.tensor<64x32, 1x16>
  return
}

// -----

func.func @rescale_rs_offset(%q: !nvfp4.tensor<64x64, 1x16>) {
  // expected-error @+1 {{stochastic rounding requires an 'offset'}}
  %0 = nvfp4.rescale %q rounding rs : !nvfp4.tensor<64x64, 1x16> -> !nvfp4.tensor<64x64, 1x16>
  return
}

// -----

func.func @rescale_mx_input(%q: !nvfp4.tensor<64x64, 1x32, mxfp4>) {
  // expected-error @+1 {{rescales NVFP4 tensors only, got '!nvfp4.tensor<64x64, 1x32, mxfp4>'; dequantize and quantize an MX tensor}}
  %0 = nvfp4.rescale %q : !nvfp4.tensor<64x64, 1x32, mxfp4> -> !nvfp4.tensor<64x64, 1x16>
  return
}

// -----

func.func @rescale_mx_result(%q: !nvfp4.tensor<64x64, 1x16>) {
  // expected-error @+1 {{rescales NVFP4 tensors only, got '!nvfp4.tensor<64x64, 1x32, mxfp8_e4m3>'}}
  %0 = nvfp4.rescale %q : !nvfp4.tensor<64x64, 1x16> -> !nvfp4.tensor<64x64, 1x32, mxfp8_e4m3>
  return
}

// -----

func.func @rescale_rn_seed(%q: !nvfp4.tensor<64x64, 1x16>, %s: i64) {
  // expected-error @+1 {{'seed' and 'offset' are only valid with stochastic rounding}}
  %0 = nvfp4.rescale %q seed %s : !nvfp4.tensor<64x64, 1x16> -> !nvfp4.tensor<64x64, 1x16>
  return
}

//===----------------------------------------------------------------------===//
// Tensor-scale kinds: quantization and rescaling produce amax-scaled tensors
//===----------------------------------------------------------------------===//

// -----

func.func @quantize_decode_result(%x: tensor<32x64xf32>) {
  // expected-error @+1 {{result must carry an amax: quantization derives its scales from the tensor amax and cannot produce a `decode` tensor ('!nvfp4.tensor<32x64, 1x16, decode>')}}
  %0 = nvfp4.quantize %x : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16, decode>
  return
}

// -----

func.func @rescale_decode_result(%q: !nvfp4.tensor<32x64, 1x16, decode>) {
  // expected-error @+1 {{result must carry an amax: rescaling derives its scales from the tensor amax and cannot produce a `decode` tensor ('!nvfp4.tensor<32x64, 16x16, decode>')}}
  %0 = nvfp4.rescale %q : !nvfp4.tensor<32x64, 1x16, decode> -> !nvfp4.tensor<32x64, 16x16, decode>
  return
}

//===----------------------------------------------------------------------===//
// nvfp4.transpose
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_1d_scales(%q: !nvfp4.tensor<32x64, 1x16>) {
  // expected-error @+1 {{only tensors with 16x16 block scales can be transposed exactly}}
  %0 = nvfp4.transpose %q : !nvfp4.tensor<32x64, 1x16> -> !nvfp4.tensor<64x32, 1x16>
  return
}

// -----

func.func @transpose_mx(%q: !nvfp4.tensor<32x64, 1x32, mxfp4>) {
  // expected-error @+1 {{only tensors with 16x16 block scales can be transposed exactly; 1x16 and 1x32 scales run along the other dimension}}
  %0 = nvfp4.transpose %q : !nvfp4.tensor<32x64, 1x32, mxfp4> -> !nvfp4.tensor<64x32, 1x32, mxfp4>
  return
}

// -----

func.func @transpose_block(%q: !nvfp4.tensor<32x64, 16x16>) {
  // expected-error @+1 {{result must keep 16x16 block scales}}
  %0 = nvfp4.transpose %q : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<64x32, 1x16>
  return
}

// -----

func.func @transpose_shape(%q: !nvfp4.tensor<32x64, 16x16>) {
  // expected-error @+1 {{result shape 32x64 is not the input shape with the two innermost dimensions swapped (64x32)}}
  %0 = nvfp4.transpose %q : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<32x64, 16x16>
  return
}

// -----

func.func @transpose_tensor_scale(%q: !nvfp4.tensor<32x64, 16x16, decode>) {
  // expected-error @+1 {{result must keep the input's tensor scale kind (decode)}}
  %0 = nvfp4.transpose %q : !nvfp4.tensor<32x64, 16x16, decode> -> !nvfp4.tensor<64x32, 16x16>
  return
}

//===----------------------------------------------------------------------===//
// nvfp4.assemble / nvfp4.disassemble
//===----------------------------------------------------------------------===//

// -----

func.func @assemble_data_shape(%d: tensor<32x32xf4E2M1FN>, %s: tensor<32x4xf8E4M3FN>, %g: f32) {
  // expected-error @+1 {{data shape 32x32 does not match result shape 32x64}}
  %0 = nvfp4.assemble %d, %s, %g : tensor<32x32xf4E2M1FN>, tensor<32x4xf8E4M3FN> -> !nvfp4.tensor<32x64, 1x16>
  return
}

// -----

func.func @assemble_scales_shape(%d: tensor<32x64xf4E2M1FN>, %s: tensor<32x4xf8E4M3FN>, %g: f32) {
  // expected-error @+1 {{scales shape 32x4 does not match the expected 2x4 for block #nvfp4.block<16x16>}}
  %0 = nvfp4.assemble %d, %s, %g : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN> -> !nvfp4.tensor<32x64, 16x16>
  return
}

// -----

func.func @assemble_scale_type(%d: tensor<32x64xf4E2M1FN>, %s: tensor<32x4xf8E5M2>, %g: f32) {
  // expected-error @+1 {{operand #1 must be ranked tensor of f8E4M3FN type or f8E8M0FNU type values}}
  %0 = nvfp4.assemble %d, %s, %g : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E5M2> -> !nvfp4.tensor<32x64, 1x16>
  return
}

// -----

func.func @assemble_data_type(%d: tensor<32x64xi4>, %s: tensor<32x4xf8E4M3FN>, %g: f32) {
  // expected-error @+1 {{operand #0 must be ranked tensor of f4E2M1FN type or f8E4M3FN type or f8E5M2 type values}}
  %0 = nvfp4.assemble %d, %s, %g : tensor<32x64xi4>, tensor<32x4xf8E4M3FN> -> !nvfp4.tensor<32x64, 1x16>
  return
}

// -----

func.func @assemble_nvfp4_e8m0_scales(%d: tensor<32x64xf4E2M1FN>, %s: tensor<32x4xf8E8M0FNU>, %g: f32) {
  // expected-error @+1 {{scales element type 'f8E8M0FNU' is not the nvfp4 scale type 'f8E4M3FN'}}
  %0 = nvfp4.assemble %d, %s, %g : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E8M0FNU> -> !nvfp4.tensor<32x64, 1x16>
  return
}

// -----

func.func @assemble_nvfp4_e4m3_data(%d: tensor<32x64xf8E4M3FN>, %s: tensor<32x4xf8E4M3FN>, %g: f32) {
  // expected-error @+1 {{data element type 'f8E4M3FN' is not the nvfp4 element type 'f4E2M1FN'}}
  %0 = nvfp4.assemble %d, %s, %g : tensor<32x64xf8E4M3FN>, tensor<32x4xf8E4M3FN> -> !nvfp4.tensor<32x64, 1x16>
  return
}

// -----

func.func @assemble_nvfp4_no_tensor_scale(%d: tensor<32x64xf4E2M1FN>, %s: tensor<32x4xf8E4M3FN>) {
  // expected-error @+1 {{an nvfp4 result needs its f32 tensor scale operand}}
  %0 = nvfp4.assemble %d, %s : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN> -> !nvfp4.tensor<32x64, 1x16>
  return
}

// -----

func.func @assemble_mx_tensor_scale(%d: tensor<32x64xf4E2M1FN>, %s: tensor<32x2xf8E8M0FNU>, %g: f32) {
  // expected-error @+1 {{an mxfp4 result has no tensor scale operand}}
  %0 = nvfp4.assemble %d, %s, %g : tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU> -> !nvfp4.tensor<32x64, 1x32, mxfp4>
  return
}

// -----

func.func @assemble_mx_e4m3_scales(%d: tensor<32x64xf4E2M1FN>, %s: tensor<32x2xf8E4M3FN>) {
  // expected-error @+1 {{scales element type 'f8E4M3FN' is not the mxfp4 scale type 'f8E8M0FNU'}}
  %0 = nvfp4.assemble %d, %s : tensor<32x64xf4E2M1FN>, tensor<32x2xf8E4M3FN> -> !nvfp4.tensor<32x64, 1x32, mxfp4>
  return
}

// -----

func.func @assemble_mx_data_type(%d: tensor<32x64xf8E4M3FN>, %s: tensor<32x2xf8E8M0FNU>) {
  // expected-error @+1 {{data element type 'f8E4M3FN' is not the mxfp8_e5m2 element type 'f8E5M2'}}
  %0 = nvfp4.assemble %d, %s : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU> -> !nvfp4.tensor<32x64, 1x32, mxfp8_e5m2>
  return
}

// -----

func.func @assemble_mx_scales_shape(%d: tensor<32x64xf4E2M1FN>, %s: tensor<32x4xf8E8M0FNU>) {
  // expected-error @+1 {{scales shape 32x4 does not match the expected 32x2 for block #nvfp4.block<1x32>}}
  %0 = nvfp4.assemble %d, %s : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E8M0FNU> -> !nvfp4.tensor<32x64, 1x32, mxfp4>
  return
}

// -----

func.func @disassemble_mx_types(%q: !nvfp4.tensor<32x64, 1x32, mxfp4>) {
  // expected-error @+2 {{'nvfp4.disassemble' op inferred type(s) 'tensor<32x64xf4E2M1FN>', 'tensor<32x2xf8E8M0FNU>' are incompatible with return type(s) of operation 'tensor<32x64xf4E2M1FN>', 'tensor<32x2xf8E8M0FNU>', 'f32'}}
  // expected-error @+1 {{'nvfp4.disassemble' op failed to infer returned types}}
  %d, %s, %a = "nvfp4.disassemble"(%q) : (!nvfp4.tensor<32x64, 1x32, mxfp4>) -> (tensor<32x64xf4E2M1FN>, tensor<32x2xf8E8M0FNU>, f32)
  return
}

// -----

func.func @disassemble_types(%q: !nvfp4.tensor<32x64, 1x16>) {
  // expected-error @+2 {{'nvfp4.disassemble' op inferred type(s) 'tensor<32x64xf4E2M1FN>', 'tensor<32x4xf8E4M3FN>', 'f32' are incompatible with return type(s) of operation 'tensor<32x64xf4E2M1FN>', 'tensor<2x4xf8E4M3FN>', 'f32'}}
  // expected-error @+1 {{'nvfp4.disassemble' op failed to infer returned types}}
  %0:3 = "nvfp4.disassemble"(%q) : (!nvfp4.tensor<32x64, 1x16>) -> (tensor<32x64xf4E2M1FN>, tensor<2x4xf8E4M3FN>, f32)
  return
}

// -----

//===----------------------------------------------------------------------===//
// Sizes of high-precision operands (checked arithmetic)
//===----------------------------------------------------------------------===//

// 2^32 x 2^32 f32 elements: 2^64 elements, 2^66 bytes.
func.func @amax_input_count_overflow(%x: tensor<4294967296x4294967296xf32>) {
  // expected-error @+1 {{input shape 4294967296x4294967296 has more elements or bytes than a 64-bit index can count}}
  %q = nvfp4.amax %x : tensor<4294967296x4294967296xf32>
  return
}

// -----

// 2^31 x 2^30 f32 elements fit as a count (2^61) but not in bytes (2^63).
func.func @amax_input_bytes_overflow(%x: tensor<2147483648x1073741824xf32>) {
  // expected-error @+1 {{input shape 2147483648x1073741824 has more elements or bytes than a 64-bit index can count}}
  %a = nvfp4.amax %x : tensor<2147483648x1073741824xf32>
  return
}

// -----

// The same count of bf16 elements is 2^62 bytes: accepted.
func.func @amax_input_bytes_limit(%x: tensor<2147483648x1073741824xbf16>) -> f32 {
  %a = nvfp4.amax %x : tensor<2147483648x1073741824xbf16>
  return %a : f32
}

// -----

// The NVFP4 result (2^61 codes) fits; the f32 input (2^63 bytes) does not.
func.func @quantize_input_overflow(%x: tensor<2147483648x1073741824xf32>) {
  // expected-error @+1 {{'nvfp4.quantize' op input shape 2147483648x1073741824 has more elements or bytes than a 64-bit index can count}}
  %q = nvfp4.quantize %x : tensor<2147483648x1073741824xf32> -> !nvfp4.tensor<2147483648x1073741824, 1x16>
  return
}

// -----

func.func @hadamard_input_overflow(%x: tensor<4294967296x4294967296xbf16>) {
  // expected-error @+1 {{'nvfp4.hadamard' op input shape 4294967296x4294967296 has more elements or bytes than a 64-bit index can count}}
  %y = nvfp4.hadamard %x : tensor<4294967296x4294967296xbf16>
  return
}

// -----

// Each operand fits; the [M, N] f32 result (2^33 x 2^33) does not.
func.func @matmul_result_overflow(%a: !nvfp4.tensor<8589934592x16, 1x16>, %b: !nvfp4.tensor<8589934592x16, 1x16>) {
  // expected-error @+1 {{'nvfp4.matmul' op result shape 8589934592x8589934592 has more elements or bytes than a 64-bit index can count}}
  %y = nvfp4.matmul %a, %b : !nvfp4.tensor<8589934592x16, 1x16>, !nvfp4.tensor<8589934592x16, 1x16> -> tensor<8589934592x8589934592xf32>
  return
}

// -----

// 2^62 elements: the codes fit, the f32 result (2^64 bytes) does not.
func.func @dequantize_result_overflow(%q: !nvfp4.tensor<288230376151711744x16, 1x16>) {
  // expected-error @+1 {{'nvfp4.dequantize' op result shape 288230376151711744x16 has more elements or bytes than a 64-bit index can count}}
  %x = nvfp4.dequantize %q : !nvfp4.tensor<288230376151711744x16, 1x16> -> tensor<288230376151711744x16xf32>
  return
}

// -----

// A dynamic dimension prints as `?`, not as its sentinel value.
func.func @quantize_dynamic_shape_message(%x: tensor<?x64xf32>) {
  // expected-error @+1 {{input shape ?x64 does not match result shape 32x64}}
  %q = nvfp4.quantize %x : tensor<?x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  return
}

// -----

// nvfp4.scale_layout: a #nvfp4.scale_layout attribute ...
// expected-error @+1 {{'func.func' op 'nvfp4.scale_layout' of argument #0 must be a #nvfp4.scale_layout attribute}}
func.func @scale_layout_not_enum(%a: !nvfp4.tensor<128x64, 1x16> {nvfp4.scale_layout = "atoms"}) {
  return
}

// -----

// ... on an !nvfp4.tensor ...
// expected-error @+1 {{'func.func' op 'nvfp4.scale_layout' of argument #0 applies to !nvfp4.tensor values, not 'tensor<128x64xf32>'}}
func.func @scale_layout_not_nvfp4(%a: tensor<128x64xf32> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>}) {
  return
}

// -----

// expected-error @+1 {{'func.func' op 'nvfp4.scale_layout' of result #0 applies to !nvfp4.tensor values, not 'f32'}}
func.func private @scale_layout_result_not_nvfp4() -> (f32 {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>})

// -----

// ... and for atoms, NVFP4 ...
// expected-error @+1 {{'func.func' op 'nvfp4.scale_layout' of argument #0: the atoms layout holds E4M3 scales of NVFP4, not those of mxfp4}}
func.func @scale_layout_atoms_mx(%a: !nvfp4.tensor<128x128, 1x32, mxfp4> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>}) {
  return
}

// -----

// ... with 1x16 blocks ...
// expected-error @+1 {{'func.func' op 'nvfp4.scale_layout' of argument #0: the atoms layout holds one scale per row: 16x16 blocks are stored row-major}}
func.func @scale_layout_atoms_2d(%a: !nvfp4.tensor<128x64, 16x16> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>}) {
  return
}

// -----

// ... of rank 2 or more ...
// expected-error @+1 {{'func.func' op 'nvfp4.scale_layout' of result #0: the atoms layout needs a tensor of rank 2 or more}}
func.func private @scale_layout_atoms_rank1() -> (!nvfp4.tensor<8192, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>})

// -----

// ... with rows a multiple of 128 ...
// expected-error @+1 {{'func.func' op 'nvfp4.scale_layout' of argument #0: the atoms layout needs whole 128x4 atoms: rows (96) a multiple of 128 and K/16 (4) a multiple of 4}}
func.func @scale_layout_atoms_rows(%a: !nvfp4.tensor<96x64, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>}) {
  return
}

// -----

// ... and K/16 a multiple of 4.
// expected-error @+1 {{'func.func' op 'nvfp4.scale_layout' of argument #0: the atoms layout needs whole 128x4 atoms: rows (256) a multiple of 128 and K/16 (2) a multiple of 4}}
func.func @scale_layout_atoms_cols(%a: !nvfp4.tensor<2x128x32, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>}) {
  return
}

// -----

// nvfp4.lowered_scale_layout: a #nvfp4.scale_layout, on an argument or a
// result of any type.
// expected-error @+1 {{'func.func' op 'nvfp4.lowered_scale_layout' must be a #nvfp4.scale_layout attribute of a function argument or result}}
func.func private @lowered_scale_layout_not_enum(!nvfp4.tensor<128x64, 1x16> {nvfp4.lowered_scale_layout = "atoms"})

// -----

// expected-error @+1 {{'func.func' op 'nvfp4.lowered_scale_layout' must be a #nvfp4.scale_layout attribute of a function argument or result}}
func.func private @lowered_scale_layout_result_not_enum() -> (f32 {nvfp4.lowered_scale_layout = 1 : i32})
