//===- LaunchPlanReader.cpp - Launch plans for the GPU benchmarks ---------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "LaunchPlanReader.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05TensorMap.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <fstream>
#include <sstream>

namespace nvfp4::bench {

namespace {

/// Bits of one element of MLIR type `type`; 0 for a type plans do not use.
int64_t typeBits(const std::string &type) {
  if (type == "f4E2M1FN")
    return 4;
  if (type == "i1" || type == "i8" || type.rfind("f8", 0) == 0)
    return 8;
  if (type == "bf16" || type == "f16" || type == "i16")
    return 16;
  if (type == "f32" || type == "i32")
    return 32;
  if (type == "f64" || type == "i64" || type == "index")
    return 64;
  return 0;
}

bool parseUnsigned(const std::string &token, int64_t &value) {
  if (token.empty() ||
      token.find_first_not_of("0123456789") != std::string::npos ||
      token.size() > 18)
    return false;
  value = std::stoll(token);
  return true;
}

/// Reads the expression at `pos` of `text` (evaluateGridSize) into `value`;
/// with `syntaxOnly`, only checks that it is well formed (the values it
/// takes depend on the device).
std::string evaluateAt(const std::string &text, size_t &pos, int64_t smCount,
                       int64_t &value, int depth, bool syntaxOnly) {
  constexpr int64_t kLimit = int64_t(1) << 31;
  if (depth > 64)
    return "nested too deeply";
  size_t end = pos;
  while (end < text.size() &&
         (std::isalnum(uint8_t(text[end])) || text[end] == '_'))
    ++end;
  const std::string word = text.substr(pos, end - pos);
  pos = end;
  if (word == "sm_count") {
    value = smCount;
  } else if (!word.empty() && std::isdigit(uint8_t(word[0]))) {
    if (!parseUnsigned(word, value))
      return "bad number '" + word + "'";
  } else {
    struct Operation {
      const char *name;
      int64_t (*apply)(int64_t, int64_t);
      bool divides = false;
    };
    // Operands below 2^31: nothing overflows; divisors are checked first.
    static const Operation operations[] = {
        {"add", [](int64_t x, int64_t y) { return x + y; }},
        {"sub", [](int64_t x, int64_t y) { return x - y; }},
        {"mul", [](int64_t x, int64_t y) { return x * y; }},
        {"div", [](int64_t x, int64_t y) { return x / y; }, true},
        {"ceildiv", [](int64_t x, int64_t y) { return (x + y - 1) / y; }, true},
        {"min", [](int64_t x, int64_t y) { return std::min(x, y); }},
        {"max", [](int64_t x, int64_t y) { return std::max(x, y); }},
    };
    const Operation *op = nullptr;
    for (const Operation &candidate : operations)
      if (word == candidate.name)
        op = &candidate;
    if (!op)
      return word.empty() ? "expected a number, sm_count or an operation"
                          : "unknown operation '" + word + "'";
    // "(<lhs>,<rhs>)".
    int64_t operands[2];
    for (int i = 0; i < 2; ++i) {
      const char separator = i == 0 ? '(' : ',';
      if (pos >= text.size() || text[pos] != separator)
        return i == 0 ? "expected '(' after " + word
                      : "expected ',' in " + word;
      ++pos;
      if (std::string e = evaluateAt(text, pos, smCount, operands[i], depth + 1,
                                     syntaxOnly);
          !e.empty())
        return e;
    }
    if (pos >= text.size() || text[pos] != ')')
      return "expected ')' after the operands of " + word;
    ++pos;
    if (syntaxOnly)
      return "";
    if (op->divides && operands[1] == 0)
      return "division by zero";
    value = op->apply(operands[0], operands[1]);
  }
  if (!syntaxOnly && (value < 0 || value >= kLimit))
    return "value " + std::to_string(value) + " outside [0, 2^31)";
  return "";
}

/// Whether `expression` is a well-formed grid size.
bool isGridExpression(const std::string &expression) {
  size_t pos = 0;
  int64_t value;
  return evaluateAt(expression, pos, 0, value, 0, /*syntaxOnly=*/true)
             .empty() &&
         pos == expression.size();
}

} // namespace

std::string evaluateGridSize(const std::string &expression, int64_t smCount,
                             unsigned &size) {
  size_t pos = 0;
  int64_t value = 0;
  std::string error =
      evaluateAt(expression, pos, smCount, value, 0, /*syntaxOnly=*/false);
  if (error.empty() && pos != expression.size())
    error = "unexpected '" + expression.substr(pos) + "'";
  if (error.empty() && value == 0)
    error = "a grid size of 0";
  if (!error.empty())
    return "grid size '" + expression + "' with " + std::to_string(smCount) +
           " multiprocessors: " + error;
  size = unsigned(value);
  return "";
}

std::string resolveGrid(const PlanLaunch &launch, int64_t smCount,
                        unsigned grid[3]) {
  for (int i = 0; i < 3; ++i) {
    if (std::string error = evaluateGridSize(launch.grid[i], smCount, grid[i]);
        !error.empty())
      return "kernel " + launch.kernel + ": " + error;
    // A cluster launch needs whole clusters.
    if (launch.cluster[i] == 0 || grid[i] % launch.cluster[i] != 0)
      return "kernel " + launch.kernel + ": grid size '" + launch.grid[i] +
             "' with " + std::to_string(smCount) + " multiprocessors is " +
             std::to_string(grid[i]) + ", not a multiple of the cluster's " +
             std::to_string(launch.cluster[i]);
  }
  return "";
}

int64_t PlanValue::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t PlanValue::byteSize() const {
  return (numElements() * typeBits(type) + 7) / 8;
}

int LaunchPlan::find(const std::string &source) const {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].source == source)
      return int(i);
  return -1;
}

