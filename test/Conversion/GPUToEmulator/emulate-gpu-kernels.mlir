// nvfp4-emulate-gpu-kernels on a generated kernel (the amax kernel, lowered
// to the NVVM dialect as for the NVVM target) and nvfp4-emulate-gpu-launches
// on its LLVM-lowered launch.

// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(convert-nvfp4-to-gpu{target=sm_120a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvfp4-emulate-gpu-kernels)' \
// RUN: | FileCheck %s
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_120a" | FileCheck %s --check-prefix=LAUNCH

// The gpu.module is an empty binary marked emulated; the launch is left to
// the host lowering.
// CHECK:       llvm.mlir.global internal constant @__nvfp4_emu_location_0("{{.*}}emulate-gpu-kernels.mlir:{{[0-9]+}}:{{[0-9]+}}\00")
// CHECK:       gpu.launch_func @nvfp4_kernels::@nvfp4_amax_64x256_bf16 blocks in
// CHECK:       gpu.binary @nvfp4_kernels {nvfp4.emulated = {nvfp4_amax_64x256_bf16 = 16 : i64}} [#gpu.object<#nvvm.target, offload = "">]
// CHECK-NOT:   gpu.module
// The kernel: a host function with the thread context first, no address
// spaces and no NVVM or GPU attributes; the shared variable at offset 0
// of the CTA's shared memory, %tid.x (0) and %ctaid.x (6) read from the
// emulator, shfl.sync.bfly (mode 2) on the f32 bits, bar.sync 0.
// CHECK-LABEL: llvm.func internal @__nvfp4_emu_nvfp4_kernels_nvfp4_amax_64x256_bf16(
// CHECK-SAME:      %[[THREAD:arg0]]: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr,
// CHECK-NOT:       attributes
// CHECK-NOT:       ptr<
// CHECK:         %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    %[[SMEM:.*]] = llvm.call @nvfp4EmuShared(%[[THREAD]], %[[ZERO]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK-NEXT:    llvm.getelementptr %[[SMEM]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x f32>
// CHECK:         llvm.mlir.constant(128 : index) : i64
// CHECK-NEXT:    %[[TIDX:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @nvfp4EmuSreg(%[[THREAD]], %[[TIDX]]) : (!llvm.ptr, i32) -> i32
// CHECK-NEXT:    llvm.sext
// CHECK-NEXT:    %[[CTAIDX:.*]] = llvm.mlir.constant(6 : i32) : i32
// CHECK-NEXT:    llvm.call @nvfp4EmuSreg(%[[THREAD]], %[[CTAIDX]]) : (!llvm.ptr, i32) -> i32
// CHECK:         llvm.lshr %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    llvm.sub
// CHECK-NEXT:    %[[BITS:.*]] = llvm.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:    %[[NOVALID:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    %[[BFLY:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[SHFL:.*]] = llvm.call @nvfp4EmuShflSync(%[[THREAD]], %[[BFLY]], %{{.*}}, %[[BITS]], %{{.*}}, %{{.*}}, %[[NOVALID]])
// CHECK-NEXT:    llvm.bitcast %[[SHFL]] : i32 to f32
// Every global and shared access is checked first: the store of the warp's
// maximum to shared memory (4 bytes, a store (1), shared (3)), its site
// number and the location of the op it lowers.
// CHECK:         %[[BYTES:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT:    %[[STORE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[SHARED:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[SITE:.*]] = llvm.mlir.constant({{[0-9]+}} : i32) : i32
// CHECK-NEXT:    %[[LOCATION:.*]] = llvm.mlir.addressof @[[LOCATIONNAME:__nvfp4_emu_location_[0-9]+]] : !llvm.ptr
// CHECK-NEXT:    llvm.call @nvfp4EmuCheckAccess(%[[THREAD]], %[[ADDRESS:.*]], %[[BYTES]], %[[STORE]], %[[SHARED]], %[[SITE]], %[[LOCATION]])
// CHECK-NEXT:    llvm.store %{{.*}}, %[[ADDRESS]] : f32, !llvm.ptr
// CHECK:         llvm.call @nvfp4EmuBarrier0(%[[THREAD]]) : (!llvm.ptr) -> ()
// CHECK-NOT:     nvvm.
// CHECK:       llvm.func @nvfp4EmuShared(!llvm.ptr, i64) -> !llvm.ptr
// The entry: argument i is *params[i], with the kernel's type.
// CHECK-LABEL: llvm.func @__nvfp4_emu_nvfp4_kernels_nvfp4_amax_64x256_bf16_entry(
// CHECK-SAME:      %[[T:.*]]: !llvm.ptr, %[[PARAMS:.*]]: !llvm.ptr)
// CHECK:         %[[P0:.*]] = llvm.getelementptr %[[PARAMS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[S0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[A0:.*]] = llvm.load %[[S0]] : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[P2:.*]] = llvm.getelementptr %[[PARAMS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[S2:.*]] = llvm.load %[[P2]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[A2:.*]] = llvm.load %[[S2]] : !llvm.ptr -> i64
// CHECK:         llvm.call @__nvfp4_emu_nvfp4_kernels_nvfp4_amax_64x256_bf16(%[[T]], %[[A0]], %{{.*}}, %[[A2]],
// CHECK-NEXT:    llvm.return

