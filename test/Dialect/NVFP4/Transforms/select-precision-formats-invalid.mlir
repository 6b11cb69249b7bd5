// RUN: not nvfp4-opt %s --nvfp4-select-precision="formats=nvfp4,fp6" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not nvfp4-opt %s --nvfp4-select-precision="formats=nvfp4,bf16,mxfp8" 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not nvfp4-opt %s --nvfp4-select-precision="formats=mxfp8,mxfp8_e4m3" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not nvfp4-opt %s --nvfp4-select-precision="formats=bf16" 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not nvfp4-opt %s --nvfp4-select-precision="format=mxfp8" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not nvfp4-opt %s --nvfp4-select-precision="format=mxfp4 formats=nvfp4" 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not nvfp4-opt %s --nvfp4-recipe="formats=nvfp4,fp6" 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// UNKNOWN: error: nvfp4-select-precision: unknown format 'fp6' in formats (nvfp4, mxfp4, mxfp8_e4m3 or mxfp8, mxfp8_e5m2, then bf16)
// AFTER: error: nvfp4-select-precision: 'bf16' ends the formats ladder; 'mxfp8' follows it
// TWICE: error: nvfp4-select-precision: format 'mxfp8_e4m3' appears twice in formats
// EMPTY: error: nvfp4-select-precision: formats names no block-scaled format
// FORMAT: error: nvfp4-select-precision: format='mxfp8' is not an FP4 format (nvfp4, mxfp4)
// BOTH: error: nvfp4-select-precision: give format or formats, not both

func.func @f() {
  return
}
