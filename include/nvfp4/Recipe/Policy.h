//===- Policy.h - The NVFP4 training recipe's quantization policy -*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The recipe's rules (arXiv 2509.25149, section 4) as plain C++ with no MLIR
// or LLVM dependency: how each operand of each GEMM of a linear layer is
// quantized, and which layers stay in high precision. The nvfp4-recipe
// passes (nvfp4-quantize-contractions, nvfp4-select-precision) and the
// Python front ends (nvfp4.Recipe, nvfp4.torch, nvfp4.jax) all call these
// functions, so the compiler and a framework cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RECIPE_POLICY_H
#define NVFP4_RECIPE_POLICY_H

#include <array>
#include <cstdint>
#include <vector>

namespace nvfp4 {
namespace recipe {

/// The three GEMMs of a linear layer Y = X W^T: fprop Y = X W^T, dgrad
/// dX = dY W and wgrad dW = dY^T X.
enum class Role { Fprop, Dgrad, Wgrad };

/// What a GEMM operand holds.
enum class OperandKind { Activation, Weight, Gradient };

/// The switches of the recipe; the defaults are the paper's recipe. Each
/// mirrors an option of the nvfp4-recipe pipeline.
struct Options {
  /// Random Hadamard transform on both wgrad operands (disable-rht).
  bool hadamard = true;
  /// Stochastic rounding of gradients (disable-stochastic-rounding).
  bool stochasticRounding = true;
  /// 16x16 weight blocks (disable-2d-quantization gives 1x16).
  bool weightBlocks2D = true;
  /// The first / last layers kept in high precision (keep-first,
  /// keep-last), counted over the layers the model has.
  unsigned keepFirst = 0;
  unsigned keepLast = 0;
  /// Layers forced to high precision (high-layers), by layer number.
  std::vector<int64_t> highLayers;
  /// The graph is a forward pass (mode=inference): no dgrad reuses a
  /// weight through an exact transpose.
  bool inference = false;
};

/// How one GEMM operand is quantized: 1x16 or 16x16 blocks along the
/// contraction dimension, round-to-nearest-even or stochastic rounding, and
/// whether the 16x16 random Hadamard transform is applied first.
struct OperandQuantization {
  int blockRows = 1;
  bool stochastic = false;
  bool hadamard = false;

  bool operator==(const OperandQuantization &other) const {
    return blockRows == other.blockRows && stochastic == other.stochastic &&
           hadamard == other.hadamard;
  }
};

/// The operand kinds the passes assume for a GEMM of `role` whose kinds are
/// not annotated, left to right: fprop (activation, weight), dgrad
/// (gradient, weight), wgrad (activation, gradient).
std::array<OperandKind, 2> operandKinds(Role role);

/// How an operand of kind `kind` of the GEMM of `role` is quantized:
/// weights in 16x16 blocks (1x16 in wgrad, where no weight takes part, or
/// without weightBlocks2D), everything else in 1x16; gradients with
/// stochastic rounding; both wgrad operands through the Hadamard transform.
OperandQuantization quantization(Role role, OperandKind kind,
                                 const Options &options);

/// As above, for an operand whose non-contracted dimension (M for the left
/// operand, N for the right one) has `rows` elements. 16x16 blocks need
/// whole tiles, which only the exact transpose a dgrad reuses requires: in
/// inference, a weight whose rows are not a multiple of 16 (or are a
/// run-time size, `rows` < 0) gets 1x16 blocks (elsewhere the contraction
/// stays in high precision).
OperandQuantization quantization(Role role, OperandKind kind,
                                 const Options &options, int64_t rows);

/// The precision of a layer's GEMMs, and why.
enum class LayerPrecision {
  FP4,
  /// Listed in highLayers.
  HighListed,
  /// Among the first keepFirst layers.
  HighFirst,
  /// Among the last keepLast layers.
  HighLast,
};

/// The precision of the layer numbered `layer`, at position `position`
/// among the `numLayers` layers of the model (sorted by number). A listed
/// layer is HighListed even when it is also first or last.
LayerPrecision layerPrecision(int64_t layer, int64_t position,
                              int64_t numLayers, const Options &options);

} // namespace recipe
} // namespace nvfp4

#endif // NVFP4_RECIPE_POLICY_H
