// nvfp4-emulate-gpu-kernels on the cluster, mbarrier, TMA, bulk-copy, fence
// and tcgen05 operations of the sm_100a kernels (hand-written here, one of
// each): each becomes the runtime call that models it, with its operands in
// place; a shared pointer converted to an integer becomes its PTX shared
// address (nvfp4EmuSharedToInt), an integer converted to a shared pointer
// the pointer it names (nvfp4EmuIntToShared); the .cta_group::2 forms pass
// 1, the others 0; a commit without multicast passes the mask -1; the
// ordering fences and tcgen05.wait disappear (the emulator executes in
// order); tcgen05.ld's values come back through an entry-block slot.
// RUN: nvfp4-opt %s --nvfp4-emulate-gpu-kernels | FileCheck %s

// CHECK-LABEL: llvm.func internal @__nvfp4_emu_k_kern(
// CHECK-SAME:      %[[T:arg0]]: !llvm.ptr, %[[TMAP:arg1]]: !llvm.ptr, %[[SRC:arg2]]: !llvm.ptr, %[[X:arg3]]: i32, %[[Y:arg4]]: i32, %[[IDESC:arg5]]: i32, %[[ADESC:arg6]]: i64, %[[BDESC:arg7]]: i64, %[[EN:arg8]]: i1, %[[MASK:arg9]]: i16)
// CHECK:         %[[SLOT16:.*]] = llvm.alloca %{{.*}} x i32
// CHECK:         %[[S:.*]] = llvm.call @nvfp4EmuShared(%[[T]], %{{.*}})
// CHECK-NEXT:    %[[BAR:.*]] = llvm.getelementptr %[[S]][1024]
// CHECK-NEXT:    %[[A:.*]] = llvm.call @nvfp4EmuSharedToInt(%[[T]], %[[S]]) : (!llvm.ptr, !llvm.ptr) -> i64
// CHECK-NEXT:    llvm.trunc %[[A]] : i64 to i32
// CHECK-NEXT:    %[[COUNT:.*]] = llvm.mlir.constant(32 : i32)
// CHECK-NEXT:    llvm.call @nvfp4EmuMbarrierInit(%[[T]], %[[BAR]], %[[COUNT]])
// CHECK-NOT:     fence
// CHECK-NEXT:    %[[RANKREG:.*]] = llvm.mlir.constant(26 : i32)
// CHECK-NEXT:    %[[RANK:.*]] = llvm.call @nvfp4EmuSreg(%[[T]], %[[RANKREG]])
// CHECK-NEXT:    %[[CIDREG:.*]] = llvm.mlir.constant(14 : i32)
// CHECK-NEXT:    llvm.call @nvfp4EmuSreg(%[[T]], %[[CIDREG]])
// CHECK-NEXT:    %[[REMOTE:.*]] = llvm.call @nvfp4EmuMapa(%[[T]], %[[BAR]], %[[RANK]])
// CHECK-NEXT:    %[[BYTES:.*]] = llvm.mlir.constant(4096 : i32)
// CHECK-NEXT:    llvm.call @nvfp4EmuMbarrierExpectTx(%[[T]], %[[REMOTE]], %[[BYTES]])
// CHECK-NEXT:    %[[RI:.*]] = llvm.call @nvfp4EmuSharedToInt(%[[T]], %[[REMOTE]])
// CHECK-NEXT:    %[[RBAR:.*]] = llvm.call @nvfp4EmuIntToShared(%[[T]], %[[RI]])
// CHECK-NEXT:    %[[PAIR1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT:    %[[L1:.*]] = llvm.mlir.addressof @__nvfp4_emu_location_{{[0-9]+}}
// CHECK-NEXT:    llvm.call @nvfp4EmuTmaLoad2D(%[[T]], %[[S]], %[[TMAP]], %[[RBAR]], %[[X]], %[[Y]], %[[PAIR1]], %[[L1]])
// CHECK-NEXT:    %[[SIZE:.*]] = llvm.mlir.constant(512 : i32)
// CHECK-NEXT:    %[[L2:.*]] = llvm.mlir.addressof
// CHECK-NEXT:    llvm.call @nvfp4EmuBulkCopy(%[[T]], %[[S]], %[[SRC]], %[[SIZE]], %[[BAR]], %[[L2]])
// CHECK-NEXT:    llvm.call @nvfp4EmuMbarrierArrive(%[[T]], %[[REMOTE]])
// CHECK-NEXT:    %[[PARITY:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT:    %[[DONE:.*]] = llvm.call @nvfp4EmuMbarrierTryWaitParity(%[[T]], %[[BAR]], %[[PARITY]]) : (!llvm.ptr, !llvm.ptr, i32) -> i8
// CHECK-NEXT:    llvm.trunc %[[DONE]] : i8 to i1
// CHECK-NEXT:    %[[ALL:.*]] = llvm.mlir.constant(-1 : i32)
// CHECK-NEXT:    %[[E:.*]] = llvm.call @nvfp4EmuElectSync(%[[T]], %[[ALL]])
// CHECK-NEXT:    llvm.trunc %[[E]] : i8 to i1
// CHECK-NEXT:    llvm.call @nvfp4EmuFenceProxyAsync(%[[T]])
// CHECK-NEXT:    llvm.call @nvfp4EmuClusterArrive(%[[T]])
// CHECK-NEXT:    llvm.call @nvfp4EmuClusterWait(%[[T]])
// CHECK-NEXT:    %[[SLOT:.*]] = llvm.getelementptr %[[S]][1040]
// CHECK-NEXT:    %[[COLS:.*]] = llvm.mlir.constant(512 : i32)
// CHECK-NEXT:    %[[P2:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT:    %[[L3:.*]] = llvm.mlir.addressof
// CHECK-NEXT:    llvm.call @nvfp4EmuTcgen05Alloc(%[[T]], %[[SLOT]], %[[COLS]], %[[P2]], %[[L3]])
// CHECK-NEXT:    %[[P3:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT:    %[[L4:.*]] = llvm.mlir.addressof
// CHECK-NEXT:    llvm.call @nvfp4EmuTcgen05Relinquish(%[[T]], %[[P3]], %[[L4]])
// CHECK:         llvm.call @nvfp4EmuCheckAccess(%[[T]], %[[SLOT]],
// CHECK-NEXT:    %[[TADDR:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> i32
// CHECK-NEXT:    %[[TP:.*]] = llvm.inttoptr %[[TADDR]] : i32 to !llvm.ptr
// CHECK-NOT:     fence
// CHECK-NEXT:    %[[P4:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT:    %[[L5:.*]] = llvm.mlir.addressof
// CHECK-NEXT:    llvm.call @nvfp4EmuTcgen05Copy(%[[T]], %[[TP]], %[[ADESC]], %[[P4]], %[[L5]])
// The kind (nvfp4::emulator::Tcgen05MmaKind): 0 kind::mxf4nvf4.block16,
// 1 kind::mxf4.block32, 2 kind::mxf8f6f4.block32.
// CHECK-NEXT:    %[[KIND0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT:    %[[EN8:.*]] = llvm.zext %[[EN]] : i1 to i8
// CHECK-NEXT:    %[[P5:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT:    %[[L6:.*]] = llvm.mlir.addressof
// CHECK-NEXT:    llvm.call @nvfp4EmuTcgen05MmaBlockScaled(%[[T]], %[[KIND0]], %[[TP]], %[[ADESC]], %[[BDESC]], %[[IDESC]], %[[EN8]], %[[TP]], %[[TP]], %[[P5]], %[[L6]])
// CHECK-NEXT:    %[[KIND1:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT:    llvm.zext
// CHECK-NEXT:    llvm.mlir.constant(0 : i32)
// CHECK-NEXT:    llvm.mlir.addressof
// CHECK-NEXT:    llvm.call @nvfp4EmuTcgen05MmaBlockScaled(%[[T]], %[[KIND1]], %[[TP]], %[[ADESC]], %[[BDESC]], %[[IDESC]],
// CHECK-NEXT:    %[[KIND2:.*]] = llvm.mlir.constant(2 : i32)
// CHECK-NEXT:    llvm.zext
// CHECK-NEXT:    llvm.mlir.constant(0 : i32)
// CHECK-NEXT:    llvm.mlir.addressof
// CHECK-NEXT:    llvm.call @nvfp4EmuTcgen05MmaBlockScaled(%[[T]], %[[KIND2]], %[[TP]], %[[ADESC]], %[[BDESC]], %[[IDESC]],
// CHECK-NEXT:    %[[MASK32:.*]] = llvm.zext %[[MASK]] : i16 to i32
// CHECK-NEXT:    %[[P6:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT:    %[[L7:.*]] = llvm.mlir.addressof
// CHECK-NEXT:    llvm.call @nvfp4EmuTcgen05Commit(%[[T]], %[[BAR]], %[[MASK32]], %[[P6]], %[[L7]])
// CHECK-NEXT:    %[[NOMASK:.*]] = llvm.mlir.constant(-1 : i32)
// CHECK-NEXT:    %[[P0:.*]] = llvm.mlir.constant(0 : i32)
// CHECK-NEXT:    %[[L8:.*]] = llvm.mlir.addressof
// CHECK-NEXT:    llvm.call @nvfp4EmuTcgen05Commit(%[[T]], %[[BAR]], %[[NOMASK]], %[[P0]], %[[L8]])
// CHECK-NEXT:    %[[N16:.*]] = llvm.mlir.constant(16 : i32)
// CHECK-NEXT:    %[[L9:.*]] = llvm.mlir.addressof
// CHECK-NEXT:    llvm.call @nvfp4EmuTcgen05Load32x32b(%[[T]], %[[TP]], %[[N16]], %[[SLOT16]], %[[L9]])
// CHECK-NEXT:    llvm.load %[[SLOT16]] {alignment = 4 : i64} : !llvm.ptr -> vector<16xi32>
// CHECK-NOT:     wait
// CHECK-NEXT:    %[[P7:.*]] = llvm.mlir.constant(1 : i32)
// CHECK-NEXT:    %[[L10:.*]] = llvm.mlir.addressof
// CHECK-NEXT:    llvm.call @nvfp4EmuTcgen05Dealloc(%[[T]], %[[TP]], %[[COLS]], %[[P7]], %[[L10]])
// CHECK-NOT:     nvvm.

