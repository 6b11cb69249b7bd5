//===- Policy.cpp - The NVFP4 training recipe's quantization policy -------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Recipe/Policy.h"

#include <algorithm>

namespace nvfp4 {
namespace recipe {

std::array<OperandKind, 2> operandKinds(Role role) {
  switch (role) {
  case Role::Fprop:
    return {OperandKind::Activation, OperandKind::Weight};
  case Role::Dgrad:
    return {OperandKind::Gradient, OperandKind::Weight};
  case Role::Wgrad:
    return {OperandKind::Activation, OperandKind::Gradient};
  }
  return {OperandKind::Activation, OperandKind::Weight};
}

OperandQuantization quantization(Role role, OperandKind kind,
                                 const Options &options) {
  OperandQuantization q;
  q.blockRows = kind == OperandKind::Weight && role != Role::Wgrad &&
                        options.weightBlocks2D
                    ? 16
                    : 1;
  q.stochastic = kind == OperandKind::Gradient && options.stochasticRounding;
  q.hadamard = role == Role::Wgrad && options.hadamard;
  return q;
}

OperandQuantization quantization(Role role, OperandKind kind,
                                 const Options &options, int64_t rows) {
  OperandQuantization q = quantization(role, kind, options);
  if (options.inference && q.blockRows == 16 && (rows < 0 || rows % 16 != 0))
    q.blockRows = 1;
  return q;
}

LayerPrecision layerPrecision(int64_t layer, int64_t position,
                              int64_t numLayers, const Options &options) {
  if (std::find(options.highLayers.begin(), options.highLayers.end(),
                layer) != options.highLayers.end())
    return LayerPrecision::HighListed;
  if (position < static_cast<int64_t>(options.keepFirst))
    return LayerPrecision::HighFirst;
  if (position >= numLayers - static_cast<int64_t>(options.keepLast))
    return LayerPrecision::HighLast;
  return LayerPrecision::FP4;
}

} // namespace recipe
} // namespace nvfp4
