//===- NVFP4Dialect.cpp - NVFP4 dialect, attributes and types -------------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace mlir::nvfp4;

#include "nvfp4/Dialect/NVFP4/IR/NVFP4OpsDialect.cpp.inc"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Enums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Attributes.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "nvfp4/Dialect/NVFP4/IR/NVFP4OpsTypes.cpp.inc"

void NVFP4Dialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Ops.cpp.inc"
      >();
}

void NVFP4Dialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "nvfp4/Dialect/NVFP4/IR/NVFP4Attributes.cpp.inc"
      >();
}

void NVFP4Dialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "nvfp4/Dialect/NVFP4/IR/NVFP4OpsTypes.cpp.inc"
      >();
}

llvm::ArrayRef<int8_t> mlir::nvfp4::getDefaultHadamardSigns() {
  static const int8_t signs[kBlockSize] = {1,  1,  1,  -1, 1,  -1, -1, -1,
                                           -1, -1, -1, 1,  -1, 1,  -1, -1};
  return signs;
}

//===----------------------------------------------------------------------===//
// BlockAttr
//===----------------------------------------------------------------------===//

/// Parses the bare `RxC` block shape.
static FailureOr<std::pair<int64_t, int64_t>>
parseBlockShape(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t, 2> dims;
  if (parser.parseDimensionList(dims, /*allowDynamic=*/false,
                                /*withTrailingX=*/false))
    return failure();
  if (dims.size() != 2)
    return parser.emitError(loc, "expected a block shape of the form RxC");
  return std::make_pair(dims[0], dims[1]);
}

Attribute BlockAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};
  FailureOr<std::pair<int64_t, int64_t>> shape = parseBlockShape(parser);
  if (failed(shape) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); },
                    parser.getContext(), shape->first, shape->second);
}

void BlockAttr::printShape(AsmPrinter &printer) const {
  printer << getRows() << "x" << getCols();
}

void BlockAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printShape(printer);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// ScaleLayoutAttr at function boundaries
//===----------------------------------------------------------------------===//

std::string mlir::nvfp4::getAtomsScaleLayoutBlocker(NVFP4TensorType type) {
  if (!type.isNVFP4())
    return "the atoms layout holds E4M3 scales of NVFP4, not those of " +
           stringifyFormat(type.getFormat()).str();
  if (type.getBlock().is2D())
    return "the atoms layout holds one scale per row: 16x16 blocks are "
           "stored row-major";
  if (type.getShape().size() < 2)
    return "the atoms layout needs a tensor of rank 2 or more";
  if (!type.hasStaticShape())
    return "the atoms layout needs a static shape";
  const int64_t cols = type.getShape().back();
  const int64_t rows = type.getNumElements() / std::max<int64_t>(cols, 1);
  if (rows % kScaleAtomRows != 0 || cols == 0 ||
      cols / kBlockSize % kScaleAtomBlocks != 0)
    return "the atoms layout needs whole 128x4 atoms: rows (" +
           std::to_string(rows) + ") a multiple of 128 and K/16 (" +
           std::to_string(cols / kBlockSize) + ") a multiple of 4";
  return "";
}

