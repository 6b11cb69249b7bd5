//===- ApplyCalibration.cpp - Static activation amaxes from a file -------===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Gives activation quantizes the amax a calibration file records for their
// contraction (see Passes.td): post-training quantization with static
// tensor scales.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Transforms/RecipeUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

namespace mlir {
namespace nvfp4 {
#define GEN_PASS_DEF_NVFP4APPLYCALIBRATION
#include "nvfp4/Dialect/NVFP4/Transforms/Passes.h.inc"
} // namespace nvfp4
} // namespace mlir

using namespace mlir;
using namespace mlir::nvfp4;

namespace {

/// The amaxes one key records: the activation input's (`any`, from a
/// number) or each operand's (`{"lhs": a, "rhs": b}`).
struct CalibrationEntry {
  std::optional<float> any, lhs, rhs;
  bool used = false;

  std::optional<float> forOperand(unsigned index) const {
    if (any)
      return any;
    return index == 0 ? lhs : rhs;
  }
};

/// A calibration file: its entries and their keys, sorted.
struct Calibration {
  std::vector<std::string> keys;
  llvm::StringMap<CalibrationEntry> entries;
};

/// An error in a calibration file: the message and the key it concerns
/// (empty for the file as a whole).
struct CalibrationError {
  std::string message;
  std::string key;
};

/// Reads an amax: a finite, non-negative JSON number.
FailureOr<float> parseAmax(const llvm::json::Value &value, StringRef key,
                           StringRef what, CalibrationError &error) {
  std::optional<double> number = value.getAsNumber();
  if (!number || !std::isfinite(static_cast<float>(*number)) ||
      *number < 0.0) {
    error = {llvm::formatv("'{0}': {1} must be a finite non-negative number",
                           key, what)
                 .str(),
             key.str()};
    return failure();
  }
  return static_cast<float>(*number);
}

FailureOr<Calibration> parseCalibration(StringRef text,
                                        CalibrationError &error) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json) {
    error = {llvm::toString(json.takeError()), ""};
    return failure();
  }
  const llvm::json::Object *object = json->getAsObject();
  if (!object) {
    error = {"expected a JSON object mapping contraction names or locations "
             "to amaxes",
             ""};
    return failure();
  }
  Calibration calibration;
  for (const auto &[jsonKey, value] : *object) {
    std::string key = jsonKey.str();
    CalibrationEntry entry;
    if (const llvm::json::Object *operands = value.getAsObject()) {
      for (const auto &[name, amax] : *operands) {
        if (name != "lhs" && name != "rhs") {
          error = {llvm::formatv("'{0}': unknown operand '{1}' (expected "
                                 "'lhs' or 'rhs')",
                                 key, name.str())
                       .str(),
                   key};
          return failure();
        }
        FailureOr<float> parsed =
            parseAmax(amax, key, "the amax of '" + name.str() + "'", error);
        if (failed(parsed))
          return failure();
        (name == "lhs" ? entry.lhs : entry.rhs) = *parsed;
      }
    } else {
      FailureOr<float> parsed = parseAmax(value, key, "the amax", error);
      if (failed(parsed))
        return failure();
      entry.any = *parsed;
    }
    calibration.keys.push_back(key);
    calibration.entries[key] = entry;
  }
  // llvm::json::Object is unordered: sorted keys give stable diagnostics.
  llvm::sort(calibration.keys);
  return calibration;
}

/// Where `key` is written in the calibration file `text` (named `file`):
/// the line and column of its first quoted occurrence, else the file.
Location keyLocation(MLIRContext *context, StringRef file, StringRef text,
                     StringRef key) {
  std::string quoted = ("\"" + key + "\"").str();
  size_t offset = key.empty() ? StringRef::npos : text.find(quoted);
  if (offset == StringRef::npos)
    return FileLineColLoc::get(context, file, 0, 0);
  StringRef before = text.take_front(offset);
  unsigned line = before.count('\n') + 1;
  size_t lineStart = before.rfind('\n');
  unsigned column =
      offset - (lineStart == StringRef::npos ? 0 : lineStart + 1) + 1;
  return FileLineColLoc::get(context, file, line, column);
}

