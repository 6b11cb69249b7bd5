//===- Passes.td - Passes on upstream IR used by the pipelines -*- tablegen -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_TRANSFORMS_PASSES
#define NVFP4_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def ImportIREEInput : Pass<"nvfp4-import-iree-input", "ModuleOp"> {
  let summary = "Turn IREE's input-phase functions (util.func with hal.buffer_view ABI) into func.func on tensors";
  let description = [{
    `iree-compile --compile-to=input` writes a model's functions as IREE
    `util.func` ops. From PyTorch (the torch input pipeline) each entry has
    the `hal.buffer_view` ABI: an `@f$async` function that imports its
    arguments (`hal.tensor.import`, waiting on a fence), joins its results
    on a fence (`hal.tensor.barrier`) and exports them
    (`hal.tensor.export`), and a synchronous wrapper `@f` that creates the
    fence and calls it. This pass makes the module plain upstream IR the
    nvfp4 recipe and lowerings take:

    - every `util.func` that does not call another becomes `func.func`
      (named without the `$async` suffix), whose arguments are the tensors
      the buffer views import (fence arguments are dropped, other arguments
      kept) and whose results are the tensors it exports;
    - imports, barriers and exports are replaced by the tensors they carry,
      `util.return` by `func.return`;
    - a run-time size read off an imported buffer view
      (`hal.buffer_view.dim`, which a model exported with dynamic axes uses
      for its imports and its body) becomes `tensor.dim` of the new tensor
      argument;
    - wrappers (`util.func` ops that call another one) are removed.

    nvfp4-opt cannot parse IREE's dialects, so the input is printed in the
    generic form and parsed with unregistered dialects allowed:

    ```sh
    iree-compile model.torch.mlir --compile-to=input --mlir-print-op-generic -o model.input.mlir
    nvfp4-opt --allow-unregistered-dialect model.input.mlir --nvfp4-import-iree-input --nvfp4-recipe
    ```

    Any other IREE operation left in a converted function (the pass expects
    linalg, tensor, arith and math bodies) is an error at that operation,
    and so is a `util.func` without a body.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def CloneSharedInits : Pass<"nvfp4-clone-shared-inits", "func::FuncOp"> {
  let summary = "Give every destination operand that is a shared tensor.empty "
                "or linalg.fill its own copy";
  let description = [{
    Front ends and generators build one zero-filled tensor and pass it as
    the `outs` of every contraction of that shape: hundreds of ops share one
    destination. One-Shot Bufferize then checks every in-place candidate
    against every other use of the shared tensor, which grows quadratically
    with the number of uses (most of the compile time of a 48-layer model
    step), and still ends up copying the fill for all but one of them.

    This pass clones, right before each user, a `tensor.empty` or a
    `linalg.fill` (together with a `tensor.empty` it fills) that is used as
    the init operand of a destination-style op and has more than one use, so
    that every destination is its own tensor. The values are unchanged, the
    fill runs once per use (what the out-of-place copies did), and
    bufferization writes every destination in place.

    Example:

    ```mlir
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %a = linalg.matmul ins(%x, %y : ...) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
    %b = linalg.matmul ins(%u, %v : ...) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
    // becomes: each matmul fills its own tensor.empty
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TileAndVectorize : Pass<"nvfp4-tile-and-vectorize", "func::FuncOp"> {
  let summary = "Tile the linalg ops on buffers into register-sized tiles and "
                "vectorize them";
  let description = [{
    The CPU pipeline's code for the linalg ops that stay in high precision
    (bf16 / f32 contractions the recipe keeps, softmax, norms, elementwise
    ops): instead of scalar loops, every linalg op on buffers with static
    shapes is tiled with `scf::tileUsingSCF` and each full tile vectorized
    with `linalg::vectorize`:

    - contractions (`linalg::isaContractionOpInterface`) get
      `contraction-tiles` = M, N, K tiles on their last two parallel loops
      and last reduction loop (1 on the other loops). Each full tile is
      generalized with its reduction loops first, so its vector form
      multiplies K x M x N slices and reduces them over the outermost
      dimension into the C tile; after the transfers are rewritten on the
      base buffers (`memref` alias folding) and loop invariants hoisted, the
      C tile is read before its K loop, carried through it and written after
      it, staying in registers;
    - every other op gets `vector-width` on its innermost loop and 1 on the
      others.

    A loop whose trip count is not a multiple of its tile is peeled
    (`scf::peelForLoopAndSimplifyBounds`): the full tiles are vectorized,
    the remainder tile stays a linalg op and becomes scalar loops. Ops the
    vectorizer does not take (`linalg::vectorizeOpPrecondition`: gathers,
    dynamic shapes) are left as they are.

    Summation order is kept: with `vector.multi_reduction` lowered
    inner-parallel (as `nvfp4-to-cpu` does), every element still adds its
    products (each rounded, no fused multiply-add) in increasing K, and a
    row reduction its elements in order, so the results are bit-identical to
    the scalar loops (`test/Integration/training-step.mlir` checks all weight
    gradients of a bf16 training step against `vectorize=false`).

    Example (`contraction-tiles=8,16,8`, a 16 x 32 x 64 matmul with B
    transposed), the full tile:

    ```mlir
    %acc0 = vector.transfer_read %C[%m, %n] : memref<16x32xf32>, vector<8x16xf32>
    %acc = scf.for %k = %c0 to %c64 step %c8 iter_args(%it = %acc0) {
      %a = vector.transfer_read %A[%m, %k] ... : memref<16x64xf32>, vector<8x8x16xf32>
      %b = vector.transfer_read %B[%n, %k] ... : memref<32x64xf32>, vector<8x8x16xf32>
      %p = arith.mulf %a, %b : vector<8x8x16xf32>
      %r = vector.multi_reduction <add>, %p, %it [0] : vector<8x8x16xf32> to vector<8x16xf32>
      scf.yield %r : vector<8x16xf32>
    }
    vector.transfer_write %acc, %C[%m, %n] : vector<8x16xf32>, memref<16x32xf32>
    ```
  }];
  let options = [
    ListOption<"contractionTiles", "contraction-tiles", "int64_t",
               "Tile sizes M, N, K of contractions (default 8,16,8)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"16",
           "Tile of the innermost loop of other ops">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def SplitDeallocations : Pass<"nvfp4-split-deallocations", "func::FuncOp"> {
  let summary = "Split bufferization.dealloc ops of distinct allocations into "
                "one dealloc per allocation";
  let description = [{
    The ownership-based buffer deallocation puts one `bufferization.dealloc`
    at the end of a block for every buffer allocated in it. Upstream
    `buffer-deallocation-simplification` then compares the memrefs of that
    op pairwise for aliasing, which is quadratic in the number of
    allocations of the block: a straight-line model function with thousands
    of buffers spends most of its compile time there.

    This pass handles, in linear time, the case the bufferized nvfp4
    pipelines produce: a dealloc whose memrefs are all results of distinct
    `memref.alloc` / `memref.alloca` ops (which never alias each other) and
    whose retained values each have a known origin, found through view-like
    ops: one of those allocations, another allocation, a global, or an
    argument of the function (none of which aliases an allocation of the
    function). Such a dealloc becomes one dealloc per memref, with its
    condition, retaining only the retained values that come from that
    memref; each retained value's updated condition is the one the split
    of its origin returns (`false` when no memref of the dealloc is its
    origin). Any other dealloc is left to the upstream simplification.

    Example:

    ```mlir
    %r:1 = bufferization.dealloc (%a, %b : memref<4xf32>, memref<8xf32>)
             if (%ca, %cb) retain (%va : memref<2x2xf32>)
    // with %a, %b from memref.alloc and %va = memref.expand_shape %a:
    %ra = bufferization.dealloc (%a : memref<4xf32>) if (%ca)
            retain (%va : memref<2x2xf32>)
    bufferization.dealloc (%b : memref<8xf32>) if (%cb)
    // %r#0 is replaced by %ra.
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
  ];
}

def ExpandRunTimeReshapes
    : Pass<"nvfp4-expand-run-time-reshapes", "func::FuncOp"> {
  let summary = "Rewrite memref.expand_shape ops that split a dimension into "
                "several run-time sizes as memref.reinterpret_cast";
  let description = [{
    MLIR 22's `expand-strided-metadata` crashes on a `memref.expand_shape`
    that splits one dimension into two or more run-time sizes (a flattened
    `[batch * seq, hidden]` buffer viewed again as `[batch, seq, hidden]`,
    which every exported graph with a dynamic batch and sequence contains).
    This pass, run just before it, rewrites each such op as the view it is:
    a `memref.reinterpret_cast` of the source's base buffer
    (`memref.extract_strided_metadata`) at the source's offset, with the
    output sizes, and strides that split each source stride over its group
    (the innermost dimension of a group keeps the source stride, each outer
    one multiplies by the sizes inside it). Other expand_shape ops are left
    to `expand-strided-metadata`.

    Example:

    ```mlir
    %e = memref.expand_shape %m [[0, 1], [2]] output_shape [%b, %s, 32]
        : memref<?x32xf32> into memref<?x?x32xf32>
    // becomes
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %m
    %e = memref.reinterpret_cast %base to offset: [%offset],
        sizes: [%b, %s, 32], strides: [%s * %strides#0, %strides#0, %strides#1]
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def OutlineLoopNests : Pass<"nvfp4-outline-loop-nests", "ModuleOp"> {
  let summary = "Outline the top-level loop nests of large functions into "
                "private functions, identical nests shared";
  let description = [{
    Upstream `convert-scf-to-cf` splits a function's block at every
    top-level loop, moving the rest of the block each time: quadratic in the
    size of a large straight-line function such as a whole model's step
    after `convert-linalg-to-loops`. In every `func.func` with at least
    `min-loop-nests` top-level ops holding regions (loops, `scf.if`, linalg
    ops), this pass moves each such op into a new private function and calls
    it, so that the large function keeps no region and every function that
    `convert-scf-to-cf` splits is small. Run before tiling and lowering
    linalg ops, it also makes the passes after it run once per distinct op.

    The new function takes the values the nest uses from outside as
    arguments, in order of first use (constants are cloned into it instead),
    and returns the nest's results. The outlined op drops its discardable
    attributes (annotations such as the recipe's `nvfp4.layer`, which are
    not semantics). Nests that are identical once outlined (the same ops,
    inherent attributes, types and constants: for example the same layer at
    every depth of a model) share one function, so the code grows
    with the number of distinct nests. The functions are named
    `<function>_nest<N>` in order of first appearance; the output is
    deterministic.

    Example (`min-loop-nests=1`):

    ```mlir
    func.func @f(%m: memref<4xf32>) {
      scf.for %i = %c0 to %c4 step %c1 { memref.store %cst, %m[%i] : memref<4xf32> }
      return
    }
    // becomes
    func.func @f(%m: memref<4xf32>) {
      call @f_nest0(%m) : (memref<4xf32>) -> ()
      return
    }
    func.func private @f_nest0(%m: memref<4xf32>) {
      %c0 = arith.constant 0 : index  // ... constants cloned
      scf.for %i = %c0 to %c4 step %c1 { memref.store %cst, %m[%i] : memref<4xf32> }
      return
    }
    ```
  }];
  let options = [
    Option<"minLoopNests", "min-loop-nests", "unsigned", /*default=*/"32",
           "Outline only in functions with at least this many top-level ops "
           "holding regions">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // NVFP4_TRANSFORMS_PASSES