/// Verifies `nvfp4.scale_layout` on argument (or, with `isResult`, result)
/// `index` of the function `op`, and the record a lowering leaves of it
/// (`nvfp4.lowered_scale_layout`: a #nvfp4.scale_layout on a function,
/// whose boundary types later conversions may change); other `nvfp4.*`
/// attributes are the recipe's.
static LogicalResult verifyScaleLayoutAttribute(Operation *op,
                                                unsigned regionIndex,
                                                unsigned index, bool isResult,
                                                NamedAttribute attribute) {
  if (attribute.getName() == NVFP4Dialect::kLoweredScaleLayoutAttrName) {
    if (!isa<FunctionOpInterface>(op) || regionIndex != 0 ||
        !isa<ScaleLayoutAttr>(attribute.getValue()))
      return op->emitOpError()
             << "'" << attribute.getName().getValue()
             << "' must be a #nvfp4.scale_layout attribute of a function "
                "argument or result";
    return success();
  }
  StringRef name = NVFP4Dialect::kScaleLayoutAttrName;
  if (attribute.getName() != name)
    return success();
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function || regionIndex != 0)
    return op->emitOpError()
           << "'" << name << "' applies to function arguments and results only";
  Type type = isResult ? function.getResultTypes()[index]
                       : function.getArgumentTypes()[index];
  std::string what =
      (isResult ? "result #" : "argument #") + std::to_string(index);
  auto layout = dyn_cast<ScaleLayoutAttr>(attribute.getValue());
  if (!layout)
    return op->emitOpError() << "'" << name << "' of " << what
                             << " must be a #nvfp4.scale_layout attribute";
  auto tensorType = dyn_cast<NVFP4TensorType>(type);
  if (!tensorType)
    return op->emitOpError()
           << "'" << name << "' of " << what
           << " applies to !nvfp4.tensor values, not " << type;
  if (layout.getValue() == ScaleLayout::Atoms) {
    std::string blocker = getAtomsScaleLayoutBlocker(tensorType);
    if (!blocker.empty())
      return op->emitOpError()
             << "'" << name << "' of " << what << ": " << blocker;
  }
  return success();
}

LogicalResult NVFP4Dialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned regionIndex,
                                                     unsigned argIndex,
                                                     NamedAttribute attribute) {
  return verifyScaleLayoutAttribute(op, regionIndex, argIndex,
                                    /*isResult=*/false, attribute);
}

LogicalResult
NVFP4Dialect::verifyRegionResultAttribute(Operation *op, unsigned regionIndex,
                                          unsigned resultIndex,
                                          NamedAttribute attribute) {
  return verifyScaleLayoutAttribute(op, regionIndex, resultIndex,
                                    /*isResult=*/true, attribute);
}

LogicalResult BlockAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t rows, int64_t cols) {
  if (!((rows == 1 || rows == 16) && cols == kBlockSize) &&
      !(rows == 1 && cols == kMXBlockSize))
    return emitError() << "block shape must be 1x16 or 16x16 (NVFP4) or 1x32 "
                          "(MX), got "
                       << rows << "x" << cols;
  return success();
}

//===----------------------------------------------------------------------===//
// NVFP4TensorType
//===----------------------------------------------------------------------===//

/// Parses `<d0 x ... x dn, RxC [, format] [, amax|decode]>`.
Type NVFP4TensorType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/false) ||
      parser.parseComma())
    return {};
  SMLoc blockLoc = parser.getCurrentLocation();
  FailureOr<std::pair<int64_t, int64_t>> blockShape = parseBlockShape(parser);
  if (failed(blockShape))
    return {};
  // Up to two keywords follow: a format, then a tensor-scale kind.
  Format format = Format::NVFP4;
  TensorScaleKind tensorScale = TensorScaleKind::Amax;
  bool sawFormat = false, sawTensorScale = false;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keywordLoc = parser.getCurrentLocation();
    StringRef keyword;
    if (parser.parseKeyword(&keyword))
      return {};
    if (std::optional<Format> parsed = symbolizeFormat(keyword);
        parsed && !sawFormat && !sawTensorScale) {
      format = *parsed;
      sawFormat = true;
      continue;
    }
    if (std::optional<TensorScaleKind> kind = symbolizeTensorScaleKind(keyword);
        kind && !sawTensorScale) {
      tensorScale = *kind;
      sawTensorScale = true;
      continue;
    }
    parser.emitError(keywordLoc)
        << "expected "
        << (sawTensorScale ? "'>'"
            : sawFormat
                ? "a tensor scale kind (`amax` or `decode`)"
                : "a format (`nvfp4`, `mxfp4`, `mxfp8_e4m3`, `mxfp8_e5m2`) "
                  "or a tensor scale kind (`amax` or `decode`)")
        << ", got '" << keyword << "'";
    return {};
  }
  if (parser.parseGreater())
    return {};
  BlockAttr block =
      BlockAttr::getChecked([&] { return parser.emitError(blockLoc); },
                            parser.getContext(), blockShape->first,
                            blockShape->second);
  if (!block)
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    shape, block, tensorScale, format);
}

