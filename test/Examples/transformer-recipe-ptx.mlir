// The bundled training step (4 layers, hidden 4096, FFN 14336, forward and
// backward) through the recipe and the GPU pipeline: every kernel it emits
// assembles with ptxas for each GPU target, with no spills.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: nvfp4-opt %nvfp4_src_root/examples/transformer_training.mlir \
// RUN:   --nvfp4-recipe="keep-first=1 keep-last=1" -o %t/recipe.mlir
// RUN: for target in sm_120a sm_121a sm_90a; do \
// RUN:   nvfp4-opt %t/recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx -o %t/$target.ptx && \
// RUN:   %ptxas -arch=$target -v %t/$target.ptx -o %t/$target.cubin 2>&1 \
// RUN:   | sed -e "s/^/$target: /"; done > %t/ptxas.log
// RUN: FileCheck %s < %t/ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill" %t/ptxas.log

// The FP4 layers have eight distinct GEMM shapes and layouts: one kernel each,
// per target, each without stack or spills.
// CHECK-COUNT-8: sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-COUNT-8: sm_121a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-COUNT-8: sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
