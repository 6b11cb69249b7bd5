// The JAX models (test/ThirdParty/Inputs/jax-*.mlir, from jax.export through
// IREE's StableHLO input conversion) through the default recipe and the GPU
// pipeline: every kernel assembles with ptxas for each target, with no
// spills. Not under the sanitizers (the ONNX and PyTorch models'
// ptxas tests take the same lowering paths there).
// REQUIRES: ptxas
// UNSUPPORTED: sanitizers
// RUN: rm -rf %t && mkdir -p %t
// RUN: for model in jax-mlp jax-encoder jax-mlp-train jax-encoder-train; do \
// RUN:   nvfp4-opt %S/Inputs/$model.mlir --nvfp4-recipe -o %t/$model.recipe.mlir && \
// RUN:   for target in sm_120a sm_90a sm_100a; do \
// RUN:     nvfp4-opt %t/$model.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:     | nvfp4-translate --nvfp4-extract-ptx -o %t/$model.$target.ptx && \
// RUN:     %ptxas -arch=$target -v %t/$model.$target.ptx -o %t/$model.$target.cubin 2>&1 \
// RUN:     | sed -e "s/^/$model $target: /" || exit 1; done; done > %t/ptxas.log
// RUN: FileCheck %s < %t/ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill" %t/ptxas.log

// Kernels (GEMMs + amax/quantize + transposes of the 16x16 weights): MLP
// 2 + 8 + 2, encoder 3 + 8 + 3, MLP training step 4 + 15 + 2, encoder
// training step 6 + 24 + 3.
// CHECK-COUNT-12: jax-mlp sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-mlp sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-12: jax-mlp sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-mlp sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-12: jax-mlp sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-mlp sm_100a: ptxas info{{ +}}: Used
// CHECK-COUNT-14: jax-encoder sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-14: jax-encoder sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-14: jax-encoder sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder sm_100a: ptxas info{{ +}}: Used
// CHECK-COUNT-21: jax-mlp-train sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-mlp-train sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-21: jax-mlp-train sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-mlp-train sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-21: jax-mlp-train sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-mlp-train sm_100a: ptxas info{{ +}}: Used
// CHECK-COUNT-33: jax-encoder-train sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder-train sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-33: jax-encoder-train sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder-train sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-33: jax-encoder-train sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder-train sm_100a: ptxas info{{ +}}: Used
