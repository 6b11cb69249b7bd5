// Malformed size hints and IREE input that skipped its import are errors,
// not a report of nothing.
// RUN: not nvfp4-opt %s --nvfp4-select-precision="size-hint=b=x" 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not nvfp4-opt %s --nvfp4-select-precision="size-hint=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not nvfp4-opt %s --nvfp4-select-precision="size-hint==4" 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not nvfp4-opt %s --nvfp4-recipe="size-hint=b=-2" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not nvfp4-opt %S/Inputs/iree-abi-not-imported.mlir --allow-unregistered-dialect \
// RUN:   --nvfp4-recipe 2>&1 | FileCheck %s --check-prefix=IREE

// VALUE: error: nvfp4-select-precision: size-hint entry 'b=x' is not SYMBOL=N or N with N >= 1
// ZERO: error: nvfp4-select-precision: size-hint entry '0' is not SYMBOL=N or N with N >= 1
// NAME: error: nvfp4-select-precision: size-hint entry '=4' is not SYMBOL=N or N with N >= 1
// NEGATIVE: error: nvfp4-select-precision: size-hint entry 'b=-2' is not SYMBOL=N or N with N >= 1
// IREE: error: nvfp4-select-precision: the module holds IREE input-phase functions (util.func with the hal.buffer_view ABI), whose contractions the recipe does not see; run --nvfp4-import-iree-input first

func.func @f(%x: tensor<?x64xf32>) {
  return
}
