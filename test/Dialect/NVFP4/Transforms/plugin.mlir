// Stock mlir-opt runs the recipe passes and pipeline from the plugin
// (plugin passes are reached through --pass-pipeline).
// RUN: mlir-opt %s --load-dialect-plugin=%nvfp4_lib_dir/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_lib_dir/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(func.func(nvfp4-assign-rounding{base-offset=32}))' | FileCheck %s
// RUN: mlir-opt %s --load-dialect-plugin=%nvfp4_lib_dir/NVFP4Plugin%shlibext \
// RUN:   --load-pass-plugin=%nvfp4_lib_dir/NVFP4Plugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(nvfp4-recipe)' | FileCheck %s --check-prefix=RECIPE

// CHECK-LABEL: func @plugin
// CHECK: nvfp4.quantize %{{.*}} rounding rs seed %{{.*}} offset 32 {nvfp4.kind = "gradient"}
// RECIPE-LABEL: func @plugin
// RECIPE: nvfp4.quantize %{{.*}} rounding rs seed %{{.*}} offset 0 {nvfp4.kind = "gradient"}
func.func @plugin(%g: tensor<32x64xf32>, %seed: i64 {nvfp4.seed}) -> !nvfp4.tensor<32x64, 1x16> {
  %0 = nvfp4.quantize %g {nvfp4.kind = "gradient"} : tensor<32x64xf32> -> !nvfp4.tensor<32x64, 1x16>
  return %0 : !nvfp4.tensor<32x64, 1x16>
}
