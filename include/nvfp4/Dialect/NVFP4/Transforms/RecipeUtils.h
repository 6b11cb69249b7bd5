//===- RecipeUtils.h - Contraction analysis of the recipe -------*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// What the recipe passes share: the analysis of a linalg contraction (its
// M/N/K/batch dimensions and operand layouts), the recipe attributes on ops
// (`nvfp4.role`, `nvfp4.kind`, `nvfp4.layer`, `nvfp4.precision`) and small
// use-def helpers.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_DIALECT_NVFP4_TRANSFORMS_RECIPEUTILS_H
#define NVFP4_DIALECT_NVFP4_TRANSFORMS_RECIPEUTILS_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace mlir {
namespace nvfp4 {

/// 2 * B * M * N * K, saturated at INT64_MAX: static shapes can be large
/// enough for the product to overflow int64_t.
inline int64_t contractionFlops(int64_t batch, int64_t m, int64_t n,
                                int64_t k) {
  int64_t flops = 2;
  for (int64_t factor : {batch, m, n, k})
    if (llvm::MulOverflow(flops, factor, flops))
      return std::numeric_limits<int64_t>::max();
  return flops;
}

/// a + b for FLOP counts (both >= 0), saturated at INT64_MAX.
inline int64_t addFlops(int64_t a, int64_t b) {
  int64_t sum;
  if (llvm::AddOverflow(a, b, sum))
    return std::numeric_limits<int64_t>::max();
  return sum;
}

/// The reason a contraction whose sizes overflow a 64-bit index stays in
/// high precision (ContractionInfo::hasRepresentableSizes).
inline constexpr llvm::StringLiteral kSizesNotRepresentable =
    "operand sizes overflow a 64-bit index";

/// A linalg contraction in a form the recipe rewrites: one M, N and K
/// dimension, at most one batch dimension (outermost in every operand), a
/// result laid out [B, M, N], float operands. Sizes known only at run time
/// are ShapedType::kDynamic.
struct ContractionInfo {
  mutable linalg::LinalgOp op;
  bool batched = false;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  /// The loop dimensions of B (when batched), M, N and K in `op`.
  unsigned batchDim = 0, mDim = 0, nDim = 0, kDim = 0;
  /// Whether B, M, N and K are all static.
  bool hasStaticSizes() const;
  /// The lhs is stored [.., K, M] rather than K-major [.., M, K].
  bool lhsKOuter = false;
  /// The rhs is stored [.., K, N] rather than K-major [.., N, K].
  bool rhsKOuter = false;

  Value lhs() const { return op.getDpsInputOperand(0)->get(); }
  Value rhs() const { return op.getDpsInputOperand(1)->get(); }
  Value init() const { return op.getDpsInitOperand(0)->get(); }
  /// 2 * B * M * N * K, saturated (see contractionFlops); static sizes
  /// only.
  int64_t flops() const {
    assert(hasStaticSizes() && "FLOPs of run-time sizes");
    return contractionFlops(batch, m, n, k);
  }
  /// Whether the f32 operands and result of the NVFP4 form ([B, M, K],
  /// [B, N, K], [B, M, N]) have sizes a 64-bit index can count, so that
  /// nvfp4.quantize and nvfp4.matmul can express the contraction (of
  /// run-time sizes, what the static ones count).
  bool hasRepresentableSizes() const;
};

/// Sizes assumed for the run-time dimensions of a program, where the recipe
/// counts FLOPs and applies size rules (nvfp4-select-precision's
/// `size-hint`): by the symbol of a dimension (getDynamicSizeSymbol), else
/// one size for all.
struct SizeHints {
  std::optional<int64_t> all;
  llvm::StringMap<int64_t> bySymbol;

