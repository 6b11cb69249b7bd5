// The recipe with a precision ladder on the bundled 4-block transformer
// training step: with formats=nvfp4,mxfp8,bf16 the contractions the recipe
// keeps out of FP4 (embedding, first and last block, attention, LM head)
// run in MXFP8 instead of bf16; format=mxfp4 runs the whole recipe in
// MXFP4. Both lower to the CPU (and to sm_120a PTX:
// recipe-formats-sm120-ptx.mlir).
//
// RUN: nvfp4-opt %nvfp4_src_root/examples/transformer_training.mlir \
// RUN:   --nvfp4-recipe="formats=nvfp4,mxfp8,bf16 keep-first=1 keep-last=1 summary report=%t.ladder.json" \
// RUN:   --verify-each -o %t.ladder.mlir 2> %t.ladder.txt
// RUN: FileCheck %s --input-file=%t.ladder.txt --check-prefix=LADDER
// RUN: FileCheck %s --input-file=%t.ladder.json --check-prefix=LADDER-JSON
// RUN: awk -f %S/Inputs/check-recipe-formats.awk %t.ladder.mlir | FileCheck %s --check-prefix=LADDER-IR
// RUN: nvfp4-opt %t.ladder.mlir --nvfp4-to-cpu -o /dev/null
//
// RUN: nvfp4-opt %nvfp4_src_root/examples/transformer_training.mlir \
// RUN:   --nvfp4-recipe="format=mxfp4 keep-first=1 keep-last=1 summary" \
// RUN:   --verify-each -o %t.mxfp4.mlir 2> %t.mxfp4.txt
// RUN: FileCheck %s --input-file=%t.mxfp4.txt --check-prefix=MXFP4
// RUN: awk -f %S/Inputs/check-recipe-formats.awk %t.mxfp4.mlir | FileCheck %s --check-prefix=MXFP4-IR
// RUN: nvfp4-opt %t.mxfp4.mlir --nvfp4-to-cpu -o /dev/null
//
// The ladder's output is deterministic.
// RUN: nvfp4-opt %nvfp4_src_root/examples/transformer_training.mlir \
// RUN:   --nvfp4-recipe="formats=nvfp4,mxfp8,bf16 keep-first=1 keep-last=1" -o %t.again.mlir
// RUN: cmp %t.ladder.mlir %t.again.mlir

// LADDER:      nvfp4 recipe: 42 of 113 contractions in FP4, 38.66% of 1.547E+13 FLOPs
// LADDER-NEXT:   fp4           42 contractions,  38.66% of FLOPs
// LADDER-NEXT:   mxfp8_e4m3    71 contractions,  61.34% of FLOPs
// LADDER:      train_step         0 fprop      0 1x2048x4096x32000    mxfp8_e4m3 fprop of layer 0 (nvfp4: embedding (one-hot operand))
// LADDER-NEXT: train_step         1 fprop      0 1x2048x4096x4096     mxfp8_e4m3 fprop of layer 0 (nvfp4: layer 0 within keep-first=1)
// LADDER:      train_step         4 fprop      0 32x2048x2048x128     mxfp8_e4m3 fprop of layer 0 (nvfp4: attention (batched contraction of two activations))
// LADDER:      train_step        10 fprop      1 1x2048x4096x4096     fp4        fprop of layer 1
// LADDER:      train_step        28 fprop      3 1x2048x4096x4096     mxfp8_e4m3 fprop of layer 3 (nvfp4: layer 3 within keep-last=1)
// LADDER:      train_step        37 fprop      3 1x2048x32000x4096    mxfp8_e4m3 fprop of layer 3 (nvfp4: LM head (forward result feeds a reduction))

// LADDER-JSON:      "contractions": 113,
// LADDER-JSON-NEXT: "fp4": 42,
// LADDER-JSON-NEXT: "high": 0,
// LADDER-JSON-NEXT: "flops": 15466177232896,
// LADDER-JSON-NEXT: "fp4_flops": 5978594476032,
// LADDER-JSON-NEXT: "fp4_flop_percent": "38.66",
// LADDER-JSON-NEXT: "decisions": {
// LADDER-JSON-NEXT:   "fp4": {
// LADDER-JSON-NEXT:     "contractions": 42,
// LADDER-JSON-NEXT:     "flops": 5978594476032,
// LADDER-JSON-NEXT:     "flop_percent": "38.66"
// LADDER-JSON-NEXT:   },
// LADDER-JSON-NEXT:   "mxfp8_e4m3": {
// LADDER-JSON-NEXT:     "contractions": 71,
// LADDER-JSON-NEXT:     "flops": 9487582756864,
// LADDER-JSON-NEXT:     "flop_percent": "61.34"

// LADDER-IR:      matmuls nvfp4 42 mxfp4 0 mxfp8_e4m3 71 mxfp8_e5m2 0
// LADDER-IR-NEXT: mixed-format-matmuls 0
// LADDER-IR-NEXT: mx-rs-or-hadamard 0
// LADDER-IR-NEXT: nvfp4-gradient-not-rs 0
// LADDER-IR-NEXT: nvfp4-wgrad-without-hadamard 0

// MXFP4:      nvfp4 recipe: 42 of 113 contractions in FP4, 38.66% of 1.547E+13 FLOPs
// MXFP4-NEXT:   high          71 contractions,  61.34% of FLOPs
// MXFP4-NEXT:   mxfp4         42 contractions,  38.66% of FLOPs
// MXFP4:      train_step        10 fprop      1 1x2048x4096x4096     mxfp4      fprop of layer 1

// MXFP4-IR:      matmuls nvfp4 0 mxfp4 42 mxfp8_e4m3 0 mxfp8_e5m2 0
// MXFP4-IR-NEXT: mixed-format-matmuls 0
// MXFP4-IR-NEXT: mx-rs-or-hadamard 0
