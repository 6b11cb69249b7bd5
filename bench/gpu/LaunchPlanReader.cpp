//===- LaunchPlanReader.cpp - Launch plans for the GPU benchmarks ---------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "LaunchPlanReader.h"

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

} // namespace

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
    } else if (word == "buffer" || word == "scalar") {
      PlanValue value;
      value.isBuffer = word == "buffer";
      std::string id, shape;
      int64_t index;
      if (!(in >> id) || !parseUnsigned(id, index) ||
          index != int64_t(plan.values.size()))
        return fail("expected the next value number, " +
                    std::to_string(plan.values.size()));
      if (!(in >> value.type) || typeBits(value.type) == 0)
        return fail("unknown type");
      if (value.isBuffer) {
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
      // The bytes must be representable (numElements, byteSize).
      int64_t bits = typeBits(value.type);
      for (int64_t d : value.shape)
        if (__builtin_mul_overflow(bits, d, &bits))
          return fail("a buffer too large");
      if (bits > INT64_MAX - 7)
        return fail("a buffer too large");
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
      if (!readDims("grid", launch.grid, 3) ||
          !readDims("block", launch.block, 3) ||
          !readDims("cluster", launch.cluster, 3) ||
          !readDims("shared", &launch.sharedBytes, 1))
        return fail("expected grid X Y Z block X Y Z cluster X Y Z shared S");
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

std::vector<int64_t> launchParamSizes(const LaunchPlan &plan,
                                      const PlanLaunch &launch) {
  std::vector<int64_t> sizes;
  for (unsigned id : launch.args) {
    const PlanValue &value = plan.values[id];
    if (!value.isBuffer) {
      sizes.push_back(typeBits(value.type) / 8);
      continue;
    }
    // The memref descriptor, flattened: allocated and aligned pointers,
    // offset, then sizes and strides.
    sizes.insert(sizes.end(), 3 + 2 * value.shape.size(), 8);
  }
  return sizes;
}

std::string checkPlanAgainstPtx(const LaunchPlan &plan,
                                const std::string &ptx) {
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
  return launch.kernel + ": grid " + std::to_string(launch.grid[0]) + " " +
         std::to_string(launch.grid[1]) + " " + std::to_string(launch.grid[2]) +
         ", block " + std::to_string(launch.block[0]) + ", " +
         std::to_string(launch.sharedBytes) + " bytes of shared memory";
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