std::string parseLaunchPlan(const std::string &text, LaunchPlan &plan) {
  std::istringstream lines(text);
  std::string line;
  int lineNumber = 0;
  bool ended = false;
  auto fail = [&](const std::string &what) {
    return "launch plan line " + std::to_string(lineNumber) + ": " + what +
           " (\"" + line + "\")";
  };
  while (std::getline(lines, line)) {
    ++lineNumber;
    std::istringstream in(line);
    std::string word;
    if (!(in >> word) || word[0] == '#')
      continue;
    if (ended)
      return fail("a plan of more than one function");
    if (word == "function") {
      if (!plan.function.empty() || !(in >> plan.function))
        return fail("expected one 'function <name>'");
    } else if (word == "end") {
      ended = true;
    } else if (plan.function.empty()) {
      return fail("expected 'function <name>' first");
    } else if (word == "buffer" || word == "scalar" || word == "tensormap") {
      PlanValue value;
      value.kind = word == "buffer"   ? PlanValue::Kind::Buffer
                   : word == "scalar" ? PlanValue::Kind::Scalar
                                      : PlanValue::Kind::TensorMap;
      std::string id, shape;
      int64_t index;
      if (!(in >> id) || !parseUnsigned(id, index) ||
          index != int64_t(plan.values.size()))
        return fail("expected the next value number, " +
                    std::to_string(plan.values.size()));
      if (value.isTensorMap()) {
        // "of <buffer> bytes <inner>x<rows> stride <s> box <inner>x<rows>
        // swizzle <mode>".
        PlanTensorMap &map = value.tensorMap;
        std::string key, token, rest;
        int64_t of, v[6];
        auto readPair = [&](const char *name, int64_t &x, int64_t &y) {
          std::string pair;
          if (!(in >> key) || key != name || !(in >> pair))
            return false;
          size_t cross = pair.find('x');
          return cross != std::string::npos &&
                 parseUnsigned(pair.substr(0, cross), x) &&
                 parseUnsigned(pair.substr(cross + 1), y);
        };
        auto readOne = [&](const char *name, int64_t &x) {
          return (in >> key) && key == name && (in >> token) &&
                 parseUnsigned(token, x);
        };
        if (!readOne("of", of) || !readPair("bytes", v[0], v[1]) ||
            !readOne("stride", v[2]) || !readPair("box", v[3], v[4]) ||
            !readOne("swizzle", v[5]) || (in >> rest))
          return fail("expected 'tensormap <n> of <buffer> bytes <inner>x"
                      "<rows> stride <bytes> box <inner>x<rows> swizzle "
                      "<mode>'");
        if (of >= int64_t(plan.values.size()) ||
            !plan.values[size_t(of)].isBuffer())
          return fail("a tensor map of " + std::to_string(of) +
                      ", which is not a buffer defined above");
        if (v[3] > UINT32_MAX || v[4] > UINT32_MAX || v[5] > 3)
          return fail("a box or swizzle out of range");
        map = {unsigned(of),   uint64_t(v[0]), uint64_t(v[1]), uint64_t(v[2]),
               uint32_t(v[3]), uint32_t(v[4]), int32_t(v[5])};
        plan.values.push_back(value);
        continue;
      }
      if (!(in >> value.type) || typeBits(value.type) == 0)
        return fail("unknown type");
      if (value.isBuffer()) {
        if (!(in >> shape))
          return fail("expected a shape");
        if (shape != "0d") {
          std::istringstream dims(shape);
          std::string dim;
          while (std::getline(dims, dim, 'x')) {
            int64_t d;
            if (!parseUnsigned(dim, d))
              return fail("bad shape");
            value.shape.push_back(d);
          }
        }
      }
      if (!(in >> value.source))
        return fail("expected a source");
      if (std::string layout; in >> layout) {
        if (layout != "atoms" || !value.isBuffer() || value.source.size() < 7 ||
            value.source.compare(value.source.size() - 7, 7, ".scales") != 0)
          return fail("unexpected '" + layout +
                      "' (only the scales of an argument or result are "
                      "marked atoms)");
        value.scaleAtoms = true;
      }
      if (std::string rest; in >> rest)
        return fail("unexpected '" + rest + "'");
      // The bytes must be representable (numElements, byteSize).
      int64_t bits = typeBits(value.type);
      for (int64_t d : value.shape)
        if (__builtin_mul_overflow(bits, d, &bits))
          return fail("a buffer too large");
      if (bits > INT64_MAX - 7)
        return fail("a buffer too large");
      // Atoms are whole 128x4 blocks: rows (over the leading dimensions) a
      // multiple of 128, columns of 4.
      auto wholeAtoms = [](const std::vector<int64_t> &shape) {
        if (shape.size() < 2 || shape.back() % 4 != 0)
          return false;
        int64_t rows = 1;
        for (size_t d = 0; d + 1 < shape.size(); ++d)
          rows *= shape[d];
        return rows % 128 == 0;
      };
      if (value.scaleAtoms && !wholeAtoms(value.shape))
        return fail("scales in atoms need rank 2 or more, rows a multiple "
                    "of 128 and columns of 4");
      // One value per argument or result component: drivers fill and read
      // them by source.
      if (value.source != "temp" && value.source.rfind("const=", 0) != 0 &&
          plan.find(value.source) >= 0)
        return fail("source " + value.source + " appears twice");
      plan.values.push_back(value);
    } else if (word == "launch") {
      PlanLaunch launch;
      std::string key;
      if (!(in >> launch.kernel))
        return fail("expected a kernel name");
      // A grid size: an expression (evaluateGridSize), well formed here,
      // evaluated for the device when launched.
      auto readGrid = [&]() {
        if (!(in >> key) || key != "grid")
          return false;
        for (std::string &dim : launch.grid)
          if (!(in >> dim) || !isGridExpression(dim))
            return false;
        return true;
      };
      auto readDims = [&](const char *name, unsigned *dims, int count) {
        int64_t v;
        std::string token;
        if (!(in >> key) || key != name)
          return false;
        for (int i = 0; i < count; ++i) {
          if (!(in >> token) || !parseUnsigned(token, v) || v > 0xFFFFFFFFll)
            return false;
          dims[i] = unsigned(v);
        }
        return true;
      };
      if (!readGrid() || !readDims("block", launch.block, 3) ||
          !readDims("cluster", launch.cluster, 3) ||
          !readDims("shared", &launch.sharedBytes, 1))
        return fail("expected grid X Y Z block X Y Z cluster X Y Z shared S "
                    "(grid sizes: numbers or expressions of sm_count)");
      for (unsigned d :
           {launch.block[0], launch.block[1], launch.block[2],
            launch.cluster[0], launch.cluster[1], launch.cluster[2]})
        if (d == 0)
          return fail("a block or cluster size of 0");
      if (!(in >> key) || key != "args")
        return fail("expected args");
      std::string arg;
      while (in >> arg) {
        int64_t index;
        if (!parseUnsigned(arg, index) || index >= int64_t(plan.values.size()))
          return fail("argument " + arg + " is not a value defined above");
        launch.args.push_back(unsigned(index));
      }
      plan.launches.push_back(launch);
    } else {
      return fail("unknown line");
    }
  }
  if (plan.function.empty() || !ended)
    return "launch plan: expected 'function <name>' ... 'end'";
  if (plan.launches.empty())
    return "launch plan: function " + plan.function + " launches nothing";
  return "";
}

