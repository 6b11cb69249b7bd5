//===- PolicyTest.cpp - Tests of the recipe's policy ----------------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The paper's rules (arXiv 2509.25149, section 4), one expectation per role,
// operand kind and switch; the lit tests of nvfp4-quantize-contractions and
// nvfp4-select-precision check that the passes follow the same function.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Recipe/Policy.h"

#include <gtest/gtest.h>

using namespace nvfp4::recipe;

namespace {

OperandQuantization q(int blockRows, bool stochastic, bool hadamard) {
  OperandQuantization result;
  result.blockRows = blockRows;
  result.stochastic = stochastic;
  result.hadamard = hadamard;
  return result;
}

TEST(RecipePolicy, OperandKindsOfEachRole) {
  using K = OperandKind;
  EXPECT_EQ(operandKinds(Role::Fprop), (std::array<K, 2>{K::Activation,
                                                         K::Weight}));
  EXPECT_EQ(operandKinds(Role::Dgrad), (std::array<K, 2>{K::Gradient,
                                                         K::Weight}));
  EXPECT_EQ(operandKinds(Role::Wgrad), (std::array<K, 2>{K::Activation,
                                                         K::Gradient}));
}

TEST(RecipePolicy, ThePapersRecipe) {
  Options o;
  // fprop: 16x16 RN weights, 1x16 RN activations.
  EXPECT_EQ(quantization(Role::Fprop, OperandKind::Weight, o), q(16, false, false));
  EXPECT_EQ(quantization(Role::Fprop, OperandKind::Activation, o),
            q(1, false, false));
  // dgrad: the same 16x16 weights, 1x16 SR gradients.
  EXPECT_EQ(quantization(Role::Dgrad, OperandKind::Weight, o), q(16, false, false));
  EXPECT_EQ(quantization(Role::Dgrad, OperandKind::Gradient, o),
            q(1, true, false));
  // wgrad: RHT on both operands, SR on the gradient, 1x16 blocks.
  EXPECT_EQ(quantization(Role::Wgrad, OperandKind::Activation, o),
            q(1, false, true));
  EXPECT_EQ(quantization(Role::Wgrad, OperandKind::Gradient, o),
            q(1, true, true));
}

TEST(RecipePolicy, EachSwitchTurnsOffOneRule) {
  Options noRHT;
  noRHT.hadamard = false;
  EXPECT_EQ(quantization(Role::Wgrad, OperandKind::Gradient, noRHT),
            q(1, true, false));
  EXPECT_EQ(quantization(Role::Wgrad, OperandKind::Activation, noRHT),
            q(1, false, false));
  Options noSR;
  noSR.stochasticRounding = false;
  EXPECT_EQ(quantization(Role::Dgrad, OperandKind::Gradient, noSR),
            q(1, false, false));
  EXPECT_EQ(quantization(Role::Wgrad, OperandKind::Gradient, noSR),
            q(1, false, true));
  Options oneD;
  oneD.weightBlocks2D = false;
  EXPECT_EQ(quantization(Role::Fprop, OperandKind::Weight, oneD), q(1, false, false));
  EXPECT_EQ(quantization(Role::Dgrad, OperandKind::Weight, oneD), q(1, false, false));
  // Activations and gradients do not depend on the weight switch.
  EXPECT_EQ(quantization(Role::Fprop, OperandKind::Activation, oneD),
            q(1, false, false));
}

TEST(RecipePolicy, InferenceWeightsWithoutWholeTilesGet1x16Blocks) {
  Options inference;
  inference.inference = true;
  // Whole 16x16 tiles: the recipe's blocks, as in training.
  EXPECT_EQ(quantization(Role::Fprop, OperandKind::Weight, inference, 4096),
            q(16, false, false));
  // No dgrad needs the exact transpose: 1x16 blocks instead of high
  // precision.
  EXPECT_EQ(quantization(Role::Fprop, OperandKind::Weight, inference, 30522),
            q(1, false, false));
  // Activations are 1x16 whatever their rows.
  EXPECT_EQ(
      quantization(Role::Fprop, OperandKind::Activation, inference, 30522),
      q(1, false, false));
  // A training graph keeps 16x16 (the contraction then stays high).
  Options training;
  EXPECT_EQ(quantization(Role::Fprop, OperandKind::Weight, training, 30522),
            q(16, false, false));
}

TEST(RecipePolicy, LayersKeptInHighPrecision) {
  Options o;
  o.keepFirst = 1;
  o.keepLast = 2;
  o.highLayers = {5};
  // Layers numbered 10, 20, ..., 70: positions 0..6.
  EXPECT_EQ(layerPrecision(10, 0, 7, o), LayerPrecision::HighFirst);
  EXPECT_EQ(layerPrecision(20, 1, 7, o), LayerPrecision::FP4);
  EXPECT_EQ(layerPrecision(50, 4, 7, o), LayerPrecision::FP4);
  EXPECT_EQ(layerPrecision(60, 5, 7, o), LayerPrecision::HighLast);
  EXPECT_EQ(layerPrecision(70, 6, 7, o), LayerPrecision::HighLast);
  // Listed wins, also over first / last.
  EXPECT_EQ(layerPrecision(5, 3, 7, o), LayerPrecision::HighListed);
  EXPECT_EQ(layerPrecision(5, 0, 7, o), LayerPrecision::HighListed);
  // Nothing kept by default; more kept than there are layers keeps all.
  EXPECT_EQ(layerPrecision(0, 0, 1, Options()), LayerPrecision::FP4);
  Options all;
  all.keepFirst = 3;
  for (int64_t position = 0; position < 2; ++position)
    EXPECT_NE(layerPrecision(position, position, 2, all), LayerPrecision::FP4);
}

} // namespace
