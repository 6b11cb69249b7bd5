// The JAX models (test/ThirdParty/Inputs/jax-*.mlir, from jax.export through
// IREE's StableHLO input conversion) through the default recipe and the GPU
// pipeline: every kernel assembles with ptxas for each target, with no
// spills. The MLP training step is not built for sm_100a: its wgrads
// (K = 128 tokens) do not fit the tcgen05 kernel (jax-mlp-train.mlir).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: for model in jax-mlp jax-encoder jax-mlp-train jax-encoder-train; do \
// RUN:   nvfp4-opt %S/Inputs/$model.mlir --nvfp4-recipe -o %t/$model.recipe.mlir && \
// RUN:   for target in sm_120a sm_90a sm_100a; do \
// RUN:     if [ $model-$target = jax-mlp-train-sm_100a ]; then continue; fi; \
// RUN:     nvfp4-opt %t/$model.recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:     | nvfp4-translate --nvfp4-extract-ptx -o %t/$model.$target.ptx && \
// RUN:     %ptxas -arch=$target -v %t/$model.$target.ptx -o %t/$model.$target.cubin 2>&1 \
// RUN:     | sed -e "s/^/$model $target: /" || exit 1; done; done > %t/ptxas.log
// RUN: FileCheck %s < %t/ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill" %t/ptxas.log

// Kernels (GEMMs + amax/quantize): MLP 2 + 8, encoder 3 + 8, MLP training
// step 4 + 15, encoder training step 6 + 24.
// CHECK-COUNT-10: jax-mlp sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-mlp sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-10: jax-mlp sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-mlp sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-10: jax-mlp sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-mlp sm_100a: ptxas info{{ +}}: Used
// CHECK-COUNT-11: jax-encoder sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-11: jax-encoder sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-11: jax-encoder sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder sm_100a: ptxas info{{ +}}: Used
// CHECK-COUNT-19: jax-mlp-train sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-mlp-train sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-19: jax-mlp-train sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-mlp-train sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-30: jax-encoder-train sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder-train sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-30: jax-encoder-train sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder-train sm_90a: ptxas info{{ +}}: Used
// CHECK-COUNT-30: jax-encoder-train sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: jax-encoder-train sm_100a: ptxas info{{ +}}: Used