void NVFP4TensorType::print(AsmPrinter &printer) const {
  printer << "<" << formatShape(getShape()) << ", ";
  getBlock().printShape(printer);
  if (!isNVFP4())
    printer << ", " << stringifyFormat(getFormat());
  if (hasDecodeScale())
    printer << ", " << stringifyTensorScaleKind(getTensorScale());
  printer << ">";
}

NVFP4TensorType NVFP4TensorType::withTensorScale(TensorScaleKind kind) const {
  return NVFP4TensorType::get(getContext(), getShape(), getBlock(), kind,
                              getFormat());
}

NVFP4TensorType NVFP4TensorType::withShape(ArrayRef<int64_t> shape) const {
  return NVFP4TensorType::get(getContext(), shape, getBlock(), getTensorScale(),
                              getFormat());
}

LogicalResult
NVFP4TensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                        ArrayRef<int64_t> shape, BlockAttr block,
                        TensorScaleKind tensorScale, Format format) {
  if (!block)
    return emitError() << "expected a block layout";
  bool isMX = format != Format::NVFP4;
  if (isMX != (block.getCols() == kMXBlockSize))
    return emitError() << "format " << stringifyFormat(format)
                       << (isMX ? " takes 1x32 blocks"
                                : " takes 1x16 or 16x16 blocks")
                       << ", got " << block.getRows() << "x" << block.getCols();
  if (isMX && tensorScale == TensorScaleKind::Decode)
    return emitError() << "format " << stringifyFormat(format)
                       << " has no tensor scale; `decode` is NVFP4 only";
  if (shape.empty())
    return emitError() << "NVFP4 tensor must have rank >= 1";
  // Dynamic dimensions (`?`) obey the rules below at run time: the
  // lowerings check them there.
  for (int64_t dim : shape)
    if (!ShapedType::isDynamic(dim) && dim <= 0)
      return emitError() << "NVFP4 tensor dimensions must be positive, got "
                         << dim;
  if (!ShapedType::isDynamic(shape.back()) &&
      shape.back() % block.getCols() != 0)
    return emitError() << "last dimension (" << shape.back()
                       << ") must be a multiple of " << block.getCols();
  // The element count bounds every index a lowering computes on the
  // components (data: 4 or 8 bits an element, scales: 1 byte per block);
  // of a dynamic shape, what its static dimensions alone count.
  SmallVector<int64_t> staticDims = llvm::filter_to_vector(
      shape, [](int64_t dim) { return !ShapedType::isDynamic(dim); });
  if (!getCheckedByteSize(staticDims, getElementBits(format)))
    return emitError() << "NVFP4 tensor shape " << formatShape(shape)
                       << " has more elements than a 64-bit index can count";
  if (block.is2D()) {
    if (shape.size() < 2)
      return emitError() << "16x16 blocks need a tensor of rank >= 2";
    int64_t rows = shape[shape.size() - 2];
    if (!ShapedType::isDynamic(rows) && rows % kBlockSize != 0)
      return emitError() << "second-to-last dimension (" << rows
                         << ") must be a multiple of 16 for 16x16 blocks";
  }
  return success();
}

Type NVFP4TensorType::getElementType() const {
  switch (getFormat()) {
  case Format::NVFP4:
  case Format::MXFP4:
    return Float4E2M1FNType::get(getContext());
  case Format::MXFP8E4M3:
    return Float8E4M3FNType::get(getContext());
  case Format::MXFP8E5M2:
    return Float8E5M2Type::get(getContext());
  }
  llvm_unreachable("unknown format");
}

ShapedType NVFP4TensorType::cloneWith(std::optional<ArrayRef<int64_t>> shape,
                                 Type elementType) const {
  // The element type follows from the format: a request for another element
  // type yields the builtin tensor of that type.
  ArrayRef<int64_t> newShape = shape ? *shape : getShape();
  if (elementType && elementType != getElementType())
    return RankedTensorType::get(newShape, elementType);
  return withShape(newShape);
}

