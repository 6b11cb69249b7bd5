// The recipe on the bundled decoder-only transformer training step (4
// blocks, forward and backward), with and without frontend annotations,
// keeping the first and the last block in high precision.
//
// RUN: nvfp4-opt %nvfp4_src_root/examples/transformer_training_annotated.mlir \
// RUN:   --nvfp4-recipe="keep-first=1 keep-last=1 summary report=%t.annotated.json" \
// RUN:   -o %t.annotated.mlir 2> %t.annotated.txt
// RUN: nvfp4-opt %nvfp4_src_root/examples/transformer_training.mlir \
// RUN:   --nvfp4-recipe="keep-first=1 keep-last=1 summary report=%t.inferred.json" \
// RUN:   -o %t.inferred.mlir 2> %t.inferred.txt
//
// The IR is valid and each variant has the recipe's shape.
// RUN: nvfp4-opt %t.annotated.mlir --verify-each -o /dev/null
// RUN: awk -f %S/Inputs/check-recipe.awk %t.annotated.mlir | FileCheck %s --check-prefix=IR
// RUN: awk -f %S/Inputs/check-recipe.awk %t.inferred.mlir | FileCheck %s --check-prefix=IR
//
// Both variants reach the same decisions, reasons, roles and layers.
// RUN: grep -v '"location"' %t.annotated.json > %t.annotated.decisions
// RUN: grep -v '"location"' %t.inferred.json > %t.inferred.decisions
// RUN: diff %t.annotated.decisions %t.inferred.decisions
// RUN: diff %t.annotated.txt %t.inferred.txt
// RUN: FileCheck %s --input-file=%t.inferred.json --check-prefix=JSON
// RUN: FileCheck %s --input-file=%t.inferred.txt --check-prefix=SUMMARY
//
// Exactly the linear layers of blocks 1 and 2 are NVFP4 (7 weights x
// fprop/dgrad/wgrad x 2 blocks).
// RUN: grep -c " fp4 " %t.inferred.txt | FileCheck %s --check-prefix=FP4
// RUN: grep " fp4 " %t.inferred.txt | grep -c -E "^train_step +[0-9]+ (fprop|dgrad|wgrad) +[12] 1x.* fp4 +(fprop|dgrad|wgrad) of layer [12]$" \
// RUN:   | FileCheck %s --check-prefix=FP4
//
// The output is deterministic.
// RUN: nvfp4-opt %nvfp4_src_root/examples/transformer_training.mlir \
// RUN:   --nvfp4-recipe="keep-first=1 keep-last=1 report=%t.again.json" -o %t.again.mlir
// RUN: cmp %t.inferred.mlir %t.again.mlir
// RUN: cmp %t.inferred.json %t.again.json

// IR:      nvfp4-matmuls 42
// IR-NEXT: weight-quantizes 14 distinct-inputs 14
// IR-NEXT: hadamard-outside-wgrad 0
// IR-NEXT: wgrad-without-hadamard 0
// IR-NEXT: rs-not-gradient 0
// IR-NEXT: gradient-not-rs 0

// FP4: {{^}}42{{$}}

// JSON:      "contractions": 113,
// JSON-NEXT: "fp4": 42,
// JSON-NEXT: "high": 71,
// JSON-NEXT: "flops": 15466177232896,
// JSON-NEXT: "fp4_flops": 5978594476032,
// JSON-NEXT: "fp4_flop_percent": "38.66"

// SUMMARY:      nvfp4 recipe: 42 of 113 contractions in FP4, 38.66% of 1.547E+13 FLOPs
// SUMMARY:      train_step         0 fprop      0 1x2048x4096x32000    high  embedding (one-hot operand)
// SUMMARY-NEXT: train_step         1 fprop      0 1x2048x4096x4096     high  layer 0 within keep-first=1
// SUMMARY:      train_step         4 fprop      0 32x2048x2048x128     high  attention (batched contraction of two activations)
// SUMMARY-NEXT: train_step         5 fprop      0 32x2048x128x2048     high  attention (batched contraction of two activations)
// SUMMARY:      train_step        10 fprop      1 1x2048x4096x4096     fp4   fprop of layer 1
// SUMMARY:      train_step        28 fprop      3 1x2048x4096x4096     high  layer 3 within keep-last=1
// SUMMARY:      train_step        37 fprop      3 1x2048x32000x4096    high  LM head (forward result feeds a reduction)
// SUMMARY-NEXT: train_step        38 dgrad      3 1x2048x4096x32000    high  LM head (forward result feeds a reduction)
// SUMMARY-NEXT: train_step        39 wgrad      3 1x32000x4096x2048    high  LM head (forward result feeds a reduction)
// SUMMARY:      train_step        58 dgrad      2 1x2048x14336x4096    fp4   dgrad of layer 2
// SUMMARY-NEXT: train_step        59 wgrad      2 1x4096x14336x2048    fp4   wgrad of layer 2
// SUMMARY:      train_step        67 wgrad      2 32x2048x128x2048     high  attention (batched contraction of two activations)
// SUMMARY:      train_step       112 wgrad      0 1x32000x4096x2048    high  embedding (one-hot operand)
