// RUN: nvfp4-opt %s | nvfp4-opt | FileCheck %s
// RUN: nvfp4-opt %s --mlir-print-op-generic | nvfp4-opt | FileCheck %s
// RUN: nvfp4-opt %s --emit-bytecode | nvfp4-opt | FileCheck %s

// CHECK-LABEL: func @types
// CHECK-SAME: !nvfp4.tensor<16, 1x16>
// CHECK-SAME: !nvfp4.tensor<128x4096, 1x16>
// CHECK-SAME: !nvfp4.tensor<4096x4096, 16x16>
// CHECK-SAME: !nvfp4.tensor<8x128x64, 1x16>
// CHECK-SAME: !nvfp4.tensor<4x32x64, 16x16>
// CHECK-SAME: !nvfp4.tensor<64x64, 1x16, decode>
// CHECK-SAME: !nvfp4.tensor<2x32x64, 16x16, decode>
// The default tensor-scale kind (amax) is not printed.
// CHECK-SAME: %{{.*}}: !nvfp4.tensor<32x64, 1x16>)
func.func @types(%a: !nvfp4.tensor<16, 1x16>,
                 %b: !nvfp4.tensor<128x4096, 1x16>,
                 %c: !nvfp4.tensor<4096x4096, 16x16>,
                 %d: !nvfp4.tensor<8x128x64, 1x16>,
                 %e: !nvfp4.tensor<4x32x64, 16x16>,
                 %f: !nvfp4.tensor<64x64, 1x16, decode>,
                 %g: !nvfp4.tensor<2x32x64, 16x16, decode>,
                 %h: !nvfp4.tensor<32x64, 1x16, amax>) {
  return
}

// Run-time dimensions (`?`): any dimension, the last and 16x16 rows
// included; their block rules are checked when the program runs. The ops
// keep them, and the components have them.
// CHECK-LABEL: func @dynamic_shapes
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>, %[[W:.*]]: tensor<?x?xbf16>, %[[G:.*]]: tensor<?x?x32xf32>)
// CHECK: %[[QX:.*]] = nvfp4.quantize %[[X]] : tensor<?x64xf32> -> !nvfp4.tensor<?x64, 1x16>
// CHECK: %[[QW:.*]] = nvfp4.quantize %[[W]] : tensor<?x?xbf16> -> !nvfp4.tensor<?x?, 16x16>
// CHECK: %[[QWT:.*]] = nvfp4.transpose %[[QW]] : !nvfp4.tensor<?x?, 16x16> -> !nvfp4.tensor<?x?, 16x16>
// CHECK: nvfp4.matmul %[[QX]], %{{.*}} : !nvfp4.tensor<?x64, 1x16>, !nvfp4.tensor<?x64, 1x16> -> tensor<?x?xf32>
// CHECK: %[[DX:[^,]*]], %{{.*}} = nvfp4.disassemble %[[QX]] : !nvfp4.tensor<?x64, 1x16>
// CHECK: %{{.*}}, %[[WS:[^,]*]], %{{.*}} = nvfp4.disassemble %[[QW]] : !nvfp4.tensor<?x?, 16x16>
// CHECK: arith.bitcast %[[DX]] : tensor<?x64xf4E2M1FN> to tensor<?x64xi4>
// CHECK: arith.bitcast %[[WS]] : tensor<?x?xf8E4M3FN> to tensor<?x?xi8>
// CHECK: nvfp4.amax %[[G]] : tensor<?x?x32xf32>
// CHECK: nvfp4.hadamard %[[G]] : tensor<?x?x32xf32>
// CHECK: nvfp4.quantize %[[G]] : tensor<?x?x32xf32> -> !nvfp4.tensor<?x?x32, 1x32, mxfp4>
func.func @dynamic_shapes(%x: tensor<?x64xf32>, %w: tensor<?x?xbf16>,
                          %g: tensor<?x?x32xf32>) {
  %qx = nvfp4.quantize %x : tensor<?x64xf32> -> !nvfp4.tensor<?x64, 1x16>
  %qw = nvfp4.quantize %w : tensor<?x?xbf16> -> !nvfp4.tensor<?x?, 16x16>
  %qwt = nvfp4.transpose %qw : !nvfp4.tensor<?x?, 16x16> -> !nvfp4.tensor<?x?, 16x16>
  %qx2 = nvfp4.quantize %x : tensor<?x64xf32> -> !nvfp4.tensor<?x64, 1x16>
  %y = nvfp4.matmul %qx, %qx2 : !nvfp4.tensor<?x64, 1x16>, !nvfp4.tensor<?x64, 1x16> -> tensor<?x?xf32>
  %d:3 = nvfp4.disassemble %qx : !nvfp4.tensor<?x64, 1x16>
  %e:3 = nvfp4.disassemble %qw : !nvfp4.tensor<?x?, 16x16>
  %dd = arith.bitcast %d#0 : tensor<?x64xf4E2M1FN> to tensor<?x64xi4>
  %es = arith.bitcast %e#1 : tensor<?x?xf8E4M3FN> to tensor<?x?xi8>
  %a = nvfp4.amax %g : tensor<?x?x32xf32>
  %h = nvfp4.hadamard %g : tensor<?x?x32xf32>
  %m = nvfp4.quantize %g : tensor<?x?x32xf32> -> !nvfp4.tensor<?x?x32, 1x32, mxfp4>
  return
}

