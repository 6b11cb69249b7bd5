//===- LaunchPlan.cpp - Host launches of a lowered program as text --------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Target/LaunchPlan.h"

#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05Matmul.h"
#include "nvfp4/Conversion/NVFP4ToGPU/Tcgen05/Tcgen05TensorMap.h"
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

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
    if (auto assemble = dyn_cast<mlir::nvfp4::AssembleOp>(user)) {
      std::string whole = returnedAs(assemble.getResult());
      if (!whole.empty())
        return whole + "." + componentName(use.getOperandNumber()).str();
    }
  }
  return "";
}

/// The call that encodes the tensor map `value` is: `value` is the load of a
/// stack slot (`llvm.alloca`) that one kTcgen05TensorMapEncodeFn call,
/// earlier in the same block, writes, and that nothing else uses but loads.
/// Null otherwise.
LLVM::CallOp getTensorMapEncoding(Value value) {
  auto load = value.getDefiningOp<LLVM::LoadOp>();
  if (!load || !load.getAddr().getDefiningOp<LLVM::AllocaOp>())
    return nullptr;
  LLVM::CallOp encode;
  for (OpOperand &use : load.getAddr().getUses()) {
    if (isa<LLVM::LoadOp>(use.getOwner()))
      continue;
    auto call = dyn_cast<LLVM::CallOp>(use.getOwner());
    if (encode || !call ||
        call.getCallee() != mlir::nvfp4::kTcgen05TensorMapEncodeFn ||
        use.getOperandNumber() != 0 || call.getNumOperands() != 8)
      return nullptr;
    encode = call;
  }
  if (!encode || encode->getBlock() != load->getBlock() ||
      !encode->isBeforeInBlock(load))
    return nullptr;
  return encode;
}

