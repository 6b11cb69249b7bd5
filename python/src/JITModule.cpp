//===- JITModule.cpp - nanobind bindings of compiled programs -------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// The `nvfp4._jit` extension, over the project's C API
// (nvfp4-c/ExecutionEngine.h): a Program is a module lowered by a pass
// pipeline and loaded into MLIR's ExecutionEngine, with its entry
// function's signature. Python (nvfp4/compiler.py) builds the memref
// descriptors and calls `invoke_packed`; this layer only compiles, reports
// the signature and calls, with the GIL released.
//
// Built only with the main (MLIR) build; `pip install ./python` has no
// compiler and nvfp4.compile says so.
//
//===----------------------------------------------------------------------===//

#include "nvfp4-c/ExecutionEngine.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace nb = nanobind;

namespace {

/// One argument or result: its element type as MLIR prints it, its shape
/// (-1 for a dynamic size) or no shape for a scalar, and whether it is a
/// memref (passed by reference) rather than a tensor.
using Slot =
    std::tuple<std::string, std::optional<std::vector<int64_t>>, bool>;

void appendToString(MlirStringRef text, void *userData) {
  static_cast<std::string *>(userData)->append(text.data, text.length);
}

Slot describe(MlirType type) {
  std::string element;
  if (!mlirTypeIsAShaped(type)) {
    mlirTypePrint(type, appendToString, &element);
    return {element, std::nullopt, false};
  }
  mlirTypePrint(mlirShapedTypeGetElementType(type), appendToString, &element);
  std::vector<int64_t> shape;
  for (intptr_t d = 0, rank = mlirShapedTypeGetRank(type); d < rank; ++d)
    shape.push_back(mlirShapedTypeIsDynamicDim(type, d)
                        ? -1
                        : mlirShapedTypeGetDimSize(type, d));
  return {element, shape, mlirTypeIsAMemRef(type)};
}

class Program {
public:
  Program(const std::string &source, const std::string &entry,
          const std::string &pipeline, int optLevel,
          const std::vector<std::string> &sharedLibs) {
    std::vector<MlirStringRef> libs;
    for (const std::string &lib : sharedLibs)
      libs.push_back(mlirStringRefCreate(lib.data(), lib.size()));
    {
      nb::gil_scoped_release release;
      program = mlirNVFP4ProgramCreate(
          mlirStringRefCreate(source.data(), source.size()),
          mlirStringRefCreate(entry.data(), entry.size()),
          mlirStringRefCreate(pipeline.data(), pipeline.size()), optLevel,
          static_cast<intptr_t>(libs.size()), libs.data(), collect,
          &diagnostics);
    }
    if (mlirNVFP4ProgramIsNull(program))
      throw std::runtime_error(diagnostics.empty()
                                   ? std::string("compilation failed")
                                   : diagnostics);
    for (intptr_t i = 0, e = mlirNVFP4ProgramGetNumInputs(program); i < e; ++i)
      inputs.push_back(describe(mlirNVFP4ProgramGetInputType(program, i)));
    for (intptr_t i = 0, e = mlirNVFP4ProgramGetNumResults(program); i < e;
         ++i)
      results.push_back(describe(mlirNVFP4ProgramGetResultType(program, i)));
  }
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  ~Program() { mlirNVFP4ProgramDestroy(program); }

  /// Calls the entry's packed C interface; `arguments` is the address of
  /// an array of `void *`, one per parameter (nvfp4-c/ExecutionEngine.h).
  void invokePacked(uintptr_t arguments) {
    nb::gil_scoped_release release;
    mlirNVFP4ProgramInvokePacked(program,
                                 reinterpret_cast<void **>(arguments));
  }

  std::vector<Slot> inputs;
  std::vector<Slot> results;
  /// The diagnostics of the compilation (warnings too), one per line.
  std::string diagnostics;

private:
  static void collect(MlirStringRef message, void *userData) {
    auto &all = *static_cast<std::string *>(userData);
    if (!all.empty())
      all += "\n";
    all.append(message.data, message.length);
  }

  MlirNVFP4Program program{nullptr};
};

} // namespace

NB_MODULE(_jit, m) {
  m.doc() = "Compiled programs (nvfp4-c/ExecutionEngine.h). Use "
            "nvfp4.compile rather than this module directly.";
  nb::class_<Program>(m, "Program")
      .def(nb::init<const std::string &, const std::string &,
                    const std::string &, int,
                    const std::vector<std::string> &>(),
           nb::arg("source"), nb::arg("entry"), nb::arg("pipeline"),
           nb::arg("opt_level"), nb::arg("shared_libs"))
      .def_ro("inputs", &Program::inputs)
      .def_ro("results", &Program::results)
      .def_ro("diagnostics", &Program::diagnostics)
      .def("invoke_packed", &Program::invokePacked, nb::arg("arguments"));
}
