// The PyTorch models (test/ThirdParty/Inputs/torch-*.mlir, from
// torch.onnx.export through IREE's ONNX importer) through the default recipe
// and the GPU pipeline: every kernel assembles with ptxas for each target,
// with no spills.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: for model in torch-mlp torch-encoder; do \
// RUN:   nvfp4-opt %S/Inputs/$model.mlir --nvfp4-recipe -o %t/$model.recipe.mlir && \
// RUN:   for target in sm_120a sm_90a sm_100a; do \
// RUN:     nvfp4-opt %t/$model.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:     | nvfp4-translate --nvfp4-extract-ptx -o %t/$model.$target.ptx && \
// RUN:     %ptxas -arch=$target -v %t/$model.$target.ptx -o %t/$model.$target.cubin 2>&1 \
// RUN:     | sed -e "s/^/$model $target: /" || exit 1; done; done > %t/ptxas.log
// RUN: FileCheck %s < %t/ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill" %t/ptxas.log

// MLP: 2 GEMM kernels and 8 amax / quantize kernels; encoder (QKV, the
// output projection and both FFN GEMMs are FP4, see torch-encoder.mlir): 4
// and 10.
// CHECK-COUNT-10: torch-mlp sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: torch-mlp sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-10: torch-mlp sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: torch-mlp sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-10: torch-mlp sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: torch-mlp sm_100a: ptxas info{{ +}}: Used
// CHECK-COUNT-14: torch-encoder sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: torch-encoder sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-14: torch-encoder sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: torch-encoder sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-14: torch-encoder sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: torch-encoder sm_100a: ptxas info{{ +}}: Used
