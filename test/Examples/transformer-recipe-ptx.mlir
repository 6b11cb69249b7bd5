// The bundled training step (4 layers, hidden 4096, FFN 14336, forward and
// backward) through the recipe and the GPU pipeline: every kernel it emits
// assembles with ptxas for each GPU target, with no spills.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: nvfp4-opt %nvfp4_src_root/examples/transformer_training.mlir \
// RUN:   --nvfp4-recipe="keep-first=1 keep-last=1" -o %t/recipe.mlir
// RUN: for target in sm_100a sm_120a sm_121a sm_90a; do \
// RUN:   nvfp4-opt %t/recipe.mlir --nvfp4-to-ptx="target=$target" \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx -o %t/$target.ptx && \
// RUN:   %ptxas -arch=$target -v %t/$target.ptx -o %t/$target.cubin 2>&1 \
// RUN:   | sed -e "s/^/$target: /"; done > %t/ptxas.log
// RUN: FileCheck %s < %t/ptxas.log
// RUN: not grep -E "[1-9][0-9]* bytes spill" %t/ptxas.log
// RUN: for target in sm_100a sm_120a sm_121a sm_90a; do \
// RUN:   grep -cE "^.visible .entry nvfp4_(tcgen05_)?matmul_" %t/$target.ptx; done \
// RUN: | FileCheck %s --check-prefix=MATMULS
// RUN: for target in sm_100a sm_120a sm_121a sm_90a; do \
// RUN:   grep -cE "^.visible .entry nvfp4_transpose_(4096x4096|4096x14336|14336x4096)[(]$" %t/$target.ptx; done \
// RUN: | FileCheck %s --check-prefix=TRANSPOSES

// Per target: 8 GEMM kernels (tcgen05 ones on sm_100a) (the distinct shapes and layouts of the FP4
// layers), 42 amax / quantize kernels and 3 transpose kernels (the 16x16
// weights the backward GEMMs read transposed: 4096 x 4096, 4096 x 14336,
// 14336 x 4096), each without stack or spills.
// CHECK-COUNT-53: sm_100a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: sm_100a: ptxas info{{ +}}: Used
// CHECK-COUNT-53: sm_120a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: sm_120a: ptxas info{{ +}}: Used
// CHECK-COUNT-53: sm_121a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: sm_121a: ptxas info{{ +}}: Used
// CHECK-COUNT-53: sm_90a: ptxas info{{ +}}: Used {{[0-9]+}} registers
// CHECK-NOT: sm_90a: ptxas info{{ +}}: Used
// MATMULS-COUNT-4: {{^}}8{{$}}
// TRANSPOSES-COUNT-4: {{^}}3{{$}}
