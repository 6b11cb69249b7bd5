// IREE input (iree-compile --compile-to=input) whose entry point is still a
// util.func with the hal.buffer_view ABI: a matmul the recipe cannot see
// until nvfp4-import-iree-input has run.
"util.func"() <{function_type = (!hal.buffer_view, !hal.buffer_view, !hal.fence, !hal.fence) -> !hal.buffer_view, sym_name = "main$async"}> ({
^bb0(%a: !hal.buffer_view, %b: !hal.buffer_view, %wait: !hal.fence, %signal: !hal.fence):
  %ta = "hal.tensor.import"(%a, %wait) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, target_encoding = tensor<32x64xf32>}> : (!hal.buffer_view, !hal.fence) -> tensor<32x64xf32>
  %tb = "hal.tensor.import"(%b, %wait) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, target_encoding = tensor<64x64xf32>}> : (!hal.buffer_view, !hal.fence) -> tensor<64x64xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %y = linalg.matmul ins(%ta, %tb : tensor<32x64xf32>, tensor<64x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %j = "hal.tensor.barrier"(%y, %signal) : (tensor<32x64xf32>, !hal.fence) -> tensor<32x64xf32>
  %ey = "hal.tensor.export"(%j) <{source_encoding = tensor<32x64xf32>}> : (tensor<32x64xf32>) -> !hal.buffer_view
  "util.return"(%ey) : (!hal.buffer_view) -> ()
}) {iree.abi.stub} : () -> ()
