// The mixed NVFP4 / MXFP8 training step of recipe-formats.mlir lowered for
// sm_120a to PTX that ptxas takes: NVFP4 GEMMs (kind::mxf4nvf4) and MXFP8
// GEMMs (kind::mxf8f6f4) as kernels, the MX quantizations on the host. Not
// under the sanitizers (a long lowering the other tests cover there).
//
// UNSUPPORTED: sanitizers
// RUN: nvfp4-opt %nvfp4_src_root/examples/transformer_training.mlir \
// RUN:   --nvfp4-recipe="formats=nvfp4,mxfp8,bf16 keep-first=1 keep-last=1 gpu-target=sm_120a" \
// RUN: | nvfp4-opt --nvfp4-to-ptx="target=sm_120a" \
// RUN: | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_120a.ptx
// RUN: grep -c "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0" %t.sm_120a.ptx | FileCheck %s --check-prefix=MXF8
// RUN: grep -c "kind::mxf4nvf4" %t.sm_120a.ptx | FileCheck %s --check-prefix=NVF4
// RUN: %if ptxas %{ %ptxas -arch=sm_120a %t.sm_120a.ptx -o %t.sm_120a.cubin %}
// MMA instructions in the PTX (the large GEMMs take the 128 x 256 tile:
// 64 MMAs per warp and K step; the loops run one scale group per
// iteration: two K steps for NVFP4; eight for MXFP8 (16-byte groups of 2
// bytes a step), four where K = 32000 (rows of 1000 scale bytes: 8-byte
// groups) and two where K = 128 (4-byte groups)).
// MXF8: {{^}}5760{{$}}
// NVF4: {{^}}1024{{$}}
