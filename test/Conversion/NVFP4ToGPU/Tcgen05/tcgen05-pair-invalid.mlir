// RUN: nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a tcgen05-cta-pair=on" --split-input-file --verify-diagnostics
// RUN: not nvfp4-opt %s --convert-nvfp4-to-gpu="target=sm_100a tcgen05-cta-pair=both" --split-input-file 2>&1 | FileCheck %s --check-prefix=OPTION

// Forcing the CTA pair (cta_group::2, 256 x N tiles) needs M to be a
// multiple of 256 and N of the tile (the pair has no predicated last tile);
// the matmul gets the reason.

func.func @m_not_256(%a: !nvfp4.tensor<384x256, 1x16>,
                     %b: !nvfp4.tensor<256x256, 16x16>) -> tensor<384x256xf32> {
  // expected-error @below {{is not supported by the tcgen05 kernel: M = 384, N = 256, K = 256; tcgen05-cta-pair=on needs M to be a multiple of 256 and N of the tile N 256 (a CTA pair computes whole 256-row tiles with tcgen05.mma.cta_group::2)}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<384x256, 1x16>,
         !nvfp4.tensor<256x256, 16x16> -> tensor<384x256xf32>
  return %c : tensor<384x256xf32>
}

// -----

func.func @n_not_tile(%a: !nvfp4.tensor<256x256, 1x16>,
                      %b: !nvfp4.tensor<200x256, 1x16>) -> tensor<256x200xf32> {
  // expected-error @below {{tcgen05-cta-pair=on needs M to be a multiple of 256 and N of the tile N 256}}
  %c = nvfp4.matmul %a, %b : !nvfp4.tensor<256x256, 1x16>,
         !nvfp4.tensor<200x256, 1x16> -> tensor<256x200xf32>
  return %c : tensor<256x200xf32>
}

// OPTION: convert-nvfp4-to-gpu: unsupported tcgen05-cta-pair 'both' (supported: auto, off, on)
