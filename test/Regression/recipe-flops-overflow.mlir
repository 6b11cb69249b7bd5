// RUN: nvfp4-opt %s --nvfp4-recipe="summary report=%t.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --input-file=%t.json

// The FLOP count of a contraction, 2 * M * N * K, overflows int64_t for large
// static shapes (signed overflow: undefined behaviour, reported by UBSan). It
// saturates at INT64_MAX, in the decisions and in the totals. Such a
// contraction stays in high precision: its NVFP4 form would need tensors
// whose sizes overflow a 64-bit index (the verifier rejects them).

// CHECK:      "op": "linalg.matmul"
// CHECK:      "m": 4294967296,
// CHECK-NEXT: "n": 4294967296,
// CHECK-NEXT: "k": 4294967296,
// CHECK-NEXT: "flops": 9223372036854775807,
// CHECK:      "reason": "operand sizes overflow a 64-bit index"
// CHECK:      "op": "linalg.matmul"
// CHECK:      "flops": 9223372036854775807,
// CHECK:      "summary":
// CHECK:      "flops": 9223372036854775807,

// SUMMARY: nvfp4 recipe: 0 of 2 contractions in FP4
// SUMMARY: huge {{.*}} operand sizes overflow a 64-bit index
// SUMMARY-NOT: error

func.func @huge(%x: tensor<4294967296x4294967296xf32> {nvfp4.kind = "activation"},
                %w: tensor<4294967296x4294967296xf32> {nvfp4.kind = "weight"})
    -> tensor<4294967296x4294967296xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4294967296x4294967296xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4294967296x4294967296xf32>, tensor<4294967296x4294967296xf32>)
                     outs(%init : tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  %z = linalg.matmul ins(%y, %w : tensor<4294967296x4294967296xf32>, tensor<4294967296x4294967296xf32>)
                     outs(%init : tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  return %z : tensor<4294967296x4294967296xf32>
}
