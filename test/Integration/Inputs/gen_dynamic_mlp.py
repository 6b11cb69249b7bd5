#!/usr/bin/env python3
# ===- gen_dynamic_mlp.py - A run-time-sized MLP step and its static twins -=== #
#
# Part of the NVFP4-MLIR project.
#
# ===----------------------------------------------------------------------=== #
#
# Writes one module: the training step of a two-layer MLP (forward, dgrads,
# wgrads; unannotated, so the recipe infers every role) whose token count
# is a run-time size (@step_dyn, tensor<?x64xf32> activations), the same
# step with each token count of the command line static (@step_<M>), and a
# @main that runs both on the same inputs for every M and prints, per
# result, the number of elements whose bits differ, then the number of
# nonzero elements of the dynamic step's results.
#
#   python3 gen_dynamic_mlp.py M [M ...]
#
# ===----------------------------------------------------------------------=== #
import sys

MAPS = """\
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#km = affine_map<(d0, d1, d2) -> (d2, d0)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
"""

RESULTS = [("y", "{m}x64"), ("dw1", "128x64"), ("dw2", "64x128"),
           ("dx", "{m}x64")]


def step(name, m):
    """The step with token count `m` ("?" for a run-time size)."""
    empty = "tensor.empty(%m)" if m == "?" else "tensor.empty()"
    t = lambda shape: f"tensor<{shape.format(m=m)}xf32>"
    out = f"""
func.func @{name}(%x: {t("{m}x64")} loc("x"), %w1: {t("128x64")},
    %w2: {t("64x128")}, %dy: {t("{m}x64")} loc("dy"))
    -> ({", ".join(t(s) for _, s in RESULTS)}) {{
  %zf = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : {t("{m}x64")}
  %e128 = {empty} : {t("{m}x128")}
  %f128 = linalg.fill ins(%zf : f32) outs(%e128 : {t("{m}x128")}) -> {t("{m}x128")}
  %e64 = {empty} : {t("{m}x64")}
  %f64 = linalg.fill ins(%zf : f32) outs(%e64 : {t("{m}x64")}) -> {t("{m}x64")}
  %h = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%x, %w1 : {t("{m}x64")}, {t("128x64")})
         outs(%f128 : {t("{m}x128")}) -> {t("{m}x128")}
  %a = linalg.mul ins(%h, %h : {t("{m}x128")}, {t("{m}x128")})
         outs(%e128 : {t("{m}x128")}) -> {t("{m}x128")}
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
         ins(%a, %w2 : {t("{m}x128")}, {t("64x128")})
         outs(%f64 : {t("{m}x64")}) -> {t("{m}x64")}
  %da = linalg.matmul indexing_maps = [#mk, #kn, #mn]
          ins(%dy, %w2 : {t("{m}x64")}, {t("64x128")})
          outs(%f128 : {t("{m}x128")}) -> {t("{m}x128")}
  %e2 = tensor.empty() : {t("64x128")}
  %f2 = linalg.fill ins(%zf : f32) outs(%e2 : {t("64x128")}) -> {t("64x128")}
  %dw2 = linalg.matmul indexing_maps = [#km, #kn, #mn]
           ins(%dy, %a : {t("{m}x64")}, {t("{m}x128")})
           outs(%f2 : {t("64x128")}) -> {t("64x128")}
  %dh = linalg.mul ins(%h, %da : {t("{m}x128")}, {t("{m}x128")})
          outs(%e128 : {t("{m}x128")}) -> {t("{m}x128")}
  %dx = linalg.matmul indexing_maps = [#mk, #kn, #mn]
          ins(%dh, %w1 : {t("{m}x128")}, {t("128x64")})
          outs(%f64 : {t("{m}x64")}) -> {t("{m}x64")}
  %e1 = tensor.empty() : {t("128x64")}
  %f1 = linalg.fill ins(%zf : f32) outs(%e1 : {t("128x64")}) -> {t("128x64")}
  %dw1 = linalg.matmul indexing_maps = [#km, #kn, #mn]
           ins(%dh, %x : {t("{m}x128")}, {t("{m}x64")})
           outs(%f1 : {t("128x64")}) -> {t("128x64")}
  return {", ".join("%" + r for r, _ in RESULTS)} : {", ".join(t(s) for _, s in RESULTS)}
}}
"""
    return out