  /// Parses `size-hint` entries: `SYMBOL=N` or `N` (every run-time size);
  /// fails with `error` on a malformed entry or a size below 1.
  static FailureOr<SizeHints> parse(llvm::ArrayRef<std::string> entries,
                                    std::string &error);
  /// The size assumed for `symbol`, if any.
  std::optional<int64_t> lookup(llvm::StringRef symbol) const;
};

/// A name for the run-time size of loop dimension `loopDim` of `op`: the
/// function argument dimension it equals, `NAME.D` (NAME the argument's
/// NameLoc name, else `argI`; D the dimension), found through
/// destination-passing ops, `tensor.empty`/`tensor.dim`, casts, element-wise
/// ops and reshapes that keep the dimension; `?` when none is found.
std::string getDynamicSizeSymbol(linalg::LinalgOp op, unsigned loopDim);

/// The size of loop dimension `loopDim` of `op` (static range `range`):
/// itself when static, else the hint for its symbol, if any.
std::optional<int64_t> resolveLoopSize(linalg::LinalgOp op, unsigned loopDim,
                                       int64_t range, const SizeHints &hints);

/// Whether `op` is a contraction-like linalg op on tensors the recipe
/// reports: a multiply-accumulate contraction of any form (named, generic,
/// matvec, dot, several K dimensions) or a multiply-accumulate convolution
/// (not a pooling).
bool isContractionLike(Operation *op);

/// 2 * the product of `op`'s loop ranges (one multiply-add per iteration),
/// saturated, run-time ranges taken from `hints`; std::nullopt for a
/// run-time range without a hint.
std::optional<int64_t> loopNestFlops(linalg::LinalgOp op,
                                     const SizeHints &hints = {});

/// The FLOPs of `op`'s loop nest as an expression: the product of its
/// static ranges times 2, then the symbols (getDynamicSizeSymbol) of its
/// run-time ranges, `*`-separated (`524288*x.0`); just the number when
/// every range is static.
std::string loopNestFlopsExpression(linalg::LinalgOp op);

/// Whether `op` is a linalg multiply-accumulate contraction with two inputs
/// and one init on tensors (named or generic).
bool isLinalgContraction(Operation *op);

/// Analyzes a linalg contraction; on failure `reason` says what the recipe
/// does not support.
FailureOr<ContractionInfo> analyzeContraction(linalg::LinalgOp op,
                                              std::string &reason);

/// Looks through transposes that swap the two innermost dimensions:
/// `linalg.transpose`, and `linalg.generic` ops that only copy their input
/// through such a permutation; `swapped` toggles once per transpose.
Value stripTransposes(Value value, bool *swapped = nullptr);

/// What a contraction operand is a view of, for role inference:
/// `stripTransposes`, then at most one `tensor.collapse_shape` that merges
/// the leading (batch and token) dimensions of a tensor, `[b, t, h] ->
/// [b*t, h]`, or that merges them after moving the last dimension to the
/// front, `[b, t, h] -> [h, b, t] -> [h, b*t]` (the transpose of the former;
/// `swapped` toggles). Frontends flatten batched activations and gradients
/// that way for linear layers and their weight gradients (IREE's StableHLO
/// input conversion does). The result may have a higher rank than `value`.
Value stripViews(Value value, bool *swapped = nullptr);

/// The matrix that `value`, a [B, R, C] tensor, repeats over its leading
/// (batch) dimension: the rank-2 input of a `linalg.broadcast` with
/// `dimensions = [0]`, or of a `linalg.generic` that only copies it that way
/// (torch-mlir lowers a MatMul of a [B, M, K] activation by a [K, N] weight
/// to a `linalg.batch_matmul` whose B operand is such a broadcast of the
/// weight). Null otherwise.
Value getBatchBroadcastSource(Value value);

/// The kind of an operand tensor.
enum class TensorKind { Unknown, Weight, Activation, Gradient };

llvm::StringRef stringifyTensorKind(TensorKind kind);
TensorKind parseTensorKind(llvm::StringRef name);

/// The operand kinds of a contraction (`nvfp4.kind = [lhs, rhs]`), if set.
std::optional<std::array<TensorKind, 2>> getOperandKinds(Operation *op);
void setOperandKinds(Operation *op, std::array<TensorKind, 2> kinds);

/// `nvfp4.role`, empty when absent.
llvm::StringRef getRole(Operation *op);
/// `nvfp4.layer`, if set.
std::optional<int64_t> getLayer(Operation *op);
/// `nvfp4.precision`, empty when absent.
llvm::StringRef getPrecision(Operation *op);

/// The `nvfp4.precision` value of a contraction selected for `format`:
/// `"fp4"` for NVFP4, the format's name (`"mxfp4"`, `"mxfp8_e4m3"`,
/// `"mxfp8_e5m2"`) for the MX formats.
llvm::StringRef getPrecisionName(Format format);
/// The format a contraction is selected for (`nvfp4.precision` as
/// getPrecisionName writes it), none when it stays in high precision.
std::optional<Format> getSelectedFormat(Operation *op);
/// Parses a format of a precision ladder: `nvfp4`, `mxfp4`, `mxfp8_e4m3`
/// (also `mxfp8`) or `mxfp8_e5m2`.
std::optional<Format> parseLadderFormat(llvm::StringRef name);

/// The kind annotated on a function argument (`nvfp4.kind`), Unknown when
/// `value` is not an annotated entry-block argument of a function.
TensorKind getArgumentKind(Value value);

/// A short, stable rendering of `loc`: `file:line:col` or the name.
std::string formatLocation(Location loc);

/// Whether `loc`, or a location nested in it, is a `NameLoc` named `name`.
bool hasLocationName(Location loc, llvm::StringRef name);

} // namespace nvfp4
} // namespace mlir

#endif // NVFP4_DIALECT_NVFP4_TRANSFORMS_RECIPEUTILS_H
