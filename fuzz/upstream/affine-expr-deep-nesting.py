#!/usr/bin/env python3
# Writes an MLIR file whose affine expression nests 200000 parentheses.
# Upstream MLIR 22's affine-expression parser recurses once per level and
# overflows the stack (stock mlir-opt-22 crashes with SIGSEGV):
#   python3 fuzz/upstream/affine-expr-deep-nesting.py > /tmp/deep.mlir
#   mlir-opt-22 /tmp/deep.mlir
# (docs/hardening.md, finding U4; the fuzzer found it at about 7700 levels
# under AddressSanitizer's larger stack frames.)
import sys

depth = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
sys.stdout.write("#map = affine_map<(d0) -> (" + "(" * depth + "d0" +
                 ")" * depth + ")>\n")