std::string ptxEntryParamSizes(const std::string &ptx,
                               const std::string &kernel,
                               std::vector<int64_t> &sizes) {
  const std::string head = ".entry " + kernel + "(";
  size_t start = ptx.find(head);
  if (start == std::string::npos)
    return "kernel " + kernel + " is not an entry of the PTX";
  start += head.size();
  size_t stop = ptx.find(')', start);
  if (stop == std::string::npos)
    return "kernel " + kernel + ": unterminated parameter list";
  std::istringstream params(ptx.substr(start, stop - start));
  std::string param;
  sizes.clear();
  while (std::getline(params, param, ',')) {
    if (param.find(".param") == std::string::npos)
      continue;
    // `.param .align A .b8 name[N]`: N bytes; else the scalar's type.
    size_t open = param.find('[');
    if (open != std::string::npos) {
      sizes.push_back(std::stoll(param.substr(open + 1)));
      continue;
    }
    int64_t size = 0;
    std::istringstream words(param);
    std::string word;
    while (words >> word && size == 0) {
      if (word.size() < 3 || word[0] != '.')
        continue;
      const std::string t = word.substr(1);
      static const char *const types[] = {"u", "s", "b", "f"};
      for (const char *prefix : types) {
        for (int bits : {8, 16, 32, 64})
          if (t == prefix + std::to_string(bits))
            size = bits / 8;
      }
      if (t == "bf16")
        size = 2;
    }
    if (size == 0)
      return "kernel " + kernel + ": unrecognized parameter '" + param + "'";
    sizes.push_back(size);
  }
  return "";
}

