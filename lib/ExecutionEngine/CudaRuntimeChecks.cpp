//===- CudaRuntimeChecks.cpp - Checks of GPU results for mlir-runner ------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// libnvfp4_cuda_runtime_checks: C functions, callable from programs lowered
// with `nvfp4-to-gpu-executable` and run by mlir-runner, that compare a GEMM
// computed by the GPU kernels with the reference `nvfp4::matmul`.
//
// The kernels do not accumulate in the reference's order (docs/numerics.md
// §8: exact 16-element block sums, then K/16 rounded f32 additions in
// increasing k): the sm_120a MMA adds four scaled block products per
// instruction in the tensor core's internal precision, and the sm_90a
// fallback adds bf16 products 16 at a time. The check is therefore the §8
// bound with every one of the K products allowed a rounding and with twice
// the unit roundoff (truncating accumulation), per element:
//
//   |C - R| <= (K + 4) * 2^-23 * S + 2^-23 * (|R| + |acc|)   (f32 result)
//   S = |alpha| * sum_k |qA[i,k] sA[i,k/16] * qB[j,k] sB[j,k/16]|
//   alpha = nvfp4::matmulAlpha(amaxA, amaxB)
//
// plus one bf16 ulp of R + acc for a bf16 result (the rounding to bf16 is at
// most half an ulp; the other half covers a rounding of an f32 value that
// differs within the bound above). A bf16 result counts as bit-exact when it
// equals R + acc rounded to nearest-even bf16. Non-finite reference
// values must be matched exactly (NaN by NaN, infinities by value). See
// docs/gpu-runtime.md.
//
// The arguments are validated first: each descriptor (non-negative rank and
// sizes, an element count and element offsets that fit in int64_t), then
// the shapes against each other and the block rows, every size computed
// with nvfp4::checkedMul. An inconsistent call is reported on stderr as
//   nvfp4-cuda-runtime-checks: <entry point>: <what>: <actual>, expected
//   <expected>
// and the check returns -1, reading nothing outside the memrefs' shapes.
//
//===----------------------------------------------------------------------===//

#include "MemRefArguments.h"
#include "nvfp4/Numerics/MX.h"
#include "nvfp4/Numerics/Numerics.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace nvfp4::runtime;

namespace {

/// Reports an invalid call of `entry` on stderr.
void reportInvalid(const char *entry, const std::string &message) {
  nvfp4::runtime::reportInvalid("nvfp4-cuda-runtime-checks", entry, message);
}

/// `x` rounded to the nearest bf16 (ties to even), as f32; NaN stays NaN.
float roundToBF16(float x) {
  if (std::isnan(x))
    return x;
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  bits &= 0xFFFF0000u;
  float r;
  std::memcpy(&r, &bits, sizeof(r));
  return r;
}

/// One unit in the last place of a bf16 at the magnitude of `x` (finite).
double bf16Ulp(double x) {
  if (x == 0.0)
    return std::ldexp(1.0, -133); // the smallest bf16 subnormal
  int exponent;
  std::frexp(std::fabs(x), &exponent); // |x| in [2^(e-1), 2^e)
  return std::ldexp(1.0, std::max(exponent - 1, -126) - 7);
}

float bf16ToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}