/// The first host operation that computes with `buffer` (an allocation a
/// kernel writes) or with what the function reads of it, or null: its uses
/// may only be launches, deallocation, the function's results (directly,
/// through bufferization.to_tensor, nvfp4.assemble or, for a tensor scale,
/// memref.load), launches that read it back through a
/// bufferization.to_buffer, and the addresses of tensor maps.
Operation *hostUserOf(Value buffer) {
  auto onlyLaunches = [](Value v) -> Operation * {
    for (Operation *user : v.getUsers())
      if (!isa<gpu::LaunchFuncOp, memref::DeallocOp>(user) &&
          !mlir::nvfp4::isTcgen05TensorMapAddress(user))
        return user;
    return nullptr;
  };
  for (Operation *user : buffer.getUsers()) {
    if (isa<gpu::LaunchFuncOp, memref::DeallocOp>(user) ||
        mlir::nvfp4::isTcgen05TensorMapAddress(user))
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
      if (auto assemble = dyn_cast<mlir::nvfp4::AssembleOp>(reader)) {
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
        result ? dyn_cast<mlir::nvfp4::DisassembleOp>(result.getOwner())
               : nullptr;
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
         "temporary allocations, the tensor scales of NVFP4 arguments, "
         "constants and the tensor maps of such buffers";
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

/// A launch dimension computed on the host from constants and the device's
/// multiprocessor count (`sm_count`), written as an expression: a
/// non-negative constant in decimal, the arith ops as calls (`add`, `sub`,
/// `mul`, `div`, `ceildiv`, `min`, `max`), e.g. the persistent grid of a
/// tcgen05 CTA pair `mul(min(max(div(sm_count,2),1),32),2)`. Integer casts
/// are transparent: a driver evaluates with non-negative values below 2^31,
/// where the ops' signed and unsigned forms agree on every width of 32 bits
/// or more (narrower values are refused). None for anything else, and for
/// expressions nested deeper than kMaxExpressionDepth or longer than
/// kMaxExpressionLength characters (a plan line is not a program).
constexpr unsigned kMaxExpressionDepth = 32;
constexpr size_t kMaxExpressionLength = 256;
std::optional<std::string> hostExpression(Value value, unsigned depth = 0) {
  auto integer = dyn_cast<IntegerType>(value.getType());
  if (depth > kMaxExpressionDepth ||
      (!value.getType().isIndex() && (!integer || integer.getWidth() < 32)))
    return std::nullopt;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.isNonNegative() && constant.getActiveBits() < 32
               ? std::optional(std::to_string(constant.getZExtValue()))
               : std::nullopt;
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto call = dyn_cast<LLVM::CallOp>(def))
    return call.getCallee() == mlir::nvfp4::kTcgen05MultiprocessorCountFn &&
                   call.getNumOperands() == 0
               ? std::optional<std::string>("sm_count")
               : std::nullopt;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
          arith::ExtSIOp>(def))
    return hostExpression(def->getOperand(0), depth + 1);
  StringRef name =
      llvm::TypeSwitch<Operation *, StringRef>(def)
          .Case<arith::AddIOp>([](auto) { return "add"; })
          .Case<arith::SubIOp>([](auto) { return "sub"; })
          .Case<arith::MulIOp>([](auto) { return "mul"; })
          .Case<arith::DivUIOp, arith::DivSIOp>([](auto) { return "div"; })
          .Case<arith::CeilDivUIOp, arith::CeilDivSIOp>(
              [](auto) { return "ceildiv"; })
          .Case<arith::MinUIOp, arith::MinSIOp>([](auto) { return "min"; })
          .Case<arith::MaxUIOp, arith::MaxSIOp>([](auto) { return "max"; })
          .Default([](Operation *) { return ""; });
  if (name.empty())
    return std::nullopt;
  // The left operand first: a refused one ends the walk, so that shared
  // operands are not expanded further than the length limit allows.
  std::optional<std::string> lhs =
      hostExpression(def->getOperand(0), depth + 1);
  if (!lhs || lhs->size() > kMaxExpressionLength)
    return std::nullopt;
  std::optional<std::string> rhs =
      hostExpression(def->getOperand(1), depth + 1);
  if (!rhs || lhs->size() + rhs->size() > kMaxExpressionLength)
    return std::nullopt;
  return name.str() + "(" + *lhs + "," + *rhs + ")";
}

/// The constant value of launch dimension `value` (`what`), or a diagnostic.
FailureOr<int64_t> constantDimension(Value value, StringRef what,
                                     gpu::LaunchFuncOp launch) {
  APInt v;
  if (matchPattern(value, m_ConstantInt(&v)) && v.isNonNegative())
    return v.getSExtValue();
  return launch.emitError()
         << "launch plans need constant block, cluster and shared-memory "
            "sizes; the "
         << what << " of @" << launch.getKernelName().getValue()
         << " is computed on the host";
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

/// " atoms" when `source` is the scales of an argument or result that the
/// lowering gave the 128x4 atoms layout (`nvfp4.lowered_scale_layout`):
/// a driver fills or reads those bytes swizzled.
std::string scaleLayoutSuffix(func::FuncOp func, StringRef source) {
  StringRef position = source;
  if (!position.consume_back(".scales"))
    return "";
  unsigned index;
  Attribute layout;
  StringRef name = mlir::nvfp4::NVFP4Dialect::kLoweredScaleLayoutAttrName;
  if (position.consume_front("arg") && !position.getAsInteger(10, index) &&
      index < func.getNumArguments())
    layout = func.getArgAttr(index, name);
  else if (position.consume_front("result") &&
           !position.getAsInteger(10, index) && index < func.getNumResults())
    layout = func.getResultAttr(index, name);
  auto scaleLayout = dyn_cast_or_null<mlir::nvfp4::ScaleLayoutAttr>(layout);
  return scaleLayout &&
                 scaleLayout.getValue() == mlir::nvfp4::ScaleLayout::Atoms
             ? " atoms"
             : "";
}

/// Writes the plan of one function: numbers the values its launches pass,
/// writing each value's line before the first launch that passes it.
class FunctionPlanWriter {
public:
  FunctionPlanWriter(func::FuncOp func, raw_ostream &out)
      : func(func), out(out) {}

  LogicalResult writeLaunch(gpu::LaunchFuncOp launch);

private:
  /// The number of launch operand `operand`, writing its line (and those of
  /// what it refers to) on first use.
  FailureOr<unsigned> number(Value operand, gpu::LaunchFuncOp launch);
  /// The line of the tensor map that `encode` writes, numbering the buffer
  /// it describes.
  FailureOr<std::string> tensorMapLine(LLVM::CallOp encode,
                                       gpu::LaunchFuncOp launch);

  func::FuncOp func;
  raw_ostream &out;
  // Values are numbered by SSA value, and those of one source (an
  // argument's component that several launches read through their own
  // disassemble and to_buffer) share the number of its first.
  llvm::DenseMap<Value, unsigned> ids;
  llvm::StringMap<std::pair<unsigned, std::string>> idsBySource;
  unsigned nextId = 0;
};

FailureOr<std::string>
FunctionPlanWriter::tensorMapLine(LLVM::CallOp encode,
                                  gpu::LaunchFuncOp launch) {
  auto refuse = [&](Value at, const Twine &what) {
    InFlightDiagnostic diag = emitError(at.getLoc())
                              << "the tensor map of a launch " << what
                              << ", which a launch plan cannot express";
    diag.attachNote(launch->getLoc()) << "passed to this launch";
    return diag;
  };
  // The address: the aligned pointer of the buffer the map describes.
  Value address = encode.getOperand(1);
  auto toPointer = address.getDefiningOp<LLVM::IntToPtrOp>();
  auto toInteger =
      toPointer ? toPointer.getArg().getDefiningOp<arith::IndexCastUIOp>()
                : nullptr;
  auto pointer =
      toInteger ? toInteger.getIn()
                      .getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>()
                : nullptr;
  if (!pointer)
    return refuse(address, "describes an address other than a buffer's");
  FailureOr<unsigned> buffer = number(pointer.getSource(), launch);
  if (failed(buffer))
    return failure();
  // inner bytes, rows, row stride, box inner bytes, box rows, swizzle.
  uint64_t params[6];
  for (unsigned i = 0; i < 6; ++i) {
    APInt v;
    Value operand = encode.getOperand(2 + i);
    if (!matchPattern(operand, m_ConstantInt(&v)) || v.isNegative() ||
        v.getActiveBits() > 64)
      return refuse(operand, "has a parameter computed on the host");
    params[i] = v.getZExtValue();
  }
  // A map the driver would refuse (Tcgen05TensorMap.h; the address is the
  // driver's allocation, aligned).
  if (params[3] > UINT32_MAX || params[4] > UINT32_MAX || params[5] > 3)
    return refuse(encode.getOperand(2), "has a box or swizzle out of range");
  namespace tc = ::nvfp4::gpu::tcgen05;
  if (tc::TensorMapIssue issue = tc::checkByteTensorMap2D(tc::byteTensorMap2D(
          0, params[0], params[1], params[2], uint32_t(params[3]),
          uint32_t(params[4]), int32_t(params[5])));
      issue != tc::TensorMapIssue::None)
    return refuse(encode.getOperand(2),
                  Twine("has parameters cuTensorMapEncodeTiled refuses (") +
                      tc::describeTensorMapIssue(issue) + ")");
  return "tensormap of " + std::to_string(*buffer) + " bytes " +
         std::to_string(params[0]) + "x" + std::to_string(params[1]) +
         " stride " + std::to_string(params[2]) + " box " +
         std::to_string(params[3]) + "x" + std::to_string(params[4]) +
         " swizzle " + std::to_string(params[5]);
}

FailureOr<unsigned> FunctionPlanWriter::number(Value operand,
                                               gpu::LaunchFuncOp launch) {
  operand = bufferOf(operand);
  if (auto it = ids.find(operand); it != ids.end())
    return it->second;
  Type type = operand.getType();
  auto memref = dyn_cast<MemRefType>(type);
  if (memref &&
      (!memref.hasStaticShape() || !memref.getLayout().isIdentity())) {
    return emitError(operand.getLoc())
           << "launch plans need static, identity-layout buffers, got " << type;
  }
  // "<kind> <rest>": the value's line without its number.
  std::string line;
  std::optional<std::string> source;
  if (LLVM::CallOp encode = getTensorMapEncoding(operand)) {
    FailureOr<std::string> map = tensorMapLine(encode, launch);
    if (failed(map))
      return failure();
    line = *map;
  } else {
    FailureOr<std::string> found = sourceOf(operand, launch);
    if (failed(found))
      return failure();
    source = *found;
    llvm::raw_string_ostream lineOut(line);
    if (memref)
      lineOut << "buffer " << memref.getElementType() << " "
              << shapeString(memref) << " " << *source
              << scaleLayoutSuffix(func, *source);
    else if (type.isIntOrIndexOrFloat())
      lineOut << "scalar " << type << " " << *source;
    else
      return emitError(operand.getLoc())
             << "launch operand of type " << type
             << " cannot be written to a launch plan";
  }
  // Temporaries are each their own; constants are values, not buffers a
  // driver fills, and one bit pattern may come with several types.
  if (source && *source != "temp" &&
      !StringRef(*source).starts_with("const=")) {
    auto [it, inserted] = idsBySource.try_emplace(*source, nextId, line);
    if (!inserted) {
      if (it->second.second != line)
        return emitError(operand.getLoc())
               << "launch operand '" << *source
               << "' is passed with two types: " << type;
      ids[operand] = it->second.first;
      return it->second.first;
    }
  }
  // "buffer <id> <type> <shape> <source> [atoms]", "scalar <id> <type>
  // <source>", "tensormap <id> of <buffer id> bytes ...".
  StringRef kind = StringRef(line).split(' ').first;
  out << kind << " " << nextId << line.substr(kind.size()) << "\n";
  ids[operand] = nextId;
  return nextId++;
}

LogicalResult FunctionPlanWriter::writeLaunch(gpu::LaunchFuncOp launch) {
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
    FailureOr<unsigned> id = number(operand, launch);
    if (failed(id))
      return failure();
    args.push_back(*id);
  }
  std::string grid[3];
  Value gridSizes[3] = {launch.getGridSizeX(), launch.getGridSizeY(),
                        launch.getGridSizeZ()};
  for (unsigned i = 0; i < 3; ++i) {
    std::optional<std::string> expression = hostExpression(gridSizes[i]);
    if (!expression)
      return launch.emitError()
             << "launch plans need grid sizes computed from constants and "
                "the device's multiprocessor count; grid "
             << "xyz"[i] << " of @" << launch.getKernelName().getValue()
             << " is computed otherwise on the host";
    grid[i] = *expression;
  }
  int64_t dims[7];
  Value values[7] = {launch.getBlockSizeX(), launch.getBlockSizeY(),
                     launch.getBlockSizeZ()};
  static const char *const names[7] = {
      "block x",   "block y",   "block z",           "cluster x",
      "cluster y", "cluster z", "shared memory size"};
  unsigned count = 3;
  if (launch.hasClusterSize()) {
    values[3] = launch.getClusterSizeX();
    values[4] = launch.getClusterSizeY();
    values[5] = launch.getClusterSizeZ();
    count = 6;
  }
  for (unsigned i = 0; i < count; ++i) {
    FailureOr<int64_t> v = constantDimension(values[i], names[i], launch);
    if (failed(v))
      return failure();
    dims[i] = *v;
  }
  if (count == 3)
    dims[3] = dims[4] = dims[5] = 1;
  dims[6] = 0;
  if (Value size = launch.getDynamicSharedMemorySize()) {
    FailureOr<int64_t> v = constantDimension(size, names[6], launch);
    if (failed(v))
      return failure();
    dims[6] = *v;
  }
  out << "launch " << launch.getKernelName().getValue() << " grid " << grid[0]
      << " " << grid[1] << " " << grid[2] << " block " << dims[0] << " "
      << dims[1] << " " << dims[2] << " cluster " << dims[3] << " " << dims[4]
      << " " << dims[5] << " shared " << dims[6] << " args";
  for (unsigned id : args)
    out << " " << id;
  out << "\n";
  return success();
}

LogicalResult writeFunctionPlan(func::FuncOp func, raw_ostream &os) {
  SmallVector<gpu::LaunchFuncOp> launches;
  func.walk([&](gpu::LaunchFuncOp launch) { launches.push_back(launch); });
  if (launches.empty())
    return success();
  std::string body;
  llvm::raw_string_ostream out(body);
  FunctionPlanWriter writer(func, out);
  for (gpu::LaunchFuncOp launch : launches)
    if (failed(writer.writeLaunch(launch)))
      return failure();
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
  std::string plan = "# nvfp4 launch plan 2\n";
  llvm::raw_string_ostream out(plan);
  for (func::FuncOp func : funcs)
    if (failed(writeFunctionPlan(func, out)))
      return failure();
  os << plan;
  return success();
}
