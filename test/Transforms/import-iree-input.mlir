// RUN: nvfp4-opt --allow-unregistered-dialect %s --nvfp4-import-iree-input --split-input-file --verify-diagnostics | FileCheck %s

// A util.func without ABI (as the StableHLO input pipeline writes them):
// only the function and return ops change; scalar arguments stay.
// CHECK-LABEL: func.func @plain(%arg0: tensor<4xf32>, %arg1: i32) -> tensor<4xf32>
// CHECK-NEXT: return %arg0 : tensor<4xf32>
"util.func"() <{function_type = (tensor<4xf32>, i32) -> tensor<4xf32>, sym_name = "plain"}> ({
^bb0(%arg0: tensor<4xf32>, %arg1: i32):
  "util.return"(%arg0) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// Two buffer views and fences: both imports become arguments, in order; the
// barrier joins two results, both exported.
// CHECK-LABEL: func.func @two(%arg0: tensor<2xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32>, tensor<2xf32>)
// CHECK-NEXT: return %arg1, %arg0 : tensor<3xf32>, tensor<2xf32>
// CHECK-NOT: util.func
"util.func"() <{function_type = (!hal.buffer_view, !hal.buffer_view, !hal.fence, !hal.fence) -> (!hal.buffer_view, !hal.buffer_view), sym_name = "two$async"}> ({
^bb0(%a: !hal.buffer_view, %b: !hal.buffer_view, %wait: !hal.fence, %signal: !hal.fence):
  %ta = "hal.tensor.import"(%a, %wait) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, target_encoding = tensor<2xf32>}> : (!hal.buffer_view, !hal.fence) -> tensor<2xf32>
  %tb = "hal.tensor.import"(%b, %wait) <{operandSegmentSizes = array<i32: 1, 0, 1, 0>, target_encoding = tensor<3xf32>}> : (!hal.buffer_view, !hal.fence) -> tensor<3xf32>
  %j:2 = "hal.tensor.barrier"(%tb, %ta, %signal) : (tensor<3xf32>, tensor<2xf32>, !hal.fence) -> (tensor<3xf32>, tensor<2xf32>)
  %eb = "hal.tensor.export"(%j#0) <{source_encoding = tensor<3xf32>}> : (tensor<3xf32>) -> !hal.buffer_view
  %ea = "hal.tensor.export"(%j#1) <{source_encoding = tensor<2xf32>}> : (tensor<2xf32>) -> !hal.buffer_view
  "util.return"(%eb, %ea) : (!hal.buffer_view, !hal.buffer_view) -> ()
}) {iree.abi.stub} : () -> ()
"util.func"() <{function_type = (!hal.buffer_view, !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view), sym_name = "two"}> ({
^bb0(%a: !hal.buffer_view, %b: !hal.buffer_view):
  %f = "util.null"() : () -> !hal.fence
  %r:2 = "util.call"(%a, %b, %f, %f) <{callee = @two$async}> : (!hal.buffer_view, !hal.buffer_view, !hal.fence, !hal.fence) -> (!hal.buffer_view, !hal.buffer_view)
  "util.return"(%r#0, %r#1) : (!hal.buffer_view, !hal.buffer_view) -> ()
}) {iree.abi.stub} : () -> ()

// -----

// A buffer view nothing imports.
// expected-error @below {{nvfp4-import-iree-input: buffer-view argument 0 is not imported by one hal.tensor.import}}
"util.func"() <{function_type = (!hal.buffer_view) -> (), sym_name = "unused"}> ({
^bb0(%a: !hal.buffer_view):
  "util.return"() : () -> ()
}) : () -> ()

// -----

// A buffer view used by something else than its import and its sizes.
// expected-error @below {{nvfp4-import-iree-input: a buffer-view or fence argument has uses other than the ABI operations}}
"util.func"() <{function_type = (!hal.buffer_view) -> tensor<4xf32>, sym_name = "reused"}> ({
^bb0(%a: !hal.buffer_view):
  %t = "hal.tensor.import"(%a) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, target_encoding = tensor<4xf32>}> : (!hal.buffer_view) -> tensor<4xf32>
  %d = "hal.buffer_view.element_type"(%a) : (!hal.buffer_view) -> i32
  "util.return"(%t) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// Dynamic axes: the run-time sizes the import and the body read off the
// buffer view are the dimensions of the new tensor argument.
// CHECK-LABEL: func.func @dynamic(%arg0: tensor<?x?x8xf32>) -> index
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D0:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?x?x8xf32>
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D1:.*]] = tensor.dim %arg0, %[[C1]] : tensor<?x?x8xf32>
// CHECK: %[[P:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK: return %[[P]] : index
"util.func"() <{function_type = (!hal.buffer_view, !hal.fence, !hal.fence) -> index, sym_name = "dynamic$async"}> ({
^bb0(%a: !hal.buffer_view, %wait: !hal.fence, %signal: !hal.fence):
  %d0 = "hal.buffer_view.dim"(%a) <{index = 0 : index}> : (!hal.buffer_view) -> index
  %d1 = "hal.buffer_view.dim"(%a) <{index = 1 : index}> : (!hal.buffer_view) -> index
  %t = "hal.tensor.import"(%a, %d0, %d1, %wait) <{operandSegmentSizes = array<i32: 1, 2, 1, 0>, target_encoding = tensor<?x?x8xf32>}> : (!hal.buffer_view, index, index, !hal.fence) -> tensor<?x?x8xf32>
  %p = "arith.muli"(%d0, %d1) : (index, index) -> index
  "util.return"(%p) : (index) -> ()
}) : () -> ()

// -----

// A size read without its dimension index is an error at the read.
"util.func"() <{function_type = (!hal.buffer_view) -> tensor<?xf32>, sym_name = "bad_dim"}> ({
^bb0(%a: !hal.buffer_view):
  // expected-error @below {{nvfp4-import-iree-input: expected a hal.buffer_view.dim with an index attribute and an index result}}
  %d = "hal.buffer_view.dim"(%a) : (!hal.buffer_view) -> index
  %t = "hal.tensor.import"(%a, %d) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, target_encoding = tensor<?xf32>}> : (!hal.buffer_view, index) -> tensor<?xf32>
  "util.return"(%t) : (tensor<?xf32>) -> ()
}) : () -> ()

// -----

// An IREE op the conversion does not know stays: an error at it.
"util.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "flow"}> ({
^bb0(%x: tensor<4xf32>):
  // expected-error @below {{nvfp4-import-iree-input: 'flow.tensor.reshape' remains in the converted function (expected linalg, tensor, arith and math bodies)}}
  %y = "flow.tensor.reshape"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  "util.return"(%y) : (tensor<4xf32>) -> ()
}) : () -> ()

