//===- MemRefArguments.h - Validated memref arguments of runtimes -*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Internal to lib/ExecutionEngine: how the runtime entry points that
// mlir-runner programs call (libnvfp4_reference_runtime,
// libnvfp4_cuda_runtime_checks) read their memref arguments: every
// descriptor is validated (null, negative rank or sizes, element counts and
// offsets that overflow int64_t, elements before the buffer) before any
// element is read, and shapes are compared with messages naming the
// argument.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EXECUTIONENGINE_MEMREFARGUMENTS_H
#define NVFP4_LIB_EXECUTIONENGINE_MEMREFARGUMENTS_H

#include "nvfp4/Numerics/Numerics.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace nvfp4::runtime {

/// Reports an invalid call of `entry` of `library` on stderr.
inline void reportInvalid(const char *library, const char *entry,
                          const std::string &message) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: %s: %s\n", library, entry, message.c_str());
  std::fflush(stderr);
}

/// What the checks return for an invalid call.
constexpr int64_t kInvalidCall = -1;

inline std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

/// "[4x8]" (or "[] (rank 0)").
inline std::string bracketed(const std::vector<int64_t> &shape) {
  return "[" + shapeString(shape) + "]" + (shape.empty() ? " (rank 0)" : "");
}

inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

/// A validated strided memref: shape, strides and the element count.
template <typename T> struct View {
  T *data = nullptr;
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;
  int64_t numel = 0;
};

/// Reads the descriptor `m` (argument `name`) into `v`. Fails for a null
/// descriptor, a negative rank or size, an element count beyond int64_t,
/// element offsets that overflow or lie before the aligned pointer, and a
/// null data pointer with elements.
template <typename T>
std::optional<std::string> viewOf(const char *name, UnrankedMemRefType<T> *m,
                                  View<T> &v) {
  const std::string what(name);
  if (!m || !m->descriptor)
    return what + ": null memref descriptor";
  if (m->rank < 0)
    return what + ": negative rank " + std::to_string(m->rank);
  auto *desc = static_cast<StridedMemRefType<T, 1> *>(m->descriptor);
  const int64_t rank = m->rank;
  const int64_t *sizes = rank == 0 ? nullptr : desc->sizes;
  const int64_t *strides = rank == 0 ? nullptr : sizes + rank;
  v.data = desc->data;
  v.offset = desc->offset;
  v.sizes.assign(sizes, sizes + rank);
  v.strides.assign(strides, strides + rank);
  for (int64_t i = 0; i < rank; ++i)
    if (v.sizes[i] < 0)
      return what + ": negative size " + std::to_string(v.sizes[i]) +
             " in dimension " + std::to_string(i);
  std::optional<int64_t> numel = 1;
  for (int64_t i = 0; i < rank && numel; ++i)
    numel = nvfp4::checkedMul(*numel, v.sizes[i]);
  if (!numel)
    return what + ": shape " + bracketed(v.sizes) +
           " has more elements than int64_t can count";
  v.numel = *numel;
  if (v.numel == 0)
    return std::nullopt;
  if (!v.data)
    return what + ": null data pointer for " + std::to_string(v.numel) +
           " elements";
  // Offsets (in elements from the aligned pointer) of the first and last
  // elements along every dimension.
  std::optional<int64_t> lo = v.offset, hi = v.offset;
  for (int64_t i = 0; i < rank && lo && hi; ++i) {
    int64_t step;
    if (__builtin_mul_overflow(v.sizes[i] - 1, v.strides[i], &step)) {
      lo.reset();
      break;
    }
    if (step < 0)
      lo = checkedAdd(*lo, step);
    else
      hi = checkedAdd(*hi, step);
  }
  if (!lo || !hi)
    return what + ": element offsets of shape " + bracketed(v.sizes) +
           " overflow int64_t";
  if (*lo < 0)
    return what + ": elements at offset " + std::to_string(*lo) +
           ", before the start of the buffer";
  return std::nullopt;
}

/// Calls `f(offset)` for the offset of every element of `v`, row-major.
template <typename T, typename F> void forEachOffset(const View<T> &v, F f) {
  const int64_t rank = static_cast<int64_t>(v.sizes.size());
  std::vector<int64_t> index(v.sizes.size(), 0);
  int64_t offset = v.offset;
  for (int64_t n = 0; n < v.numel; ++n) {
    f(offset);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < v.sizes[d]) {
        offset += v.strides[d];
        break;
      }
      offset -= (v.sizes[d] - 1) * v.strides[d];
      index[d] = 0;
    }
  }
}

/// The elements of a memref in row-major order, and its shape.
template <typename T> struct Flat {
  std::vector<int64_t> shape;
  std::vector<T> values;
  int64_t inner() const { return shape.empty() ? 1 : shape.back(); }
  int64_t rows() const {
    int64_t n = inner();
    return n == 0 ? 0 : static_cast<int64_t>(values.size()) / n;
  }
};

/// Validates `m` (argument `name`) and copies its elements into `f`.
template <typename T>
std::optional<std::string> flatten(const char *name, UnrankedMemRefType<T> *m,
                                   Flat<T> &f) {
  View<T> v;
  if (auto err = viewOf(name, m, v))
    return err;
  f.shape = v.sizes;
  f.values.clear();
  f.values.reserve(static_cast<size_t>(v.numel));
  forEachOffset(v, [&](int64_t offset) { f.values.push_back(v.data[offset]); });
  return std::nullopt;
}

/// Writes `values` (row-major) into the validated memref `v`; requires
/// values.size() == v.numel.
template <typename T>
void store(const View<T> &v, const std::vector<T> &values) {
  size_t i = 0;
  forEachOffset(v, [&](int64_t offset) { v.data[offset] = values[i++]; });
}

/// "<name>: shape [..], expected [..]" when `got` differs from `want`.
inline std::optional<std::string> expectShape(const std::string &name,
                                       const std::vector<int64_t> &got,
                                       const std::vector<int64_t> &want,
                                       const std::string &because) {
  if (got == want)
    return std::nullopt;
  return name + ": shape " + bracketed(got) + ", expected " + bracketed(want) +
         " " + because;
}

} // namespace nvfp4::runtime

#endif // NVFP4_LIB_EXECUTIONENGINE_MEMREFARGUMENTS_H
