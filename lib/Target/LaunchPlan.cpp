//===- LaunchPlan.cpp - Host launches of a lowered program as text --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Target/LaunchPlan.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace {

/// The name of component `index` of an NVFP4 tensor (the operand or result
/// order of nvfp4.assemble / nvfp4.disassemble).
StringRef componentName(unsigned index) {
  static const char *const names[] = {"data", "scales", "amax"};
  return names[index];
}

/// "result<i>" when `value` is returned by its function as result i, with
/// ".<component>" when it is a component of an nvfp4.assemble that is;
/// empty otherwise.
std::string returnedAs(Value value) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isa<func::ReturnOp>(user))
      return "result" + std::to_string(use.getOperandNumber());
    if (auto assemble = dyn_cast<nvfp4::AssembleOp>(user)) {
      std::string whole = returnedAs(assemble.getResult());
      if (!whole.empty())
        return whole + "." + componentName(use.getOperandNumber()).str();
    }
  }
  return "";
}

/// The first host operation that computes with `buffer` (an allocation a
/// kernel writes) or with what the function reads of it, or null: its uses
/// may only be launches, deallocation, the function's results (directly,
/// through bufferization.to_tensor, nvfp4.assemble or, for a tensor scale,
/// memref.load) and launches that read it back through a
/// bufferization.to_buffer.
Operation *hostUserOf(Value buffer) {
  auto onlyLaunches = [](Value v) -> Operation * {
    for (Operation *user : v.getUsers())
      if (!isa<gpu::LaunchFuncOp, memref::DeallocOp>(user))
        return user;
    return nullptr;
  };
  for (Operation *user : buffer.getUsers()) {
    if (isa<gpu::LaunchFuncOp, memref::DeallocOp>(user))
      continue;
    Value read;
    if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(user))
      read = toTensor.getResult();
    else if (auto load = dyn_cast<memref::LoadOp>(user))
      read = load.getResult();
    else
      return user;
    for (Operation *reader : read.getUsers()) {
      if (isa<func::ReturnOp, gpu::LaunchFuncOp>(reader))
        continue;
      if (auto assemble = dyn_cast<nvfp4::AssembleOp>(reader)) {
        if (!returnedAs(assemble.getResult()).empty())
          continue;
        return reader;
      }
      if (auto toBuffer = dyn_cast<bufferization::ToBufferOp>(reader)) {
        if (Operation *other = onlyLaunches(toBuffer.getResult()))
          return other;
        continue;
      }
      return reader;
    }
  }
  return nullptr;
}

/// Where a launch operand comes from, or a diagnostic at it.
FailureOr<std::string> sourceOf(Value value, Operation *launch) {
  auto argumentName = [](Value v) -> std::string {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
      return "";
    return "arg" + std::to_string(arg.getArgNumber());
  };
  auto disassembled = [&](Value v) -> std::string {
    auto result = dyn_cast<OpResult>(v);
    auto disassemble =
        result ? dyn_cast<nvfp4::DisassembleOp>(result.getOwner()) : nullptr;
    if (!disassemble)
      return "";
    std::string arg = argumentName(disassemble.getInput());
    if (arg.empty())
      return "";
    return arg + "." + componentName(result.getResultNumber()).str();
  };
  // A function argument passed as it is (a scalar, or a memref argument).
  if (std::string name = argumentName(value); !name.empty())
    return name;
  Operation *def = value.getDefiningOp();
  if (auto toBuffer = dyn_cast_or_null<bufferization::ToBufferOp>(def)) {
    Value tensor = toBuffer.getTensor();
    std::string name = argumentName(tensor);
    if (name.empty())
      name = disassembled(tensor);
    if (!name.empty())
      return name;
  } else if (isa_and_nonnull<memref::AllocOp>(def)) {
    // An allocation only kernels write: one the function returns (through
    // bufferization.to_tensor, directly or as a component of an NVFP4
    // result; a tensor scale through a memref.load), or a temporary. One
    // that host code fills (a relayout, a copy) would reach a plan's kernels
    // unwritten.
    if (Operation *user = hostUserOf(def->getResult(0))) {
      InFlightDiagnostic diag = emitError(user->getLoc())
                                << "launch operand of type " << value.getType()
                                << " is used on the host ('" << user->getName()
                                << "'), which a launch plan cannot express";
      diag.attachNote(launch->getLoc()) << "passed to this launch";
      return diag;
    }
    for (Operation *user : def->getUsers()) {
      std::string name;
      if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(user))
        name = returnedAs(toTensor.getResult());
      else if (auto load = dyn_cast<memref::LoadOp>(user))
        name = returnedAs(load.getResult());
      if (!name.empty())
        return name;
    }
    return std::string("temp");
  } else if (std::string name = disassembled(value); !name.empty()) {
    return name;
  } else if (Attribute constant;
             def && matchPattern(value, m_Constant(&constant))) {
    std::optional<APInt> bits;
    if (auto f = dyn_cast<FloatAttr>(constant))
      bits = f.getValue().bitcastToAPInt();
    else if (auto i = dyn_cast<IntegerAttr>(constant))
      bits = i.getValue();
    if (bits) {
      SmallString<32> hex;
      bits->toStringUnsigned(hex, 16);
      return "const=0x" + std::string(hex);
    }
  }
  if (isa_and_nonnull<memref::LoadOp>(def)) {
    InFlightDiagnostic diag =
        emitError(value.getLoc())
        << "launch operand of type " << value.getType()
        << " is read on the host from a buffer (memref.load), which a "
           "launch plan cannot express: it has no host synchronization";
    diag.attachNote(launch->getLoc()) << "passed to this launch";
    return diag;
  }
  InFlightDiagnostic diag = emitError(value.getLoc())
                            << "launch operand of type " << value.getType()
                            << " cannot be written to a launch plan";
  diag.attachNote(launch->getLoc())
      << "a plan passes buffers of function arguments and results, "
         "temporary allocations, the tensor scales of NVFP4 arguments and "
         "constants (the tcgen05 kernels' tensor maps are built on the host)";
  return diag;
}