// -----

// expected-error @below {{nvfp4-import-iree-input: expected a util.func with a name, a function type and a body}}
"util.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "external"}> ({
}) : () -> ()

// -----

// A cast that makes a run-time size static asserts it without a check (as
// torch-mlir's aten.view lowering does when a reshape merges two run-time
// sizes): a warning at the cast. Casts that keep or widen run-time sizes,
// and a cast of static sizes, are left alone. The IR is unchanged.
// CHECK-LABEL: func.func @narrowing(%arg0: tensor<?x4x?x8xf32>, %arg1: tensor<2x4xf32>)
// CHECK-NEXT: %[[NARROW:.*]] = tensor.cast %arg0 : tensor<?x4x?x8xf32> to tensor<1x4x?x8xf32>
// CHECK-NEXT: %[[WIDE:.*]] = tensor.cast %[[NARROW]] : tensor<1x4x?x8xf32> to tensor<?x?x?x8xf32>
// CHECK-NEXT: %[[SAME:.*]] = tensor.cast %arg1 : tensor<2x4xf32> to tensor<2x4xf32>
// CHECK-NEXT: return %[[WIDE]], %[[SAME]]
"util.func"() <{function_type = (tensor<?x4x?x8xf32>, tensor<2x4xf32>) -> (tensor<?x?x?x8xf32>, tensor<2x4xf32>), sym_name = "narrowing"}> ({
^bb0(%arg0: tensor<?x4x?x8xf32>, %arg1: tensor<2x4xf32>):
  // expected-warning @+1 {{this cast assumes that run-time dimension 0 is 1 without a check; where it is not, the results are wrong (torch-mlir's aten.view lowering}}
  %0 = tensor.cast %arg0 : tensor<?x4x?x8xf32> to tensor<1x4x?x8xf32>
  %1 = tensor.cast %0 : tensor<1x4x?x8xf32> to tensor<?x?x?x8xf32>
  %2 = tensor.cast %arg1 : tensor<2x4xf32> to tensor<2x4xf32>
  "util.return"(%1, %2) : (tensor<?x?x?x8xf32>, tensor<2x4xf32>) -> ()
}) : () -> ()