std::string checkPtxRunsOn(const std::string &ptx, int major, int minor) {
  size_t at = ptx.find(".target ");
  if (at == std::string::npos)
    return "the PTX has no .target";
  std::istringstream in(ptx.substr(at + 8, 32));
  std::string target;
  in >> target;
  if (!target.empty() && target.back() == ',')
    target.pop_back();
  // sm_<major><minor>[a|f]
  size_t digits = 3;
  while (digits < target.size() && std::isdigit(uint8_t(target[digits])))
    ++digits;
  const std::string suffix = target.substr(std::min(digits, target.size()));
  if (target.rfind("sm_", 0) != 0 || digits < 5 || digits > 6 ||
      suffix.size() > 1 ||
      (suffix.size() == 1 && suffix != "a" && suffix != "f"))
    return "the PTX's target '" + target + "' is not sm_<XY>[a|f]";
  const int version = std::stoi(target.substr(3, digits - 3));
  const int device = major * 10 + minor;
  const std::string have = "device 0 has compute capability " +
                           std::to_string(major) + "." + std::to_string(minor);
  if (suffix == "a" && device != version)
    return "the kernels are for " + target +
           ", whose architecture-specific instructions run only on compute "
           "capability " +
           std::to_string(version / 10) + "." + std::to_string(version % 10) +
           "; " + have;
  if (suffix == "f" && (major != version / 10 || minor < version % 10))
    return "the kernels are for " + target +
           ", whose family-specific instructions run only on compute "
           "capability " +
           std::to_string(version / 10) + ".x from " +
           std::to_string(version / 10) + "." + std::to_string(version % 10) +
           "; " + have;
  if (device < version)
    return "the kernels are for " + target + "; " + have;
  return "";
}

