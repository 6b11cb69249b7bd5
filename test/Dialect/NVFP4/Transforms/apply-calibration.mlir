// RUN: nvfp4-opt %s --nvfp4-apply-calibration=file=%S/Inputs/calibration.json 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=WARN < %t.err

// Keys name a contraction by a NameLoc anywhere in the location, or by the
// report's location string: the activation quantize gets the amax as a
// constant operand (one constant per value, at the function entry).
// CHECK-LABEL: func.func @linear
// CHECK-DAG: %[[A325:.*]] = arith.constant 3.250000e+00 : f32
// CHECK-DAG: %[[A05:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[X:.*]] = nvfp4.quantize %arg0 amax %[[A325]] {nvfp4.kind = "activation"}
// A weight is never calibrated.
// CHECK: %[[W:.*]] = nvfp4.quantize %arg1 {nvfp4.kind = "weight"}
// CHECK: nvfp4.matmul %[[X]], %[[W]]
// CHECK: %[[Y:.*]] = nvfp4.quantize %arg2 amax %[[A05]] {nvfp4.kind = "activation"}
// CHECK: nvfp4.matmul %[[Y]], %[[W]]
// Not in the file: the dynamic amax stays.
// CHECK: %[[Z:.*]] = nvfp4.quantize %arg2 {nvfp4.kind = "activation"}
// CHECK: nvfp4.matmul %[[Z]], %[[W]]
// A quantize with its own amax keeps it.
// CHECK: %[[G:.*]] = nvfp4.quantize %arg2 amax %arg3 {nvfp4.kind = "activation"}
// CHECK: nvfp4.matmul %[[G]], %[[W]]
func.func @linear(%x: tensor<64x128xf32>, %w: tensor<256x128xf32>, %y: tensor<64x128xf32>, %amax: f32)
    -> (tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>) {
  %qx = nvfp4.quantize %x {nvfp4.kind = "activation"} : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16> loc(fused["encoder", "fc1"])
  %qw = nvfp4.quantize %w {nvfp4.kind = "weight"} : tensor<256x128xf32> -> !nvfp4.tensor<256x128, 16x16> loc("weighted")
  %a = nvfp4.matmul %qx, %qw : !nvfp4.tensor<64x128, 1x16>, !nvfp4.tensor<256x128, 16x16> -> tensor<64x256xf32>
  %qy = nvfp4.quantize %y {nvfp4.kind = "activation"} : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16> loc("model.py":12:5)
  %b = nvfp4.matmul %qy, %qw : !nvfp4.tensor<64x128, 1x16>, !nvfp4.tensor<256x128, 16x16> -> tensor<64x256xf32>
  %qz = nvfp4.quantize %y {nvfp4.kind = "activation"} : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16> loc("model.py":13:5)
  %c = nvfp4.matmul %qz, %qw : !nvfp4.tensor<64x128, 1x16>, !nvfp4.tensor<256x128, 16x16> -> tensor<64x256xf32>
  %qg = nvfp4.quantize %y amax %amax {nvfp4.kind = "activation"} : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16> loc("given")
  %d = nvfp4.matmul %qg, %qw : !nvfp4.tensor<64x128, 1x16>, !nvfp4.tensor<256x128, 16x16> -> tensor<64x256xf32>
  return %a, %b, %c, %d : tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>
}

// Two activations (attention scores, quantize-attention): each operand's
// amax from {"lhs": 8.0, "rhs": 6.5}, found through nvfp4.transpose; a
// quantize feeding both sides takes the larger.
// CHECK-LABEL: func.func @scores
// CHECK-DAG: %[[A8:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-DAG: %[[A65:.*]] = arith.constant 6.500000e+00 : f32
// CHECK: %[[Q:.*]] = nvfp4.quantize %arg0 amax %[[A8]]
// CHECK: %[[K:.*]] = nvfp4.quantize %arg1 amax %[[A65]]
// CHECK: %[[KT:.*]] = nvfp4.transpose %[[K]]
// CHECK: nvfp4.matmul %[[Q]], %[[KT]]
// CHECK: %[[B:.*]] = nvfp4.quantize %arg0 amax %[[A8]]
// CHECK: nvfp4.matmul %[[B]], %[[B]]
func.func @scores(%q: tensor<64x64xf32>, %k: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %qq = nvfp4.quantize %q {nvfp4.kind = "activation"} : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x16> loc("scores")
  %qk = nvfp4.quantize %k {nvfp4.kind = "activation"} : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 16x16> loc("scores")
  %kt = nvfp4.transpose %qk : !nvfp4.tensor<64x64, 16x16> -> !nvfp4.tensor<64x64, 16x16>
  %s = nvfp4.matmul %qq, %kt : !nvfp4.tensor<64x64, 1x16>, !nvfp4.tensor<64x64, 16x16> -> tensor<64x64xf32>
  %qb = nvfp4.quantize %q {nvfp4.kind = "activation"} : tensor<64x64xf32> -> !nvfp4.tensor<64x64, 1x16> loc("scores")
  %t = nvfp4.matmul %qb, %qb : !nvfp4.tensor<64x64, 1x16>, !nvfp4.tensor<64x64, 1x16> -> tensor<64x64xf32>
  return %s, %t : tensor<64x64xf32>, tensor<64x64xf32>
}

// Keys that name no quantized activation (a weight, a quantize with its own
// amax, a typo) are reported at their line of the file, in key order.
// WARN: calibration.json:6:3: warning: calibration key 'given' names no quantized activation
// WARN: calibration.json:7:3: warning: calibration key 'typo_fc9' names no quantized activation
// WARN: calibration.json:5:3: warning: calibration key 'weighted' names no quantized activation
// WARN-NOT: warning
