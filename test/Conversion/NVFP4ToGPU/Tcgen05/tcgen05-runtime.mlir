// The host side of the tcgen05 matmul without a GPU.
//
// nvfp4-to-gpu-executable: the TMA tensor maps are encoded from the device
// copies of the packed operands, after the copies and before the launch,
// into host stack slots, and passed by value right after their buffers:
// nothing to give back after the launch.
// RUN: nvfp4-opt %s --nvfp4-to-gpu-executable="target=sm_100a" | FileCheck %s
//
// libnvfp4_cuda_runtime with the toolkit's stub libcuda: every symbol the
// host code calls resolves (the first driver call, the module load, fails
// cleanly); the tensor-map entry point reports a broken cuTensorMapEncodeTiled
// rule by name before any driver call; valid parameters and the SM count
// reach the driver.
// RUN: %if nvfp4-cuda-runtime && cuda-stub %{ rm -rf %t.dir && mkdir -p %t.dir %}
// RUN: %if nvfp4-cuda-runtime && cuda-stub %{ ln -s %cuda_stub_lib %t.dir/libcuda.so.1 %}
// RUN: %if nvfp4-cuda-runtime && cuda-stub %{ nvfp4-opt %s --nvfp4-to-gpu-executable="target=sm_100a" -o %t.gpu.mlir %}
// RUN: %if nvfp4-cuda-runtime && cuda-stub %{ env LD_LIBRARY_PATH=%t.dir not %mlir_runner %t.gpu.mlir -e main -entry-point-result=void -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils 2>&1 | FileCheck %s --check-prefix=LINK %}
// RUN: %if nvfp4-cuda-runtime && cuda-stub %{ nvfp4-opt %s --nvfp4-to-cpu -o %t.cpu.mlir %}
// RUN: %if nvfp4-cuda-runtime && cuda-stub %{ env LD_LIBRARY_PATH=%t.dir not %mlir_runner %t.cpu.mlir -e misaligned_address -entry-point-result=void -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib 2>&1 | FileCheck %s --check-prefix=ALIGN %}
// RUN: %if nvfp4-cuda-runtime && cuda-stub %{ env LD_LIBRARY_PATH=%t.dir not %mlir_runner %t.cpu.mlir -e box_wider_than_swizzle -entry-point-result=void -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib 2>&1 | FileCheck %s --check-prefix=BOX %}
// RUN: %if nvfp4-cuda-runtime && cuda-stub %{ env LD_LIBRARY_PATH=%t.dir not %mlir_runner %t.cpu.mlir -e valid_map -entry-point-result=void -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib 2>&1 | FileCheck %s --check-prefix=VALID %}
// RUN: %if nvfp4-cuda-runtime && cuda-stub %{ env LD_LIBRARY_PATH=%t.dir not %mlir_runner %t.cpu.mlir -e sm_count -entry-point-result=void -shared-libs=%nvfp4_cuda_runtime_lib,%mlir_c_runner_utils,%nvfp4_runtime_lib,%nvfp4_cpu_runtime_lib 2>&1 | FileCheck %s --check-prefix=SMS %}

// CHECK-LABEL: llvm.func @main()
// CHECK:         %[[BSLOT:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// CHECK:         %[[ASLOT:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 64 : i64}
// The device copies: A codes (128 x 256 / 2 bytes), the scales (A and B are
// one value, whose scales are one host buffer: one device copy), B codes
// (packed apart), the result.
// CHECK:         %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// CHECK:         %[[ADEV:.*]] = llvm.call @mgpuMemAlloc
// CHECK:         llvm.call @mgpuMemcpy(%[[ADEV]],
// CHECK:         %[[SDEV:.*]] = llvm.call @mgpuMemAlloc
// CHECK:         llvm.call @mgpuMemcpy(%[[SDEV]],
// CHECK:         %[[BDEV:.*]] = llvm.call @mgpuMemAlloc
// CHECK:         llvm.call @mgpuMemcpy(%[[BDEV]],
// CHECK:         llvm.call @mgpuMemAlloc
// CHECK-NOT:     llvm.call @mgpuMemAlloc
// CHECK:         %[[AINT:.*]] = llvm.ptrtoint %[[ADEV]] : !llvm.ptr to i64
// CHECK:         %[[AADDR:.*]] = llvm.inttoptr %[[AINT]] : i64 to !llvm.ptr
// The copies have completed (gpu-async-region waits before a host call).
// CHECK:         llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%[[ASLOT]], %[[AADDR]],
// CHECK-NEXT:    %[[AMAP:.*]] = llvm.load %[[ASLOT]] {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
// CHECK:         %[[BINT:.*]] = llvm.ptrtoint %[[BDEV]] : !llvm.ptr to i64
// CHECK:         %[[BADDR:.*]] = llvm.inttoptr %[[BINT]] : i64 to !llvm.ptr
// CHECK:         llvm.call @nvfp4CudaTensorMapEncode2D(%[[BSLOT]], %[[BADDR]],
// CHECK-NEXT:    %[[BMAP:.*]] = llvm.load %[[BSLOT]] {alignment = 64 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @nvfp4_kernels::@nvfp4_tcgen05_matmul_m128n128k256_t128_1x16_1x16_f32
// CHECK-SAME:      args(%[[ADEV]] : !llvm.ptr, %[[ADEV]] : !llvm.ptr, {{(%[^ ]+ : i64, )+}}%[[AMAP]] : !llvm.array<16 x i64>,
// CHECK-SAME:      %[[SDEV]] : !llvm.ptr, %[[SDEV]] : !llvm.ptr,
// CHECK-SAME:      %[[BDEV]] : !llvm.ptr, %[[BDEV]] : !llvm.ptr, {{(%[^ ]+ : i64, )+}}%[[BMAP]] : !llvm.array<16 x i64>,
// CHECK-SAME:      %[[SDEV]] : !llvm.ptr, %[[SDEV]] : !llvm.ptr,
// CHECK:         llvm.call @mgpuStreamSynchronize
// CHECK-NOT:     llvm.call @nvfp4CudaTensorMap
// CHECK:         llvm.return

