// RUN: nvfp4-opt %s --convert-nvfp4-to-reference --split-input-file --verify-diagnostics

// A component tensor used by an op the lowering does not convert is
// reported instead of leaving casts behind.
func.func @unsupported_use(%q: !nvfp4.tensor<16x32, 1x16>) -> tensor<16x16xf4E2M1FN> {
  %d, %s, %g = nvfp4.disassemble %q : !nvfp4.tensor<16x32, 1x16>
  // expected-error @below {{'tensor.extract_slice' op takes or returns an NVFP4 tensor or a tensor of f4E2M1FN / f8E4M3FN / f8E5M2 / f8E8M0FNU, which the reference lowering cannot convert here}}
  %e = tensor.extract_slice %d[0, 0] [16, 16] [1, 1] : tensor<16x32xf4E2M1FN> to tensor<16x16xf4E2M1FN>
  return %e : tensor<16x16xf4E2M1FN>
}

// -----

// kernels=library (the default) declares the CPU runtime's entry points: a
// module defining one of those names itself is rejected.
// expected-error @below {{'@nvfp4CpuAmax' is reserved for the CPU runtime's kernel of that name (kernels=library); rename it or use kernels=inline}}
func.func private @nvfp4CpuAmax(f32) -> f32

func.func @reserved_name(%x: tensor<16xf32>) -> f32 {
  %a = nvfp4.amax %x : tensor<16xf32>
  return %a : f32
}