/// One operand: codes (one per byte) [batch?, rows, K] and compact scales
/// [batch?, rows / blockRows, K / 16], and the tensor amax.
struct Operand {
  Flat<int8_t> data, scales;
  float amax;
  int64_t blockRows;
  /// Valid after checkShapes.
  int64_t rows() const { return data.shape[data.shape.size() - 2]; }
  int64_t k() const { return data.shape.back(); }
  /// The dequantized value of element (batch, r, k) without the per-tensor
  /// factor: decodeE2M1(code) * decodeE4M3(scale), exact in double.
  double value(int64_t b, int64_t r, int64_t kk) const {
    int64_t rowsN = rows(), kN = k(), kb = kN / 16;
    uint8_t code =
        static_cast<uint8_t>(data.values[(b * rowsN + r) * kN + kk]) & 0xF;
    int64_t scaleRows = rowsN / blockRows;
    uint8_t scale = static_cast<uint8_t>(
        scales.values[(b * scaleRows + r / blockRows) * kb + kk / 16]);
    return static_cast<double>(nvfp4::decodeE2M1(code)) *
           static_cast<double>(nvfp4::decodeE4M3(scale));
  }
  /// The reference library's tensor for batch `b` (packed codes, per-row
  /// scales). Valid after checkShapes.
  nvfp4::QuantizedTensor tensor(int64_t b) const {
    nvfp4::QuantizedTensor t;
    const int64_t rowsN = rows(), kN = k(), kb = kN / 16;
    t.rows = rowsN;
    t.cols = kN;
    t.block = {static_cast<int>(blockRows), 16};
    t.amax = amax;
    t.data.assign(static_cast<size_t>(rowsN * kN / 2), 0);
    t.scales.assign(static_cast<size_t>(rowsN * kb), 0);
    for (int64_t i = 0; i < rowsN * kN; ++i) {
      uint8_t code =
          static_cast<uint8_t>(data.values[b * rowsN * kN + i]) & 0xF;
      t.data[i / 2] |= static_cast<uint8_t>(i % 2 ? code << 4 : code);
    }
    int64_t scaleRows = rowsN / blockRows;
    for (int64_t r = 0; r < rowsN; ++r)
      for (int64_t c = 0; c < kb; ++c)
        t.scales[r * kb + c] = static_cast<uint8_t>(
            scales.values[(b * scaleRows + r / blockRows) * kb + c]);
    return t;
  }
};

/// Validates the codes of a GEMM's operands, its result and (when not null)
/// its accumulator against each other: codes [batch?, M, K] and [batch?, N,
/// K] of rank 2 or 3, K a positive multiple of `blockCols`, a [batch?, M, N]
/// result, batch * M * N * K representable. Returns the first problem.
std::optional<std::string>
checkProductShapes(const std::vector<int64_t> &ad,
                   const std::vector<int64_t> &bd, int64_t blockCols,
                   const std::vector<int64_t> &outShape,
                   const std::vector<int64_t> *accShape) {
  const size_t rank = ad.size();
  if (rank != 2 && rank != 3)
    return "A codes: shape " + bracketed(ad) + " of rank " +
           std::to_string(rank) + ", expected rank 2 or 3";
  const int64_t k = ad.back();
  if (k <= 0 || k % blockCols != 0)
    return "A codes: shape " + bracketed(ad) + ": K = " + std::to_string(k) +
           ", expected a positive multiple of " + std::to_string(blockCols);
  if (bd.size() != rank)
    return "B codes: shape " + bracketed(bd) + " of rank " +
           std::to_string(bd.size()) + ", expected rank " +
           std::to_string(rank) + " (that of A codes " + bracketed(ad) + ")";
  {
    // B: A's batch and K, its own N.
    std::vector<int64_t> want = ad;
    want[rank - 2] = bd[rank - 2];
    if (auto err = expectShape("B codes", bd, want,
                               "(A's batch and K, A codes " + bracketed(ad) +
                                   ")"))
      return err;
  }
  std::vector<int64_t> want = ad;
  want[rank - 1] = bd[rank - 2];
  const int64_t batch = rank == 3 ? ad[0] : 1;
  std::optional<int64_t> mn = nvfp4::checkedMul(ad[rank - 2], bd[rank - 2]);
  std::optional<int64_t> count =
      mn ? nvfp4::checkedMul(batch, *mn) : std::nullopt;
  std::optional<int64_t> work =
      count ? nvfp4::checkedMul(*count, k) : std::nullopt;
  if (!work)
    return "result: " + bracketed(want) + " x K = " + std::to_string(k) +
           " has more elements than int64_t can count";
  const std::string because =
      "(batch? x M x N of A " + bracketed(ad) + " and B " + bracketed(bd) + ")";
  if (auto err = expectShape("result", outShape, want, because))
    return err;
  if (accShape)
    if (auto err = expectShape("acc", *accShape, want, because))
      return err;
  return std::nullopt;
}

