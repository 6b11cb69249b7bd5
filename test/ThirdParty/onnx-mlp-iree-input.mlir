// IREE's usual input-phase output: a two-layer MLP from the onnx helper API
// through iree-import-onnx and `iree-compile --compile-to=input` (printed
// generic; Inputs/onnx-mlp-iree-input.mlir, utils/third-party/gen_iree_input
// .py). Its entry points are IREE `util.func` ops with the hal.buffer_view
// ABI: `@mlp$async` (import with a fence wait, barrier, export) and a
// synchronous wrapper. nvfp4-import-iree-input turns them into one
// func.func on tensors, which the recipe (inference mode: the constant
// weights are quantized at compile time) and the CPU and GPU lowerings take.
//
// RUN: nvfp4-opt --allow-unregistered-dialect %S/Inputs/onnx-mlp-iree-input.mlir \
// RUN:   --nvfp4-import-iree-input | FileCheck %s
// RUN: nvfp4-opt --allow-unregistered-dialect %S/Inputs/onnx-mlp-iree-input.mlir \
// RUN:   --nvfp4-import-iree-input --nvfp4-recipe="mode=inference summary" \
// RUN:   -o %t.recipe.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=RECIPE < %t.recipe.mlir
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: for target in sm_120a sm_90a sm_100a; do \
// RUN:   nvfp4-opt %t.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx \
// RUN:   | grep -cE "^.visible .entry nvfp4_(tcgen05_)?matmul_"; done \
// RUN: | FileCheck %s --check-prefix=PTX

// The entry is named after the model; its argument is the tensor the
// buffer view imported, its result the tensor the barrier joined; the
// wrapper is gone, and so is every IREE op.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:.*]]: tensor<16x64xf32>) -> tensor<16x48xf32>
// CHECK: %[[H:.*]] = linalg.matmul ins(%[[X]], %{{.*}} : tensor<16x64xf32>, tensor<64x32xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[H]] : tensor<16x32xf32>)
// CHECK: %[[Y:.*]] = linalg.matmul ins(%[[R]], %{{.*}} : tensor<16x32xf32>, tensor<32x48xf32>)
// CHECK: return %[[Y]] : tensor<16x48xf32>
// CHECK-NOT: util.
// CHECK-NOT: hal.
// CHECK-NOT: func.func

// SUMMARY: nvfp4 recipe: 2 of 2 contractions in FP4, 100.00% of 1.147E+05 FLOPs
// RECIPE-LABEL: func.func @mlp(
// RECIPE-COUNT-2: nvfp4.assemble
// RECIPE-NOT: nvfp4.quantize %cst

// CPU-NOT: nvfp4.
// CPU: llvm.func @mlp

// Two GEMM kernels on every target.
// PTX-COUNT-3: {{^}}2{{$}}