// LINK: nvfp4-cuda-runtime: mgpuModuleLoadJIT: cuInit(0) failed: CUDA_ERROR_STUB_LIBRARY
// LINK-NOT: Symbols not found
// ALIGN: nvfp4-cuda-runtime: nvfp4CudaTensorMapEncode2D: global address not 16-byte aligned (address 0x1008, 256 x 512 bytes, row stride 512, box 128 x 128, swizzle 3)
// BOX: nvfp4-cuda-runtime: nvfp4CudaTensorMapEncode2D: inner box extent larger than the swizzle span (address 0x1000, 256 x 512 bytes, row stride 512, box 128 x 256, swizzle 3)
// VALID: nvfp4-cuda-runtime: nvfp4CudaTensorMapEncode2D: cuInit(0) failed: CUDA_ERROR_STUB_LIBRARY
// SMS: nvfp4-cuda-runtime: nvfp4CudaMultiprocessorCount: cuInit(0) failed: CUDA_ERROR_STUB_LIBRARY

llvm.func @nvfp4CudaTensorMapEncode2D(!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32)
llvm.func @nvfp4CudaMultiprocessorCount() -> i32

func.func @main() {
  %codes = arith.constant dense<2> : tensor<128x256xi4>
  %d = arith.bitcast %codes : tensor<128x256xi4> to tensor<128x256xf4E2M1FN>
  %scales = arith.constant dense<56> : tensor<128x16xi8>
  %s = arith.bitcast %scales : tensor<128x16xi8> to tensor<128x16xf8E4M3FN>
  %g = arith.constant 1.0 : f32
  %qa = nvfp4.assemble %d, %s, %g : tensor<128x256xf4E2M1FN>, tensor<128x16xf8E4M3FN> -> !nvfp4.tensor<128x256, 1x16>
  %y = nvfp4.matmul %qa, %qa : !nvfp4.tensor<128x256, 1x16>, !nvfp4.tensor<128x256, 1x16> -> tensor<128x128xf32>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %y[%c0, %c0] : tensor<128x128xf32>
  vector.print %e : f32
  return
}

/// Calls nvfp4CudaTensorMapEncode2D for a 256 x 512-byte tensor at
/// `address` with boxes of `boxRows` x `boxBytes` and the 128-byte swizzle.
func.func @create(%address: i64, %boxBytes: i32, %boxRows: i32) {
  %one = llvm.mlir.constant(1 : i32) : i32
  %slot = llvm.alloca %one x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
  %ptr = llvm.inttoptr %address : i64 to !llvm.ptr
  %inner = arith.constant 512 : i64
  %rows = arith.constant 256 : i64
  %swizzle = arith.constant 3 : i32
  llvm.call @nvfp4CudaTensorMapEncode2D(%slot, %ptr, %inner, %rows, %inner, %boxBytes, %boxRows, %swizzle) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i32, i32, i32) -> ()
  return
}

func.func @misaligned_address() {
  %address = arith.constant 4104 : i64
  %c128 = arith.constant 128 : i32
  call @create(%address, %c128, %c128) : (i64, i32, i32) -> ()
  return
}

func.func @box_wider_than_swizzle() {
  %address = arith.constant 4096 : i64
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  call @create(%address, %c256, %c128) : (i64, i32, i32) -> ()
  return
}

func.func @valid_map() {
  %address = arith.constant 4096 : i64
  %c128 = arith.constant 128 : i32
  call @create(%address, %c128, %c128) : (i64, i32, i32) -> ()
  return
}

func.func @sm_count() {
  %n = llvm.call @nvfp4CudaMultiprocessorCount() : () -> i32
  return
}