/// Validates the shapes of NVFP4 operands (checkProductShapes with blocks
/// of 16): M and N multiples of their block rows (1 or 16), compact scales.
/// Returns the first problem.
std::optional<std::string> checkShapes(const Operand &a, const Operand &b,
                                       const std::vector<int64_t> &outShape,
                                       const std::vector<int64_t> *accShape) {
  if (auto err = checkProductShapes(a.data.shape, b.data.shape, 16, outShape,
                                    accShape))
    return err;
  const size_t rank = a.data.shape.size();
  const int64_t k = a.data.shape.back();
  for (const Operand *o : {&a, &b}) {
    const std::string name = o == &a ? "A" : "B";
    if (o->blockRows != 1 && o->blockRows != 16)
      return name + ": block rows " + std::to_string(o->blockRows) +
             ", expected 1 or 16";
    const int64_t rows = o->data.shape[rank - 2];
    if (rows % o->blockRows != 0)
      return name + " codes: shape " + bracketed(o->data.shape) + ": " +
             std::to_string(rows) + " rows, expected a multiple of " +
             std::to_string(o->blockRows) + " for " +
             std::to_string(o->blockRows) + "x16 blocks";
    std::vector<int64_t> want = o->data.shape;
    want[rank - 2] = rows / o->blockRows;
    want[rank - 1] = k / 16;
    if (auto err = expectShape(
            name + " scales", o->scales.shape, want,
            "for codes " + bracketed(o->data.shape) + " with " +
                std::to_string(o->blockRows) + "x16 blocks"))
      return err;
  }
  return std::nullopt;
}

/// The common check of f32 and bf16 results; `got` holds the result widened
/// to f32. The shapes must have passed checkShapes.
int64_t checkMatmul(const char *entry, const Operand &a, const Operand &b,
                    bool hasAcc, const Flat<float> *acc,
                    const std::vector<float> &got, bool bf16Result) {
  const size_t rank = a.data.shape.size();
  const int64_t batch = rank == 3 ? a.data.shape[0] : 1;
  const int64_t m = a.rows(), n = b.rows(), k = a.k();
  const double u2 = std::ldexp(1.0, -23);
  const double alpha =
      std::fabs(static_cast<double>(nvfp4::matmulAlpha(a.amax, b.amax)));
  int64_t outside = 0, exact = 0, shown = 0;
  double worst = 0.0;
  std::vector<float> ref(static_cast<size_t>(m * n));
  std::vector<double> rowA(static_cast<size_t>(k));
  for (int64_t bi = 0; bi < batch; ++bi) {
    nvfp4::QuantizedTensor ta = a.tensor(bi), tb = b.tensor(bi);
    if (auto err = nvfp4::checkMatmulOperands(ta, tb)) {
      reportInvalid(entry, "batch " + std::to_string(bi) + ": " + *err);
      return kInvalidCall;
    }
    nvfp4::matmul(ta, tb, ref.data());
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t kk = 0; kk < k; ++kk)
        rowA[kk] = std::fabs(a.value(bi, i, kk));
      for (int64_t j = 0; j < n; ++j) {
        size_t idx = static_cast<size_t>((bi * m + i) * n + j);
        float accValue = hasAcc ? acc->values[idx] : 0.0f;
        float want = hasAcc ? ref[i * n + j] + accValue : ref[i * n + j];
        float value = got[idx];
        float exactWant = bf16Result ? roundToBF16(want) : want;
        if (std::memcmp(&exactWant, &value, sizeof(float)) == 0 ||
            (std::isnan(want) && std::isnan(value))) {
          ++exact;
          continue;
        }
        bool ok;
        double error = std::fabs(static_cast<double>(value) - want);
        double bound = 0.0;
        if (!std::isfinite(exactWant) || !std::isfinite(value)) {
          ok = false; // Non-finite values must match exactly.
        } else {
          double s = 0.0;
          for (int64_t kk = 0; kk < k; ++kk)
            s += rowA[kk] * std::fabs(b.value(bi, j, kk));
          s *= alpha;
          bound = (static_cast<double>(k) + 4.0) * u2 * s +
                  u2 * (std::fabs(static_cast<double>(ref[i * n + j])) +
                        std::fabs(static_cast<double>(accValue)));
          if (bf16Result)
            bound += bf16Ulp(static_cast<double>(want));
          ok = error <= bound;
          if (bound > 0.0)
            worst = std::max(worst, error / bound);
          else if (error > 0.0)
            worst = INFINITY;
        }
        if (!ok) {
          if (shown++ < 4)
            std::printf("  C[%zu]: got %a, expected %a, bound %.3e\n", idx,
                        value, want, bound);
          ++outside;
        }
      }
    }
  }
  std::printf("gpu matmul [%s] x [%s]%s%s: outside bound %" PRId64
              " (of %zu), bit-exact %" PRId64 ", max |error| / bound %.2e\n",
              shapeString(a.data.shape).c_str(),
              shapeString(b.data.shape).c_str(), hasAcc ? " acc" : "",
              bf16Result ? " bf16" : "", outside, got.size(), exact, worst);
  std::fflush(stdout);
  return outside;
}