// The launch: each operand stored to a slot in the function's entry block,
// the slots' addresses in a pointer array, then one nvfp4EmuLaunch with the
// entry, the kernel's name, grid (8, 1, 1), CTA (128, 1, 1), cluster
// (1, 1, 1), 16 bytes of static shared memory (the warp maxima), no dynamic
// shared memory and the stream. The binary is gone.
// LAUNCH-NOT:   gpu.binary
// LAUNCH:       llvm.mlir.global internal constant @__nvfp4_emu_nvfp4_kernels_nvfp4_amax_64x256_bf16_name("nvfp4_amax_64x256_bf16\00")
// LAUNCH-LABEL: llvm.func @amax(
// LAUNCH:         %[[NPARAMS:.*]] = llvm.mlir.constant(12 : i32) : i32
// LAUNCH-NEXT:    %[[PARAMS:.*]] = llvm.alloca %[[NPARAMS]] x !llvm.ptr : (i32) -> !llvm.ptr
// LAUNCH-NEXT:    %[[SLOT0:.*]] = llvm.alloca %{{.*}} x !llvm.ptr : (i32) -> !llvm.ptr
// LAUNCH:         llvm.store %[[ARG0:.*]], %[[SLOT0]] : !llvm.ptr, !llvm.ptr
// LAUNCH-NEXT:    %[[ADDR0:.*]] = llvm.getelementptr %[[PARAMS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// LAUNCH-NEXT:    llvm.store %[[SLOT0]], %[[ADDR0]] : !llvm.ptr, !llvm.ptr
// LAUNCH:         %[[ENTRY:.*]] = llvm.mlir.addressof @__nvfp4_emu_nvfp4_kernels_nvfp4_amax_64x256_bf16_entry : !llvm.ptr
// LAUNCH-NEXT:    %[[NAMEG:.*]] = llvm.mlir.addressof @__nvfp4_emu_nvfp4_kernels_nvfp4_amax_64x256_bf16_name : !llvm.ptr
// LAUNCH-NEXT:    %[[NAME:.*]] = llvm.getelementptr %[[NAMEG]][0, 0]
// LAUNCH:         %[[STATIC:.*]] = llvm.mlir.constant(16 : i64) : i64
// LAUNCH:         llvm.call @nvfp4EmuLaunch(%[[ENTRY]], %[[NAME]], %[[GX:.*]], %[[ONE:.*]], %[[ONE]], %[[BX:.*]], %[[ONE]], %[[ONE]], %{{.*}}, %{{.*}}, %{{.*}}, %[[STATIC]], %{{.*}}, %{{.*}}, %[[PARAMS]])
// LAUNCH-NOT:     gpu.launch_func
func.func @amax(%x: tensor<64x256xbf16>) -> f32 {
  %a = nvfp4.amax %x : tensor<64x256xbf16>
  return %a : f32
}