module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<2048 x i8>
    llvm.func @kern(%tmap: !llvm.ptr, %src: !llvm.ptr<1>, %x: i32, %y: i32, %idesc: i32, %adesc: i64, %bdesc: i64, %en: i1, %mask: i16) attributes {gpu.kernel, nvvm.kernel} {
      %s = llvm.mlir.addressof @smem : !llvm.ptr<3>
      %bar = llvm.getelementptr %s[1024] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
      %a = llvm.ptrtoint %s : !llvm.ptr<3> to i32
      %count = llvm.mlir.constant(32 : i32) : i32
      nvvm.mbarrier.init %bar, %count : !llvm.ptr<3>, i32
      nvvm.fence.mbarrier.init
      %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32
      %cid = nvvm.read.ptx.sreg.clusterid.x : i32
      %remote = nvvm.mapa %bar, %rank : !llvm.ptr<3> -> !llvm.ptr<7>
      %bytes = llvm.mlir.constant(4096 : i32) : i32
      nvvm.mbarrier.expect_tx %remote, %bytes {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>, i32
      %ri = llvm.ptrtoint %remote : !llvm.ptr<7> to i64
      %rbar = llvm.inttoptr %ri : i64 to !llvm.ptr<3>
      %dst = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr<7>
      nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %rbar, box[%x, %y] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
      %size = llvm.mlir.constant(512 : i32) : i32
      nvvm.cp.async.bulk.shared.cluster.global %dst, %src, %bar, %size : !llvm.ptr<7>, !llvm.ptr<1>
      nvvm.mbarrier.arrive %remote {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
      %parity = llvm.mlir.constant(1 : i32) : i32
      %done = nvvm.mbarrier.try_wait %bar, %parity : !llvm.ptr<3>, i32 -> i1
      %e = nvvm.elect.sync -> i1
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.cluster.arrive
      nvvm.cluster.wait
      %slot = llvm.getelementptr %s[1040] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
      %cols = llvm.mlir.constant(512 : i32) : i32
      nvvm.tcgen05.alloc %slot, %cols {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
      nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
      %t = llvm.load %slot : !llvm.ptr<3> -> i32
      %tp = llvm.inttoptr %t : i32 to !llvm.ptr<6>
      nvvm.tcgen05.fence <after>
      nvvm.tcgen05.cp %tp, %adesc {group = #nvvm.cta_group<cta_2>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>}
      nvvm.tcgen05.mma.block_scale %tp, %adesc, %bdesc, %idesc, %en, %tp, %tp {blockScale = #nvvm.tcgen05_mma_block_scale<block16>, ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.block_scale_kind<mxf4nvf4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
      nvvm.tcgen05.mma.block_scale %tp, %adesc, %bdesc, %idesc, %en, %tp, %tp {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
      nvvm.tcgen05.mma.block_scale %tp, %adesc, %bdesc, %idesc, %en, %tp, %tp {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf8f6f4>} : (!llvm.ptr<6>, i64, i64, i32, i1, !llvm.ptr<6>, !llvm.ptr<6>)
      nvvm.tcgen05.commit %bar, multicast_mask = %mask {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
      nvvm.tcgen05.commit %bar : !llvm.ptr<3>
      %v = nvvm.tcgen05.ld %tp {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<16xi32>
      nvvm.tcgen05.wait <load>
      nvvm.tcgen05.dealloc %tp, %cols {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
      llvm.return
    }
  }
}