std::vector<int64_t> launchParamSizes(const LaunchPlan &plan,
                                      const PlanLaunch &launch) {
  std::vector<int64_t> sizes;
  for (unsigned id : launch.args) {
    const PlanValue &value = plan.values[id];
    if (value.isTensorMap()) {
      sizes.push_back(int64_t(::nvfp4::gpu::tcgen05::kTensorMapObjectBytes));
      continue;
    }
    if (!value.isBuffer()) {
      sizes.push_back(typeBits(value.type) / 8);
      continue;
    }
    // The memref descriptor, flattened: allocated and aligned pointers,
    // offset, then sizes and strides.
    sizes.insert(sizes.end(), 3 + 2 * value.shape.size(), 8);
  }
  return sizes;
}

/// Checks tensor map `value` of `plan` (checkPlanAgainstPtx).
static std::string checkTensorMap(const LaunchPlan &plan,
                                  const PlanValue &value) {
  namespace tc = ::nvfp4::gpu::tcgen05;
  const PlanTensorMap &m = value.tensorMap;
  const PlanValue &buffer = plan.values[m.of];
  // Device allocations are at least 256-byte aligned: address 0 stands
  // for any.
  const tc::ByteTensorMap2D map =
      tc::byteTensorMap2D(0, m.innerBytes, m.outerRows, m.rowStrideBytes,
                          m.boxInnerBytes, m.boxOuterRows, m.swizzle);
  const std::string what = "the tensor map of " + buffer.source + ": ";
  if (tc::TensorMapIssue issue = tc::checkByteTensorMap2D(map);
      issue != tc::TensorMapIssue::None)
    return what + tc::describeTensorMapIssue(issue);
  std::optional<uint64_t> span = tc::tensorMapSpanBytes(map);
  if (!span || *span > uint64_t(buffer.byteSize()))
    return what + "covers " + std::to_string(m.outerRows) + " rows of " +
           std::to_string(m.innerBytes) + " bytes, " +
           std::to_string(m.rowStrideBytes) + " apart, beyond the " +
           std::to_string(buffer.byteSize()) + " bytes of the buffer";
  return "";
}

std::string checkPlan(const LaunchPlan &plan) {
  for (const PlanValue &value : plan.values)
    if (value.isTensorMap())
      if (std::string error = checkTensorMap(plan, value); !error.empty())
        return error;
  // Grids valid on any device of 1 (the lower bound) to
  // kMaxCheckedMultiprocessors SMs.
  for (const PlanLaunch &launch : plan.launches) {
    unsigned grid[3];
    for (int64_t sms = 1; sms <= kMaxCheckedMultiprocessors; ++sms)
      if (std::string error = resolveGrid(launch, sms, grid); !error.empty())
        return error;
  }
  return "";
}

std::string checkPlanAgainstPtx(const LaunchPlan &plan,
                                const std::string &ptx) {
  if (std::string error = checkPlan(plan); !error.empty())
    return error;
  for (const PlanLaunch &launch : plan.launches) {
    std::vector<int64_t> have;
    if (std::string error = ptxEntryParamSizes(ptx, launch.kernel, have);
        !error.empty())
      return error;
    std::vector<int64_t> want = launchParamSizes(plan, launch);
    if (have != want) {
      std::string detail;
      for (int64_t s : have)
        detail += " " + std::to_string(s);
      detail += " (PTX) vs";
      for (int64_t s : want)
        detail += " " + std::to_string(s);
      return "kernel " + launch.kernel +
             ": the plan's arguments do not match the PTX entry's "
             "parameters; bytes per parameter:" +
             detail + " (plan)";
    }
  }
  return "";
}

std::string describeLaunch(const PlanLaunch &launch) {
  std::string text = launch.kernel + ": grid " + launch.grid[0] + " " +
                     launch.grid[1] + " " + launch.grid[2] + ", block " +
                     std::to_string(launch.block[0]);
  if (launch.cluster[0] * launch.cluster[1] * launch.cluster[2] != 1)
    text += ", cluster " + std::to_string(launch.cluster[0]) + " " +
            std::to_string(launch.cluster[1]) + " " +
            std::to_string(launch.cluster[2]);
  return text + ", " + std::to_string(launch.sharedBytes) +
         " bytes of shared memory";
}

bool readFile(const std::string &path, std::string &text) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

} // namespace nvfp4::bench
