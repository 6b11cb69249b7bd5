#!/usr/bin/env python3
# ===- gen-matmul-mx-cases.py - MX GEMM cases for the GPU tests -------=== #
#
# Part of the NVFP4-MLIR project.
#
# ===---------------------------------------------------------------------=== #
"""Writes test/GPU/Inputs/matmul-mx-cases.mlir: MX matmul cases of the GPU
kernels (MXFP4 x MXFP4, kind::mxf4; MXFP8 x MXFP8 in every E4M3 / E5M2
pairing, kind::mxf8f6f4; mma.sync on sm_120a / sm_121a, tcgen05.mma on the
sm_100a family). Each case fills its inputs with the reference runtime,
quantizes them to MX on the host, multiplies them with nvfp4.matmul (the
GPU kernel) and checks the result against nvfp4::mx::matmul with
nvfp4GpuCheckMxMatmul. With --pair, test/GPU/Inputs/matmul-mx-pair-cases.mlir:
cases whose M is a multiple of 256 and N of the tcgen05 tile, for the CTA
pair (tcgen05-cta-pair=on).

  python3 utils/gen-matmul-mx-cases.py > test/GPU/Inputs/matmul-mx-cases.mlir
  python3 utils/gen-matmul-mx-cases.py --pair \
    > test/GPU/Inputs/matmul-mx-pair-cases.mlir
"""

import sys

# (lhs format, rhs format, batch (0: none), M, N, K, accumulator)
CASES = [
    ("mxfp4", "mxfp4", 0, 128, 64, 256, True),
    ("mxfp4", "mxfp4", 0, 127, 129, 96, False),
    ("mxfp4", "mxfp4", 2, 33, 65, 64, True),
    ("mxfp4", "mxfp4", 0, 1, 1, 32, False),
    ("mxfp4", "mxfp4", 0, 64, 200, 544, False),
    ("mxfp8_e4m3", "mxfp8_e4m3", 0, 128, 64, 256, True),
    ("mxfp8_e4m3", "mxfp8_e5m2", 0, 127, 129, 96, False),
    ("mxfp8_e5m2", "mxfp8_e4m3", 2, 33, 65, 64, True),
    ("mxfp8_e5m2", "mxfp8_e5m2", 0, 1, 1, 32, False),
    ("mxfp8_e4m3", "mxfp8_e4m3", 0, 64, 200, 544, False),
    # 12 K steps of 4 scale bytes: on sm_120a, 16-byte scale groups of four
    # steps, each group slot reused; N ragged.
    ("mxfp4", "mxfp4", 0, 64, 72, 1536, False),
    # 16 K steps of 2 scale bytes: on sm_120a, 16-byte scale groups of
    # eight steps, two loop iterations; M and N ragged.
    ("mxfp8_e4m3", "mxfp8_e5m2", 0, 96, 80, 1024, True),
    # 6 K steps of 2 scale bytes, rows of 12: 4-byte groups of two steps
    # (the K = 256 cases above take 8-byte groups: MXFP4 two steps, MXFP8
    # four); M and N ragged.
    ("mxfp8_e5m2", "mxfp8_e5m2", 0, 48, 40, 384, False),
]

# The CTA pair: M a multiple of 256, N of the tile (256 and 128), K of
# several K tiles (MXFP4: 256 per tile, with a ragged last one; MXFP8: 128).
PAIR_CASES = [
    ("mxfp4", "mxfp4", 0, 256, 256, 544, True),
    ("mxfp8_e4m3", "mxfp8_e5m2", 0, 256, 128, 384, False),
]

# Format -> (element type, its integer view, the check's element-type code).
ELEMENT = {"mxfp4": ("f4E2M1FN", "i4", 0), "mxfp8_e4m3": ("f8E4M3FN", "i8", 1),
           "mxfp8_e5m2": ("f8E5M2", "i8", 2)}


def dims(batch, rows, cols):
    return f"{batch}x{rows}x{cols}" if batch else f"{rows}x{cols}"


