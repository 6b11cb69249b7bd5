// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_90a" | FileCheck %s
// RUN: nvfp4-opt %s --pass-pipeline='builtin.module(convert-nvfp4-to-gpu{target=sm_90a},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts),nvvm-attach-target{chip=sm_90a features=+ptx80},gpu-module-to-binary{format=isa})' \
// RUN:   | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_90a.ptx
// RUN: FileCheck %s --input-file=%t.sm_90a.ptx --check-prefix=PTX
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.sm_90a.ptx -o %t.sm_90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// sm_90a has no FP4 MMA: the kernel keeps the host side, the CTA tile, the
// staging and the epilogue of the sm_120a kernel, dequantizes each staged
// operand to bf16 in registers and issues 2 x 4 x 8 bf16 m16n8k16 MMAs per
// warp and 128-wide K step (one per 16-wide scale block).

// CHECK-LABEL: func.func @matmul_bf16_acc(
// CHECK:         gpu.launch_func @nvfp4_kernels::@nvfp4_matmul_m64n128k128_16x16_1x16_bf16_acc

// CHECK:       gpu.func @nvfp4_matmul_m64n128k128_16x16_1x16_bf16_acc(
// CHECK-NOT:       workgroup
// CHECK-DAG:       %[[TWICE:.*]] = arith.constant -932957680 : i32
// CHECK-COUNT-3:   nvvm.cp.async.commit.group
// CHECK:           scf.for
// CHECK-NOT:         nvvm
// CHECK:             nvvm.cp.async.wait.group 2
// CHECK-NEXT:        gpu.barrier
// CHECK:             nvvm.cp.async.commit.group
// Scale decoding: E4M3 exponent, significand, a power of two from its bits.
// CHECK:             arith.maxui %{{.*}} : i32
// CHECK:             arith.bitcast %{{.*}} : i32 to f32
// CHECK:             arith.uitofp %{{.*}} : i32 to f32
// E2M1 decoding through the packed table of twice the magnitudes.
// CHECK:             arith.shrui %[[TWICE]], %{{.*}} : i32
// CHECK:             arith.mulf
// CHECK-NOT:         nvvm.mma.block_scale
// CHECK-COUNT-64:    nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT:         nvvm.mma
// CHECK-NOT:         gpu.barrier
// CHECK:             scf.yield
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:           gpu.return

// No FMA contraction of the dequantization, and no FP4 instruction.
// PTX:         .target sm_90a
// PTX-LABEL:   .visible .entry nvfp4_matmul_m64n128k128_16x16_1x16_bf16_acc(
// PTX:         cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX:         cp.async.ca.shared.global [{{.*}}], [{{.*}}], 8;
// PTX:         cp.async.commit_group;
// PTX:         cp.async.wait_group 2;
// PTX-NEXT:    bar.sync 0;
// PTX:         mul.rn.f32
// PTX-COUNT-64: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-NOT:     mma.sync
// PTX:         cvt.rn.bf16x2.f32
// PTX:         st.global.b32
// PTX:         ret;
// PTX-NOT:     e2m1
// PTX-NOT:     block_scale

// PTXAS:       Compiling entry function 'nvfp4_matmul_m64n128k128_16x16_1x16_bf16_acc'
// PTXAS:       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT:   {{[1-9][0-9]* bytes spill}}

func.func @matmul_bf16_acc(%a: !nvfp4.tensor<64x128, 16x16>,
                           %b: !nvfp4.tensor<128x128, 1x16>,
                           %acc: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %c = nvfp4.matmul %a, %b acc(%acc : tensor<64x128xbf16>)
         : !nvfp4.tensor<64x128, 16x16>, !nvfp4.tensor<128x128, 1x16>
         -> tensor<64x128xbf16>
  return %c : tensor<64x128xbf16>
}
