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
//   S = |gA * gB| * sum_k |qA[i,k] sA[i,k/16] * qB[j,k] sB[j,k/16]|
//
// plus one bf16 ulp of R + acc for a bf16 result (the rounding to bf16 is at
// most half an ulp; the other half covers a rounding of an f32 value that
// differs within the bound above). A bf16 result counts as bit-exact when it
// equals R + acc rounded to nearest-even bf16. Non-finite reference
// values must be matched exactly (NaN by NaN, infinities by value). See
// docs/gpu-runtime.md.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Numerics/Numerics.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

/// The elements of a memref in row-major order, and its shape.
template <typename T>
struct Flat {
  std::vector<int64_t> shape;
  std::vector<T> values;
};

template <typename T>
Flat<T> flatten(UnrankedMemRefType<T> *m) {
  DynamicMemRefType<T> d(*m);
  Flat<T> f;
  f.shape.assign(d.sizes, d.sizes + d.rank);
  for (auto it = d.begin(), e = d.end(); it != e; ++it)
    f.values.push_back(*it);
  return f;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
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
/// [batch?, rows / blockRows, K / 16].
struct Operand {
  Flat<int8_t> data, scales;
  float g;
  int64_t blockRows;
  int64_t rows() const { return data.shape[data.shape.size() - 2]; }
  int64_t k() const { return data.shape.back(); }
  /// The dequantized value of element (batch, r, k) without the global
  /// decode scale: decodeE2M1(code) * decodeE4M3(scale), exact in double.
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
  /// scales).
  nvfp4::QuantizedTensor tensor(int64_t b) const {
    nvfp4::QuantizedTensor t;
    const int64_t rowsN = rows(), kN = k(), kb = kN / 16;
    t.rows = rowsN;
    t.cols = kN;
    t.block = {static_cast<int>(blockRows), 16};
    t.globalDecodeScale = g;
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

/// Validates the shapes of the operands and the result; prints the problem
/// and returns false when they are inconsistent.
bool checkShapes(const Operand &a, const Operand &b, size_t outCount,
                 const Flat<float> *acc) {
  auto fail = [](const char *what) {
    std::printf("gpu matmul: invalid operands: %s\n", what);
    std::fflush(stdout);
    return false;
  };
  size_t rank = a.data.shape.size();
  if ((rank != 2 && rank != 3) || b.data.shape.size() != rank ||
      a.scales.shape.size() != rank || b.scales.shape.size() != rank)
    return fail("operands must be all rank 2 or all rank 3");
  if (a.k() != b.k() || a.k() % 16 != 0 || a.k() == 0)
    return fail("K differs or is not a positive multiple of 16");
  for (const Operand *o : {&a, &b}) {
    if (o->blockRows != 1 && o->blockRows != 16)
      return fail("block rows must be 1 or 16");
    if (o->rows() % o->blockRows != 0)
      return fail("rows not a multiple of the block rows");
    if (rank == 3 && (o->data.shape[0] != a.data.shape[0] ||
                      o->scales.shape[0] != a.data.shape[0]))
      return fail("batch sizes differ");
    if (o->scales.shape[rank - 2] != o->rows() / o->blockRows ||
        o->scales.shape[rank - 1] != o->k() / 16)
      return fail("scale shape does not match the data shape");
  }
  int64_t batch = rank == 3 ? a.data.shape[0] : 1;
  size_t want = static_cast<size_t>(batch * a.rows() * b.rows());
  if (outCount != want || (acc && acc->values.size() != want))
    return fail("result (or acc) size is not batch x M x N");
  return true;
}

/// The common check of f32 and bf16 results; `got` holds the result widened
/// to f32.
int64_t checkMatmul(const Operand &a, const Operand &b, bool hasAcc,
                    const Flat<float> *acc, const std::vector<float> &got,
                    bool bf16Result) {
  if (!checkShapes(a, b, got.size(), hasAcc ? acc : nullptr))
    return -1;
  const size_t rank = a.data.shape.size();
  const int64_t batch = rank == 3 ? a.data.shape[0] : 1;
  const int64_t m = a.rows(), n = b.rows(), k = a.k();
  const double u2 = std::ldexp(1.0, -23);
  const double gg = std::fabs(static_cast<double>(a.g) *
                              static_cast<double>(b.g));
  int64_t outside = 0, exact = 0, shown = 0;
  double worst = 0.0;
  std::vector<float> ref(static_cast<size_t>(m * n));
  std::vector<double> rowA(static_cast<size_t>(k));
  for (int64_t bi = 0; bi < batch; ++bi) {
    nvfp4::QuantizedTensor ta = a.tensor(bi), tb = b.tensor(bi);
    if (auto err = nvfp4::checkMatmulOperands(ta, tb)) {
      std::printf("gpu matmul: reference error: %s\n", err->c_str());
      std::fflush(stdout);
      return -1;
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
          s *= gg;
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

} // namespace

extern "C" {

/// Checks an f32 result `out` = matmul(A, B) (+ `acc` when `hasAcc`)
/// computed on a GPU against nvfp4::matmul within the bound above. The
/// operands are the reference lowering's components (codes one per byte,
/// compact scales, block rows 1 or 16). Prints one line
///   gpu matmul [<A shape>] x [<B shape>][ acc]: outside bound <n> (of
///   <count>), bit-exact <e>, max |error| / bound <r>
/// and returns n (-1 for inconsistent operands).
int64_t _mlir_ciface_nvfp4GpuCheckMatmul(
    UnrankedMemRefType<int8_t> *aData, UnrankedMemRefType<int8_t> *aScales,
    float aG, int64_t aBlockRows, UnrankedMemRefType<int8_t> *bData,
    UnrankedMemRefType<int8_t> *bScales, float bG, int64_t bBlockRows,
    int32_t hasAcc, UnrankedMemRefType<float> *acc,
    UnrankedMemRefType<float> *out) {
  Operand a{flatten(aData), flatten(aScales), aG, aBlockRows};
  Operand b{flatten(bData), flatten(bScales), bG, bBlockRows};
  Flat<float> fa;
  if (hasAcc)
    fa = flatten(acc);
  Flat<float> fo = flatten(out);
  return checkMatmul(a, b, hasAcc != 0, &fa, fo.values, false);
}

/// The same for a bf16 result (`out` holds bf16 bit patterns); `acc`, when
/// used, is given widened to f32.
int64_t _mlir_ciface_nvfp4GpuCheckMatmulBF16(
    UnrankedMemRefType<int8_t> *aData, UnrankedMemRefType<int8_t> *aScales,
    float aG, int64_t aBlockRows, UnrankedMemRefType<int8_t> *bData,
    UnrankedMemRefType<int8_t> *bScales, float bG, int64_t bBlockRows,
    int32_t hasAcc, UnrankedMemRefType<float> *acc,
    UnrankedMemRefType<int16_t> *out) {
  Operand a{flatten(aData), flatten(aScales), aG, aBlockRows};
  Operand b{flatten(bData), flatten(bScales), bG, bBlockRows};
  Flat<float> fa;
  if (hasAcc)
    fa = flatten(acc);
  Flat<int16_t> fo = flatten(out);
  std::vector<float> got(fo.values.size());
  for (size_t i = 0; i < got.size(); ++i)
    got[i] = bf16ToFloat(static_cast<uint16_t>(fo.values[i]));
  return checkMatmul(a, b, hasAcc != 0, &fa, got, true);
}

} // extern "C"
