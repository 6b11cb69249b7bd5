//===- ImportIREEInput.cpp - IREE input-phase functions to func.func ------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Converts the `util.func` entry points that `iree-compile
// --compile-to=input` writes (with the `hal.buffer_view` ABI of the torch
// input pipeline) into `func.func` on tensors (see Passes.td). IREE's
// dialects are not registered here: the input is parsed in the generic form
// with unregistered dialects allowed, and its operations are recognized by
// name.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::nvfp4 {
#define GEN_PASS_DEF_IMPORTIREEINPUT
#include "nvfp4/Transforms/Passes.h.inc"
} // namespace mlir::nvfp4

using namespace mlir;

/// Warns at each `tensor.cast` in `func` that turns a run-time size of the
/// program into a static one. Such a cast asserts the size without a check:
/// when the size differs at run time, every result that depends on it is
/// wrong. torch-mlir's lowering of `aten.view` (in IREE's ONNX and torch
/// input) emits one, assuming a size of 1, where a reshape merges two
/// run-time sizes (llvm/torch-mlir#4743; docs/frontends.md).
static void warnOnNarrowedRunTimeSizes(Operation *func) {
  func->walk([](tensor::CastOp cast) {
    auto source = dyn_cast<RankedTensorType>(cast.getSource().getType());
    auto dest = dyn_cast<RankedTensorType>(cast.getType());
    if (!source || !dest)
      return;
    for (int64_t i = 0, e = source.getRank(); i < e; ++i) {
      if (!source.isDynamicDim(i) || dest.isDynamicDim(i))
        continue;
      cast.emitWarning("nvfp4-import-iree-input: this cast assumes that "
                       "run-time dimension ")
          << i << " is " << dest.getDimSize(i)
          << " without a check; where it is not, the results are wrong "
             "(torch-mlir's aten.view lowering emits such casts when a "
             "reshape merges run-time sizes, llvm/torch-mlir#4743: see "
             "docs/frontends.md)";
      return;
    }
  });
}