// A checkpoint's weight enters as components with a decode scale; it
// dequantizes, multiplies (with an amax-scaled activation) and transposes.
// CHECK-LABEL: func @decode_scale
// CHECK: %[[W:.*]] = nvfp4.assemble %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf4E2M1FN>, tensor<4x4xf8E4M3FN> -> !nvfp4.tensor<64x64, 16x16, decode>
// CHECK: nvfp4.dequantize %[[W]] : !nvfp4.tensor<64x64, 16x16, decode> -> tensor<64x64xf32>
// CHECK: nvfp4.matmul %{{.*}}, %[[W]] : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<64x64, 16x16, decode> -> tensor<32x64xf32>
// CHECK: nvfp4.transpose %[[W]] : !nvfp4.tensor<64x64, 16x16, decode> -> !nvfp4.tensor<64x64, 16x16, decode>
// CHECK: nvfp4.disassemble %[[W]] : !nvfp4.tensor<64x64, 16x16, decode>
// CHECK: nvfp4.rescale %[[W]] : !nvfp4.tensor<64x64, 16x16, decode> -> !nvfp4.tensor<64x64, 1x16>
func.func @decode_scale(%d: tensor<64x64xf4E2M1FN>, %s: tensor<4x4xf8E4M3FN>, %ws2: f32, %x: !nvfp4.tensor<32x64, 1x16>) {
  %w = nvfp4.assemble %d, %s, %ws2 : tensor<64x64xf4E2M1FN>, tensor<4x4xf8E4M3FN> -> !nvfp4.tensor<64x64, 16x16, decode>
  %0 = nvfp4.dequantize %w : !nvfp4.tensor<64x64, 16x16, decode> -> tensor<64x64xf32>
  %1 = nvfp4.matmul %x, %w : !nvfp4.tensor<32x64, 1x16>, !nvfp4.tensor<64x64, 16x16, decode> -> tensor<32x64xf32>
  %2 = nvfp4.transpose %w : !nvfp4.tensor<64x64, 16x16, decode> -> !nvfp4.tensor<64x64, 16x16, decode>
  %3:3 = nvfp4.disassemble %w : !nvfp4.tensor<64x64, 16x16, decode>
  %4 = nvfp4.rescale %w : !nvfp4.tensor<64x64, 16x16, decode> -> !nvfp4.tensor<64x64, 1x16>
  return
}

// The MX formats: the format keyword is printed, `nvfp4` (the default) not.
// CHECK-LABEL: func @mx_types
// CHECK-SAME: !nvfp4.tensor<128x4096, 1x32, mxfp4>
// CHECK-SAME: !nvfp4.tensor<32, 1x32, mxfp8_e4m3>
// CHECK-SAME: !nvfp4.tensor<8x128x64, 1x32, mxfp8_e5m2>
// CHECK-SAME: %{{.*}}: !nvfp4.tensor<64x64, 1x16, decode>
// CHECK-SAME: %{{.*}}: !nvfp4.tensor<32x64, 16x16>)
func.func @mx_types(%a: !nvfp4.tensor<128x4096, 1x32, mxfp4>,
                    %b: !nvfp4.tensor<32, 1x32, mxfp8_e4m3>,
                    %c: !nvfp4.tensor<8x128x64, 1x32, mxfp8_e5m2>,
                    %d: !nvfp4.tensor<64x64, 1x16, nvfp4, decode>,
                    %e: !nvfp4.tensor<32x64, 16x16, nvfp4>) {
  return
}