SmallVector<int64_t> NVFP4TensorType::getScalesShape() const {
  SmallVector<int64_t> shape(getShape());
  auto divide = [](int64_t &dim, int64_t by) {
    if (!ShapedType::isDynamic(dim))
      dim /= by;
  };
  divide(shape.back(), getBlock().getCols());
  if (getBlock().is2D())
    divide(shape[shape.size() - 2], kBlockSize);
  return shape;
}

RankedTensorType NVFP4TensorType::getDataType() const {
  return RankedTensorType::get(getShape(), getElementType());
}

RankedTensorType NVFP4TensorType::getScalesType() const {
  Type scaleType = isNVFP4() ? Type(Float8E4M3FNType::get(getContext()))
                             : Type(Float8E8M0FNUType::get(getContext()));
  return RankedTensorType::get(getScalesShape(), scaleType);
}

std::optional<int64_t> mlir::nvfp4::getCheckedByteSize(ArrayRef<int64_t> shape,
                                                      int64_t elementBits) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim) || dim < 0)
      return std::nullopt;
    std::optional<int64_t> product = llvm::checkedMul(count, dim);
    if (!product)
      return std::nullopt;
    count = *product;
  }
  if (elementBits % 8 == 0)
    return llvm::checkedMul(count, elementBits / 8);
  // Sub-byte elements (E2M1 codes, 4 bits): packed, no larger than count.
  assert(elementBits < 8 && 8 % elementBits == 0 && "unexpected bit width");
  const int64_t perByte = 8 / elementBits;
  return count / perByte + (count % perByte != 0);
}

int64_t mlir::nvfp4::getElementBits(Format format) {
  return format == Format::MXFP8E4M3 || format == Format::MXFP8E5M2 ? 8 : 4;
}

std::string mlir::nvfp4::formatShape(ArrayRef<int64_t> shape) {
  std::string str;
  llvm::raw_string_ostream os(str);
  llvm::interleave(
      shape, os,
      [&](int64_t dim) {
        if (ShapedType::isDynamic(dim))
          os << "?";
        else
          os << dim;
      },
      "x");
  return str;
}

/// Whether `type` holds an NVFP4 tensor type strictly inside it.
static bool holdsNestedNVFP4Type(Type type) {
  if (isa<NVFP4TensorType>(type))
    return false;
  bool found = false;
  type.walk([&](NVFP4TensorType) { found = true; });
  return found;
}

LogicalResult mlir::nvfp4::checkLowerableModule(ModuleOp module,
                                                StringRef passName) {
  WalkResult result = module.walk([&](Operation *op) {
    if (op != module.getOperation() && isa<ModuleOp>(op)) {
      op->emitError() << passName
                      << ": nested 'builtin.module' ops are not supported; "
                         "lower each module separately";
      return WalkResult::interrupt();
    }
    auto reject = [&](Type type, StringRef what) {
      op->emitError() << passName << ": " << what << " of type " << type
                      << " holds an NVFP4 tensor inside another type; an "
                         "NVFP4 tensor cannot be an element (pass its "
                         "components, from nvfp4.disassemble, instead)";
      return WalkResult::interrupt();
    };
    if (auto function = dyn_cast<FunctionOpInterface>(op))
      for (Type type : function.getArgumentTypes())
        if (holdsNestedNVFP4Type(type))
          return reject(type, "a function argument");
    if (auto function = dyn_cast<FunctionOpInterface>(op))
      for (Type type : function.getResultTypes())
        if (holdsNestedNVFP4Type(type))
          return reject(type, "a function result");
    for (Type type : op->getResultTypes())
      if (holdsNestedNVFP4Type(type))
        return reject(type, "a result");
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Type type : block.getArgumentTypes())
          if (holdsNestedNVFP4Type(type))
            return reject(type, "a block argument");
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

int64_t NVFP4TensorType::getNumElements() const {
  return ShapedType::getNumElements(getShape());
}
