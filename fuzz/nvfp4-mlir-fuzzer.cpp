//===- nvfp4-mlir-fuzzer.cpp - libFuzzer target for the nvfp4 compiler ----===//
//
// Part of the NVFP4-MLIR project.
//
// Parses arbitrary bytes as MLIR (the dialects the project's inputs use, and
// the nvfp4 dialect), and on what parses and verifies runs, each on a clone:
//
//   recipe   nvfp4-recipe (remarks on, JSON report written to /dev/null)
//   cpu      nvfp4-to-cpu, down to the LLVM dialect (nothing is executed)
//   gpu      nvfp4-to-ptx for every GPU target (sm_100a, sm_103a, sm_110a,
//            sm_120a, sm_121a, sm_90a), up to and not including
//            nvfp4-gpu-module-to-binary (no NVPTX code generation)
//   emulator nvfp4-to-gpu-emulation for sm_90a and sm_100a (nothing is
//            executed)
//
// The CPU and GPU pipelines run on the recipe's output when the recipe
// succeeded, else on the input. Diagnostics are captured, not printed.
//
// Findings (the process aborts, so libFuzzer saves the input):
//  * a crash, an assertion, a sanitizer report (from the instrumentation);
//  * a pass that succeeds but leaves IR that does not verify: the IR is
//    verified after every pass (the pass manager's own verifier is off, so
//    that such a pass is told apart from a pass that fails);
//  * with NVFP4_FUZZ_STRICT=1, a pipeline that fails without emitting an
//    error diagnostic.
//
// Environment:
//   NVFP4_FUZZ_PIPELINES  comma-separated subset of recipe,cpu,sm_100a,
//                         sm_103a,sm_110a,sm_120a,sm_121a,sm_90a,
//                         emulator-sm_90a,emulator-sm_100a
//                         (default: all)
//   NVFP4_FUZZ_STRICT     1: silent pass failures are findings
//   NVFP4_FUZZ_VERBOSE    1: print the captured diagnostics of every input
//
// Built with clang's -fsanitize=fuzzer when NVFP4_ENABLE_FUZZERS=ON; the same
// source with NVFP4_FUZZ_STANDALONE defined is a replay driver that takes
// files (or directories of files) on the command line.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"
#include "nvfp4/InitAll.h"
#include "nvfp4/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// Inputs above this size are skipped: the pipelines are linear or worse in
/// the size of the IR, and large inputs only slow the search down.
constexpr size_t kMaxInputSize = 32 * 1024;

/// The dialects an input may use: those of the project's inputs and of its
/// lowerings. Inputs using others are skipped, so that the search stays on
/// the project's code rather than on unrelated upstream dialects.
constexpr const char *kInputDialects[] = {
    "builtin", "affine", "arith", "bufferization", "cf",     "func",
    "gpu",     "index",  "linalg", "llvm",         "math",   "memref",
    "nvvm",    "scf",    "tensor", "ub",           "vector", "nvfp4"};