def case(index, fa, fb, batch, m, n, k, acc):
    a, b, c = dims(batch, m, k), dims(batch, n, k), dims(batch, m, n)
    seed = 700 + 10 * index
    ta = f"!nvfp4.tensor<{a}, 1x32, {fa}>"
    tb = f"!nvfp4.tensor<{b}, 1x32, {fb}>"
    lines = [f"func.func @matmul_{index}() {{"]
    for name, shape, s in (("x", a, seed), ("w", b, seed + 1)):
        lines += [
            f"  %{name}m = memref.alloc() : memref<{shape}xf32>",
            f"  %{name}u = memref.cast %{name}m : memref<{shape}xf32> to "
            f"memref<*xf32>",
            f"  %{name}seed = arith.constant {s} : i64",
            f"  %{name}mode = arith.constant 0 : i32",
            f"  call @nvfp4RtFill(%{name}u, %{name}seed, %{name}mode) : "
            f"(memref<*xf32>, i64, i32) -> ()",
            f"  %{name} = bufferization.to_tensor %{name}m restrict : "
            f"memref<{shape}xf32> to tensor<{shape}xf32>"]
    lines += [
        f"  %qa = nvfp4.quantize %x : tensor<{a}xf32> -> {ta}",
        f"  %qb = nvfp4.quantize %w : tensor<{b}xf32> -> {tb}",
        f"  %cm = memref.alloc() : memref<{c}xf32>",
        f"  %cu = memref.cast %cm : memref<{c}xf32> to memref<*xf32>"]
    if acc:
        lines += [
            f"  %cseed = arith.constant {seed + 2} : i64",
            "  %cmode = arith.constant 0 : i32",
            "  call @nvfp4RtFill(%cu, %cseed, %cmode) : "
            "(memref<*xf32>, i64, i32) -> ()",
            f"  %c = bufferization.to_tensor %cm restrict : memref<{c}xf32> "
            f"to tensor<{c}xf32>",
            f"  %y = nvfp4.matmul %qa, %qb acc(%c : tensor<{c}xf32>) : {ta}, "
            f"{tb} -> tensor<{c}xf32>",
            "  %hasacc = arith.constant 1 : i32"]
    else:
        lines += [f"  %y = nvfp4.matmul %qa, %qb : {ta}, {tb} -> "
                  f"tensor<{c}xf32>",
                  "  %hasacc = arith.constant 0 : i32"]
    for op, fmt, data, rows in (("a", fa, a, m), ("b", fb, b, n)):
        element, integer, code = ELEMENT[fmt]
        scales = dims(batch, rows, k // 32)
        t = ta if op == "a" else tb
        # The codes one per byte: E2M1 widened from i4.
        codes = f"%{op}di" if integer == "i4" else f"%{op}d8"
        lines += [f"  %{op}d, %{op}s = nvfp4.disassemble %q{op} : {t}",
                  f"  {codes} = arith.bitcast %{op}d : tensor<{data}x{element}>"
                  f" to tensor<{data}x{integer}>"]
        if integer == "i4":
            lines.append(f"  %{op}d8 = arith.extui %{op}di : "
                         f"tensor<{data}xi4> to tensor<{data}xi8>")
        lines += [
            f"  %{op}s8 = arith.bitcast %{op}s : tensor<{scales}xf8E8M0FNU> "
            f"to tensor<{scales}xi8>",
            f"  %{op}dm = bufferization.to_buffer %{op}d8 : "
            f"tensor<{data}xi8> to memref<{data}xi8>",
            f"  %{op}sm = bufferization.to_buffer %{op}s8 : "
            f"tensor<{scales}xi8> to memref<{scales}xi8>",
            f"  %{op}du = memref.cast %{op}dm : memref<{data}xi8> to "
            f"memref<*xi8>",
            f"  %{op}su = memref.cast %{op}sm : memref<{scales}xi8> to "
            f"memref<*xi8>",
            f"  %{op}type = arith.constant {code} : i32"]
    lines += [
        f"  %ym = bufferization.to_buffer %y : tensor<{c}xf32> to "
        f"memref<{c}xf32>",
        f"  %yu = memref.cast %ym : memref<{c}xf32> to memref<*xf32>",
        "  %n = call @nvfp4GpuCheckMxMatmul(%adu, %asu, %atype, %bdu, %bsu, "
        "%btype, %hasacc, %cu, %yu) : (memref<*xi8>, memref<*xi8>, i32, "
        "memref<*xi8>, memref<*xi8>, i32, i32, memref<*xf32>, memref<*xf32>) "
        "-> i64",
        "  return", "}"]
    return "\n".join(lines)


def main():
    pair = "--pair" in sys.argv[1:]
    cases = PAIR_CASES if pair else CASES
    if pair:
        print("""// MX matmul cases of the tcgen05 CTA pair (tcgen05-cta-pair=on): M a
// multiple of 256, N of the tile; the cases and checks of
// matmul-mx-cases.mlir otherwise.
// Generated by utils/gen-matmul-mx-cases.py --pair.
""")
    else:
        print("""// MX matmul cases of the GPU kernels (mma.sync on sm_120a / sm_121a,
// tcgen05.mma on sm_100a / sm_103a / sm_110a), shared by their execution
// tests: MXFP4 x MXFP4 (kind::mxf4, scale_vec::2X) and MXFP8 x MXFP8 in
// every E4M3 / E5M2 pairing (kind::mxf8f6f4, scale_vec::1X), with E8M0
// scales. Inputs are filled by the reference runtime, quantized to MX
// on the host (the GPU lowering leaves MX quantization to the reference
// lowering, which calls the reference library), multiplied by the GPU
// kernel and checked against nvfp4::mx::matmul (nvfp4GpuCheckMxMatmul).
// Shapes per format pairing: the default tile with an accumulator,
// 127 x 129 with K = 96 (MXFP4: half a last K step, its scale byte past the
// row's end zero-filled), a batched case with an accumulator, one row and
// column with K = 32, N = 200 with K = 544 (17 blocks of 32), (MXFP4)
// 64 x 72 with K = 1536 (16-byte scale groups of four K steps on sm_120a)
// and (MXFP8) 96 x 80 with K = 1024 (16-byte groups of eight K steps) and
// 48 x 40 with K = 384 (4-byte groups of two); the K = 256 cases take
// 8-byte groups on sm_120a.
// Generated by utils/gen-matmul-mx-cases.py.
""")
    print("""func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}
func.func private @nvfp4GpuCheckMxMatmul(memref<*xi8>, memref<*xi8>, i32, memref<*xi8>, memref<*xi8>, i32, i32, memref<*xf32>, memref<*xf32>) -> i64 attributes {llvm.emit_c_interface}
""")
    for fa, fb, batch, m, n, k, acc in cases:
        count = max(batch, 1) * m * n
        names = {"mxfp4": "e2m1", "mxfp8_e4m3": "e4m3", "mxfp8_e5m2": "e5m2"}
        print(f"// CHECK: gpu mx matmul [{dims(batch, m, k)}] {names[fa]} x "
              f"[{dims(batch, n, k)}] {names[fb]}{' acc' if acc else ''}: "
              f"outside bound 0 (of {count})")
    print("// CHECK-NOT: outside bound\n")
    for index, c in enumerate(cases):
        print(case(index, *c) + "\n")
    print("func.func @main() {")
    for index in range(len(cases)):
        print(f"  call @matmul_{index}() : () -> ()")
    print("  return\n}")


if __name__ == "__main__":
    main()