/// An MX operand: element codes (one per byte) [batch?, rows, K] of `type`
/// and E8M0 scales [batch?, rows, K / 32].
struct MXOperand {
  Flat<int8_t> data, scales;
  nvfp4::mx::ElementType type = nvfp4::mx::ElementType::E2M1;
  int64_t rows() const { return data.shape[data.shape.size() - 2]; }
  int64_t k() const { return data.shape.back(); }
  /// The library's tensor of batch `b`. Valid after checkShapes.
  nvfp4::mx::Tensor tensor(int64_t b) const {
    nvfp4::mx::Tensor t;
    const int64_t rowsN = rows(), kN = k();
    t.rows = rowsN;
    t.cols = kN;
    t.elementType = type;
    if (type == nvfp4::mx::ElementType::E2M1) {
      t.data.assign(static_cast<size_t>(rowsN * kN / 2), 0);
      for (int64_t i = 0; i < rowsN * kN; ++i) {
        uint8_t code =
            static_cast<uint8_t>(data.values[b * rowsN * kN + i]) & 0xF;
        t.data[i / 2] |= static_cast<uint8_t>(i % 2 ? code << 4 : code);
      }
    } else {
      for (int64_t i = 0; i < rowsN * kN; ++i)
        t.data.push_back(static_cast<uint8_t>(data.values[b * rowsN * kN + i]));
    }
    const int64_t count = rowsN * kN / nvfp4::mx::kBlockSize;
    for (int64_t i = 0; i < count; ++i)
      t.scales.push_back(static_cast<uint8_t>(scales.values[b * count + i]));
    return t;
  }
};

/// Validates the shapes of MX operands (checkProductShapes with blocks of
/// 32): scales [batch?, rows, K / 32]. Returns the first problem.
std::optional<std::string> checkShapes(const MXOperand &a, const MXOperand &b,
                                       const std::vector<int64_t> &outShape,
                                       const std::vector<int64_t> *accShape) {
  if (auto err = checkProductShapes(a.data.shape, b.data.shape,
                                    nvfp4::mx::kBlockSize, outShape, accShape))
    return err;
  for (const MXOperand *o : {&a, &b}) {
    std::vector<int64_t> want = o->data.shape;
    want.back() /= nvfp4::mx::kBlockSize;
    if (auto err =
            expectShape(o == &a ? "A scales" : "B scales", o->scales.shape,
                        want, "for codes " + bracketed(o->data.shape)))
      return err;
  }
  return std::nullopt;
}

/// Reads and validates the arguments of the entry points (Operand: NVFP4,
/// MXOperand: MX); prints the first
/// problem and returns false when they are inconsistent.
template <typename OperandT, typename Out>
bool readArguments(const char *entry, UnrankedMemRefType<int8_t> *aData,
                   UnrankedMemRefType<int8_t> *aScales,
                   UnrankedMemRefType<int8_t> *bData,
                   UnrankedMemRefType<int8_t> *bScales, int32_t hasAcc,
                   UnrankedMemRefType<float> *acc, UnrankedMemRefType<Out> *out,
                   OperandT &a, OperandT &b, Flat<float> &fa, Flat<Out> &fo) {
  std::optional<std::string> err = flatten("A codes", aData, a.data);
  if (!err)
    err = flatten("A scales", aScales, a.scales);
  if (!err)
    err = flatten("B codes", bData, b.data);
  if (!err)
    err = flatten("B scales", bScales, b.scales);
  if (!err && hasAcc)
    err = flatten("acc", acc, fa);
  if (!err)
    err = flatten("result", out, fo);
  if (!err)
    err = checkShapes(a, b, fo.shape, hasAcc ? &fa.shape : nullptr);
  if (err) {
    reportInvalid(entry, *err);
    return false;
  }
  return true;
}

} // namespace

