//===- ExecutionEngine.cpp - Compile once, call many times ----------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4-c/ExecutionEngine.h"

#include "nvfp4/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <dlfcn.h>
#include <mutex>
#include <vector>

using namespace mlir;

namespace {
/// What mlirNVFP4ProgramCreate builds.
struct Program {
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<ExecutionEngine> engine;
  std::string entry;
  SmallVector<Type> inputs;
  SmallVector<Type> results;
  /// The source, for diagnostics that quote it.
  llvm::SourceMgr sourceMgr;
  /// MLIR's formatting of diagnostics (`file:line:col: error: ...`, the
  /// source line, notes), into `formatted`; each one goes to the embedder's
  /// callback.
  std::string formatted;
  llvm::raw_string_ostream formattedStream{formatted};
  std::unique_ptr<SourceMgrDiagnosticHandler> formatter;
  /// The packed wrapper of the entry's C interface.
  void (*packedEntry)(void **) = nullptr;
  /// The runtime libraries, opened RTLD_LOCAL.
  std::vector<void *> libraries;

  explicit Program(const DialectRegistry &registry)
      : context(registry, MLIRContext::Threading::DISABLED) {}
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  ~Program() {
    // The code calling into the libraries goes first.
    engine.reset();
    using DestroyFn = void (*)();
    for (void *library : libraries) {
      if (auto destroy = reinterpret_cast<DestroyFn>(
              dlsym(library, "__mlir_execution_engine_destroy")))
        destroy();
      dlclose(library);
    }
  }
};
} // namespace

static Program *unwrap(MlirNVFP4Program program) {
  return static_cast<Program *>(program.ptr);
}

/// Whether `type` can cross the entry function's boundary.
static bool isSupportedBoundaryType(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return isa<RankedTensorType, MemRefType>(type) &&
           (shaped.getElementType().isIntOrIndexOrFloat());
  return type.isIntOrIndexOrFloat();
}

/// Checks and prepares the entry function; records its signature.
static LogicalResult prepareEntry(Program &program) {
  auto func = program.module->lookupSymbol<func::FuncOp>(program.entry);
  if (!func || func.isExternal()) {
    emitError(program.module->getLoc())
        << "the module has no function '" << program.entry
        << "' with a body to call";
    return failure();
  }
  if (func.isPrivate())
    return func.emitError() << "the entry function must be public";
  FunctionType type = func.getFunctionType();
  for (auto [index, input] : llvm::enumerate(type.getInputs()))
    if (!isSupportedBoundaryType(input))
      return func.emitError() << "argument " << index << " has type " << input
                              << "; an entry function takes ranked tensors or "
                                 "memrefs of integers and floats, or scalars";
  for (auto [index, result] : llvm::enumerate(type.getResults()))
    if (!isSupportedBoundaryType(result))
      return func.emitError() << "result " << index << " has type " << result
                              << "; an entry function returns ranked tensors "
                                 "or memrefs of integers and floats, or "
                                 "scalars";
  program.inputs.assign(type.getInputs().begin(), type.getInputs().end());
  program.results.assign(type.getResults().begin(), type.getResults().end());

  // The caller's buffers are read-only; the C interface is what it calls.
  Builder b(&program.context);
  for (auto [index, input] : llvm::enumerate(type.getInputs()))
    if (isa<RankedTensorType>(input))
      func.setArgAttr(index,
                      bufferization::BufferizationDialect::kWritableAttrName,
                      b.getBoolAttr(false));
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), b.getUnitAttr());
  return success();
}

