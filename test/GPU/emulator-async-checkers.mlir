// The GPU emulator's checkers on deliberately broken kernels (hand-written
// NVVM): each report names the kernel, the CTA or thread and the operation's
// location, and the program exits with status 1. One kernel per checker:
//
//   over: mbarrier over-arrival (a second arrival on a phase that waits
//       only for transaction bytes);
//   parity: waiting with the wrong parity: the deadlock report shows the
//       barrier's phase, pending arrivals and tx-count, and what the
//       thread waits on;
//   expect: an expect-tx byte count smaller than the copies' bytes (the
//       phase completes without the second copy);
//   early: a shared load of bytes a bulk copy in flight writes (no wait
//       on its mbarrier);
//   fence: tcgen05.cp reading shared stores that no fence.proxy.async
//       ordered;
//   inflight: tcgen05.ld of columns a tcgen05.cp in flight writes (no wait
//       on a commit);
//   noalloc: tensor memory used without tcgen05.alloc;
//   nodealloc: a CTA that exits with tensor memory allocated;
//   scaleid: a kind::mxf4.block32 MMA (scale_vec::2X) whose instruction
//       descriptor selects scale byte 1 of A (2X allows 0 or 2);
//
// and the correct protocol (fence, copy, commit, wait, load, dealloc),
// whose load returns the copied words (ok).
//
// RUN: nvfp4-opt %s --nvfp4-to-gpu-emulation="target=sm_100a" -o %t.mlir
// RUN: not %mlir_runner %t.mlir -e run_over_arrival -entry-point-result=void -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=OVER
// RUN: not %mlir_runner %t.mlir -e run_wrong_parity -entry-point-result=void -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=PARITY
// RUN: not %mlir_runner %t.mlir -e run_small_expect_tx -entry-point-result=void -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=EXPECT
// RUN: not %mlir_runner %t.mlir -e run_read_before_wait -entry-point-result=void -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=EARLY
// RUN: not %mlir_runner %t.mlir -e run_missing_fence -entry-point-result=void -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=FENCE
// RUN: not %mlir_runner %t.mlir -e run_load_before_commit -entry-point-result=void -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=INFLIGHT
// RUN: not %mlir_runner %t.mlir -e run_unallocated -entry-point-result=void -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=NOALLOC
// RUN: not %mlir_runner %t.mlir -e run_no_dealloc -entry-point-result=void -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=NODEALLOC
// RUN: not %mlir_runner %t.mlir -e run_bad_scale_id -entry-point-result=void -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=SCALEID
// RUN: %mlir_runner %t.mlir -e run_copy_commit_wait -entry-point-result=void -shared-libs=%nvfp4_gpu_emulator_lib,%mlir_c_runner_utils,%mlir_runner_utils 2>&1 | FileCheck %s --check-prefix=OK

// OVER: nvfp4-gpu-emulator: kernel over_arrival: mbarrier over-arrival: thread 0 of CTA rank 0 arrives on the mbarrier at shared address 0x400 of CTA rank 0, whose phase 0 has no pending arrival left (expected 1; tx-count 16)

// PARITY:      nvfp4-gpu-emulator: deadlock in kernel wrong_parity, cluster of CTA (0, 0, 0) (1 CTAs): no thread can run
// PARITY-NEXT:   CTA (0, 0, 0), rank 0: bar.sync 0: 0 of 1 live threads arrived
// PARITY-NEXT:     mbarrier at shared 0x400: phase 1 (parity 1), pending arrivals 1 of 1, tx-count 0
// PARITY-NEXT:     warp 0: lanes 0..0: mbarrier.try_wait (CTA rank 0, shared 0x400, parity 1);

// EXPECT: nvfp4-gpu-emulator: kernel small_expect_tx: a bulk copy of 16 bytes issued in phase 0 of the mbarrier at shared address 0x400 of CTA rank 0 completes in phase 1: the phase completed without its bytes (expect-tx count too small)

// EARLY: nvfp4-gpu-emulator: load of shared memory that a TMA load or bulk copy in flight writes (no wait on its mbarrier before the access): byte 0 of the 4-byte access at shared address 0x800 in kernel read_before_wait, CTA (0, 0, 0), thread (0, 0, 0), at {{.*}}emulator-async-checkers.mlir:{{[0-9]+}}:{{[0-9]+}}

// FENCE: nvfp4-gpu-emulator: kernel missing_fence: tcgen05.cp (async proxy) reads shared address 0x800 of CTA rank 0, stored by thread 0 without a fence.proxy.async between the store and the read

