/*===- nvfp4-capi-test.c - Test of the nvfp4 C API ----------------*- C -*-===*\
|*                                                                            *|
|* Part of the NVFP4-MLIR project.                                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// RUN: nvfp4-capi-test 2>&1 | FileCheck %s

#include "nvfp4-c/Dialects.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Transforms.h"

#include <stdio.h>
#include <stdlib.h>

static void fputsCallback(MlirStringRef str, void *userData) {
  fwrite(str.data, 1, str.length, (FILE *)userData);
}

static void testTypes(MlirContext ctx) {
  fprintf(stderr, "@types\n");
  int64_t shape[] = {128, 4096};
  MlirType t = mlirNVFP4TensorTypeGet(ctx, 2, shape, 16);
  // CHECK-LABEL: @types
  // CHECK: !nvfp4.tensor<128x4096, 16x16>
  mlirTypeDump(t);
  // CHECK: isa: 1 shaped: 1 rank: 2 dim1: 4096 block rows: 16
  fprintf(stderr, "isa: %d shaped: %d rank: %ld dim1: %ld block rows: %ld\n",
          mlirTypeIsANVFP4Tensor(t), mlirTypeIsAShaped(t),
          (long)mlirShapedTypeGetRank(t), (long)mlirShapedTypeGetDimSize(t, 1),
          (long)mlirNVFP4TensorTypeGetBlockRows(t));
  // CHECK: tensor<128x4096xf4E2M1FN>
  mlirTypeDump(mlirNVFP4TensorTypeGetDataType(t));
  // CHECK: tensor<8x256xf8E4M3FN>
  mlirTypeDump(mlirNVFP4TensorTypeGetScalesType(t));
  // CHECK: isa builtin tensor: 0
  fprintf(stderr, "isa builtin tensor: %d\n", mlirTypeIsATensor(t));
  // CHECK: decode scale: 0
  fprintf(stderr, "decode scale: %d\n", mlirNVFP4TensorTypeHasDecodeScale(t));
  // CHECK: !nvfp4.tensor<128x4096, 1x16, decode>
  MlirType d = mlirNVFP4TensorTypeGetWithTensorScale(ctx, 2, shape, 1, true);
  mlirTypeDump(d);
  // CHECK: decode scale: 1 equal to amax type: 0
  fprintf(stderr, "decode scale: %d equal to amax type: %d\n",
          mlirNVFP4TensorTypeHasDecodeScale(d),
          mlirTypeEqual(d, mlirNVFP4TensorTypeGet(ctx, 2, shape, 1)));

  // Invalid shapes give a diagnostic and a null type, never a crash.
  int64_t bad[] = {8, 100};
  // CHECK: last dimension (100) must be a multiple of 16
  // CHECK: null: 1
  fprintf(stderr, "null: %d\n",
          mlirTypeIsNull(mlirNVFP4TensorTypeGet(ctx, 2, bad, 1)));
  // CHECK: block shape must be 1x16 or 16x16 (NVFP4) or 1x32 (MX), got 4x16
  // CHECK: null: 1
  fprintf(stderr, "null: %d\n",
          mlirTypeIsNull(mlirNVFP4TensorTypeGet(ctx, 2, shape, 4)));
  // An element count that wraps around int64.
  int64_t huge[] = {INT64_C(1) << 62, INT64_C(1) << 62, 16};
  // CHECK: has more elements than a 64-bit index can count
  // CHECK: null: 1
  fprintf(stderr, "null: %d\n",
          mlirTypeIsNull(mlirNVFP4TensorTypeGet(ctx, 3, huge, 1)));
  // A negative rank, or a null shape with a positive rank.
  // CHECK: the rank must be non-negative and the shape non-null
  // CHECK: null: 1
  fprintf(stderr, "null: %d\n",
          mlirTypeIsNull(mlirNVFP4TensorTypeGet(ctx, -1, shape, 1)));
  // CHECK: the rank must be non-negative and the shape non-null
  // CHECK: null: 1
  fprintf(stderr, "null: %d\n",
          mlirTypeIsNull(mlirNVFP4TensorTypeGet(ctx, 2, NULL, 1)));

  // MX types: 1x32 blocks, the element and E8M0 scale types of the format.
  // CHECK: !nvfp4.tensor<128x4096, 1x32, mxfp8_e5m2>
  MlirType m =
      mlirNVFP4TensorTypeGetMX(ctx, 2, shape, MlirNVFP4FormatMXFP8E5M2);
  mlirTypeDump(m);
  // CHECK: format: 3 nvfp4 format: 0 block rows: 1
  fprintf(stderr, "format: %d nvfp4 format: %d block rows: %ld\n",
          (int)mlirNVFP4TensorTypeGetFormat(m),
          (int)mlirNVFP4TensorTypeGetFormat(t),
          (long)mlirNVFP4TensorTypeGetBlockRows(m));
  // CHECK: tensor<128x4096xf8E5M2>
  mlirTypeDump(mlirNVFP4TensorTypeGetDataType(m));
  // CHECK: tensor<128x128xf8E8M0FNU>
  mlirTypeDump(mlirNVFP4TensorTypeGetScalesType(m));
  // CHECK: !nvfp4.tensor<128x4096, 1x32, mxfp4>
  mlirTypeDump(mlirNVFP4TensorTypeGetMX(ctx, 2, shape, MlirNVFP4FormatMXFP4));
  // CHECK: is not an MX format (MXFP4 1, MXFP8E4M3 2, MXFP8E5M2 3)
  // CHECK: null: 1
  fprintf(stderr, "null: %d\n",
          mlirTypeIsNull(
              mlirNVFP4TensorTypeGetMX(ctx, 2, shape, MlirNVFP4FormatNVFP4)));
  // CHECK: is not an MX format
  // CHECK: null: 1
  fprintf(stderr, "null: %d\n",
          mlirTypeIsNull(
              mlirNVFP4TensorTypeGetMX(ctx, 2, shape, (MlirNVFP4Format)7)));
  // A last dimension that is a multiple of 16 but not of 32.
  int64_t odd[] = {8, 48};
  // CHECK: last dimension (48) must be a multiple of 32
  // CHECK: null: 1
  fprintf(stderr, "null: %d\n",
          mlirTypeIsNull(mlirNVFP4TensorTypeGetMX(ctx, 2, odd,
                                                  MlirNVFP4FormatMXFP8E4M3)));
  // CHECK: the rank must be non-negative and the shape non-null
  // CHECK: null: 1
  fprintf(stderr, "null: %d\n",
          mlirTypeIsNull(
              mlirNVFP4TensorTypeGetMX(ctx, -1, shape, MlirNVFP4FormatMXFP4)));
}

static void testAttributes(MlirContext ctx) {
  // CHECK: #nvfp4.block<1x16>
  MlirAttribute block = mlirNVFP4BlockAttrGet(ctx, 1, 16);
  mlirAttributeDump(block);
  // CHECK: #nvfp4<rounding rs>
  MlirAttribute rs = mlirNVFP4RoundingAttrGet(ctx, true);
  mlirAttributeDump(rs);
  // CHECK: block: 1 rounding: 1 stochastic: 1 cross: 0
  fprintf(stderr, "block: %d rounding: %d stochastic: %d cross: %d\n",
          mlirAttributeIsANVFP4Block(block), mlirAttributeIsANVFP4Rounding(rs),
          mlirNVFP4RoundingAttrIsStochastic(rs),
          mlirAttributeIsANVFP4Block(rs));
}

static int testParseAndPasses(MlirContext ctx) {
  const char *source =
      "func.func @f(%x: tensor<32x64xf32>) -> tensor<32x64xf32> {\n"
      "  %q = nvfp4.quantize %x : tensor<32x64xf32> -> "
      "!nvfp4.tensor<32x64, 1x16>\n"
      "  %d = nvfp4.dequantize %q : !nvfp4.tensor<32x64, 1x16> -> "
      "tensor<32x64xf32>\n"
      "  %r = nvfp4.quantize %d : tensor<32x64xf32> -> "
      "!nvfp4.tensor<32x64, 1x16>\n"
      "  %e = nvfp4.dequantize %r : !nvfp4.tensor<32x64, 1x16> -> "
      "tensor<32x64xf32>\n"
      "  return %e : tensor<32x64xf32>\n"
      "}\n";
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module))
    return 1;
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      opm, mlirStringRefCreateFromCString("builtin.module(canonicalize)"),
      (MlirStringCallback)fputsCallback, stderr);
  if (mlirLogicalResultIsFailure(parsed))
    return 2;
  if (mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module))))
    return 3;
  // quantize(dequantize(q)) folds to q: one quantize and one dequantize stay.
  // CHECK-LABEL: func.func @f
  // CHECK-NEXT: %[[Q:.*]] = nvfp4.quantize %arg0
  // CHECK-NEXT: %[[D:.*]] = nvfp4.dequantize %[[Q]]
  // CHECK-NEXT: return %[[D]]
  mlirOperationDump(mlirModuleGetOperation(module));
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  return 0;
}

int main(void) {
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirNVFP4RegisterAllDialects(registry);
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__func__(), registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, false);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  mlirNVFP4RegisterAllPasses();
  mlirRegisterTransformsCanonicalizer();

  testTypes(ctx);
  testAttributes(ctx);
  int rc = testParseAndPasses(ctx);
  // CHECK: exit: 0
  fprintf(stderr, "exit: %d\n", rc);
  mlirContextDestroy(ctx);
  return rc;
}