bool usesOnlyInputDialects(ModuleOp module) {
  WalkResult result = module->walk([](Operation *op) {
    llvm::StringRef ns = op->getName().getDialectNamespace();
    return llvm::is_contained(kInputDialects, ns) ? WalkResult::advance()
                                                  : WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

struct Pipeline {
  std::string name;
  /// Textual pipeline, anchored on builtin.module.
  std::string text;
  /// Whether it runs on the recipe's output (else on the input).
  bool afterRecipe;
};

struct Globals {
  DialectRegistry registry;
  std::vector<Pipeline> pipelines;
  bool strict = false;
  bool verbose = false;
};

Globals *globals;

[[noreturn]] void finding(llvm::StringRef what, llvm::StringRef pipeline,
                          llvm::StringRef diagnostics) {
  llvm::errs() << "==nvfp4-fuzz== FINDING in pipeline '" << pipeline
               << "': " << what << "\n";
  llvm::errs() << "==nvfp4-fuzz== diagnostics:\n" << diagnostics << "\n";
  llvm::errs().flush();
  std::abort();
}

/// Verifies the IR after every pass that succeeded.
class VerifyAfterEachPass : public PassInstrumentation {
public:
  VerifyAfterEachPass(llvm::StringRef pipeline, std::string &diagnostics)
      : pipeline(pipeline), diagnostics(diagnostics) {}

  void runAfterPass(Pass *pass, Operation *op) override {
    if (succeeded(verify(op)))
      return;
    std::string what = "pass '" + pass->getName().str() + "' (" +
                       pass->getArgument().str() +
                       ") succeeded but left invalid IR";
    finding(what, pipeline, diagnostics);
  }

private:
  std::string pipeline;
  std::string &diagnostics;
};

/// The textual form of a pipeline built by `build`, cut before the first pass
/// named `stopBefore` (when not empty).
template <typename BuildFn>
std::string pipelineText(BuildFn build, llvm::StringRef stopBefore = {}) {
  OpPassManager pm("builtin.module");
  build(pm);
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);
  os.flush();
  if (!stopBefore.empty()) {
    size_t at = text.find(stopBefore.str());
    if (at == std::string::npos) {
      llvm::errs() << "nvfp4-fuzz: '" << stopBefore << "' not in " << text
                   << "\n";
      std::abort();
    }
    // Drop the separating comma (and spaces) before the cut pass.
    size_t end = at;
    while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == ','))
      --end;
    text = text.substr(0, end) + ")";
  }
  return text;
}

