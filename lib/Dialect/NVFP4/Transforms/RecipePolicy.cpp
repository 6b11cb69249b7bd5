//===- RecipePolicy.cpp - The recipe policy in MLIR's terms ---------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/RecipePolicy.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::nvfp4;

std::optional<recipe::Role> mlir::nvfp4::parsePolicyRole(StringRef role) {
  return llvm::StringSwitch<std::optional<recipe::Role>>(role)
      .Case("fprop", recipe::Role::Fprop)
      .Case("dgrad", recipe::Role::Dgrad)
      .Case("wgrad", recipe::Role::Wgrad)
      .Default(std::nullopt);
}

recipe::OperandKind mlir::nvfp4::toPolicyKind(TensorKind kind) {
  switch (kind) {
  case TensorKind::Weight:
    return recipe::OperandKind::Weight;
  case TensorKind::Gradient:
    return recipe::OperandKind::Gradient;
  case TensorKind::Activation:
  case TensorKind::Unknown:
    break;
  }
  return recipe::OperandKind::Activation;
}

TensorKind mlir::nvfp4::fromPolicyKind(recipe::OperandKind kind) {
  switch (kind) {
  case recipe::OperandKind::Weight:
    return TensorKind::Weight;
  case recipe::OperandKind::Gradient:
    return TensorKind::Gradient;
  case recipe::OperandKind::Activation:
    break;
  }
  return TensorKind::Activation;
}