// Every op that takes an MX tensor, with the component types the format
// implies.
// CHECK-LABEL: func @mx_ops
// CHECK: %[[Q4:.*]] = nvfp4.quantize %[[X:.*]] : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x32, mxfp4>
// CHECK: %[[Q8:.*]] = nvfp4.quantize %{{.*}} : tensor<32x128xbf16> -> !nvfp4.tensor<32x128, 1x32, mxfp8_e4m3>
// CHECK: %[[Q5:.*]] = nvfp4.quantize %{{.*}} : tensor<32x128xf16> -> !nvfp4.tensor<32x128, 1x32, mxfp8_e5m2>
// CHECK: nvfp4.dequantize %[[Q4]] : !nvfp4.tensor<64x128, 1x32, mxfp4> -> tensor<64x128xbf16>
// CHECK: nvfp4.matmul %[[Q4]], %[[Q4]] : !nvfp4.tensor<64x128, 1x32, mxfp4>, !nvfp4.tensor<64x128, 1x32, mxfp4> -> tensor<64x64xf32>
// CHECK: nvfp4.matmul %[[Q8]], %[[Q5]] acc(%{{.*}} : tensor<32x32xf32>) : !nvfp4.tensor<32x128, 1x32, mxfp8_e4m3>, !nvfp4.tensor<32x128, 1x32, mxfp8_e5m2> -> tensor<32x32xf32>
// CHECK: nvfp4.matmul %[[Q4]], %[[Q8]] : !nvfp4.tensor<64x128, 1x32, mxfp4>, !nvfp4.tensor<32x128, 1x32, mxfp8_e4m3> -> tensor<64x32xbf16>
// CHECK: %[[D:.*]], %[[S:.*]] = nvfp4.disassemble %[[Q5]] : !nvfp4.tensor<32x128, 1x32, mxfp8_e5m2>
// CHECK: nvfp4.assemble %[[D]], %[[S]] : tensor<32x128xf8E5M2>, tensor<32x4xf8E8M0FNU> -> !nvfp4.tensor<32x128, 1x32, mxfp8_e5m2>
func.func @mx_ops(%x: tensor<64x128xf32>, %y: tensor<32x128xbf16>,
                  %z: tensor<32x128xf16>, %acc: tensor<32x32xf32>) {
  %q4 = nvfp4.quantize %x : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x32, mxfp4>
  %q8 = nvfp4.quantize %y : tensor<32x128xbf16> -> !nvfp4.tensor<32x128, 1x32, mxfp8_e4m3>
  %q5 = nvfp4.quantize %z : tensor<32x128xf16> -> !nvfp4.tensor<32x128, 1x32, mxfp8_e5m2>
  %0 = nvfp4.dequantize %q4 : !nvfp4.tensor<64x128, 1x32, mxfp4> -> tensor<64x128xbf16>
  %1 = nvfp4.matmul %q4, %q4 : !nvfp4.tensor<64x128, 1x32, mxfp4>, !nvfp4.tensor<64x128, 1x32, mxfp4> -> tensor<64x64xf32>
  %2 = nvfp4.matmul %q8, %q5 acc(%acc : tensor<32x32xf32>) : !nvfp4.tensor<32x128, 1x32, mxfp8_e4m3>, !nvfp4.tensor<32x128, 1x32, mxfp8_e5m2> -> tensor<32x32xf32>
  %3 = nvfp4.matmul %q4, %q8 : !nvfp4.tensor<64x128, 1x32, mxfp4>, !nvfp4.tensor<32x128, 1x32, mxfp8_e4m3> -> tensor<64x32xbf16>
  %d:2 = nvfp4.disassemble %q5 : !nvfp4.tensor<32x128, 1x32, mxfp8_e5m2>
  %4 = nvfp4.assemble %d#0, %d#1 : tensor<32x128xf8E5M2>, tensor<32x4xf8E8M0FNU> -> !nvfp4.tensor<32x128, 1x32, mxfp8_e5m2>
  return
}