MlirNVFP4Program mlirNVFP4ProgramCreate(MlirStringRef source,
                                        MlirStringRef entry,
                                        MlirStringRef pipeline, int optLevel,
                                        intptr_t numSharedLibPaths,
                                        const MlirStringRef *sharedLibPaths,
                                        MlirStringCallback diagnosticCallback,
                                        void *userData) {
  static std::once_flag nativeTargetInitialized;
  std::call_once(nativeTargetInitialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    registerAllPasses();
    nvfp4::registerAllPasses();
  });

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  nvfp4::registerAllDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  auto program = std::make_unique<Program>(registry);
  program->entry = unwrap(entry).str();
  program->sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(unwrap(source), "<source>"),
      llvm::SMLoc());
  program->formatter = std::make_unique<SourceMgrDiagnosticHandler>(
      program->sourceMgr, &program->context, program->formattedStream);
  // Registered after the formatter, so it runs first and the formatter's own
  // handler (which would print to the stream with no one reading it) never
  // does.
  program->context.getDiagEngine().registerHandler(
      [raw = program.get(), diagnosticCallback,
       userData](Diagnostic &diagnostic) {
        raw->formatter->emitDiagnostic(diagnostic.getLocation(),
                                       diagnostic.str(),
                                       diagnostic.getSeverity());
        for (Diagnostic &note : diagnostic.getNotes())
          raw->formatter->emitDiagnostic(note.getLocation(), note.str(),
                                         DiagnosticSeverity::Note);
        StringRef message = StringRef(raw->formatted).rtrim('\n');
        if (diagnosticCallback)
          diagnosticCallback(mlirStringRefCreate(message.data(),
                                                 message.size()),
                             userData);
        raw->formatted.clear();
        return success();
      });
  Location unknown = UnknownLoc::get(&program->context);

  if (optLevel < 0 || optLevel > 3) {
    emitError(unknown) << "the optimization level must be 0 to 3, got "
                       << optLevel;
    return {nullptr};
  }
  program->module = parseSourceFile<ModuleOp>(
      program->sourceMgr, ParserConfig(&program->context));
  if (!program->module || failed(prepareEntry(*program)))
    return {nullptr};

  std::string pipelineError;
  llvm::raw_string_ostream pipelineErrorStream(pipelineError);
  FailureOr<OpPassManager> passes =
      parsePassPipeline(unwrap(pipeline), pipelineErrorStream);
  if (failed(passes) ||
      passes->getOpAnchorName() != ModuleOp::getOperationName()) {
    emitError(unknown) << "invalid pass pipeline '" << unwrap(pipeline)
                       << "': "
                       << (failed(passes) ? StringRef(pipelineError)
                                          : "it must run on builtin.module");
    return {nullptr};
  }
  PassManager pm(&program->context, ModuleOp::getOperationName());
  static_cast<OpPassManager &>(pm) = std::move(*passes);
  if (failed(pm.run(*program->module)))
    return {nullptr};

  // The runtime libraries are opened RTLD_LOCAL, not through
  // ExecutionEngineOptions::sharedLibPaths (RTLD_GLOBAL): that would put
  // their dependencies -- MLIR's runner utilities link libLLVM and libMLIR
  // -- in the process's global scope, where a library loaded later with its
  // own LLVM (PyTorch's Triton, for one) binds to them and crashes. The
  // functions the LLVM module declares (also those the translation adds,
  // such as the GPU runtime's mgpu* calls of gpu.launch_func) are resolved
  // in the symbols a library exports through __mlir_execution_engine_init,
  // then in the libraries, in order, then in the process.
  using InitFn = void (*)(llvm::StringMap<void *> &);
  llvm::StringMap<void *> exported;
  for (intptr_t i = 0; i < numSharedLibPaths; ++i) {
    std::string path = unwrap(sharedLibPaths[i]).str();
    void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      emitError(unknown) << "cannot load the runtime library '" << path
                         << "': " << dlerror();
      return {nullptr};
    }
    program->libraries.push_back(handle);
    if (auto init = reinterpret_cast<InitFn>(
            dlsym(handle, "__mlir_execution_engine_init")))
      init(exported);
  }
  std::vector<std::string> declarations;
  auto buildModule = [&](Operation *op, llvm::LLVMContext &llvmContext) {
    std::unique_ptr<llvm::Module> llvmModule =
        translateModuleToLLVMIR(op, llvmContext);
    if (llvmModule)
      for (llvm::Function &function : llvmModule->functions())
        if (function.isDeclaration() && !function.isIntrinsic())
          declarations.push_back(function.getName().str());
    return llvmModule;
  };

  ExecutionEngineOptions options;
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(optLevel);
  options.llvmModuleBuilder = buildModule;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      ExecutionEngine::create(*program->module, options);
  if (!engine) {
    emitError(program->module->getLoc())
        << "the program cannot be loaded: "
        << llvm::toString(engine.takeError());
    return {nullptr};
  }
  llvm::StringMap<void *> imports;
  for (const std::string &name : declarations) {
    if (void *address = exported.lookup(name)) {
      imports[name] = address;
      continue;
    }
    for (void *library : program->libraries)
      if (void *address = dlsym(library, name.c_str())) {
        imports[name] = address;
        break;
      }
  }
  (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (const auto &import : imports)
      symbols[interner(import.getKey())] = {
          llvm::orc::ExecutorAddr::fromPtr(import.getValue()),
          llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  // Global constructors (llvm.mlir.global_ctors) run now.
  (*engine)->initialize();
  program->engine = std::move(*engine);
  std::string cInterface = "_mlir_ciface_" + program->entry;
  llvm::Expected<void (*)(void **)> packedEntry =
      program->engine->lookupPacked(cInterface);
  if (!packedEntry) {
    emitError(program->module->getLoc())
        << "no C interface '" << cInterface
        << "' in the lowered program: "
        << llvm::toString(packedEntry.takeError());
    return {nullptr};
  }
  program->packedEntry = *packedEntry;
  return {program.release()};
}

void mlirNVFP4ProgramDestroy(MlirNVFP4Program program) {
  delete unwrap(program);
}

intptr_t mlirNVFP4ProgramGetNumInputs(MlirNVFP4Program program) {
  return unwrap(program)->inputs.size();
}

MlirType mlirNVFP4ProgramGetInputType(MlirNVFP4Program program,
                                      intptr_t pos) {
  return wrap(unwrap(program)->inputs[pos]);
}

intptr_t mlirNVFP4ProgramGetNumResults(MlirNVFP4Program program) {
  return unwrap(program)->results.size();
}

MlirType mlirNVFP4ProgramGetResultType(MlirNVFP4Program program,
                                       intptr_t pos) {
  return wrap(unwrap(program)->results[pos]);
}

void mlirNVFP4ProgramInvokePacked(MlirNVFP4Program program,
                                  void **arguments) {
  unwrap(program)->packedEntry(arguments);
}