/// The buffer a launch operand reads: `bufferization.to_buffer` of a
/// `bufferization.to_tensor` of a buffer (one kernel's result that the next
/// consumes) is that buffer.
Value bufferOf(Value operand) {
  auto toBuffer = operand.getDefiningOp<bufferization::ToBufferOp>();
  if (!toBuffer)
    return operand;
  auto toTensor =
      toBuffer.getTensor().getDefiningOp<bufferization::ToTensorOp>();
  if (!toTensor || toTensor.getBuffer().getType() != operand.getType())
    return operand;
  return toTensor.getBuffer();
}

/// The constant value of launch dimension `value` (`what`), or a diagnostic.
FailureOr<int64_t> constantDimension(Value value, StringRef what,
                                     gpu::LaunchFuncOp launch) {
  APInt v;
  if (matchPattern(value, m_ConstantInt(&v)) && v.isNonNegative())
    return v.getSExtValue();
  return launch.emitError()
         << "launch plans need constant launch dimensions; the " << what
         << " of @" << launch.getKernelName().getValue()
         << " is computed on the host (the tcgen05 kernels' persistent grid "
            "depends on the device's multiprocessor count)";
}

/// "4096x256" for a memref's shape, "0d" for rank 0.
std::string shapeString(MemRefType type) {
  if (type.getRank() == 0)
    return "0d";
  std::string s;
  for (int64_t dim : type.getShape())
    s += (s.empty() ? "" : "x") + std::to_string(dim);
  return s;
}

