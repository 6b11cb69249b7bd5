//===- Passes.td - NVFP4 conversion passes -----------------*- tablegen -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_CONVERSION_PASSES_TD
#define NVFP4_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// NVFP4ToGPU
//===----------------------------------------------------------------------===//

def ConvertNVFP4ToGPU : Pass<"convert-nvfp4-to-gpu", "ModuleOp"> {
  let summary = "Lower nvfp4.matmul to GPU kernels on block-scaled tensor cores";
  let description = [{
    Replaces every `nvfp4.matmul` by a `gpu.launch_func` of a kernel in the
    `gpu.module @nvfp4_kernels` (created on demand; kernels are specialized
    per shape and element type and shared between identical matmuls). The
    host side takes the operands apart with `nvfp4.disassemble`, passes the
    components as buffers (`bufferization.to_buffer`), allocates the result
    with `memref.alloc` and returns it with `bufferization.to_tensor`.

    For `sm_120a` and `sm_121a` the kernel computes a 64x64, 128x64, 64x128,
    128x128, 128x256, 16x128 or 32x128 output tile per CTA (4 or 8 warps;
    chosen from M and N, or forced with `tile`), stages the 128-wide K steps
    of A, B and their E4M3 scales through a 4-stage (128x256: 3-stage)
    `cp.async` pipeline in dynamic shared memory, in a swizzled
    (bank-conflict-free) layout, loads the fragments with `ldmatrix`, and
    issues
    `mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3`
    (`nvvm.mma.block_scale`). For `sm_90a` (no FP4 MMA) the same kernel
    dequantizes the staged operands to bf16 in registers (exactly: E2M1 code
    times E4M3 scale always fits bf16) and issues
    `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` (`nvvm.mma.sync`),
    one per 16-wide scale block. The epilogue multiplies by
    `alpha = (amax_lhs * amax_rhs) * fl(1 / (36 * 448^2))`, adds `acc` and
    stores f32 or bf16.

    For `sm_100a`, `sm_103a` and `sm_110a` the kernel is a 1-CTA tcgen05
    kernel (128 x N x 256 CTA tile, N in {256, 128, 64}, two shared-memory
    stages, accumulator and scales in tensor memory) issuing
    `tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16` (or the
    CTA pair); see docs/tcgen05.md.

    Every kernel takes any M and N (the last tiles are predicated or
    zero-filled) and any K that is a multiple of 16. The tcgen05 kernel's
    TMA loads need K to be a multiple of 32: for other Ks it runs on K
    padded with zero codes and zero scales, which leaves the product
    unchanged. An operand that a quantize or transpose kernel (or an NVFP4
    epilogue) writes is written into K-padded storage; an operand from
    outside is copied on the host with K padded. See docs/tcgen05.md.

    Every `nvfp4.quantize` (lowered before the matmuls) becomes a launch of
    an amax reduction kernel (per-CTA partial maxima; skipped with an
    explicit `amax`) and of a quantize kernel writing the packed E2M1 data,
    the compact E4M3 scales and the tensor amax with the operation order of
    the reference numerics (RN through `cvt.rn.satfinite.e2m1x2.f32` on
    every target but sm_90a, in software there; SR in software, or through
    `cvt.rs.satfinite.e2m1x4.f32` with `hardware-sr` on sm_100a/sm_103a; the
    RHT in software); the
    host reads the amax back and rebuilds the value with
    `nvfp4.assemble`, whose buffers a consuming matmul reads without copies.
    Every `nvfp4.transpose` becomes a launch of the transpose kernel, which
    moves the codes and tile scales of a 16x16-scaled tensor.

    NVFP4 function arguments and results keep their scales in the layout
    their `nvfp4.scale_layout` names; on the tcgen05 targets those without
    it get the MMA's 128x4 atoms where the shape allows
    (`boundary-scale-layout`), which the matmul kernel bulk-copies and the
    quantize kernels write. Other readers and writers get the scales relaid
    out on the host. The pass implements the attributes and drops them
    (docs/formats.md, "Scale layout at function boundaries").

    With `report-fallbacks`, every op whose lowering takes a fallback gets a
    remark saying what was chosen instead of what, and why: the sm_90a
    matmul in bf16, E2M1 rounding in software (sm_90a), stochastic rounding
    in software instead of `cvt.rs` (`hardware-sr` off, or a target without
    the instruction), operands copied (or computed twice) with K padded for
    the tcgen05 kernel, and `nvfp4.rescale`, which has no GPU kernel and is
    left for the host. Off by default: the remarks would
    repeat for every such op of a program (docs/hardening.md).

    Example: `nvfp4-opt --convert-nvfp4-to-gpu="target=sm_120a"`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_120a\"",
           "GPU architecture the kernels are generated for: sm_120a, "
           "sm_121a, sm_90a, sm_100a, sm_103a or sm_110a">,
    Option<"tile", "tile", "std::string", /*default=*/"\"\"",
           "CTA tile MxN of the sm_120a / sm_121a / sm_90a matmul kernel: "
           "64x64, 128x64, 64x128, 128x128, 128x256 (not sm_90a), 16x128 or "
           "32x128; empty: chosen "
           "per matmul shape (docs/gpu.md)">,
    Option<"hardwareSR", "hardware-sr", "bool", /*default=*/"false",
           "Stochastic rounding of nvfp4.quantize by cvt.rs.satfinite."
           "e2m1x4.f32 (sm_100a / sm_103a only; other targets reject it). "
           "Its random-bit assignment is assumed from the PTX ISA text and "
           "unverified on hardware (docs/gpu.md); off: software encoder">,
    Option<"reportFallbacks", "report-fallbacks", "bool", /*default=*/"false",
           "Emit a remark at every op lowered through a fallback (a "
           "software path instead of a hardware instruction, bf16 instead "
           "of FP4 tensor cores, the host instead of a kernel) saying what "
           "and why">,
    Option<"tcgen05CtaPair", "tcgen05-cta-pair", "std::string",
           /*default=*/"\"auto\"",
           "Matmul kernel variant on sm_100a / sm_103a / sm_110a: auto (a "
           "CTA pair with tcgen05.mma.cta_group::2 and 256 x N tiles when M "
           "is a multiple of 256 and there are at least 74 such tiles; the "
           "1-CTA kernel otherwise), off (always the 1-CTA kernel) or on "
           "(always the CTA pair; M must be a multiple of 256). "
           "docs/tcgen05.md, \"CTA pairs\"">,
    Option<"boundaryScaleLayout", "boundary-scale-layout", "std::string",
           /*default=*/"\"atoms\"",
           "Scale layout of the NVFP4 arguments and results of functions "
           "that have no nvfp4.scale_layout attribute, on sm_100a / sm_103a "
           "/ sm_110a: atoms (the 128x4 atoms the tcgen05 matmul kernel "
           "loads by bulk copies, wherever the shape allows) or row-major "
           "(the dialect's layout). Other targets keep row-major. "
           "docs/formats.md, \"Scale layout at function boundaries\"">,
  ];
}

//===----------------------------------------------------------------------===//
// NVFP4ToReference
//===----------------------------------------------------------------------===//

def GridConstantKernelParams
    : Pass<"nvfp4-grid-constant-kernel-params", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Pass aggregate kernel arguments whose address a kernel takes "
                "as byval grid-constant parameters";
  let description = [{
    A kernel that needs the address of an aggregate argument (an `!llvm.array`
    or `!llvm.struct` passed by value), for example a TMA tensor map that
    `cp.async.bulk.tensor` and `prefetch.tensormap` read through a pointer,
    stores it to a stack slot and takes the slot's address: the lowering of
    `gpu.func` has no other way to express it. The slot is local memory,
    which the TMA unit cannot read, and a copy.

    For every argument of an `nvvm.kernel` `llvm.func` in the module whose
    only use is a store into an `llvm.alloca` of one element of its type, in
    the entry block, when the slot is otherwise only read (by `llvm.load`,
    `prefetch.tensormap` or a TMA operation taking it as its tensor map),
    this pass makes the argument a pointer with
    `llvm.byval` (the aggregate type), `llvm.align` (the slot's alignment)
    and `nvvm.grid_constant`, and replaces the slot by it. The NVPTX back
    end then declares the parameter as `.param .align A .b8 p[size]` and
    takes its generic address with `cvta.param`: the kernel reads the
    parameter itself, as CUDA's `__grid_constant__` parameters. The launch
    is unchanged: it passes the aggregate's bytes. A `nvvm.prefetch
    tensormap` of such a parameter gets `in_param_space`
    (`prefetch.param.tensormap`). Arguments whose slot is written, or used
    otherwise, are left alone.

    Example:

    ```mlir
    // Before (after convert-gpu-to-nvvm):
    llvm.func @k(%map: !llvm.array<16 x i64>) attributes {nvvm.kernel} {
      %c1 = llvm.mlir.constant(1 : i32) : i32
      %slot = llvm.alloca %c1 x !llvm.array<16 x i64> {alignment = 64 : i64} : (i32) -> !llvm.ptr
      llvm.store %map, %slot {alignment = 64 : i64} : !llvm.array<16 x i64>, !llvm.ptr
      nvvm.prefetch tensormap, %slot : !llvm.ptr
      llvm.return
    }
    // After:
    llvm.func @k(%map: !llvm.ptr {llvm.align = 64 : i64,
                                  llvm.byval = !llvm.array<16 x i64>,
                                  nvvm.grid_constant}) attributes {nvvm.kernel} {
      nvvm.prefetch tensormap in_param_space, %map : !llvm.ptr
      llvm.return
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def KeepKernelScalarsOnDevice
    : Pass<"nvfp4-keep-kernel-scalars-on-device", "ModuleOp"> {
  let summary = "Pass a scalar the host reads back from a kernel's output to "
                "later kernels as that buffer";
  let description = [{
    The host code `convert-nvfp4-to-gpu` writes reads some kernel results
    back as scalars: the tensor amax a quantize kernel or a tcgen05 epilogue
    leaves in a one-element buffer (`memref.load %buf[0]`), which the NVFP4
    value carries as an f32 and the next kernels (the matmul, the quantize
    of a matmul's result) take as a scalar argument. Reading it makes the
    host wait for the kernel that wrote it, once per quantization.

    For every such load on the host, of a `memref<1xT>` (`T` an integer,
    index or float type) allocated in the same block, when everything else
    that uses the buffer (the launch that writes it, a host store that
    initializes it) comes before the load, this pass passes the buffer
    instead of the loaded value to each `gpu.launch_func` in that block (or
    nested in it: a loop body) that takes the value as a kernel operand: the
    launch calls a copy of its kernel, named `<kernel>_byref<i>[_<j>...]`
    after the operands now passed by reference, whose operand is the
    `memref<1xT>` and whose entry block loads the scalar from it first (and
    the launch's `nvfp4.operand_access`, when it has one, says the kernel
    reads it). The buffer's `memref.dealloc` moves after the last such
    launch (or the operation of the block that holds it); the load is erased
    once nothing else uses it (a function result, host arithmetic). Nothing else changes: the kernels see
    the same value, written by the same launch, and no host code reads the
    buffer any more, so the launches queue without a wait in between.

    Example:

    ```mlir
    // Before:
    %amax = memref.alloc() : memref<1xf32>
    gpu.launch_func @k::@quantize ... args(%x : memref<64xf32>, %amax : memref<1xf32>)
    %a = memref.load %amax[%c0] : memref<1xf32>
    memref.dealloc %amax : memref<1xf32>
    gpu.launch_func @k::@matmul ... args(%q : memref<64xi8>, %a : f32)
    // After:
    %amax = memref.alloc() : memref<1xf32>
    gpu.launch_func @k::@quantize ... args(%x : memref<64xf32>, %amax : memref<1xf32>)
    gpu.launch_func @k::@matmul_byref1 ... args(%q : memref<64xi8>, %amax : memref<1xf32>)
    memref.dealloc %amax : memref<1xf32>
    // gpu.func @matmul_byref1(%q: memref<64xi8>, %a_ref: memref<1xf32>) kernel {
    //   %a = memref.load %a_ref[%c0] : memref<1xf32>
    //   ... the body of @matmul, with %a ...
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect"];
}

def StripGPUCompileTimes : Pass<"nvfp4-strip-gpu-compile-times", "ModuleOp"> {
  let summary = "Drop the compile-time measurements gpu-module-to-binary records";
  let description = [{
    Upstream `gpu-module-to-binary` records how long each compilation step
    took in the properties of every `#gpu.object` it creates
    (`LLVMIRToISATimeInMs`, `ISAToBinaryTimeInMs`). Those numbers change from
    run to run, so the IR of two identical compilations differs. This pass
    removes exactly those two entries (an object left without properties
    gets none), making the output of `nvfp4-to-ptx` byte-identical across
    runs. The objects themselves (PTX, cubin) are untouched.

    Example:

    ```mlir
    // Before: #gpu.object<#nvvm.target<chip = "sm_120a">,
    //           properties = {LLVMIRToISATimeInMs = 381 : i64}, "...">
    // After:  #gpu.object<#nvvm.target<chip = "sm_120a">, "...">
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def ConvertNVFP4ToReference : Pass<"convert-nvfp4-to-reference", "ModuleOp"> {
  let summary = "Lower every nvfp4 op to calls of the precompiled CPU kernels "
                "or to inline upstream ops, bit-exact with the reference numerics";
  let description = [{
    Replaces every `!nvfp4.tensor` by its three components (a 1:N type
    conversion): the E2M1 codes as `tensor<...xi8>` (one code per byte, low
    nibble), the compact E4M3 block scales as `tensor<...xi8>` holding the
    E4M3 bits, and the f32 decode scale. Tensors of `f4E2M1FN` and
    `f8E4M3FN` (what `nvfp4.disassemble` returns and `nvfp4.assemble` takes)
    become `tensor<...xi8>` too. Function signatures, calls, returns and
    structured control flow are converted with them.

    With `kernels=library` (the default), quantize, amax, dequantize,
    hadamard, rescale and matmul become calls of the precompiled kernels of
    libnvfp4_cpu_runtime (`nvfp4CpuQuantize`, `nvfp4CpuAmax`,
    `nvfp4CpuDequantize`, `nvfp4CpuHadamard`, `nvfp4CpuMatmul`, declared
    with `llvm.emit_c_interface`): each tensor operand is passed as the
    buffer of the tensor (`bufferization.to_buffer read_only`, cast to an
    unranked memref), each result is a fresh `memref.alloc` the call writes
    and `bufferization.to_tensor restrict writable` turns back into a
    tensor. The IR stays a few ops per nvfp4 op, so compile time grows with
    the number of ops and not with their numerics, and the work runs in the
    reference library's vectorized, multi-threaded kernels (the program
    needs libnvfp4_cpu_runtime at run time, e.g. `mlir-runner
    -shared-libs=`).

    With `kernels=inline`, every op is lowered to upstream dialects only
    (no runtime library), evaluating exactly the f32
    operations of the reference library (`include/nvfp4/Numerics`,
    docs/numerics.md) in the same order: E2M1 and E4M3 conversions are
    integer arithmetic on f32 bit patterns, stochastic rounding draws its
    bits from Philox4x32-10 written in `arith`, the Hadamard transform uses
    the reference butterfly order, and `nvfp4.matmul` accumulates the exact
    per-16-block partial sums in increasing K. The result is bit-identical
    with the reference on every input, including zeros, infinities, NaNs and
    subnormals. Quantization works on 16-element `vector`s.

    With `fake-quant`, `nvfp4.matmul` instead dequantizes both operands to
    f32 and contracts them with a plain `linalg.generic` (summation order of
    an ordinary f32 matmul, not bit-exact with the block-scaled GEMM): the
    quantize-dequantize form that quantization-aware training uses on any
    hardware.

    See docs/cpu-lowering.md.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
  let options = [
    Option<"fakeQuant", "fake-quant", "bool", /*default=*/"false",
           "Lower nvfp4.matmul to dequantize + an f32 linalg contraction "
           "(quantization-aware training) instead of the bit-exact "
           "block-scaled GEMM">,
    Option<"kernels", "kernels", "std::string", /*default=*/"\"library\"",
           "How the numerics are emitted: 'library' (calls of "
           "libnvfp4_cpu_runtime's precompiled kernels) or 'inline' "
           "(upstream ops only)">,
  ];
}

//===----------------------------------------------------------------------===//
// GPUToEmulator
//===----------------------------------------------------------------------===//

def EmulateGPUKernels : Pass<"nvfp4-emulate-gpu-kernels", "ModuleOp"> {
  let summary = "Turn the NVVM kernels of gpu.modules into host functions run by the GPU emulator";
  let description = [{
    Takes every `gpu.module` after the kernel-side lowering that feeds the
    NVVM target (`convert-scf-to-cf`, `convert-gpu-to-nvvm`,
    `reconcile-unrealized-casts`), so its functions are in the NVVM and LLVM
    dialects, and moves each function into the host module as
    `@__nvfp4_emu_<module>_<function>` with a leading `!llvm.ptr` thread
    context. The kernel bodies are kept as they are, except for:

    - NVVM operations, which become calls of libnvfp4_gpu_emulator
      (`nvfp4EmuSreg`, `nvfp4EmuBarrier0`, `nvfp4EmuShflSync`,
      `nvfp4EmuCvtF32x2ToE2M1x2`; docs/emulator.md models each on the PTX
      ISA);
    - shared-memory variables (address space 3), laid out at fixed offsets
      of the CTA's shared memory (`nvfp4EmuShared`), static ones first;
    - address spaces, dropped: global memory is host memory.

    Each kernel also gets `@__nvfp4_emu_<module>_<kernel>_entry(thread,
    params)`, which loads the arguments from a `kernelParams`-style array and
    calls it. The `gpu.module` is replaced by an empty `gpu.binary` of the
    same name marked `nvfp4.emulated`, so that host launches still verify
    and lower with `convert-gpu-to-llvm`; `nvfp4-emulate-gpu-launches` then
    calls the entries. An NVVM operation the emulator does not model is an
    error at that operation.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::gpu::GPUDialect"];
}

def EmulateGPULaunches : Pass<"nvfp4-emulate-gpu-launches", "ModuleOp"> {
  let summary = "Replace the LLVM-lowered launches of emulated kernels by calls of the GPU emulator";
  let description = [{
    Runs after `convert-gpu-to-llvm`: each `gpu.launch_func` of a kernel of
    a `gpu.binary` marked `nvfp4.emulated` (see `nvfp4-emulate-gpu-kernels`)
    becomes a call of `nvfp4EmuLaunch` with the kernel's entry, its name,
    the grid, CTA and cluster sizes, the dynamic shared memory size, the
    stream and an array of pointers to the arguments; the emulated binaries
    are then erased. Launches of other binaries are left alone.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // NVFP4_CONVERSION_PASSES_TD