// CHECK-LABEL: func @attributes
// CHECK-SAME: block = #nvfp4.block<1x16>
// CHECK-SAME: block2d = #nvfp4.block<16x16>
// CHECK-SAME: blockmx = #nvfp4.block<1x32>
// CHECK-SAME: rn = #nvfp4<rounding rn>
// CHECK-SAME: rs = #nvfp4<rounding rs>
func.func @attributes() attributes {block = #nvfp4.block<1x16>,
                                    block2d = #nvfp4.block<16x16>,
                                    blockmx = #nvfp4.block<1x32>,
                                    rn = #nvfp4<rounding rn>,
                                    rs = #nvfp4<rounding rs>} {
  return
}

// CHECK-LABEL: func @quantize
func.func @quantize(%x: tensor<128x64xf32>, %w: tensor<64x64xbf16>,
                    %h: tensor<32x32xf16>, %amax: f32, %seed: i64)
    -> (!nvfp4.tensor<128x64, 1x16>, !nvfp4.tensor<64x64, 16x16>,
        !nvfp4.tensor<128x64, 1x16>, !nvfp4.tensor<128x64, 1x16>,
        !nvfp4.tensor<32x32, 1x16>, !nvfp4.tensor<128x64, 1x16>) {
  // CHECK: nvfp4.quantize %{{.*}} : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  %0 = nvfp4.quantize %x : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  // CHECK: nvfp4.quantize %{{.*}} amax %{{.*}} : tensor<64x64xbf16> -> !nvfp4.tensor<64x64, 16x16>
  %1 = nvfp4.quantize %w amax %amax : tensor<64x64xbf16> -> !nvfp4.tensor<64x64, 16x16>
  // CHECK: nvfp4.quantize %{{.*}} rounding rs seed %{{.*}} offset 512 : tensor<128x64xf32>
  %2 = nvfp4.quantize %x rounding rs seed %seed offset 512 : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  // CHECK: nvfp4.quantize %{{.*}} rounding rs offset 0 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1]
  %3 = nvfp4.quantize %x rounding rs offset 0 hadamard [1, 1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1, 1, -1, -1] : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  // CHECK: nvfp4.quantize %{{.*}} : tensor<32x32xf16> -> !nvfp4.tensor<32x32, 1x16>
  %4 = nvfp4.quantize %h : tensor<32x32xf16> -> !nvfp4.tensor<32x32, 1x16>
  // The default rounding is elided when spelled out.
  // CHECK: nvfp4.quantize %{{.*}} : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  %5 = nvfp4.quantize %x rounding rn : tensor<128x64xf32> -> !nvfp4.tensor<128x64, 1x16>
  return %0, %1, %2, %3, %4, %5 : !nvfp4.tensor<128x64, 1x16>, !nvfp4.tensor<64x64, 16x16>,
      !nvfp4.tensor<128x64, 1x16>, !nvfp4.tensor<128x64, 1x16>,
      !nvfp4.tensor<32x32, 1x16>, !nvfp4.tensor<128x64, 1x16>
}

// CHECK-LABEL: func @amax
func.func @amax(%x: tensor<128x64xf32>, %w: tensor<64xbf16>,
                %h: tensor<2x32x16xf16>) -> (f32, f32, f32) {
  // CHECK: nvfp4.amax %{{.*}} : tensor<128x64xf32>
  %0 = nvfp4.amax %x : tensor<128x64xf32>
  // CHECK: nvfp4.amax %{{.*}} : tensor<64xbf16>
  %1 = nvfp4.amax %w : tensor<64xbf16>
  // CHECK: nvfp4.amax %{{.*}} : tensor<2x32x16xf16>
  %2 = nvfp4.amax %h : tensor<2x32x16xf16>
  return %0, %1, %2 : f32, f32, f32
}

// CHECK-LABEL: func @dequantize
func.func @dequantize(%q: !nvfp4.tensor<128x64, 1x16>, %w: !nvfp4.tensor<64x64, 16x16>)
    -> (tensor<128x64xf32>, tensor<64x64xbf16>, tensor<128x64xf16>) {
  // CHECK: nvfp4.dequantize %{{.*}} : !nvfp4.tensor<128x64, 1x16> -> tensor<128x64xf32>
  %0 = nvfp4.dequantize %q : !nvfp4.tensor<128x64, 1x16> -> tensor<128x64xf32>
  // CHECK: nvfp4.dequantize %{{.*}} : !nvfp4.tensor<64x64, 16x16> -> tensor<64x64xbf16>
  %1 = nvfp4.dequantize %w : !nvfp4.tensor<64x64, 16x16> -> tensor<64x64xbf16>
  // CHECK: nvfp4.dequantize %{{.*}} : !nvfp4.tensor<128x64, 1x16> -> tensor<128x64xf16>
  %2 = nvfp4.dequantize %q : !nvfp4.tensor<128x64, 1x16> -> tensor<128x64xf16>
  return %0, %1, %2 : tensor<128x64xf32>, tensor<64x64xbf16>, tensor<128x64xf16>
}