namespace {

bool isNamed(Operation *op, StringRef name) {
  return op->getName().getStringRef() == name;
}

/// Whether `type` is one of IREE's fence or buffer-view types (opaque when
/// the hal dialect is not registered).
bool isHalType(Type type, StringRef name) {
  auto opaque = dyn_cast<OpaqueType>(type);
  return opaque && opaque.getDialectNamespace() == "hal" &&
         opaque.getTypeData() == name;
}

/// The function type of an unregistered `util.func`, null if it has none.
FunctionType getUtilFunctionType(Operation *op) {
  auto attr = op->getAttrOfType<TypeAttr>("function_type");
  return attr ? dyn_cast<FunctionType>(attr.getValue()) : FunctionType();
}

struct ImportIREEInputPass
    : public mlir::nvfp4::impl::ImportIREEInputBase<ImportIREEInputPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> utilFuncs;
    for (Operation &op : module.getBody()->getOperations())
      if (isNamed(&op, "util.func"))
        utilFuncs.push_back(&op);
    for (Operation *op : utilFuncs) {
      bool callsAnother = false;
      op->walk([&](Operation *inner) {
        callsAnother |= isNamed(inner, "util.call");
      });
      if (callsAnother) {
        op->erase();
        continue;
      }
      if (failed(convert(op)))
        return signalPassFailure();
    }
  }

  LogicalResult convert(Operation *op) {
    auto name = op->getAttrOfType<StringAttr>("sym_name");
    if (!name || !getUtilFunctionType(op) || op->getNumRegions() != 1 ||
        op->getRegion(0).empty())
      return op->emitError("nvfp4-import-iree-input: expected a util.func "
                           "with a name, a function type and a body");
    Region &body = op->getRegion(0);
    Block &entry = body.front();

    // The tensors the arguments stand for: the imports' results.
    SmallVector<Type> argTypes;
    SmallVector<std::pair<BlockArgument, Value>> imported;
    for (BlockArgument arg : entry.getArguments()) {
      if (isHalType(arg.getType(), "fence"))
        continue;
      if (!isHalType(arg.getType(), "buffer_view")) {
        argTypes.push_back(arg.getType());
        continue;
      }
      Operation *import = nullptr;
      for (Operation *user : arg.getUsers())
        if (isNamed(user, "hal.tensor.import") && user->getOperand(0) == arg)
          import = user;
      if (!import || import->getNumResults() != 1)
        return op->emitError("nvfp4-import-iree-input: buffer-view argument ")
               << arg.getArgNumber()
               << " is not imported by one hal.tensor.import";
      // Its run-time sizes become dimensions of the tensor (below).
      for (Operation *user : arg.getUsers())
        if (isNamed(user, "hal.buffer_view.dim") &&
            (!user->getAttrOfType<IntegerAttr>("index") ||
             user->getNumResults() != 1 ||
             !user->getResult(0).getType().isIndex()))
          return user->emitError("nvfp4-import-iree-input: expected a "
                                 "hal.buffer_view.dim with an index "
                                 "attribute and an index result");
      argTypes.push_back(import->getResult(0).getType());
      imported.emplace_back(arg, import->getResult(0));
    }

    // Imports, barriers and exports give way to the tensors they carry.
    SmallVector<Operation *> abiOps;
    body.walk([&](Operation *inner) {
      if (isNamed(inner, "hal.tensor.import") ||
          isNamed(inner, "hal.tensor.barrier") ||
          isNamed(inner, "hal.tensor.export"))
        abiOps.push_back(inner);
    });
    for (Operation *abi : abiOps) {
      if (isNamed(abi, "hal.tensor.import"))
        continue; // Replaced by the new arguments below.
      // barrier(tensors..., fence) -> tensors...; export(tensor) -> tensor.
      for (auto [i, result] : llvm::enumerate(abi->getResults()))
        result.replaceAllUsesWith(abi->getOperand(i));
    }

    // The new function, with the body moved in.
    OpBuilder b(op);
    StringRef funcName = name.getValue();
    funcName.consume_back("$async");
    auto func = func::FuncOp::create(b, op->getLoc(), funcName,
                                     b.getFunctionType(argTypes, {}));
    func.getBody().takeBody(body);
    Block &newEntry = func.getBody().front();
    SmallVector<BlockArgument> oldArgs(newEntry.getArguments());
    unsigned next = 0;
    for (BlockArgument arg : oldArgs) {
      if (isHalType(arg.getType(), "fence"))
        continue;
      BlockArgument replacement =
          newEntry.addArgument(argTypes[next++], arg.getLoc());
      auto importedIt = llvm::find_if(
          imported, [&](auto &pair) { return pair.first == arg; });
      if (importedIt == imported.end()) {
        arg.replaceAllUsesWith(replacement);
        continue;
      }
      importedIt->second.replaceAllUsesWith(replacement);
      // A run-time size of an imported tensor, read off its buffer view
      // (`hal.buffer_view.dim`, for the import's dynamic dimensions and for
      // the program), is that dimension of the new tensor argument.
      for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
        if (!isNamed(user, "hal.buffer_view.dim"))
          continue;
        auto index = user->getAttrOfType<IntegerAttr>("index");
        OpBuilder db(user);
        Value dim = tensor::DimOp::create(db, user->getLoc(), replacement,
                                          index.getInt());
        user->getResult(0).replaceAllUsesWith(dim);
        user->erase();
      }
    }
    for (Operation *abi : llvm::reverse(abiOps))
      abi->erase();

    // util.return -> func.return; the results are what it returns.
    SmallVector<Operation *> returns;
    func.walk([&](Operation *inner) {
      if (isNamed(inner, "util.return"))
        returns.push_back(inner);
    });
    SmallVector<Type> resultTypes;
    for (Operation *ret : returns) {
      OpBuilder rb(ret);
      func::ReturnOp::create(rb, ret->getLoc(), ret->getOperands());
      resultTypes.assign(ret->getOperandTypes().begin(),
                         ret->getOperandTypes().end());
      ret->erase();
    }
    if (llvm::any_of(oldArgs,
                     [](BlockArgument arg) { return !arg.use_empty(); }))
      return func.emitError("nvfp4-import-iree-input: a buffer-view or fence "
                            "argument has uses other than the ABI operations");
    newEntry.eraseArguments(0, oldArgs.size());
    func.setFunctionType(b.getFunctionType(argTypes, resultTypes));
    op->erase();

    // What is left must be plain upstream IR.
    WalkResult left = func.walk([&](Operation *inner) {
      if (inner->isRegistered())
        return WalkResult::advance();
      inner->emitError("nvfp4-import-iree-input: '")
          << inner->getName()
          << "' remains in the converted function (expected linalg, tensor, "
             "arith and math bodies)";
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      return failure();
    warnOnNarrowedRunTimeSizes(func);
    return success();
  }
};

} // namespace