def fill(var, shape, seed):
    return f"""  %{var}m = memref.alloc() : memref<{shape}xf32>
  %{var}u = memref.cast %{var}m : memref<{shape}xf32> to memref<*xf32>
  %{var}s = arith.constant {seed} : i64
  call @nvfp4RtFill(%{var}u, %{var}s, %mode) : (memref<*xf32>, i64, i32) -> ()
  %{var} = bufferization.to_tensor %{var}m restrict : memref<{shape}xf32> to tensor<{shape}xf32>
"""


def run(m):
    """@main's part for token count m: both steps, mismatches, nonzeros."""
    body = fill(f"x{m}_", f"{m}x64", 100 + m) + fill(f"dy{m}_", f"{m}x64", 200 + m)
    body += f"""  %xd{m} = tensor.cast %x{m}_ : tensor<{m}x64xf32> to tensor<?x64xf32>
  %dyd{m} = tensor.cast %dy{m}_ : tensor<{m}x64xf32> to tensor<?x64xf32>
  %d{m}:4 = call @step_dyn(%xd{m}, %w1, %w2, %dyd{m})
      : (tensor<?x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>, tensor<?x64xf32>)
      -> (tensor<?x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>, tensor<?x64xf32>)
  %s{m}:4 = call @step_{m}(%x{m}_, %w1, %w2, %dy{m}_)
      : (tensor<{m}x64xf32>, tensor<128x64xf32>, tensor<64x128xf32>, tensor<{m}x64xf32>)
      -> ({", ".join(f"tensor<{s.format(m=m)}xf32>" for _, s in RESULTS)})
"""
    # Per result: the dynamic step's, cast to the static shape; the number
    # of elements that differ from the static step's (against the static
    # result) and that are nonzero (against zeros), printed in two lists.
    mismatches, nonzeros = [], []
    for i, (_, shape) in enumerate(RESULTS):
        static = shape.format(m=m)
        body += (f"  %c{m}_{i} = tensor.cast %d{m}#{i} : "
                 f"tensor<{shape.format(m='?')}xf32> to tensor<{static}xf32>\n")
        for counts, name, other in ((mismatches, "n", f"%s{m}#{i}"),
                                    (nonzeros, "z", f"%zero_{static}")):
            counts.append(
                f"  %{name}{m}_{i} = call @count_diff_{static}(%c{m}_{i}, "
                f"{other}) : (tensor<{static}xf32>, tensor<{static}xf32>) "
                f"-> i32\n  vector.print %{name}{m}_{i} : i32\n")
    body += f'  vector.print str "M={m} mismatches\\n"\n' + "".join(mismatches)
    body += f'  vector.print str "M={m} nonzeros\\n"\n' + "".join(nonzeros)
    return body


def count_diff(shape):
    """@count_diff_<shape>: the elements of a and b whose bits differ."""
    return f"""
func.func @count_diff_{shape}(%a: tensor<{shape}xf32>, %b: tensor<{shape}xf32>) -> i32 {{
  %ai = arith.bitcast %a : tensor<{shape}xf32> to tensor<{shape}xi32>
  %bi = arith.bitcast %b : tensor<{shape}xf32> to tensor<{shape}xi32>
  %ne = arith.cmpi ne, %ai, %bi : tensor<{shape}xi32>
  %ones = arith.extui %ne : tensor<{shape}xi1> to tensor<{shape}xi32>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<i32>
  %acc = linalg.fill ins(%z : i32) outs(%e : tensor<i32>) -> tensor<i32>
  %sum = linalg.reduce ins(%ones : tensor<{shape}xi32>) outs(%acc : tensor<i32>) dimensions = [0, 1]
    (%v: i32, %s: i32) {{
      %r = arith.addi %v, %s : i32
      linalg.yield %r : i32
    }}
  %n = tensor.extract %sum[] : tensor<i32>
  return %n : i32
}}
"""


def main():
    ms = [int(a) for a in sys.argv[1:]]
    out = [MAPS, step("step_dyn", "?")]
    out += [step(f"step_{m}", m) for m in ms]
    shapes = sorted({s.format(m=m) for m in ms for _, s in RESULTS})
    out += [count_diff(s) for s in shapes]
    out.append("""
func.func private @nvfp4RtFill(memref<*xf32>, i64, i32) attributes {llvm.emit_c_interface}

func.func @main() {
  %mode = arith.constant 0 : i32
""")
    out.append(fill("w1", "128x64", 11) + fill("w2", "64x128", 12))
    for s in shapes:
        out.append(f"  %zero_{s} = arith.constant dense<0.0> : tensor<{s}xf32>\n")
    out += [run(m) for m in ms]
    out.append("  return\n}\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