extern "C" {

/// Checks an f32 result `out` = matmul(A, B) (+ `acc` when `hasAcc`) of
/// MX operands (element codes one per byte of the types `aElementType` /
/// `bElementType`: 0 E2M1, 1 E4M3, 2 E5M2; E8M0 scales [.., K / 32])
/// computed on a GPU against nvfp4::mx::matmul (plus acc in one f32
/// addition) within the bound
///   |C - R| <= (K / 32 + 2) * 2^-23 * S + 2^-23 * (|R| + |acc|),
///   S = sum_k |dqA[i,k] * dqB[j,k]|
/// (the per-block sums are exact; the blocks are accumulated in f32).
/// Prints one line
///   gpu mx matmul [<A shape>] <A type> x [<B shape>] <B type>[ acc]:
///   outside bound <n> (of <count>), bit-exact <e>
/// and returns n (-1 for inconsistent arguments, reported on stderr).
int64_t _mlir_ciface_nvfp4GpuCheckMxMatmul(
    UnrankedMemRefType<int8_t> *aData, UnrankedMemRefType<int8_t> *aScales,
    int32_t aElementType, UnrankedMemRefType<int8_t> *bData,
    UnrankedMemRefType<int8_t> *bScales, int32_t bElementType, int32_t hasAcc,
    UnrankedMemRefType<float> *acc, UnrankedMemRefType<float> *out) {
  const char *entry = "nvfp4GpuCheckMxMatmul";
  MXOperand a, b;
  Flat<float> fa, fo;
  for (auto [operand, code] :
       {std::pair<MXOperand *, int32_t>(&a, aElementType),
        std::pair<MXOperand *, int32_t>(&b, bElementType)}) {
    if (code < 0 || code > 2) {
      reportInvalid(entry, "element type " + std::to_string(code) +
                               ", expected 0 (E2M1), 1 (E4M3) or 2 (E5M2)");
      return kInvalidCall;
    }
    operand->type = static_cast<nvfp4::mx::ElementType>(code);
  }
  if (!readArguments(entry, aData, aScales, bData, bScales, hasAcc, acc, out, a,
                     b, fa, fo))
    return kInvalidCall;
  const size_t rank = a.data.shape.size();
  const int64_t batch = rank == 3 ? a.data.shape[0] : 1;
  const int64_t m = a.rows(), n = b.rows(), k = a.k();
  const double u2 = std::ldexp(1.0, -23);
  int64_t outside = 0, exact = 0, shown = 0;
  std::vector<float> ref(static_cast<size_t>(m * n));
  std::vector<float> da(static_cast<size_t>(m * k)),
      db(static_cast<size_t>(n * k));
  for (int64_t bi = 0; bi < batch; ++bi) {
    nvfp4::mx::Tensor ta = a.tensor(bi), tb = b.tensor(bi);
    if (auto merr = nvfp4::mx::matmul(ta, tb, ref.data())) {
      reportInvalid(entry, "batch " + std::to_string(bi) + ": " + *merr);
      return kInvalidCall;
    }
    nvfp4::mx::dequantize(ta, da.data());
    nvfp4::mx::dequantize(tb, db.data());
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        const size_t idx = static_cast<size_t>((bi * m + i) * n + j);
        const float accValue = hasAcc ? fa.values[idx] : 0.0f;
        const float want = hasAcc ? ref[i * n + j] + accValue : ref[i * n + j];
        const float value = fo.values[idx];
        if (std::memcmp(&want, &value, sizeof(float)) == 0 ||
            (std::isnan(want) && std::isnan(value))) {
          ++exact;
          continue;
        }
        bool ok = false;
        double bound = 0.0;
        if (std::isfinite(want) && std::isfinite(value)) {
          double s = 0.0;
          for (int64_t kk = 0; kk < k; ++kk)
            s += std::fabs(static_cast<double>(da[i * k + kk]) *
                           static_cast<double>(db[j * k + kk]));
          bound =
              (static_cast<double>(k / nvfp4::mx::kBlockSize) + 2.0) * u2 * s +
              u2 * (std::fabs(static_cast<double>(ref[i * n + j])) +
                    std::fabs(static_cast<double>(accValue)));
          ok = std::fabs(static_cast<double>(value) - want) <= bound;
        }
        if (!ok) {
          if (shown++ < 4)
            std::printf("  C[%zu]: got %a, expected %a, bound %.3e\n", idx,
                        value, want, bound);
          ++outside;
        }
      }
    }
  }
  static const char *const names[] = {"e2m1", "e4m3", "e5m2"};
  std::printf("gpu mx matmul [%s] %s x [%s] %s%s: outside bound %" PRId64
              " (of %zu), bit-exact %" PRId64 "\n",
              shapeString(a.data.shape).c_str(), names[aElementType],
              shapeString(b.data.shape).c_str(), names[bElementType],
              hasAcc ? " acc" : "", outside, fo.values.size(), exact);
  std::fflush(stdout);
  return outside;
}