// INFLIGHT: nvfp4-gpu-emulator: kernel load_before_commit: tcgen05.ld of tensor-memory columns [0, 16) by thread 0 of CTA (0, 0, 0) while the tcgen05.cp issued at {{.*}}emulator-async-checkers.mlir:{{[0-9]+}}:{{[0-9]+}}, which writes them, is in flight (no wait on the mbarrier of a commit after it), at {{.*}}emulator-async-checkers.mlir:{{[0-9]+}}:{{[0-9]+}}

// NOALLOC: nvfp4-gpu-emulator: kernel unallocated: tcgen05.ld uses tensor-memory columns [0, 16) of CTA (0, 0, 0), which are not allocated (tcgen05.alloc), at {{.*}}emulator-async-checkers.mlir:{{[0-9]+}}:{{[0-9]+}}

// NODEALLOC: nvfp4-gpu-emulator: kernel no_dealloc: CTA (0, 0, 0) exited with 32 tensor-memory columns allocated at column 0 (PTX ISA: tcgen05.dealloc them before the CTA exits)

// SCALEID: nvfp4-gpu-emulator: kernel bad_scale_id: tcgen05.mma.cta_group::1.kind::mxf4.block32 with instruction descriptor 0x28c00480 (M 128, N 256, formats 1/1, sparse 0, negate 0, transpose 0, scale format 1, scale ids 1/0): only dense K-major operands of the kind's formats {{.*}} (4X: 0, 2X: 0 or 2, 1X: 0..3), M = 128 and a legal N are modelled, at {{.*}}emulator-async-checkers.mlir:{{[0-9]+}}:{{[0-9]+}}

