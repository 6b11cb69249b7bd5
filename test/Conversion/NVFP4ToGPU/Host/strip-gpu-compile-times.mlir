// RUN: nvfp4-opt %s --nvfp4-strip-gpu-compile-times | FileCheck %s

// The two compile-time entries go; other properties, the object, its format
// and target stay.
// CHECK-LABEL: gpu.binary @timed
// CHECK-SAME: [#gpu.object<#nvvm.target<chip = "sm_120a">, properties = {O = 3 : i32}, "ptx-text">]
gpu.binary @timed [#gpu.object<#nvvm.target<chip = "sm_120a">, properties = {LLVMIRToISATimeInMs = 381 : i64, O = 3 : i32, ISAToBinaryTimeInMs = 12 : i64}, "ptx-text">]

// An object left with no properties prints none.
// CHECK-LABEL: gpu.binary @only_times
// CHECK-SAME: [#gpu.object<#nvvm.target<chip = "sm_90a">, bin = "cubin">]
gpu.binary @only_times [#gpu.object<#nvvm.target<chip = "sm_90a">, properties = {ISAToBinaryTimeInMs = 7 : i64}, bin = "cubin">]

// Objects without compile times are left alone.
// CHECK-LABEL: gpu.binary @untimed
// CHECK-SAME: [#gpu.object<#nvvm.target<chip = "sm_121a">, properties = {O = 2 : i32}, "a">, #gpu.object<#nvvm.target, "b">]
gpu.binary @untimed [#gpu.object<#nvvm.target<chip = "sm_121a">, properties = {O = 2 : i32}, "a">, #gpu.object<#nvvm.target, "b">]