/// The operand positions (0: lhs, 1: rhs) of the nvfp4.matmul ops that
/// `quantize` feeds, directly or through nvfp4.transpose.
SmallVector<unsigned> matmulOperandIndices(QuantizeOp quantize) {
  SmallVector<unsigned> indices;
  SmallVector<Value> worklist = {quantize.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      if (auto transpose = dyn_cast<TransposeOp>(use.getOwner()))
        worklist.push_back(transpose.getResult());
      else if (isa<MatmulOp>(use.getOwner()) && use.getOperandNumber() < 2)
        indices.push_back(use.getOperandNumber());
    }
  }
  return indices;
}

struct NVFP4ApplyCalibrationPass
    : public nvfp4::impl::NVFP4ApplyCalibrationBase<NVFP4ApplyCalibrationPass> {
  using NVFP4ApplyCalibrationBase::NVFP4ApplyCalibrationBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    // Problems of the file are reported at the file (the entry's line when
    // there is one), without the module attached.
    if (file.empty()) {
      emitError(module.getLoc(), "nvfp4-apply-calibration: no calibration "
                                 "file (set the 'file' option)");
      return signalPassFailure();
    }
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(file);
    if (!buffer) {
      emitError(module.getLoc())
          << "cannot read the calibration file '" << file
          << "': " << buffer.getError().message();
      return signalPassFailure();
    }
    StringRef text = (*buffer)->getBuffer();
    CalibrationError error;
    FailureOr<Calibration> calibration = parseCalibration(text, error);
    if (failed(calibration)) {
      emitError(keyLocation(context, file, text, error.key))
          << "invalid calibration file: " << error.message;
      return signalPassFailure();
    }

    for (auto func : module.getOps<func::FuncOp>())
      applyToFunction(func, *calibration);

    for (const std::string &key : calibration->keys)
      if (!calibration->entries[key].used)
        emitWarning(keyLocation(context, file, text, key))
            << "calibration key '" << key
            << "' names no quantized activation";
  }

  /// The entry of `calibration` that names the location `loc`, if any.
  static CalibrationEntry *lookup(Calibration &calibration, Location loc) {
    auto byLocation = calibration.entries.find(formatLocation(loc));
    if (byLocation != calibration.entries.end())
      return &byLocation->second;
    for (const std::string &key : calibration.keys)
      if (hasLocationName(loc, key))
        return &calibration.entries[key];
    return nullptr;
  }

  void applyToFunction(func::FuncOp func, Calibration &calibration) {
    // One constant per amax value, at the function entry, so that
    // nvfp4-share-quantizations still shares quantizes of one tensor.
    llvm::DenseMap<uint32_t, Value> constants;
    OpBuilder builder(func.getContext());
    func.walk([&](QuantizeOp quantize) {
      // An MX quantization has no tensor amax to calibrate.
      if (quantize.getAmax() || !quantize.getType().isNVFP4() ||
          quantize->getAttrOfType<StringAttr>(NVFP4Dialect::kKindAttrName) !=
              builder.getStringAttr("activation"))
        return;
      CalibrationEntry *entry = lookup(calibration, quantize.getLoc());
      if (!entry)
        return;
      std::optional<float> amax;
      for (unsigned index : matmulOperandIndices(quantize))
        if (std::optional<float> value = entry->forOperand(index))
          amax = amax ? std::max(*amax, *value) : *value;
      if (!amax)
        return;
      entry->used = true;
      Value &constant = constants[llvm::bit_cast<uint32_t>(*amax)];
      if (!constant) {
        builder.setInsertionPointToStart(&func.getBody().front());
        constant = arith::ConstantOp::create(builder, func.getLoc(),
                                             builder.getF32FloatAttr(*amax));
      }
      quantize.getAmaxMutable().assign(constant);
    });
  }
};

} // namespace
