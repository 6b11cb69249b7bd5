// The third-party models (test/ThirdParty/Inputs, from ONNX through IREE's
// importer) through the default recipe and the GPU pipeline: every kernel
// assembles with ptxas for each target, with no spills.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: for model in onnx-mlp onnx-encoder; do \
// RUN:   nvfp4-opt %S/Inputs/$model.mlir --nvfp4-recipe -o %t/$model.recipe.mlir && \
// RUN:   for target in sm_120a sm_90a sm_100a; do \
// RUN:     nvfp4-opt %t/$model.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:     | nvfp4-translate --nvfp4-extract-ptx -o %t/$model.$target.ptx && \
// RUN:     %ptxas -arch=$target -v %t/$model.$target.ptx -o %t/$model.$target.cubin 2>&1 \
// RUN:     | sed -e "s/^/$model $target: /" || exit 1; done; done > %t/ptxas.log
// RUN: FileCheck %s < %t/ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill" %t/ptxas.log

// MLP: 2 GEMM kernels, 8 amax / quantize kernels and 2 transposes of 16x16
// weights; encoder: 3, 10 and 3.
// CHECK-COUNT-12: onnx-mlp sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: onnx-mlp sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-12: onnx-mlp sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: onnx-mlp sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-12: onnx-mlp sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: onnx-mlp sm_100a: ptxas info{{ +}}: Used
// CHECK-COUNT-16: onnx-encoder sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: onnx-encoder sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-16: onnx-encoder sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: onnx-encoder sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-16: onnx-encoder sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: onnx-encoder sm_100a: ptxas info{{ +}}: Used
