//===- Passes.td - NVFP4 recipe passes ---------------------*- tablegen -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The NVFP4 training recipe as passes: role inference, precision selection,
// the rewrite of linalg contractions to nvfp4 ops, Hadamard insertion,
// rounding assignment and quantization sharing. docs/recipe.md describes the
// rules; the `nvfp4-recipe` pipeline composes the passes.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_TD
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def NVFP4InferRoles : Pass<"nvfp4-infer-roles", "func::FuncOp"> {
  let summary = "Infer the role, operand kinds and layer of every linalg contraction";
  let description = [{
    Annotates every linalg contraction of the function (linalg.matmul with
    or without transposing indexing maps, linalg.batch_matmul, contraction
    linalg.generic ops) with the discardable attributes

    - `nvfp4.role`: `"fprop"`, `"dgrad"` or `"wgrad"`;
    - `nvfp4.kind`: the kinds of its two operands, e.g.
      `["activation", "weight"]`;
    - `nvfp4.layer`: the index of the layer (transformer block) it belongs to.

    Annotations already present (set by a frontend) are never overwritten;
    function arguments may carry `nvfp4.kind = "weight" | "activation" |
    "gradient"`. Without annotations the pass infers them:

    - weights: function arguments used, directly or through
      `linalg.transpose`, as the right-hand ("B") operand of a non-batched
      contraction, or broadcast over the batch (`linalg.broadcast` or a
      `linalg.generic` copy of a matrix) as the B operand of a batched one,
      whose left operand is not contracted over its leading (token)
      dimension;
    - a contraction with a weight operand is `dgrad` when its other operand
      is computed from a gradient argument, when it depends on another
      contraction with the same weight (the forward one), or when it
      contracts the weight over the other dimension than the forward one
      does (a last layer's dgrad whose upstream gradient is an argument),
      `fprop` otherwise;
    - gradients: arguments annotated `gradient` or whose name contains
      `grad`, the non-weight operands of `dgrad` contractions, and every
      value computed from them;
    - a contraction without a weight operand is `wgrad` when it has a
      gradient operand and its left operand is contracted over its leading
      (token) dimension, `dgrad` when it has a gradient operand otherwise,
      `fprop` when it has none;
    - layers: weights in order of first forward use; a new layer starts at
      each group of projections that feeds an attention contraction (a
      batched contraction without weights); without attention each group of
      projections that share their input is a layer. `wgrad` contractions
      take the layer of the weight whose `dgrad` shares their gradient
      operand; contractions without a weight that of the nearest preceding
      contraction with one.

    A contraction whose role cannot be determined (two weight or two
    gradient operands, or a form the recipe does not support) gets a remark
    and is left alone.

    Weights are also, unless `constant-weights=false`: contraction operands
    that are constants — `arith.constant` (dense, splat, `dense_resource`
    and elided values) and loads of constant globals (`ml_program`,
    IREE's `util.global.load`), through transposes, reshapes, broadcasts and
    element-type conversions — as inference graphs from importers keep
    their weights; and function arguments whose name (a `NameLoc`)
    contains `weight`, wherever they are contracted. An operand that
    dequantizes an NVFP4 tensor with a `decode` tensor scale or an MX tensor
    built by `nvfp4.assemble` (a checkpoint's weight) is a weight whatever
    this option says.

    With `inference`, the function is a forward pass: every contraction
    with a role is `fprop` and no value is a gradient unless annotated so.
    A weight contracted twice in a chain (tied embeddings, layers that
    share weights) is then two forward uses rather than a forward and its
    dgrad, and arguments named `grad...` are ordinary inputs.
  }];
  let options = [
    Option<"constantWeights", "constant-weights", "bool", /*default=*/"true",
           "Treat constant contraction operands and arguments named as "
           "weights as weights">,
    Option<"inference", "inference", "bool", /*default=*/"false",
           "The function is a forward pass: only fprop roles, no "
           "gradients unless annotated">,
  ];
  let dependentDialects = ["::mlir::nvfp4::NVFP4Dialect"];
}

def NVFP4SelectPrecision : Pass<"nvfp4-select-precision", "ModuleOp"> {
  let summary = "Decide which contractions run in NVFP4 (or an MX format) and report why";
  let description = [{
    Sets `nvfp4.precision` on every linalg contraction: `"fp4"` (NVFP4),
    an MX format's name (`"mxfp4"`, `"mxfp8_e4m3"`, `"mxfp8_e5m2"`) or
    `"high"` (a frontend's `"high"` is kept and forces high precision), and
    records the reason of each decision.

    The formats come from a precision ladder: `formats`, the block-scaled
    formats in order of preference (`nvfp4`, `mxfp4`, `mxfp8_e4m3` or
    `mxfp8`, `mxfp8_e5m2`), optionally ending in `bf16`; without it the
    ladder is `format` (`nvfp4`, the default, or `mxfp4`) alone. Each
    contraction takes the first format the rules below allow, and stays in
    high precision when none does. With `formats=nvfp4,mxfp8,bf16`, the
    contractions the recipe keeps out of FP4 for accuracy (attention,
    embeddings, the LM head, the first and last layers) run in MXFP8
    instead of bf16; `format=mxfp4` runs the whole recipe in MXFP4.

    The rules, first match wins; rules 1 to 3 keep a contraction high
    whatever the ladder, rules 4 to 6 keep it out of the 4-bit formats
    (NVFP4, MXFP4) only, rule 7 applies to NVFP4 only, and the MX formats
    have GPU kernels on sm_100a / sm_103a / sm_110a / sm_120a / sm_121a
    (`gpu-target=sm_90a` keeps them out):

    1. forms the rewrite does not support (dynamic shapes, several M/N/K
       dimensions, element types other than f32/bf16/f16 inputs and f32/bf16
       results) stay high;
    2. `nvfp4.precision = "high"`, a layer in `high-layers`, or a location
       name in `high-ops` forces high precision;
    3. contractions without a role (see `nvfp4-infer-roles`) stay high;
    4. attention: a batched contraction without a weight operand;
       other activation-by-activation contractions (fprop/dgrad without a
       weight) also stay high;
    5. embeddings: the activation operand is a one-hot encoding (produced by
       an op comparing indices, `arith.cmpi`); LM head: the weight whose
       forward result feeds a reduction (softmax / cross-entropy) directly,
       and the dgrad/wgrad of that weight;
    6. the first `keep-first` and the last `keep-last` layers;
    7. hardware rules: a 16x16-scaled weight needs its other dimension to
       be a multiple of 16 (with `inference`, such a weight gets 1x16
       blocks instead; K is zero-padded to whole blocks by the rewrite);
       with `gpu-target=<sm_..>`, the shapes the
       GEMM kernel of that target takes: on sm_120a, sm_121a and sm_90a
       (`mma.sync`) any M, N and K (the last CTA tile and K step are
       predicated; the grid limits apply); on sm_100a, sm_103a and sm_110a
       (tcgen05) any M, N and K (the last CTA tile and K tile are
       predicated or zero-filled, and a K that is not a multiple of 32 runs
       on K-padded operands);
    8. sizes below `min-m`, `min-n`, `min-k` or `min-flops`.

    Run-time sizes (`?` dimensions, e.g. a batch or sequence length) change
    no decision: a rule on a size applies to its hint (`size-hint`) when
    there is one and is otherwise left to run time (K not a multiple of the
    block is zero-padded at run time; a 16x16-scaled weight needs its other
    dimension static). Each run-time size has a symbol, the function
    argument dimension it equals (`x.0`: dimension 0 of the argument named
    `x` by its location, else `argI.D`), and the report gives such a
    contraction's FLOPs as an expression of the symbols
    (`flops_expression`, e.g. `524288*x.0`) and as a number at the hints
    (`flops`, null without them).

    Everything else takes the format. A reason names, for a format below
    the first of a ladder of several, why each format above it did not
    apply. With `remarks`, every decision is also a remark at the op; with
    `report=FILE` (or nvfp4-opt's `--nvfp4-report`), a JSON report lists
    each contraction (function, index, location, op, role, layer, shape,
    FLOPs, decision, reason) in IR order, the share of FLOPs in a 4-bit
    format (`fp4_flop_percent`) and, per decision, the contractions, FLOPs
    and share of FLOPs; `summary` prints a human-readable table to stderr.
  }];
  let options = [
    Option<"keepFirst", "keep-first", "unsigned", "0",
           "Keep the first N layers in high precision">,
    Option<"keepLast", "keep-last", "unsigned", "0",
           "Keep the last N layers in high precision">,
    Option<"minM", "min-m", "int64_t", "0",
           "Minimum M (rows of the result) for NVFP4">,
    Option<"minN", "min-n", "int64_t", "0",
           "Minimum N (columns of the result) for NVFP4">,
    Option<"minK", "min-k", "int64_t", "0",
           "Minimum K (contraction size) for NVFP4">,
    Option<"minFlops", "min-flops", "int64_t", "0",
           "Minimum FLOPs (2*B*M*N*K) for NVFP4">,
    ListOption<"sizeHints", "size-hint", "std::string",
               "Sizes assumed for run-time dimensions in the FLOP counts and "
               "size rules: SYMBOL=N (a symbol of the report, e.g. x.0) or N "
               "(every run-time dimension)">,
    ListOption<"highLayers", "high-layers", "int64_t",
               "Layers forced to high precision">,
    ListOption<"highOps", "high-ops", "std::string",
               "Location names (loc(\"name\")) of ops forced to high precision">,
    Option<"quantizeAttention", "quantize-attention", "bool", "false",
           "Allow attention contractions in NVFP4">,
    Option<"quantizeEmbeddings", "quantize-embeddings", "bool", "false",
           "Allow embedding contractions in NVFP4">,
    Option<"quantizeHead", "quantize-head", "bool", "false",
           "Allow the LM head in NVFP4">,
    Option<"gpuTarget", "gpu-target", "std::string", "\"\"",
           "Keep high what the GEMM kernel of this GPU target (sm_100a, "
           "sm_103a, sm_110a, sm_120a, sm_121a, sm_90a) refuses">,
    Option<"disable2D", "disable-2d-quantization", "bool", "false",
           "Weights use 1x16 blocks (no 16x16 shape rule)">,
    Option<"inference", "inference", "bool", "false",
           "A forward graph: a weight whose rows are not a multiple of 16 "
           "gets 1x16 blocks instead of staying high">,
    Option<"format", "format", "std::string", "\"nvfp4\"",
           "The 4-bit format of the recipe: nvfp4 or mxfp4 (the ladder "
           "when formats is not given)">,
    ListOption<"formats", "formats", "std::string",
               "The precision ladder: block-scaled formats in order of "
               "preference (nvfp4, mxfp4, mxfp8_e4m3 or mxfp8, mxfp8_e5m2), "
               "optionally ending in bf16">,
    Option<"remarks", "remarks", "bool", "false",
           "Emit a remark with the decision at every contraction">,
    Option<"reportFile", "report", "std::string", "\"\"",
           "Write a JSON report of the decisions to this file ('-' = stdout)">,
    Option<"summary", "summary", "bool", "false",
           "Print a human-readable summary of the decisions to stderr">,
  ];
}

def NVFP4QuantizeContractions
    : Pass<"nvfp4-quantize-contractions", "func::FuncOp"> {
  let summary = "Rewrite contractions selected for a block-scaled format to nvfp4.quantize + nvfp4.matmul";
  let description = [{
    Every linalg contraction marked `nvfp4.precision = "fp4"` becomes
    `nvfp4.quantize` of both operands and one `nvfp4.matmul`, following the
    recipe: weights 16x16 round-to-nearest, activations 1x16
    round-to-nearest, gradients 1x16 stochastic rounding, and the random
    Hadamard transform on both operands of `wgrad` contractions (applied
    before amax, through the quantize's `hadamard`). Operands are brought to
    the K-major layout nvfp4.matmul needs: a 16x16-scaled weight is quantized
    as stored and transposed exactly with `nvfp4.transpose`, any other
    operand is transposed in high precision with `linalg.transpose`. The init
    of the linalg op becomes the accumulator unless it is a `linalg.fill` of
    zero; the result element type is kept. A batched contraction whose B
    operand is a weight broadcast over the batch becomes one GEMM of the
    flattened [B*M, K] activation (`tensor.collapse_shape`) by the weight,
    which is quantized once, and the result is expanded back to [B, M, N].
    Stochastic quantizes get disjoint
    Philox counter ranges as `nvfp4-assign-rounding` gives them. A
    contraction whose K is not a multiple of 16 gets both operands
    zero-padded along K to whole blocks (`tensor.pad`) before they are
    quantized: the padded codes are zeros, so every product keeps its
    value, and the last block's scale comes from its real values. A
    contraction marked `fp4` that the rewrite cannot express (an unsupported
    form, a 16x16 weight whose other dimension is not a multiple of 16)
    stays in high precision, marked `"high"`, with a warning saying
    why. With `inference` (a forward graph, where no dgrad reuses a weight
    through an exact transpose), a weight whose rows are not a multiple of
    16 is quantized with 1x16 blocks instead.

    An operand that is the `nvfp4.dequantize` of an NVFP4 tensor (a weight
    another tool quantized, brought in with `nvfp4.assemble`) is not
    quantized again when the recipe would quantize it with
    round-to-nearest and no transform: the matmul takes that tensor, with
    its own blocks and tensor scale (exactly transposed when it is stored
    [K, N] with 16x16 blocks), so the checkpoint's codes reach the tensor
    cores unchanged.

    A contraction marked with an MX format (`"mxfp4"`, `"mxfp8_e4m3"`,
    `"mxfp8_e5m2"`) becomes the same ops on MX tensors: both operands
    quantized with 1x32 blocks along K (round-to-nearest, no transform: the
    2D blocks, stochastic rounding and Hadamard transform are NVFP4's),
    operands stored [K, N] transposed in high precision, K zero-padded to a
    multiple of 32, and the dequantize of an MX tensor taken as it is when
    it is K-major.
  }];
  let options = [
    Option<"disableRHT", "disable-rht", "bool", "false",
           "Do not apply the random Hadamard transform to wgrad operands">,
    Option<"disableStochasticRounding", "disable-stochastic-rounding", "bool",
           "false", "Round gradients to nearest instead of stochastically">,
    Option<"disable2D", "disable-2d-quantization", "bool", "false",
           "Quantize weights with 1x16 instead of 16x16 blocks">,
    Option<"inference", "inference", "bool", "false",
           "A forward graph: a weight whose rows are not a multiple of 16 "
           "gets 1x16 blocks">,
  ];
  let dependentDialects = ["::mlir::nvfp4::NVFP4Dialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def NVFP4InsertHadamard : Pass<"nvfp4-insert-hadamard", "func::FuncOp"> {
  let summary = "Add the random Hadamard transform to quantizes feeding wgrad matmuls";
  let description = [{
    Gives every `nvfp4.quantize` that feeds an operand of an `nvfp4.matmul`
    with `nvfp4.role = "wgrad"` Transformer Engine's Hadamard transform
    (`hadamard` with the default sign vector). A quantize that also feeds
    other matmuls is duplicated so those keep their operand unchanged.
    Quantizes that already have a transform, and operands not produced by a
    quantize (e.g. through `nvfp4.transpose`) are left alone; the latter get
    a remark, since the wgrad then runs without the transform.
  }];
}

def NVFP4AssignRounding : Pass<"nvfp4-assign-rounding", "func::FuncOp"> {
  let summary = "Use stochastic rounding for gradients and number the Philox counters";
  let description = [{
    Sets `rounding rs` on every `nvfp4.quantize` of a gradient (an op
    carrying `nvfp4.kind = "gradient"`, or whose input is a function
    argument annotated so), then gives every stochastic quantize and rescale,
    in IR order, a disjoint range of Philox counters: a tensor of N elements
    uses N/16 counters starting at its `offset`, the first starts at
    `base-offset`; a tensor of run-time size gets a whole window of 2^40
    counters (more blocks than any tensor in memory has), aligned to 2^40.
    The seed operand is the function argument annotated
    `nvfp4.seed` (an i64) when there is one; otherwise the seed is 0.
  }];
  let options = [
    Option<"baseOffset", "base-offset", "int64_t", "0",
           "First Philox counter of the function">,
  ];
}

def NVFP4FoldConstantQuantize
    : Pass<"nvfp4-fold-constant-quantize", "func::FuncOp"> {
  let summary = "Quantize constant tensors at compile time";
  let description = [{
    Replaces every `nvfp4.quantize` whose input is an `arith.constant`
    (dense or splat, f32 / bf16 / f16, any rank) and whose `amax` and
    `seed`, if present, are constants too, by `nvfp4.assemble` of three
    constants: the E2M1 codes (`f4E2M1FN`), the compact E4M3 block scales
    (`f8E4M3FN`) and the f32 amax, computed by the reference numerics
    library (`nvfp4::quantize`, with the op's block shape, rounding, seed,
    offset and Hadamard transform), so the values are bit-exact with what
    the op computes at run time on any lowering. Inference graphs keep
    their weights as constants: with this pass, their weights are quantized
    once, when the program is compiled, and only the activations at run
    time. Quantizes of run-time values are left alone. An MX quantization
    (`mxfp4`, `mxfp8_e4m3`, `mxfp8_e5m2`) becomes `nvfp4.assemble` of its
    element codes and E8M0 scales (`f8E8M0FNU`), computed by
    `nvfp4::mx::quantize`.

    Example:

    ```mlir
    %w = arith.constant dense<...> : tensor<64x32xf32>
    %q = nvfp4.quantize %w : tensor<64x32xf32> -> !nvfp4.tensor<64x32, 16x16>
    // becomes
    %codes = arith.constant dense<...> : tensor<64x32xf4E2M1FN>
    %scales = arith.constant dense<...> : tensor<4x2xf8E4M3FN>
    %amax = arith.constant 3.5 : f32
    %q = nvfp4.assemble %codes, %scales, %amax
        : tensor<64x32xf4E2M1FN>, tensor<4x2xf8E4M3FN> -> !nvfp4.tensor<64x32, 16x16>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def NVFP4ApplyCalibration : Pass<"nvfp4-apply-calibration", "ModuleOp"> {
  let summary = "Give activation quantizes the static amax of a calibration file";
  let description = [{
    Post-training quantization with a static tensor scale: every
    `nvfp4.quantize` of an activation (`nvfp4.kind = "activation"`, as
    `nvfp4-quantize-contractions` marks them) without an `amax` operand
    whose contraction is named in the JSON file `file` gets the amax
    recorded there, as an `arith.constant` operand; it then scales by that
    amax instead of measuring the tensor at run time, and values beyond it
    saturate to ±6 · 448 · S_dec, as a calibrated deployment does. The
    others keep the dynamic amax.

    The file maps keys to amaxes. A key names a contraction (the quantize
    carries its location) by a `NameLoc` name in its location (an
    importer's node or module name, e.g. `"/encoder/layer.0/fc1/MatMul"`),
    or by the location string of the recipe report (`"file:line:col"`,
    fused locations joined by `+`). The value is the amax of the
    contraction's activation input (a number), or of each operand
    (`{"lhs": a, "rhs": b}`) when both are activations:

    ```json
    {"fc1": 3.25, "model.py:12:5": 0.5, "scores": {"lhs": 8.0, "rhs": 6.5}}
    ```

    Amaxes must be finite and non-negative. A file that cannot be read or
    parsed, or a malformed entry, is an error; a key that matches no
    quantized activation gets a warning. A quantize feeding several
    contractions takes the largest of their amaxes. Run it before
    `nvfp4-share-quantizations`, so that quantizes of one tensor with the
    same amax are still shared.

    Example, with `{"fc1": 3.25}`:

    ```mlir
    %q = nvfp4.quantize %x {nvfp4.kind = "activation"} : tensor<64x128xf32>
           -> !nvfp4.tensor<64x128, 1x16> loc("fc1")
    // becomes
    %amax = arith.constant 3.250000e+00 : f32
    %q = nvfp4.quantize %x amax %amax {nvfp4.kind = "activation"}
           : tensor<64x128xf32> -> !nvfp4.tensor<64x128, 1x16> loc("fc1")
    ```
  }];
  let options = [
    Option<"file", "file", "std::string", "\"\"",
           "JSON file of per-contraction activation amaxes">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def NVFP4ShareQuantizations
    : Pass<"nvfp4-share-quantizations", "func::FuncOp"> {
  let summary = "Quantize each tensor once; reuse 16x16 weights through nvfp4.transpose";
  let description = [{
    Rewrites `nvfp4.quantize(linalg.transpose(x))` with 16x16 blocks and
    round-to-nearest (no Hadamard) to `nvfp4.transpose(nvfp4.quantize(x))`,
    which is exact for 2D scales, and then replaces every quantize by an
    identical earlier one that dominates it: same input, amax, seed,
    rounding, offset, Hadamard and result type. Stochastic quantizes with
    different offsets are not identical.
  }];
}

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_PASSES_TD
