// Invalid calibration files are errors at the file (the entry's line when
// there is one), and the tool exits non-zero.
// RUN: not nvfp4-opt %s --nvfp4-apply-calibration=file=%S/Inputs/calibration-negative.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not nvfp4-opt %s --nvfp4-apply-calibration=file=%S/Inputs/calibration-operand.json 2>&1 | FileCheck %s --check-prefix=OPERAND
// RUN: not nvfp4-opt %s --nvfp4-apply-calibration=file=%S/Inputs/calibration-syntax.json 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not nvfp4-opt %s --nvfp4-apply-calibration=file=%S/Inputs/calibration-array.json 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not nvfp4-opt %s --nvfp4-apply-calibration=file=%t.missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not nvfp4-opt %s --nvfp4-apply-calibration 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not nvfp4-opt %s --nvfp4-recipe=calibration=%S/Inputs/calibration-negative.json 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE: calibration-negative.json:1:2: error: invalid calibration file: 'fc1': the amax must be a finite non-negative number
// OPERAND: calibration-operand.json:1:2: error: invalid calibration file: 'scores': unknown operand 'out' (expected 'lhs' or 'rhs')
// SYNTAX: calibration-syntax.json:0:0: error: invalid calibration file: [2:0, byte=14]: Expected object key
// ARRAY: calibration-array.json:0:0: error: invalid calibration file: expected a JSON object mapping contraction names or locations to amaxes
// MISSING: error: cannot read the calibration file '{{.*}}missing.json': No such file or directory
// NOFILE: error: nvfp4-apply-calibration: no calibration file (set the 'file' option)

func.func @linear(%x: tensor<64x128xf32>, %w: tensor<256x128xf32>) -> tensor<64x256xf32> {
  %qx = nvfp4.quantize %x {nvfp4.kind = "activation"} : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16> loc("fc1")
  %qw = nvfp4.quantize %w {nvfp4.kind = "weight"} : tensor<256x128xf32> -> !nvfp4.tensor<256x128, 16x16>
  %a = nvfp4.matmul %qx, %qw : !nvfp4.tensor<64x128, 1x16>, !nvfp4.tensor<256x128, 16x16> -> tensor<64x256xf32>
  return %a : tensor<64x256xf32>
}