LogicalResult writeFunctionPlan(func::FuncOp func, raw_ostream &os) {
  SmallVector<gpu::LaunchFuncOp> launches;
  func.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
  if (launches.empty())
    return success();
  std::string body;
  llvm::raw_string_ostream out(body);
  // Values are numbered by SSA value, and those of one source (an
  // argument's component that several launches read through their own
  // disassemble and to_buffer) share the number of its first.
  llvm::DenseMap<Value, unsigned> ids;
  llvm::StringMap<std::pair<unsigned, std::string>> idsBySource;
  unsigned nextId = 0;
  for (gpu::LaunchFuncOp launch : launches) {
    // A plan is straight-line code: it runs each launch once, in order.
    if (launch->getBlock() != &func.getBody().front()) {
      Operation *parent = launch->getParentOp();
      InFlightDiagnostic diag = launch.emitError()
                                << "launch plans describe straight-line host "
                                   "code; this launch is inside ";
      if (parent != func.getOperation())
        diag << "'" << parent->getName() << "'";
      else
        diag << "a block other than the function's entry block";
      return diag;
    }
    SmallVector<unsigned> args;
    for (Value operand : launch.getKernelOperands()) {
      operand = bufferOf(operand);
      if (auto it = ids.find(operand); it != ids.end()) {
        args.push_back(it->second);
        continue;
      }
      Type type = operand.getType();
      auto memref = dyn_cast<MemRefType>(type);
      if (memref &&
          (!memref.hasStaticShape() || !memref.getLayout().isIdentity())) {
        return emitError(operand.getLoc())
               << "launch plans need static, identity-layout buffers, got "
               << type;
      }
      FailureOr<std::string> source = sourceOf(operand, launch);
      if (failed(source))
        return failure();
      std::string line;
      llvm::raw_string_ostream lineOut(line);
      if (memref)
        lineOut << "buffer " << memref.getElementType() << " "
                << shapeString(memref) << " " << *source;
      else if (type.isIntOrIndexOrFloat())
        lineOut << "scalar " << type << " " << *source;
      else
        return emitError(operand.getLoc())
               << "launch operand of type " << type
               << " cannot be written to a launch plan";
      if (*source != "temp") {
        auto [it, inserted] = idsBySource.try_emplace(*source, nextId, line);
        if (!inserted) {
          if (it->second.second != line)
            return emitError(operand.getLoc())
                   << "launch operand '" << *source
                   << "' is passed with two types: " << type;
          ids[operand] = it->second.first;
          args.push_back(it->second.first);
          continue;
        }
      }
      ids[operand] = nextId;
      args.push_back(nextId);
      // "buffer <id> <type> <shape> <source>", "scalar <id> <type> <source>".
      StringRef kind = StringRef(line).split(' ').first;
      out << kind << " " << nextId << line.substr(kind.size()) << "\n";
      ++nextId;
    }
    int64_t dims[12];
    Value values[12] = {launch.getGridSizeX(),  launch.getGridSizeY(),
                        launch.getGridSizeZ(),  launch.getBlockSizeX(),
                        launch.getBlockSizeY(), launch.getBlockSizeZ()};
    static const char *const names[12] = {
        "grid x",  "grid y",    "grid z",    "block x",   "block y",
        "block z", "cluster x", "cluster y", "cluster z", "shared memory size"};
    unsigned count = 6;
    if (launch.hasClusterSize()) {
      values[6] = launch.getClusterSizeX();
      values[7] = launch.getClusterSizeY();
      values[8] = launch.getClusterSizeZ();
      count = 9;
    }
    for (unsigned i = 0; i < count; ++i) {
      FailureOr<int64_t> v = constantDimension(values[i], names[i], launch);
      if (failed(v))
        return failure();
      dims[i] = *v;
    }
    if (count == 6)
      dims[6] = dims[7] = dims[8] = 1;
    int64_t shared = 0;
    if (Value size = launch.getDynamicSharedMemorySize()) {
      FailureOr<int64_t> v = constantDimension(size, names[9], launch);
      if (failed(v))
        return failure();
      shared = *v;
    }
    out << "launch " << launch.getKernelName().getValue() << " grid " << dims[0]
        << " " << dims[1] << " " << dims[2] << " block " << dims[3] << " "
        << dims[4] << " " << dims[5] << " cluster " << dims[6] << " " << dims[7]
        << " " << dims[8] << " shared " << shared << " args";
    for (unsigned id : args)
      out << " " << id;
    out << "\n";
  }
  os << "function " << func.getSymName() << "\n" << body << "end\n";
  return success();
}

} // namespace

LogicalResult mlir::nvfp4::writeLaunchPlan(Operation *op, raw_ostream &os) {
  SmallVector<func::FuncOp> funcs;
  op->walk([&](func::FuncOp func) { funcs.push_back(func); });
  bool any = llvm::any_of(funcs, [](func::FuncOp func) {
    return func.walk([](gpu::LaunchFuncOp) { return WalkResult::interrupt(); })
        .wasInterrupted();
  });
  if (!any)
    return emitError(op->getLoc())
           << "no kernel launches in the module: run nvfp4-opt "
              "--nvfp4-to-ptx first";
  // Nothing is written unless the whole plan is.
  std::string plan = "# nvfp4 launch plan 1\n";
  llvm::raw_string_ostream out(plan);
  for (func::FuncOp func : funcs)
    if (failed(writeFunctionPlan(func, out)))
      return failure();
  os << plan;
  return success();
}
