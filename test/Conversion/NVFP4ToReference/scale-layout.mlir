// convert-nvfp4-to-reference implements nvfp4.scale_layout: its ops read
// and write row-major scales, so an argument (or call result) in atoms is
// relaid out to row-major where it is used, and a value that leaves in
// atoms is relaid out before it leaves, unless it arrived in atoms. The
// attributes are dropped: the scale buffers are in those layouts from then
// on.
// RUN: nvfp4-opt %s --convert-nvfp4-to-reference --split-input-file \
// RUN: | FileCheck %s --implicit-check-not=nvfp4.scale_layout

// CHECK-LABEL: func.func @dequantize_atoms(
// CHECK-SAME:      %[[D:[a-z0-9]+]]: tensor<128x64xi8>, %[[S:[a-z0-9]+]]: tensor<128x4xi8>, %[[G:[a-z0-9]+]]: f32)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[S]] {{\[\[}}0, 1]] : tensor<128x4xi8> into tensor<512xi8>
// CHECK:         %[[ATOMS:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2, 3, 4]] output_shape [1, 1, 32, 4, 4]
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[ATOMS]] : tensor<1x1x32x4x4xi8>) outs(%{{.*}} : tensor<1x4x32x1x4xi8>) permutation = [0, 3, 2, 1, 4]
// CHECK:         %[[TFLAT:.*]] = tensor.collapse_shape %[[T]]
// CHECK:         %[[RM:.*]] = tensor.expand_shape %[[TFLAT]] {{\[\[}}0, 1]] output_shape [128, 4]
// The dequantization reads the relaid-out scales.
// CHECK:         %[[RMBUF:.*]] = bufferization.to_buffer %[[RM]] read_only
// CHECK:         %[[RMCAST:.*]] = memref.cast %[[RMBUF]]
// CHECK:         call @nvfp4CpuDequantize(%{{.*}}, %[[RMCAST]], %[[G]],
func.func @dequantize_atoms(%q: !nvfp4.tensor<128x64, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>}) -> tensor<128x64xf32> {
  %x = nvfp4.dequantize %q : !nvfp4.tensor<128x64, 1x16> -> tensor<128x64xf32>
  return %x : tensor<128x64xf32>
}

// -----

// Atoms in, atoms out: untouched; row-major out: relaid out.
// CHECK-LABEL: func.func @pass_through(
// CHECK-SAME:      %[[D:[a-z0-9]+]]: tensor<128x64xi8>, %[[S:[a-z0-9]+]]: tensor<128x4xi8>, %[[G:[a-z0-9]+]]: f32)
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<1x1x32x4x4xi8>) outs(%{{.*}} : tensor<1x4x32x1x4xi8>)
// CHECK:         %[[RM:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [128, 4]
// CHECK:         return %[[D]], %[[S]], %[[G]], %[[D]], %[[RM]], %[[G]]
func.func @pass_through(%q: !nvfp4.tensor<128x64, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>})
    -> (!nvfp4.tensor<128x64, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<atoms>}, !nvfp4.tensor<128x64, 1x16>) {
  return %q, %q : !nvfp4.tensor<128x64, 1x16>, !nvfp4.tensor<128x64, 1x16>
}

// -----

// Without attributes (or row_major), nothing changes.
// CHECK-LABEL: func.func @row_major(
// CHECK-NOT:     linalg.transpose
// CHECK:         return
func.func @row_major(%q: !nvfp4.tensor<128x64, 1x16> {nvfp4.scale_layout = #nvfp4.scale_layout<row_major>}, %r: !nvfp4.tensor<128x64, 1x16>)
    -> tensor<128x64xf32> {
  %x = nvfp4.dequantize %q : !nvfp4.tensor<128x64, 1x16> -> tensor<128x64xf32>
  return %x : tensor<128x64xf32>
}