// CHECK-LABEL: func @matmul
func.func @matmul(%a: !nvfp4.tensor<128x256, 1x16>, %b: !nvfp4.tensor<64x256, 16x16>,
                  %c: tensor<128x64xf32>, %ba: !nvfp4.tensor<4x32x64, 1x16>,
                  %bb: !nvfp4.tensor<4x48x64, 1x16>)
    -> (tensor<128x64xf32>, tensor<128x64xbf16>, tensor<128x64xf32>, tensor<4x32x48xf32>) {
  // CHECK: nvfp4.matmul %{{.*}}, %{{.*}} : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<64x256, 16x16> -> tensor<128x64xf32>
  %0 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<64x256, 16x16> -> tensor<128x64xf32>
  // CHECK: nvfp4.matmul %{{.*}}, %{{.*}} : {{.*}} -> tensor<128x64xbf16>
  %1 = nvfp4.matmul %a, %b : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<64x256, 16x16> -> tensor<128x64xbf16>
  // CHECK: nvfp4.matmul %{{.*}}, %{{.*}} acc(%{{.*}} : tensor<128x64xf32>) : {{.*}} -> tensor<128x64xf32>
  %2 = nvfp4.matmul %a, %b acc(%c : tensor<128x64xf32>) : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<64x256, 16x16> -> tensor<128x64xf32>
  // CHECK: nvfp4.matmul %{{.*}}, %{{.*}} : !nvfp4.tensor<4x32x64, 1x16>, !nvfp4.tensor<4x48x64, 1x16> -> tensor<4x32x48xf32>
  %3 = nvfp4.matmul %ba, %bb : !nvfp4.tensor<4x32x64, 1x16>, !nvfp4.tensor<4x48x64, 1x16> -> tensor<4x32x48xf32>
  return %0, %1, %2, %3 : tensor<128x64xf32>, tensor<128x64xbf16>, tensor<128x64xf32>, tensor<4x32x48xf32>
}

// CHECK-LABEL: func @hadamard
func.func @hadamard(%x: tensor<64x32xf32>, %y: tensor<2x8x16xbf16>)
    -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<2x8x16xbf16>) {
  // CHECK: nvfp4.hadamard %{{.*}} : tensor<64x32xf32>
  %0 = nvfp4.hadamard %x : tensor<64x32xf32>
  // CHECK: nvfp4.hadamard %{{.*}} signs [1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1] : tensor<64x32xf32>
  %1 = nvfp4.hadamard %x signs [1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1] : tensor<64x32xf32>
  // CHECK: nvfp4.hadamard %{{.*}} : tensor<2x8x16xbf16>
  %2 = nvfp4.hadamard %y : tensor<2x8x16xbf16>
  return %0, %1, %2 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<2x8x16xbf16>
}

// CHECK-LABEL: func @rescale
func.func @rescale(%q: !nvfp4.tensor<64x64, 1x16>, %amax: f32, %seed: i64)
    -> (!nvfp4.tensor<64x64, 16x16>, !nvfp4.tensor<64x64, 1x16>) {
  // CHECK: nvfp4.rescale %{{.*}} amax %{{.*}} : !nvfp4.tensor<64x64, 1x16> -> !nvfp4.tensor<64x64, 16x16>
  %0 = nvfp4.rescale %q amax %amax : !nvfp4.tensor<64x64, 1x16> -> !nvfp4.tensor<64x64, 16x16>
  // CHECK: nvfp4.rescale %{{.*}} rounding rs seed %{{.*}} offset 7 : !nvfp4.tensor<64x64, 1x16> -> !nvfp4.tensor<64x64, 1x16>
  %1 = nvfp4.rescale %q rounding rs seed %seed offset 7 : !nvfp4.tensor<64x64, 1x16> -> !nvfp4.tensor<64x64, 1x16>
  return %0, %1 : !nvfp4.tensor<64x64, 16x16>, !nvfp4.tensor<64x64, 1x16>
}

