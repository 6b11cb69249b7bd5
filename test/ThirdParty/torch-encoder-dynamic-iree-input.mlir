// PyTorch's nn.TransformerEncoderLayer (pre-LN, exact GELU: math.erf)
// exported as PyTorch users export with dynamic axes today:
// torch.onnx.export(dynamo=True) with a dynamic batch and sequence, IREE's
// ONNX importer and input phase (Inputs/torch-encoder-dynamic-iree-input
// .mlir, utils/third-party/gen_torch_dynamic_models.py). After
// nvfp4-import-iree-input, the recipe quantizes the four linear layers (the
// packed QKV and output projections, the FFN) and keeps the two attention
// contractions high; every size is a run-time size. The CPU pipeline and
// the GPU pipelines (the exact GELU lowered as on the CPU) take the result;
// on sm_100a the linear layers are FP4 tcgen05 kernels of run-time M that
// ptxas assembles. Not executed here: run on 2 x 5
// tokens, this dynamic export computes other values than its static twin
// (which matches PyTorch) already in f32, without the recipe and with
// upstream passes alone; docs/frontends.md, "Known problems".
//
// RUN: nvfp4-opt --allow-unregistered-dialect %S/Inputs/torch-encoder-dynamic-iree-input.mlir \
// RUN:   --nvfp4-import-iree-input --mlir-print-local-scope -o %t.imported.mlir
// RUN: nvfp4-opt %t.imported.mlir --nvfp4-recipe="mode=inference summary" \
// RUN:   -o %t.recipe.mlir 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-gpu-executable="target=sm_100a format=isa" \
// RUN:   | FileCheck %s --check-prefix=LOWERED
// RUN: nvfp4-opt %t.recipe.mlir --nvfp4-to-ptx="target=sm_100a report-fallbacks" \
// RUN:   -o %t.sm_100a.mlir 2>&1 | FileCheck %s --check-prefix=FALLBACKS --allow-empty
// RUN: nvfp4-translate --nvfp4-extract-ptx %t.sm_100a.mlir -o %t.sm_100a.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.sm_100a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.sm_100a.ptx -o %t.sm_100a.cubin %}

// SUMMARY: nvfp4 recipe: 4 of 6 contractions in FP4
// SUMMARY: main_graph 0 fprop 0 ?x?x96x32 fp4
// SUMMARY: main_graph 1 fprop 0 ?x?x?x8 high attention (batched contraction of two activations)
// SUMMARY: main_graph 2 fprop 0 ?x?x8x? high attention (batched contraction of two activations)
// SUMMARY: main_graph 3 fprop 0 1x?x32x32 fp4
// SUMMARY: main_graph 4 fprop 0 ?x?x64x32 fp4
// SUMMARY: main_graph 5 fprop 0 ?x?x32x64 fp4

// The four FP4 linear layers (tokens = batch x sequence flattened, a
// run-time M) are tcgen05 kernels of run-time M, their activations'
// quantizations kernels of run-time rows; nothing is left for the host.
// FALLBACKS-NOT: left for the host
// PTX-DAG: .entry nvfp4_tcgen05_matmul_mdyn_n96k32_t128_1x16_16x16_f32
// PTX-DAG: .entry nvfp4_tcgen05_matmul_mdyn_n32k32_t64_1x16_16x16_f32
// PTX-DAG: .entry nvfp4_tcgen05_matmul_mdyn_n64k32_t64_1x16_16x16_f32
// PTX-DAG: .entry nvfp4_tcgen05_matmul_mdyn_n32k64_t64_1x16_16x16_f32
// PTX-DAG: .entry nvfp4_quantize_dynx32_1x16_f32_rn
// PTX-DAG: .entry nvfp4_quantize_dynx64_1x16_f32_rn

// LOWERED: llvm.func @erff(f32) -> f32
// LOWERED: llvm.func @main_graph
// LOWERED-NOT: nvfp4.
