// The mixed NVFP4 / MXFP8 training step of recipe-formats.mlir lowered for
// sm_100a to PTX that ptxas takes: NVFP4 GEMMs (tcgen05 kind::mxf4nvf4;
// each kernel issues the 4 MMAs of K tile 0 before its K loop and 4 in it)
// and MXFP8 GEMMs (kind::mxf8f6f4
// .block32) as kernels, every one a CTA pair (the step's GEMMs have enough
// 256-row tiles), the MX quantizations on the host. Not under the
// sanitizers (a long lowering the other tests cover there).
//
// UNSUPPORTED: sanitizers
// RUN: nvfp4-opt %nvfp4_src_root/examples/transformer_training.mlir \
// RUN:   --nvfp4-recipe="formats=nvfp4,mxfp8,bf16 keep-first=1 keep-last=1 gpu-target=sm_100a" \
// RUN: | nvfp4-opt --nvfp4-to-ptx="target=sm_100a" \
// RUN: | nvfp4-translate --nvfp4-extract-ptx -o %t.sm_100a.ptx
// RUN: grep -c "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32" %t.sm_100a.ptx | FileCheck %s --check-prefix=MXF8
// RUN: grep -c "tcgen05.mma.cta_group::2.kind::mxf4nvf4.block_scale.block16" %t.sm_100a.ptx | FileCheck %s --check-prefix=NVF4
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.sm_100a.ptx -o %t.sm_100a.cubin %}
// MXF8: {{^}}104{{$}}
// NVF4: {{^}}64{{$}}