// CHECK-LABEL: func @transpose
func.func @transpose(%w: !nvfp4.tensor<32x64, 16x16>, %bw: !nvfp4.tensor<2x16x48, 16x16>)
    -> (!nvfp4.tensor<64x32, 16x16>, !nvfp4.tensor<2x48x16, 16x16>) {
  // CHECK: nvfp4.transpose %{{.*}} : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<64x32, 16x16>
  %0 = nvfp4.transpose %w : !nvfp4.tensor<32x64, 16x16> -> !nvfp4.tensor<64x32, 16x16>
  // CHECK: nvfp4.transpose %{{.*}} : !nvfp4.tensor<2x16x48, 16x16> -> !nvfp4.tensor<2x48x16, 16x16>
  %1 = nvfp4.transpose %bw : !nvfp4.tensor<2x16x48, 16x16> -> !nvfp4.tensor<2x48x16, 16x16>
  return %0, %1 : !nvfp4.tensor<64x32, 16x16>, !nvfp4.tensor<2x48x16, 16x16>
}

// CHECK-LABEL: func @assemble_disassemble
func.func @assemble_disassemble(%d: tensor<32x64xf4E2M1FN>, %s: tensor<32x4xf8E4M3FN>,
                                %g: f32, %w: !nvfp4.tensor<32x64, 16x16>)
    -> (!nvfp4.tensor<32x64, 1x16>, tensor<32x64xf4E2M1FN>, tensor<2x4xf8E4M3FN>, f32) {
  // CHECK: nvfp4.assemble %{{.*}}, %{{.*}}, %{{.*}} : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN> -> !nvfp4.tensor<32x64, 1x16>
  %0 = nvfp4.assemble %d, %s, %g : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN> -> !nvfp4.tensor<32x64, 1x16>
  // CHECK: nvfp4.disassemble %{{.*}} : !nvfp4.tensor<32x64, 16x16>
  %1:3 = nvfp4.disassemble %w : !nvfp4.tensor<32x64, 16x16>
  return %0, %1#0, %1#1, %1#2 : !nvfp4.tensor<32x64, 1x16>, tensor<32x64xf4E2M1FN>, tensor<2x4xf8E4M3FN>, f32
}

// The scale layout at function boundaries (#nvfp4.scale_layout), next to
// other nvfp4.* argument attributes; a batch of 2x64 rows is 128 rows.
// CHECK-LABEL: func @scale_layout
// CHECK-SAME:    (%{{.*}}: !nvfp4.tensor<128x64, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>},
// CHECK-SAME:     %{{.*}}: !nvfp4.tensor<2x64x128, 1x16> {nvfp4.kind = "weight", nvfp4.scale_layout = #nvfp4.scale_layout<atoms>},
// CHECK-SAME:     %{{.*}}: !nvfp4.tensor<32x64, 16x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>})
// CHECK-SAME:    -> (!nvfp4.tensor<128x64, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>})
func.func @scale_layout(
    %a: !nvfp4.tensor<128x64, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>},
    %b: !nvfp4.tensor<2x64x128, 1x16> {nvfp4.kind = "weight", nvfp4.scale_layout = #nvfp4.scale_layout<atoms>},
    %w: !nvfp4.tensor<32x64, 16x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>})
    -> (!nvfp4.tensor<128x64, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>}) {
  return %a : !nvfp4.tensor<128x64, 1x16>
}

// The record a lowering leaves of the layouts it implemented
// (nvfp4.lowered_scale_layout), on any argument or result type: later
// conversions may change the boundary's types.
// CHECK-LABEL: func private @lowered_scale_layout
// CHECK-SAME:    (!nvfp4.tensor<128x64, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>},
// CHECK-SAME:     !llvm.ptr {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>})
// CHECK-SAME:    -> (!nvfp4.tensor<128x64, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>})
func.func private @lowered_scale_layout(
    !nvfp4.tensor<128x64, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>},
    !llvm.ptr {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>})
    -> (!nvfp4.tensor<128x64, 1x16> {nvfp4.lowered_scale_layout = #nvfp4.scale_layout<atoms>})