void initialize() {
  globals = new Globals;
  DialectRegistry &registry = globals->registry;
  // The upstream dialects' external interface models (bufferization,
  // ConvertToLLVM, ...) come with registerAllDialects; inputs are restricted
  // to kInputDialects after parsing.
  registerAllDialects(registry);
  registerAllExtensions(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  nvfp4::registerAllDialects(registry);

  // Every pass is registered so that the pipelines round-trip through their
  // textual form.
  registerAllPasses();
  nvfp4::registerAllPasses();

  globals->strict = getenv("NVFP4_FUZZ_STRICT") &&
                    llvm::StringRef(getenv("NVFP4_FUZZ_STRICT")) == "1";
  globals->verbose = getenv("NVFP4_FUZZ_VERBOSE") &&
                     llvm::StringRef(getenv("NVFP4_FUZZ_VERBOSE")) == "1";
  llvm::SmallVector<llvm::StringRef> selected;
  if (const char *env = getenv("NVFP4_FUZZ_PIPELINES"))
    llvm::StringRef(env).split(selected, ',', -1, /*KeepEmpty=*/false);
  auto wanted = [&](llvm::StringRef name) {
    return selected.empty() || llvm::is_contained(selected, name);
  };

  if (wanted("recipe"))
    globals->pipelines.push_back(
        {"recipe",
         pipelineText([](OpPassManager &pm) {
           nvfp4::RecipePipelineOptions options;
           options.remarks = true;
           options.report = "/dev/null";
           nvfp4::buildRecipePipeline(pm, options);
         }),
         false});
  if (wanted("cpu"))
    globals->pipelines.push_back(
        {"cpu",
         pipelineText([](OpPassManager &pm) {
           nvfp4::buildNVFP4ToCPUPipeline(pm, {});
         }),
         true});
  for (const char *target :
       {"sm_100a", "sm_103a", "sm_110a", "sm_120a", "sm_121a", "sm_90a"}) {
    if (!wanted(target))
      continue;
    globals->pipelines.push_back(
        {target,
         pipelineText(
             [&](OpPassManager &pm) {
               nvfp4::NVFP4ToPTXPipelineOptions options;
               options.target = target;
               nvfp4::buildNVFP4ToPTXPipeline(pm, options);
             },
             "nvfp4-gpu-module-to-binary"),
         true});
  }
  // The emulation pipeline (kernels as host functions, launches as emulator
  // calls) for a software-E2M1 target and a tcgen05 one.
  for (const char *target : {"sm_90a", "sm_100a"}) {
    std::string name = std::string("emulator-") + target;
    if (!wanted(name))
      continue;
    globals->pipelines.push_back(
        {name, pipelineText([&](OpPassManager &pm) {
           nvfp4::NVFP4ToPTXPipelineOptions options;
           options.target = target;
           nvfp4::buildNVFP4ToGPUEmulationPipeline(pm, options);
         }),
         true});
  }
  if (globals->verbose)
    for (const Pipeline &p : globals->pipelines)
      llvm::errs() << "nvfp4-fuzz: " << p.name << ": " << p.text << "\n";
}

/// Runs `pipeline` on `module`; returns whether it succeeded.
bool runPipeline(MLIRContext &context, const Pipeline &pipeline,
                 ModuleOp module, std::string &diagnostics,
                 bool &sawError) {
  PassManager pm(&context);
  std::string parseErrors;
  llvm::raw_string_ostream errs(parseErrors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline.text, errs);
  if (failed(parsed)) {
    llvm::errs() << "nvfp4-fuzz: cannot parse the " << pipeline.name
                 << " pipeline: " << errs.str() << "\n"
                 << pipeline.text << "\n";
    std::abort();
  }
  static_cast<OpPassManager &>(pm) = *parsed;
  pm.enableVerifier(false);
  pm.addInstrumentation(
      std::make_unique<VerifyAfterEachPass>(pipeline.name, diagnostics));
  sawError = false;
  size_t before = diagnostics.size();
  bool ok = succeeded(pm.run(module));
  sawError = diagnostics.find("error: ", before) != std::string::npos;
  if (ok && failed(verify(module)))
    finding("the pipeline succeeded but the module does not verify",
            pipeline.name, diagnostics);
  if (!ok && !sawError && globals->strict)
    finding("the pipeline failed without an error diagnostic", pipeline.name,
            diagnostics);
  return ok;
}

int runOne(const uint8_t *data, size_t size) {
  if (size > kMaxInputSize)
    return 0;
  MLIRContext context(globals->registry, MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  context.printStackTraceOnDiagnostic(false);

  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diagnostics.size() > (1u << 16))
      return success();
    llvm::raw_string_ostream os(diagnostics);
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    case DiagnosticSeverity::Note:
      os << "note: ";
      break;
    }
    os << diag << "\n";
    return success();
  });

  // The MLIR lexer reads the byte after the input (it expects a NUL there,
  // as in a file MemoryBuffer); libFuzzer's data has none, so parse a
  // NUL-terminated copy.
  std::string source(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&context, /*verifyAfterParse=*/true);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(llvm::StringRef(source), config);
  if (!module || !usesOnlyInputDialects(*module)) {
    if (globals->verbose)
      llvm::errs() << diagnostics;
    return 0;
  }

  OwningOpRef<ModuleOp> recipeOut;
  for (const Pipeline &pipeline : globals->pipelines) {
    ModuleOp base = *module;
    if (pipeline.afterRecipe && recipeOut)
      base = *recipeOut;
    OwningOpRef<ModuleOp> clone = base.clone();
    bool sawError = false;
    bool ok = runPipeline(context, pipeline, *clone, diagnostics, sawError);
    if (globals->verbose)
      llvm::errs() << "nvfp4-fuzz: " << pipeline.name << ": "
                   << (ok ? "ok" : "failed") << "\n";
    if (ok && pipeline.name == "recipe")
      recipeOut = std::move(clone);
  }
  if (globals->verbose)
    llvm::errs() << diagnostics;
  return 0;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return runOne(data, size);
}

#ifdef NVFP4_FUZZ_STANDALONE
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

// Replays files, or every file below directories, through the target.
int main(int argc, char **argv) {
  initialize();
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (llvm::sys::fs::is_directory(argv[i])) {
      std::error_code ec;
      for (llvm::sys::fs::recursive_directory_iterator it(argv[i], ec), end;
           it != end && !ec; it.increment(ec))
        if (llvm::sys::fs::is_regular_file(it->path()))
          files.push_back(it->path());
    } else {
      files.push_back(argv[i]);
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    if (!buffer) {
      llvm::errs() << "nvfp4-fuzz: cannot read " << file << "\n";
      return 1;
    }
    if (globals->verbose)
      llvm::errs() << "nvfp4-fuzz: " << file << "\n";
    runOne(reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()),
           (*buffer)->getBufferSize());
  }
  llvm::outs() << "nvfp4-fuzz: replayed " << files.size() << " inputs\n";
  return 0;
}
#endif
