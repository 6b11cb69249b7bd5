/*===- nvfp4-capi-program-test.c - Test of the compiled-program C API -*- C -*-===*\
|*                                                                            *|
|* Part of the NVFP4-MLIR project.                                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// RUN: nvfp4-capi-program-test %nvfp4_cpu_runtime_lib 2>&1 | FileCheck %s

#include "nvfp4-c/ExecutionEngine.h"

#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void fputsCallback(MlirStringRef str, void *userData) {
  fwrite(str.data, 1, str.length, (FILE *)userData);
}

/// One diagnostic per line.
static void diagnosticCallback(MlirStringRef str, void *userData) {
  fputsCallback(str, userData);
  fputc('\n', (FILE *)userData);
}

/// A ranked memref descriptor of rank 1 (nvfp4-c/ExecutionEngine.h).
typedef struct {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[1];
  int64_t strides[1];
} MemRef1D;

/// The results of @main: a struct of the memref and the scalar.
typedef struct {
  MemRef1D scaled;
  float amax;
} Results;

static MlirNVFP4Program compile(const char *source, const char *pipeline,
                                const char *runtime) {
  MlirStringRef libs[] = {mlirStringRefCreateFromCString(runtime)};
  return mlirNVFP4ProgramCreate(
      mlirStringRefCreateFromCString(source),
      mlirStringRefCreateFromCString("main"),
      mlirStringRefCreateFromCString(pipeline), 2, 1, libs,
      diagnosticCallback, stderr);
}

static int testInvoke(const char *runtime) {
  const char *source =
      "func.func @main(%x: tensor<16xf32>, %s: f32) -> (tensor<16xf32>, f32) "
      "{\n"
      "  %a = nvfp4.amax %x : tensor<16xf32>\n"
      "  %e = tensor.empty() : tensor<16xf32>\n"
      "  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, "
      "affine_map<(i) -> (i)>], iterator_types = [\"parallel\"]}\n"
      "      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {\n"
      "  ^bb0(%v: f32, %o: f32):\n"
      "    %m = arith.mulf %v, %s : f32\n"
      "    linalg.yield %m : f32\n"
      "  } -> tensor<16xf32>\n"
      "  return %y, %a : tensor<16xf32>, f32\n"
      "}\n";
  MlirNVFP4Program program =
      compile(source, "builtin.module(nvfp4-to-cpu)", runtime);
  if (mlirNVFP4ProgramIsNull(program))
    return 1;

  // CHECK-LABEL: @signature
  // CHECK: inputs: 2 results: 2
  // CHECK-NEXT: tensor<16xf32>
  // CHECK-NEXT: f32
  // CHECK-NEXT: tensor<16xf32>
  // CHECK-NEXT: f32
  fprintf(stderr, "@signature\ninputs: %ld results: %ld\n",
          (long)mlirNVFP4ProgramGetNumInputs(program),
          (long)mlirNVFP4ProgramGetNumResults(program));
  for (intptr_t i = 0; i < mlirNVFP4ProgramGetNumInputs(program); ++i) {
    mlirTypePrint(mlirNVFP4ProgramGetInputType(program, i), fputsCallback,
                  stderr);
    fputc('\n', stderr);
  }
  for (intptr_t i = 0; i < mlirNVFP4ProgramGetNumResults(program); ++i) {
    mlirTypePrint(mlirNVFP4ProgramGetResultType(program, i), fputsCallback,
                  stderr);
    fputc('\n', stderr);
  }

  float x[16];
  for (int i = 0; i < 16; ++i)
    x[i] = (float)(i - 11) * 0.5f;
  MemRef1D input = {x, x, 0, {16}, {1}};
  MemRef1D *inputPointer = &input;
  float scale = 4.0f;
  Results results;
  Results *resultsPointer = &results;
  void *arguments[] = {&resultsPointer, &inputPointer, &scale};
  // Twice: compiled once, called again.
  for (int call = 0; call < 2; ++call) {
    mlirNVFP4ProgramInvokePacked(program, arguments);
    // CHECK-LABEL: @invoke
    // CHECK: amax 5.500000 sizes 16 y[0] -22.000000 y[15] 8.000000 x[0] -5.500000
    // CHECK-LABEL: @invoke
    // CHECK: amax 5.500000 sizes 16 y[0] -22.000000 y[15] 8.000000 x[0] -5.500000
    fprintf(stderr, "@invoke\namax %f sizes %ld y[0] %f y[15] %f x[0] %f\n",
            results.amax, (long)results.scaled.sizes[0],
            results.scaled.aligned[results.scaled.offset],
            results.scaled.aligned[results.scaled.offset + 15], x[0]);
    free(results.scaled.allocated);
  }
  mlirNVFP4ProgramDestroy(program);
  return 0;
}

static void testErrors(const char *runtime) {
  // CHECK-LABEL: @errors
  fprintf(stderr, "@errors\n");
  // Formatted as mlir-opt does: the location, then the source line and a
  // caret under the column.
  // CHECK: <source>:1:26: error: custom op 'nvfp4.bogus' is unknown
  // CHECK-NEXT: func.func @main() { %0 = nvfp4.bogus }
  // CHECK-NEXT: {{^                         \^$}}
  // CHECK-NEXT: null: 1
  MlirNVFP4Program bad = compile("func.func @main() { %0 = nvfp4.bogus }",
                                 "builtin.module(nvfp4-to-cpu)", runtime);
  fprintf(stderr, "null: %d\n", mlirNVFP4ProgramIsNull(bad));
  // CHECK: error: invalid pass pipeline 'func.func(canonicalize)': it must run on builtin.module
  // CHECK-NEXT: null: 1
  bad = compile("func.func @main() { return }", "func.func(canonicalize)",
                runtime);
  fprintf(stderr, "null: %d\n", mlirNVFP4ProgramIsNull(bad));
  // CHECK: error: cannot load the runtime library '/no/such/library.so':
  // CHECK-NEXT: null: 1
  bad = compile("func.func @main() { return }", "builtin.module(nvfp4-to-cpu)",
                "/no/such/library.so");
  fprintf(stderr, "null: %d\n", mlirNVFP4ProgramIsNull(bad));
  // A pipeline that leaves the module outside the LLVM dialect.
  // CHECK: <source>:1:1: error: cannot be converted to LLVM IR
  // CHECK: error: the program cannot be loaded: could not convert to LLVM IR
  // CHECK-NEXT: null: 1
  bad = compile("func.func @main() { return }", "builtin.module(canonicalize)",
                runtime);
  fprintf(stderr, "null: %d\n", mlirNVFP4ProgramIsNull(bad));
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s <libnvfp4_cpu_runtime>\n", argv[0]);
    return 2;
  }
  int rc = testInvoke(argv[1]);
  testErrors(argv[1]);
  // CHECK: exit: 0
  fprintf(stderr, "exit: %d\n", rc);
  return rc;
}