// OK: [0,  1,  2,  3]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global internal @bar() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<2 x i64>
    llvm.mlir.global internal @buf() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<1024 x i8>
    llvm.mlir.global internal @slot() {addr_space = 3 : i32, alignment = 4 : i64} : i32


    llvm.func @over_arrival() attributes {gpu.kernel, nvvm.kernel} {
      %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
      %c1 = llvm.mlir.constant(1 : i32) : i32
      %c16 = llvm.mlir.constant(16 : i32) : i32
      nvvm.mbarrier.init %b, %c1 : !llvm.ptr<3>, i32
      nvvm.mbarrier.expect_tx %b, %c16 : !llvm.ptr<3>, i32
      nvvm.mbarrier.arrive %b : !llvm.ptr<3>
      nvvm.mbarrier.arrive %b : !llvm.ptr<3>
      llvm.return
    }

    llvm.func @wrong_parity() attributes {gpu.kernel, nvvm.kernel} {
      %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
      %c1 = llvm.mlir.constant(1 : i32) : i32
      %c0 = llvm.mlir.constant(0 : i32) : i32
      nvvm.mbarrier.init %b, %c1 : !llvm.ptr<3>, i32
      nvvm.mbarrier.arrive %b : !llvm.ptr<3>
      llvm.br ^wait
    ^wait:
      %done = nvvm.mbarrier.try_wait %b, %c1 : !llvm.ptr<3>, i32 -> i1
      llvm.cond_br %done, ^exit, ^wait
    ^exit:
      llvm.return
    }

    gpu.func @small_expect_tx(%src: memref<64xi32>) kernel {
      %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
      %s = llvm.mlir.addressof @buf : !llvm.ptr<3>
      %c1 = llvm.mlir.constant(1 : i32) : i32
      %c16 = llvm.mlir.constant(16 : i32) : i32
      %p = memref.extract_aligned_pointer_as_index %src : memref<64xi32> -> index
      %pi = arith.index_cast %p : index to i64
      %g = llvm.inttoptr %pi : i64 to !llvm.ptr<1>
      %g16 = llvm.getelementptr %g[16] : (!llvm.ptr<1>) -> !llvm.ptr<1>, i8
      %d = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr<7>
      %d16 = llvm.getelementptr %d[16] : (!llvm.ptr<7>) -> !llvm.ptr<7>, i8
      nvvm.mbarrier.init %b, %c1 : !llvm.ptr<3>, i32
      nvvm.mbarrier.expect_tx %b, %c16 : !llvm.ptr<3>, i32
      nvvm.cp.async.bulk.shared.cluster.global %d, %g, %b, %c16 : !llvm.ptr<7>, !llvm.ptr<1>
      nvvm.cp.async.bulk.shared.cluster.global %d16, %g16, %b, %c16 : !llvm.ptr<7>, !llvm.ptr<1>
      nvvm.mbarrier.arrive %b : !llvm.ptr<3>
      %c0 = llvm.mlir.constant(0 : i32) : i32
      %done = nvvm.mbarrier.try_wait %b, %c0 : !llvm.ptr<3>, i32 -> i1
      gpu.return
    }

    gpu.func @read_before_wait(%src: memref<64xi32>, %dst: memref<64xi32>) kernel {
      %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
      %s = llvm.mlir.addressof @buf : !llvm.ptr<3>
      %c1 = llvm.mlir.constant(1 : i32) : i32
      %c16 = llvm.mlir.constant(16 : i32) : i32
      %p = memref.extract_aligned_pointer_as_index %src : memref<64xi32> -> index
      %pi = arith.index_cast %p : index to i64
      %g = llvm.inttoptr %pi : i64 to !llvm.ptr<1>
      %d = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr<7>
      nvvm.mbarrier.init %b, %c1 : !llvm.ptr<3>, i32
      nvvm.mbarrier.arrive.expect_tx %b, %c16 : !llvm.ptr<3>, i32
      nvvm.cp.async.bulk.shared.cluster.global %d, %g, %b, %c16 : !llvm.ptr<7>, !llvm.ptr<1>
      %v = llvm.load %s : !llvm.ptr<3> -> i32
      %i0 = arith.constant 0 : index
      memref.store %v, %dst[%i0] : memref<64xi32>
      gpu.return
    }

    // Thread 0 allocates 32 columns, fills 512 bytes of shared memory and
    // copies them to tensor memory (fenced or not), then loads column 0
    // (before or after the copy executed).
    func.func @copy_then_load(%fence: i1) -> vector<16xi32> {
      %slot = llvm.mlir.addressof @slot : !llvm.ptr<3>
      %s = llvm.mlir.addressof @buf : !llvm.ptr<3>
      %c32 = llvm.mlir.constant(32 : i32) : i32
      nvvm.tcgen05.alloc %slot, %c32 : !llvm.ptr<3>, i32
      %t = llvm.load %slot : !llvm.ptr<3> -> i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      scf.for %i = %c0 to %c128 step %c1 {
        %ii = arith.index_cast %i : index to i32
        %p = llvm.getelementptr %s[%ii] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
        llvm.store %ii, %p : i32, !llvm.ptr<3>
      }
      scf.if %fence {
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      }
      %a = llvm.ptrtoint %s : !llvm.ptr<3> to i32
      %c4 = llvm.mlir.constant(4 : i32) : i32
      %m14 = llvm.mlir.constant(16383 : i32) : i32
      %a4 = llvm.lshr %a, %c4 : i32
      %a14 = llvm.and %a4, %m14 : i32
      %a64 = llvm.zext %a14 : i32 to i64
      %fixed = llvm.mlir.constant(0x0000400800010000 : i64) : i64
      %desc = llvm.or %a64, %fixed : i64
      %tp = llvm.inttoptr %t : i32 to !llvm.ptr<6>
      nvvm.tcgen05.cp %tp, %desc {shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>}
      %v = nvvm.tcgen05.ld %tp {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
      return %v : vector<16xi32>
    }
    gpu.func @missing_fence() kernel {
      %false = arith.constant false
      %v = func.call @copy_then_load(%false) : (i1) -> vector<16xi32>
      gpu.return
    }
    gpu.func @load_before_commit() kernel {
      %true = arith.constant true
      %v = func.call @copy_then_load(%true) : (i1) -> vector<16xi32>
      gpu.return
    }
    gpu.func @unallocated() kernel {
      %c0 = llvm.mlir.constant(0 : i32) : i32
      %tp = llvm.inttoptr %c0 : i32 to !llvm.ptr<6>
      %v = nvvm.tcgen05.ld %tp {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
      gpu.return
    }
    // M 128, N 256, E2M1 x E2M1, UE8M0, A scale id 1 (0x28C00480).
    gpu.func @bad_scale_id() kernel {
      %c0 = llvm.mlir.constant(0 : i32) : i32
      %d0 = llvm.mlir.constant(0 : i64) : i64
      %idesc = llvm.mlir.constant(683672704 : i32) : i32
      %false = llvm.mlir.constant(false) : i1
      %tp = llvm.inttoptr %c0 : i32 to !llvm.ptr<6>
      nvvm.tcgen05.mma.block_scale %tp, %d0, %d0, %idesc, %false, %tp, %tp {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
      gpu.return
    }
    gpu.func @no_dealloc() kernel {
      %slot = llvm.mlir.addressof @slot : !llvm.ptr<3>
      %c32 = llvm.mlir.constant(32 : i32) : i32
      nvvm.tcgen05.alloc %slot, %c32 : !llvm.ptr<3>, i32
      gpu.return
    }

    // The protocol done right: stores, proxy fence, copy, commit, wait on
    // the commit's barrier, load, dealloc.
    gpu.func @copy_commit_wait(%out: memref<4xi32>) kernel {
      %slot = llvm.mlir.addressof @slot : !llvm.ptr<3>
      %b = llvm.mlir.addressof @bar : !llvm.ptr<3>
      %s = llvm.mlir.addressof @buf : !llvm.ptr<3>
      %c1i = llvm.mlir.constant(1 : i32) : i32
      %c32 = llvm.mlir.constant(32 : i32) : i32
      nvvm.mbarrier.init %b, %c1i : !llvm.ptr<3>, i32
      nvvm.tcgen05.alloc %slot, %c32 : !llvm.ptr<3>, i32
      %t = llvm.load %slot : !llvm.ptr<3> -> i32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      scf.for %i = %c0 to %c128 step %c1 {
        %ii = arith.index_cast %i : index to i32
        %p = llvm.getelementptr %s[%ii] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
        llvm.store %ii, %p : i32, !llvm.ptr<3>
      }
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      %a = llvm.ptrtoint %s : !llvm.ptr<3> to i32
      %c4 = llvm.mlir.constant(4 : i32) : i32
      %m14 = llvm.mlir.constant(16383 : i32) : i32
      %a4 = llvm.lshr %a, %c4 : i32
      %a14 = llvm.and %a4, %m14 : i32
      %a64 = llvm.zext %a14 : i32 to i64
      %fixed = llvm.mlir.constant(0x0000400800010000 : i64) : i64
      %desc = llvm.or %a64, %fixed : i64
      %tp = llvm.inttoptr %t : i32 to !llvm.ptr<6>
      nvvm.tcgen05.cp %tp, %desc {shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>}
      nvvm.tcgen05.commit %b : !llvm.ptr<3>
      %c0i = llvm.mlir.constant(0 : i32) : i32
      llvm.br ^wait
    ^wait:
      %done = nvvm.mbarrier.try_wait %b, %c0i : !llvm.ptr<3>, i32 -> i1
      llvm.cond_br %done, ^loaded, ^wait
    ^loaded:
      %v = nvvm.tcgen05.ld %tp {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<4xi32>
      nvvm.tcgen05.wait <load>
      %ov = memref.extract_aligned_pointer_as_index %out : memref<4xi32> -> index
      %oi = arith.index_cast %ov : index to i64
      %o = llvm.inttoptr %oi : i64 to !llvm.ptr<1>
      llvm.store %v, %o : vector<4xi32>, !llvm.ptr<1>
      nvvm.tcgen05.dealloc %tp, %c32 : !llvm.ptr<6>, i32
      gpu.return
    }
  }

  func.func @run_over_arrival() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@over_arrival blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  func.func @run_wrong_parity() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@wrong_parity blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }

  func.func @run_small_expect_tx() {
    %m = memref.alloc() : memref<64xi32>
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@small_expect_tx blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<64xi32>)
    return
  }
  func.func @run_read_before_wait() {
    %m = memref.alloc() : memref<64xi32>
    %n = memref.alloc() : memref<64xi32>
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@read_before_wait blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<64xi32>, %n : memref<64xi32>)
    return
  }

  func.func @run_missing_fence() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@missing_fence blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  func.func @run_load_before_commit() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@load_before_commit blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  func.func @run_unallocated() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@unallocated blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  func.func @run_bad_scale_id() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@bad_scale_id blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  func.func @run_no_dealloc() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@no_dealloc blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  func.func private @printMemrefI32(memref<*xi32>)
  func.func @run_copy_commit_wait() {
    %m = memref.alloc() : memref<4xi32>
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@copy_commit_wait blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xi32>)
    %u = memref.cast %m : memref<4xi32> to memref<*xi32>
    call @printMemrefI32(%u) : (memref<*xi32>) -> ()
    return
  }
}