/// Checks an f32 result `out` = matmul(A, B) (+ `acc` when `hasAcc`)
/// computed on a GPU against nvfp4::matmul within the bound above. The
/// operands are the reference lowering's components (codes one per byte,
/// compact scales, block rows 1 or 16) and tensor amaxes. Prints one line
///   gpu matmul [<A shape>] x [<B shape>][ acc]: outside bound <n> (of
///   <count>), bit-exact <e>, max |error| / bound <r>
/// and returns n (-1 for inconsistent arguments, reported on stderr).
int64_t _mlir_ciface_nvfp4GpuCheckMatmul(
    UnrankedMemRefType<int8_t> *aData, UnrankedMemRefType<int8_t> *aScales,
    float aAmax, int64_t aBlockRows, UnrankedMemRefType<int8_t> *bData,
    UnrankedMemRefType<int8_t> *bScales, float bAmax, int64_t bBlockRows,
    int32_t hasAcc, UnrankedMemRefType<float> *acc,
    UnrankedMemRefType<float> *out) {
  const char *entry = "nvfp4GpuCheckMatmul";
  Operand a{{}, {}, aAmax, aBlockRows};
  Operand b{{}, {}, bAmax, bBlockRows};
  Flat<float> fa, fo;
  if (!readArguments(entry, aData, aScales, bData, bScales, hasAcc, acc, out,
                     a, b, fa, fo))
    return kInvalidCall;
  return checkMatmul(entry, a, b, hasAcc != 0, &fa, fo.values, false);
}

/// The same for a bf16 result (`out` holds bf16 bit patterns); `acc`, when
/// used, is given widened to f32.
int64_t _mlir_ciface_nvfp4GpuCheckMatmulBF16(
    UnrankedMemRefType<int8_t> *aData, UnrankedMemRefType<int8_t> *aScales,
    float aAmax, int64_t aBlockRows, UnrankedMemRefType<int8_t> *bData,
    UnrankedMemRefType<int8_t> *bScales, float bAmax, int64_t bBlockRows,
    int32_t hasAcc, UnrankedMemRefType<float> *acc,
    UnrankedMemRefType<int16_t> *out) {
  const char *entry = "nvfp4GpuCheckMatmulBF16";
  Operand a{{}, {}, aAmax, aBlockRows};
  Operand b{{}, {}, bAmax, bBlockRows};
  Flat<float> fa;
  Flat<int16_t> fo;
  if (!readArguments(entry, aData, aScales, bData, bScales, hasAcc, acc, out,
                     a, b, fa, fo))
    return kInvalidCall;
  std::vector<float> got(fo.values.size());
  for (size_t i = 0; i < got.size(); ++i)
    got[i] = bf16ToFloat(static_cast<uint16_t>(fo.values[i]));
  return checkMatmul(entry, a, b, hasAcc != 0, &fa, got, true);
}

} // extern "C"
