//===- KernelIR.h - IR helpers shared by the NVFP4 GPU kernels --*- C++ -*-===//
//
// Part of the NVFP4-MLIR project.
//
//===----------------------------------------------------------------------===//
//
// Address arithmetic that every kernel emitter of the NVFP4ToGPU lowering
// (matmul, quantize, dequantize / Hadamard) needs, and the host-side buffer
// of a kernel operand. Internal to the library.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CONVERSION_NVFP4TOGPU_KERNELIR_H
#define NVFP4_LIB_CONVERSION_NVFP4TOGPU_KERNELIR_H

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <cstdint>

namespace mlir::nvfp4::detail {

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

/// An `index` value with operators that emit `arith` operations, so that the
/// index templates shared with the unit tests (MmaLayout.h, QuantizeLayout.h,
/// ElementwiseKernels.h) generate IR. Adding 0 and dividing by 1 emit
/// nothing.
struct IndexExpr {
  OpBuilder *b;
  Location loc;
  Value v;

  IndexExpr cst(int64_t c) const {
    return {b, loc, arith::ConstantIndexOp::create(*b, loc, c)};
  }
  friend IndexExpr operator+(IndexExpr x, IndexExpr y) {
    return {x.b, x.loc, arith::AddIOp::create(*x.b, x.loc, x.v, y.v)};
  }
  friend IndexExpr operator+(IndexExpr x, int64_t c) {
    return c == 0 ? x : x + x.cst(c);
  }
  friend IndexExpr operator*(IndexExpr x, int64_t c) {
    return {x.b, x.loc, arith::MulIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
  friend IndexExpr operator*(IndexExpr x, IndexExpr y) {
    return {x.b, x.loc, arith::MulIOp::create(*x.b, x.loc, x.v, y.v)};
  }
  friend IndexExpr operator/(IndexExpr x, int64_t c) {
    return c == 1 ? x
                  : IndexExpr{
                        x.b, x.loc,
                        arith::DivUIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
  friend IndexExpr operator%(IndexExpr x, int64_t c) {
    return {x.b, x.loc, arith::RemUIOp::create(*x.b, x.loc, x.v, x.cst(c).v)};
  }
  friend IndexExpr operator^(IndexExpr x, IndexExpr y) {
    return {x.b, x.loc, arith::XOrIOp::create(*x.b, x.loc, x.v, y.v)};
  }
};

/// The shape and types of an `nvfp4.matmul` that every matmul kernel is
/// specialized on (MatmulConfig, Tcgen05Config add their tiles).
struct MatmulShape {
  int64_t batch = 0; // 0: unbatched
  int64_t m = 0, n = 0, k = 0;
  int64_t lhsBlockRows = 1, rhsBlockRows = 1;
  /// What each operand's f32 tensor scale is (the epilogue's alpha).
  TensorScaleKind lhsTensorScale = TensorScaleKind::Amax,
                  rhsTensorScale = TensorScaleKind::Amax;
  Type resultElementType;
  bool hasAcc = false;
  /// The operands' formats: both NVFP4, or MX (one E8M0 scale per 1x32
  /// block, no tensor scale).
  Format lhsFormat = Format::NVFP4, rhsFormat = Format::NVFP4;

  static MatmulShape of(MatmulOp op);
  /// Whether M is a run-time size (ShapedType::kDynamic): the kernel reads
  /// it from A's data buffer and bounds the rows of the grid's last tile by
  /// it. N and the batch are static.
  bool hasRunTimeM() const { return ShapedType::isDynamic(m); }
  /// Whether K is a run-time size (both operands' K are): the kernel reads
  /// it from A's data buffer, and the host checks B's against it.
  bool hasRunTimeK() const { return ShapedType::isDynamic(k); }
  bool isMX() const { return lhsFormat != Format::NVFP4; }
  /// Bits of an operand element: 4 (E2M1) or 8 (MXFP8's E4M3, E5M2).
  int64_t elementBits() const { return getElementBits(lhsFormat); }
  /// Elements per block along K: 16 (NVFP4) or 32 (MX).
  int64_t blockCols() const { return isMX() ? 32 : 16; }
  int64_t batches() const { return std::max<int64_t>(batch, 1); }
  /// The kernel-name part of the shape: `b2m128n64k256`, or with a
  /// run-time M `mdyn_n64k256` (one kernel for every M), with a run-time K
  /// `m128n64kdyn`.
  std::string shapeNamePart() const {
    std::string s = batch ? "b" + std::to_string(batch) : "";
    s += hasRunTimeM() ? "mdyn_" : "m" + std::to_string(m);
    return s + "n" + std::to_string(n) + "k" +
           (hasRunTimeK() ? "dyn" : std::to_string(k));
  }
  /// The kernel-name part of the operands: their formats for MX
  /// (`mxfp4_mxfp4_`), their blocks for NVFP4 (`1x16_16x16_`).
  std::string operandsNamePart() const {
    if (isMX())
      return (stringifyFormat(lhsFormat) + "_" + stringifyFormat(rhsFormat) +
              "_")
          .str();
    return std::to_string(lhsBlockRows) + "x16_" +
           std::to_string(rhsBlockRows) + "x16_";
  }
  /// The kernel-name suffix of the tensor-scale kinds: empty for two
  /// amaxes, `_ds_a`, `_ds_b` or `_ds_ab` for the operands with a decode
  /// scale.
  std::string tensorScaleSuffix() const {
    bool a = lhsTensorScale == TensorScaleKind::Decode;
    bool b = rhsTensorScale == TensorScaleKind::Decode;
    if (!a && !b)
      return "";
    return std::string("_ds_") + (a ? "a" : "") + (b ? "b" : "");
  }
};

/// The aligned base address of `memref` as an LLVM pointer in the global
/// address space. Kernels address packed E2M1 and E4M3 buffers by byte
/// through it instead of indexing the memref (see docs/gpu.md, "Storage of
/// E2M1 buffers").
Value createGlobalBasePointer(OpBuilder &b, Location loc, Value memref);

/// `base` advanced by `byteOffset` (an `index`) bytes, as an inbounds GEP.
Value createByteAddress(OpBuilder &b, Location loc, Value base,
                        Value byteOffset);

/// A new kernel `name` at the end of `module`: a `gpu.func` of arguments
/// `argTypes` and workgroup attributions `workgroupTypes`, run by
/// `threads` threads a CTA (its known block size). The builder is left at
/// the start of its body.
gpu::GPUFuncOp createKernelFunc(OpBuilder &b, Location loc,
                                gpu::GPUModuleOp module, StringRef name,
                                TypeRange argTypes, int64_t threads,
                                TypeRange workgroupTypes = {});

/// Declares the dynamic shared memory of `module`'s kernels, `.extern
/// .shared .align <alignment> .b8 <symbol>[]`, unless it is declared.
void declareDynamicSharedMemory(OpBuilder &b, Location loc,
                                gpu::GPUModuleOp module, StringRef symbol,
                                int64_t alignment);

/// Loads the 16 elements of type `elementType` (f32, bf16 or f16) at byte
/// `firstByte` (an `index`, 16-byte aligned) of the global buffer at `base`
/// in 16-byte vectors, each extended to f32 (exactly): the block that the
/// quantize, amax and Hadamard kernels work on.
SmallVector<Value> createBlockLoadF32(OpBuilder &b, Location loc, Value base,
                                      Value firstByte, Type elementType);

/// Applies the 16-point random Hadamard transform to the f32 values `v` in
/// place, in the exact operation order of the reference library
/// (docs/numerics.md): negate element j when bit j of `negateMask` is set,
/// butterflies (a + b, a - b) with strides 1, 2, 4, 8, then multiply by 0.25.
/// Every kernel that transforms (quantize, Hadamard) emits it through here,
/// so they cannot drift apart.
void createHadamard16(OpBuilder &b, Location loc, MutableArrayRef<Value> v,
                      uint32_t negateMask);

/// Whether `check` (one of the check*Supported functions, which emit an
/// error at the op when they fail) succeeds, its diagnostics dropped: the
/// patterns only decline what the pass has checked and reported already.
bool succeedsSilently(MLIRContext *context,
                      function_ref<LogicalResult()> check);

/// The maximum of the f32 `v` over the lanes reached by exchanging it with
/// lane `lane ^ offset` for each of `xorOffsets` in turn (`{1, 2, 4, 8}`: the
/// 16 lanes of a half warp; `{16, 8, 4, 2, 1}`: the warp). A NaN from another
/// lane never wins (`other > v` is false), so NaN-free inputs stay NaN-free.
/// Every lane of the warp must execute it.
Value createButterflyMax(OpBuilder &b, Location loc, Value v,
                         ArrayRef<int32_t> xorOffsets);

/// The layout of the E4M3 scales of an NVFP4 value inside the lowering.
enum class ScaleLayout {
  /// The dialect's row-major [rows, K/16] (1x16) or [rows/16, K/16] (16x16).
  Compact,
  /// The tcgen05 kernel's 128x4 atoms (Tcgen05Descriptors.h,
  /// scaleAtomsOffset; nvfp4::swizzleScales), one scale per row also for
  /// 16x16 blocks: [rows, K/16] bytes. Only the 1-CTA tcgen05 matmul reads
  /// it (docs/tcgen05.md, "Scale atoms in global memory").
  Tcgen05Atoms,
};

/// The discardable unit attribute convert-nvfp4-to-gpu puts on an
/// `nvfp4.quantize` whose result gets its scales in the atoms layout
/// (removed by its lowering).
constexpr llvm::StringLiteral kTcgen05ScaleAtomsAttrName =
    "nvfp4.tcgen05_scale_atoms";
/// The attribute naming the scale layout on the
/// `builtin.unrealized_conversion_cast` (data, atoms scales, amax) ->
/// !nvfp4.tensor that carries such a value (the scales do not have the type
/// `nvfp4.assemble` requires).
constexpr llvm::StringLiteral kScaleLayoutAttrName = "nvfp4.scale_layout";
constexpr llvm::StringLiteral kTcgen05AtomsScaleLayout = "tcgen05_atoms";

/// The type of the atoms scales of an NVFP4 value of type `type` (an
/// `!nvfp4.tensor`): its data shape with the last dimension K/16, E4M3.
RankedTensorType getTcgen05AtomsScalesType(Type type);

/// The NVFP4 value of type `type` whose scales `scales` are in the atoms
/// layout: the tagged cast of (data, scales, amax).
Value createTcgen05AtomsNVFP4Value(OpBuilder &b, Location loc, Type type,
                                   Value data, Value scales, Value amax);

/// Whether `op` is a cast createTcgen05AtomsNVFP4Value built.
bool isTcgen05AtomsNVFP4Value(Operation *op);

/// The discardable i64 attribute convert-nvfp4-to-gpu puts on an
/// `nvfp4.quantize` or `nvfp4.transpose` with a result of [.., K] whose
/// every use is a tcgen05 matmul that needs K padded to a multiple of 32
/// (the TMA row-stride unit): its lowering writes the codes and scales into
/// storage of that many columns, the columns past K zero codes with zero
/// scales (removed by the lowering). Its uses are padded-storage views
/// (createPaddedStorageView).
constexpr llvm::StringLiteral kTcgen05StorageColsAttrName =
    "nvfp4.tcgen05_storage_cols";
/// The unit attribute tagging the `builtin.unrealized_conversion_cast`
/// !nvfp4.tensor<.., K> -> !nvfp4.tensor<.., storage cols> through which a
/// matmul reads the padded storage of such a quantization.
constexpr llvm::StringLiteral kPaddedStorageViewAttrName =
    "nvfp4.padded_storage_view";

/// The view of the NVFP4 value `value` (the result of an op carrying
/// kTcgen05StorageColsAttrName) as the K-padded tensor its lowering
/// stores: one tagged cast per value, created on first use.
Value createPaddedStorageView(OpBuilder &b, Value value, int64_t storageCols);

/// Whether `op` is a cast createPaddedStorageView built.
bool isPaddedStorageView(Operation *op);

/// The type the NVFP4 result of `op` (an `nvfp4.quantize` or
/// `nvfp4.transpose`) is stored as: the result type with the last dimension
/// widened to kTcgen05StorageColsAttrName when `op` has it.
NVFP4TensorType getNVFP4StorageType(Operation *op);

/// Replaces `op` (an `nvfp4.quantize` or `nvfp4.transpose`) by the NVFP4
/// value its lowering stored in `data`, `scales` (in the atoms layout when
/// `scaleAtoms`) and `amax`: directly, or, when it is stored padded, by
/// replacing each of its padded-storage views and erasing it.
void replaceWithNVFP4Storage(RewriterBase &rewriter, Operation *op, Value data,
                             Value scales, Value amax, bool scaleAtoms);

/// The components of an NVFP4 value as a launch passes them.
struct NVFP4Components {
  Value data, scales, amax;
};

/// The data, scales and amax of the NVFP4 value `value`: the
/// operands of the `nvfp4.assemble` that built it (a lowered quantization:
/// its kernel buffers pass through, no copy), or, where `scaleLayout` is
/// given (a consumer that reads both layouts: the tcgen05 matmul), of the
/// cast of an atoms-layout value, with `*scaleLayout` set to the layout of
/// the scales; else the results of a new `nvfp4.disassemble`. A consumer that
/// does not accept the atoms layout and gets such a value has an error emitted
/// at `loc` (the lowering never produces that: convert-nvfp4-to-gpu then fails
/// at its end, where the cast remains used). convert-nvfp4-to-gpu erases the
/// assemblies and casts left without a use.
NVFP4Components getNVFP4Components(OpBuilder &b, Location loc, Value value,
                                   ScaleLayout *scaleLayout = nullptr);

/// The buffer holding `tensor` for a launch that only reads it: the buffer
/// of a `bufferization.to_tensor` (e.g. an output of an earlier kernel) when
/// its type matches, otherwise a read-only `bufferization.to_buffer`.
Value createReadOnlyBuffer(OpBuilder &b, Location loc, Value tensor);

/// Declares the runtime function `name` in `module` unless it is declared.
void declareRuntimeFunction(OpBuilder &b, ModuleOp module, StringRef name,
                            LLVM::LLVMFunctionType type);

/// The runtime's check of a shape rule, `void (i32 holds, ptr message)`:
/// unless `holds`, it prints the message to stderr and ends the process
/// with a failure (the CUDA runtime and the emulator both define it).
inline constexpr llvm::StringLiteral kShapeCheckFunction =
    "nvfp4CudaCheckShape";

/// A shape rule of a kernel on run-time sizes, checked on the host before
/// the launch by a call of kShapeCheckFunction with `holds` and a message
/// that names `op` and its location, and `rule` (e.g. "the last dimension
/// must be a multiple of 16").
void createRunTimeShapeCheck(OpBuilder &b, Operation *op, Value holds,
                             StringRef rule);

/// createRunTimeShapeCheck of `size % multiple == 0`.
void createRunTimeMultipleCheck(OpBuilder &b, Operation *op, Value size,
                                int64_t multiple, StringRef what);

/// Checks, before the launch of matmul `op`'s kernel, a run-time K of its
/// operands' data buffers `lhsData` and `rhsData` (K their last
/// dimension): the two are equal, K is a multiple of `multiple`, and with
/// `positive` not 0. Emits nothing when both K are static.
void createRunTimeKChecks(OpBuilder &b, Operation *op, Value lhsData,
                          Value rhsData, int64_t multiple, bool positive);

} // namespace mlir::nvfp4::detail

#endif // NVFP4_LIB_CONVERSION_NVFP4TOGPU_KERNELIR_H
