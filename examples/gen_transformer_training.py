#!/usr/bin/env python3
# ===- gen_transformer_training.py - Decoder-only training step in linalg -===//
#
# Part of the NVFP4-MLIR project.
#
# ===----------------------------------------------------------------------===//
#
# Writes one training step (forward and backward) of a decoder-only
# transformer in linalg on tensors, as ML frontends produce it, twice:
#
#   transformer_training_annotated.mlir  with nvfp4.kind / nvfp4.role /
#                                        nvfp4.layer annotations
#   transformer_training.mlir            without them (the recipe infers them)
#
# Layout: weights are stored [out, in] (Y = X W^T, linalg.matmul with a
# transposed rhs map); embeddings are a one-hot matmul; each block is
# pre-norm attention (QK^T and score.V batch matmuls over the heads) and a
# SwiGLU FFN; the LM head is followed by softmax and the cross-entropy
# gradient. Norms and their backward are simplified to a single per-token
# scaling: only the contractions matter to the recipe. The output is
# deterministic.
#
#   python3 gen_transformer_training.py [--layers 4] [--tokens 2048]
#       [--hidden 4096] [--ffn 14336] [--heads 32] [--vocab 32000]
#       [--inference] [outdir]
#
# With --inference it writes the forward pass alone (@forward: token ids to
# logits) as transformer_inference[_annotated].mlir.
#
# ===----------------------------------------------------------------------===//

import argparse
import os

MAPS = """\
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#km = affine_map<(d0, d1, d2) -> (d2, d0)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
#bmk = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#bnk = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#bkm = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
#bkn = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#bmn = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>
"""


def ty(shape, elt="bf16"):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + elt + ">"


class Emitter:
    def __init__(self, annotate):
        self.annotate = annotate
        self.lines = []
        self.count = 0

    def fresh(self, hint):
        self.count += 1
        return "%" + hint + str(self.count)

    def emit(self, line):
        self.lines.append("  " + line)

    def comment(self, text):
        self.lines.append("")
        self.lines.append("  // " + text)

    def empty(self, shape, elt="bf16"):
        v = self.fresh("e")
        self.emit(f"{v} = tensor.empty() : {ty(shape, elt)}")
        return v

    def zeros(self, shape, elt="bf16"):
        e = self.empty(shape, elt)
        v = self.fresh("z")
        self.emit(f"{v} = linalg.fill ins(%zero_{elt} : {elt}) outs({e} : "
                  f"{ty(shape, elt)}) -> {ty(shape, elt)}")
        return v

    def attrs(self, role, layer):
        if not self.annotate:
            return ""
        return f" {{nvfp4.layer = {layer} : i64, nvfp4.role = \"{role}\"}}"

    def matmul(self, a, ash, b, bsh, maps, out, elt, role, layer,
               acc=None, batch=False):
        """out = a * b (+ acc); maps names the operand layouts."""
        init = acc if acc else self.zeros(out, elt)
        v = self.fresh("mm")
        op = "linalg.batch_matmul" if batch else "linalg.matmul"
        self.emit(f"{v} = {op} indexing_maps = [{maps}] ins({a}, {b} : "
                  f"{ty(ash)}, {ty(bsh)}) outs({init} : {ty(out, elt)})"
                  f"{self.attrs(role, layer)} -> {ty(out, elt)}")
        return v

    def binary(self, op, a, b, shape, elt="bf16"):
        e = self.empty(shape, elt)
        v = self.fresh("t")
        self.emit(f"{v} = linalg.{op} ins({a}, {b} : {ty(shape, elt)}, "
                  f"{ty(shape, elt)}) outs({e} : {ty(shape, elt)}) -> "
                  f"{ty(shape, elt)}")
        return v

    def cast(self, x, shape, src, dst):
        e = self.empty(shape, dst)
        v = self.fresh("c")
        fn = "arith.truncf" if src == "f32" else "arith.extf"
        rank = len(shape)
        idm = "#id2" if rank == 2 else "#id3"
        par = ", ".join(['"parallel"'] * rank)
        self.emit(f"{v} = linalg.generic {{indexing_maps = [{idm}, {idm}], "
                  f"iterator_types = [{par}]}} ins({x} : {ty(shape, src)}) "
                  f"outs({e} : {ty(shape, dst)}) {{")
        self.emit(f"^bb0(%in: {src}, %out: {dst}):")
        self.emit(f"  %r = {fn} %in : {src} to {dst}")
        self.emit(f"  linalg.yield %r : {dst}")
        self.emit(f"}} -> {ty(shape, dst)}")
        return v

    def rowsum(self, x, shape, elt, combine="arith.addf", init="%zero"):
        """Reduces the last dimension of a rank-2 or rank-3 tensor."""
        out = shape[:-1]
        e = self.empty(out, elt)
        f = self.fresh("f")
        self.emit(f"{f} = linalg.fill ins({init}_{elt} : {elt}) outs({e} : "
                  f"{ty(out, elt)}) -> {ty(out, elt)}")
        v = self.fresh("red")
        self.emit(f"{v} = linalg.reduce ins({x} : {ty(shape, elt)}) "
                  f"outs({f} : {ty(out, elt)}) dimensions = [{len(shape) - 1}]")
        self.emit(f"  (%in: {elt}, %acc: {elt}) {{")
        self.emit(f"    %r = {combine} %in, %acc : {elt}")
        self.emit(f"    linalg.yield %r : {elt}")
        self.emit("  }")
        return v

    def rowapply(self, x, r, shape, elt, body):
        """x[.., j] op r[..] broadcast along the last dimension."""
        rank = len(shape)
        e = self.empty(shape, elt)
        v = self.fresh("b")
        idm, rm = ("#id2", "#row") if rank == 2 else ("#id3", "#row3")
        par = ", ".join(['"parallel"'] * rank)
        self.emit(f"{v} = linalg.generic {{indexing_maps = [{idm}, {rm}, "
                  f"{idm}], iterator_types = [{par}]}} ins({x}, {r} : "
                  f"{ty(shape, elt)}, {ty(shape[:-1], elt)}) outs({e} : "
                  f"{ty(shape, elt)}) {{")
        self.emit(f"^bb0(%x: {elt}, %s: {elt}, %out: {elt}):")
        self.emit(f"  %r = {body} %x, %s : {elt}")
        self.emit(f"  linalg.yield %r : {elt}")
        self.emit(f"}} -> {ty(shape, elt)}")
        return v

    def onehot(self, ids, tokens, vocab):
        e = self.empty([tokens, vocab])
        v = self.fresh("onehot")
        self.emit(f"{v} = linalg.generic {{indexing_maps = [#row, #id2], "
                  f"iterator_types = [\"parallel\", \"parallel\"]}} "
                  f"ins({ids} : tensor<{tokens}xi64>) outs({e} : "
                  f"{ty([tokens, vocab])}) {{")
        self.emit("^bb0(%id: i64, %out: bf16):")
        self.emit("  %j = linalg.index 1 : index")
        self.emit("  %ji = arith.index_cast %j : index to i64")
        self.emit("  %eq = arith.cmpi eq, %id, %ji : i64")
        self.emit("  %r = arith.uitofp %eq : i1 to bf16")
        self.emit("  linalg.yield %r : bf16")
        self.emit(f"}} -> {ty([tokens, vocab])}")
        return v

    def norm(self, x, shape):
        """Per-token scaling by 1/sum(x^2) (a simplified RMSNorm)."""
        sq = self.binary("mul", x, x, shape)
        ss = self.rowsum(sq, shape, "bf16")
        return self.rowapply(x, ss, shape, "bf16", "arith.divf")

    def heads(self, x, tokens, nh, hd):
        """[T, H] -> [nh, T, hd]."""
        v = self.fresh("split")
        self.emit(f"{v} = tensor.expand_shape {x} [[0], [1, 2]] output_shape "
                  f"[{tokens}, {nh}, {hd}] : {ty([tokens, nh * hd])} into "
                  f"{ty([tokens, nh, hd])}")
        e = self.empty([nh, tokens, hd])
        t = self.fresh("th")
        self.emit(f"{t} = linalg.transpose ins({v} : {ty([tokens, nh, hd])}) "
                  f"outs({e} : {ty([nh, tokens, hd])}) permutation = [1, 0, 2]")
        return t

    def merge(self, x, tokens, nh, hd):
        """[nh, T, hd] -> [T, H]."""
        e = self.empty([tokens, nh, hd])
        t = self.fresh("tm")
        self.emit(f"{t} = linalg.transpose ins({x} : {ty([nh, tokens, hd])}) "
                  f"outs({e} : {ty([tokens, nh, hd])}) permutation = [1, 0, 2]")
        v = self.fresh("merged")
        self.emit(f"{v} = tensor.collapse_shape {t} [[0], [1, 2]] : "
                  f"{ty([tokens, nh, hd])} into {ty([tokens, nh * hd])}")
        return v


def generate(args, annotate):
    L, T, H, F, NH, V = (args.layers, args.tokens, args.hidden, args.ffn,
                         args.heads, args.vocab)
    HD = H // NH
    em = Emitter(annotate)
    wkind = ' {nvfp4.kind = "weight"}' if annotate else ""
    params = [f"%ids: tensor<{T}xi64>", f"%labels: tensor<{T}xi64>",
              "%seed: i64 {nvfp4.seed}",
              f"%emb: {ty([V, H])}{wkind}"]
    names = ["wq", "wk", "wv", "wo", "wg", "wu", "wd"]
    shapes = {"wq": [H, H], "wk": [H, H], "wv": [H, H], "wo": [H, H],
              "wg": [F, H], "wu": [F, H], "wd": [H, F]}
    for l in range(L):
        for n in names:
            params.append(f"%{n}{l}: {ty(shapes[n])}{wkind}")
    params.append(f"%head: {ty([V, H])}{wkind}")
    if args.inference:
        # Forward only: token ids in, logits out.
        params = [p for p in params
                  if not p.startswith(("%labels", "%seed"))]
        results = [ty([T, V], "f32")]
    else:
        results = [ty([V, H], "f32")]
        for l in range(L):
            results += [ty(shapes[n], "f32") for n in names]
        results.append(ty([V, H], "f32"))

    em.emit("%zero_bf16 = arith.constant 0.0 : bf16")
    em.emit("%zero_f32 = arith.constant 0.0 : f32")
    em.emit("%ninf_f32 = arith.constant 0xFF800000 : f32")

    # ---------------------------------------------------------------- forward
    em.comment("Forward: embedding (one-hot matmul).")
    onehot = em.onehot("%ids", T, V)
    x = em.matmul(onehot, [T, V], "%emb", [V, H], "#mk, #kn, #mn", [T, H],
                  "bf16", "fprop", 0)
    saved = []
    for l in range(L):
        em.comment(f"Forward: block {l}, attention.")
        s = {"x": x}
        xn = em.norm(x, [T, H])
        s["xn"] = xn
        for n in ["wq", "wk", "wv"]:
            s[n] = em.matmul(xn, [T, H], f"%{n}{l}", [H, H], "#mk, #nk, #mn",
                             [T, H], "bf16", "fprop", l)
        q = em.heads(s["wq"], T, NH, HD)
        k = em.heads(s["wk"], T, NH, HD)
        v = em.heads(s["wv"], T, NH, HD)
        s.update(q=q, k=k, v=v)
        scores = em.matmul(q, [NH, T, HD], k, [NH, T, HD], "#bmk, #bnk, #bmn",
                           [NH, T, T], "f32", "fprop", l, batch=True)
        mx = em.rowsum(scores, [NH, T, T], "f32", "arith.maximumf", "%ninf")
        sh = em.rowapply(scores, mx, [NH, T, T], "f32", "arith.subf")
        ex = em.cast(sh, [NH, T, T], "f32", "bf16")
        sm = em.rowsum(ex, [NH, T, T], "bf16")
        p = em.rowapply(ex, sm, [NH, T, T], "bf16", "arith.divf")
        s["p"] = p
        o = em.matmul(p, [NH, T, T], v, [NH, T, HD], "#bmk, #bkn, #bmn",
                      [NH, T, HD], "bf16", "fprop", l, batch=True)
        attn = em.merge(o, T, NH, HD)
        s["attn"] = attn
        y = em.matmul(attn, [T, H], f"%wo{l}", [H, H], "#mk, #nk, #mn",
                      [T, H], "bf16", "fprop", l)
        x = em.binary("add", x, y, [T, H])
        em.comment(f"Forward: block {l}, SwiGLU FFN.")
        s["x2"] = x
        xn2 = em.norm(x, [T, H])
        s["xn2"] = xn2
        g = em.matmul(xn2, [T, H], f"%wg{l}", [F, H], "#mk, #nk, #mn",
                      [T, F], "bf16", "fprop", l)
        u = em.matmul(xn2, [T, H], f"%wu{l}", [F, H], "#mk, #nk, #mn",
                      [T, F], "bf16", "fprop", l)
        s.update(g=g, u=u)
        hcur = em.binary("mul", g, u, [T, F])
        s["h"] = hcur
        d = em.matmul(hcur, [T, F], f"%wd{l}", [H, F], "#mk, #nk, #mn",
                      [T, H], "bf16", "fprop", l)
        x = em.binary("add", x, d, [T, H])
        saved.append(s)

    em.comment("Forward: LM head, softmax.")
    hn = em.norm(x, [T, H])
    logits = em.matmul(hn, [T, H], "%head", [V, H], "#mk, #nk, #mn", [T, V],
                       "f32", "fprop", L - 1)
    mx = em.rowsum(logits, [T, V], "f32", "arith.maximumf", "%ninf")
    sh = em.rowapply(logits, mx, [T, V], "f32", "arith.subf")
    ex = em.cast(sh, [T, V], "f32", "bf16")
    sm = em.rowsum(ex, [T, V], "bf16")
    prob = em.rowapply(ex, sm, [T, V], "bf16", "arith.divf")

    if args.inference:
        em.emit(f"return {logits} : {results[0]}")
        return module_text(
            "forward", params, results, em, annotate,
            ["// Generated by gen_transformer_training.py --inference; do "
             "not edit.",
             f"// The forward pass (inference) of a {L}-block decoder-only"],
            args)

    # --------------------------------------------------------------- backward
    em.comment("Backward: cross-entropy gradient, LM head.")
    target = em.onehot("%labels", T, V)
    dlogits = em.binary("sub", prob, target, [T, V])
    grads = {}
    dx = em.matmul(dlogits, [T, V], "%head", [V, H], "#mk, #kn, #mn", [T, H],
                   "bf16", "dgrad", L - 1)
    grads["head"] = em.matmul(dlogits, [T, V], hn, [T, H], "#km, #kn, #mn",
                              [V, H], "f32", "wgrad", L - 1)
    for l in reversed(range(L)):
        s = saved[l]
        em.comment(f"Backward: block {l}, SwiGLU FFN.")
        dh = em.matmul(dx, [T, H], f"%wd{l}", [H, F], "#mk, #kn, #mn",
                       [T, F], "bf16", "dgrad", l)
        grads[f"wd{l}"] = em.matmul(dx, [T, H], s["h"], [T, F],
                                    "#km, #kn, #mn", [H, F], "f32", "wgrad", l)
        dg = em.binary("mul", dh, s["u"], [T, F])
        du = em.binary("mul", dh, s["g"], [T, F])
        dxn2 = em.matmul(dg, [T, F], f"%wg{l}", [F, H], "#mk, #kn, #mn",
                         [T, H], "bf16", "dgrad", l)
        dxn2 = em.matmul(du, [T, F], f"%wu{l}", [F, H], "#mk, #kn, #mn",
                         [T, H], "bf16", "dgrad", l, acc=dxn2)
        grads[f"wg{l}"] = em.matmul(dg, [T, F], s["xn2"], [T, H],
                                    "#km, #kn, #mn", [F, H], "f32", "wgrad", l)
        grads[f"wu{l}"] = em.matmul(du, [T, F], s["xn2"], [T, H],
                                    "#km, #kn, #mn", [F, H], "f32", "wgrad", l)
        dx = em.binary("add", dx, dxn2, [T, H])
        em.comment(f"Backward: block {l}, attention.")
        dattn = em.matmul(dx, [T, H], f"%wo{l}", [H, H], "#mk, #kn, #mn",
                          [T, H], "bf16", "dgrad", l)
        grads[f"wo{l}"] = em.matmul(dx, [T, H], s["attn"], [T, H],
                                    "#km, #kn, #mn", [H, H], "f32", "wgrad", l)
        do = em.heads(dattn, T, NH, HD)
        dp = em.matmul(do, [NH, T, HD], s["v"], [NH, T, HD],
                       "#bmk, #bnk, #bmn", [NH, T, T], "bf16", "dgrad", l,
                       batch=True)
        dv = em.matmul(s["p"], [NH, T, T], do, [NH, T, HD],
                       "#bkm, #bkn, #bmn", [NH, T, HD], "bf16", "wgrad", l,
                       batch=True)
        ds = em.binary("mul", dp, s["p"], [NH, T, T])
        dq = em.matmul(ds, [NH, T, T], s["k"], [NH, T, HD],
                       "#bmk, #bkn, #bmn", [NH, T, HD], "bf16", "dgrad", l,
                       batch=True)
        dk = em.matmul(ds, [NH, T, T], s["q"], [NH, T, HD],
                       "#bkm, #bkn, #bmn", [NH, T, HD], "bf16", "wgrad", l,
                       batch=True)
        dqf = em.merge(dq, T, NH, HD)
        dkf = em.merge(dk, T, NH, HD)
        dvf = em.merge(dv, T, NH, HD)
        dxn = em.matmul(dqf, [T, H], f"%wq{l}", [H, H], "#mk, #kn, #mn",
                        [T, H], "bf16", "dgrad", l)
        dxn = em.matmul(dkf, [T, H], f"%wk{l}", [H, H], "#mk, #kn, #mn",
                        [T, H], "bf16", "dgrad", l, acc=dxn)
        dxn = em.matmul(dvf, [T, H], f"%wv{l}", [H, H], "#mk, #kn, #mn",
                        [T, H], "bf16", "dgrad", l, acc=dxn)
        for n, dy in (("wq", dqf), ("wk", dkf), ("wv", dvf)):
            grads[f"{n}{l}"] = em.matmul(dy, [T, H], s["xn"], [T, H],
                                         "#km, #kn, #mn", [H, H], "f32",
                                         "wgrad", l)
        dx = em.binary("add", dx, dxn, [T, H])
    em.comment("Backward: embedding.")
    grads["emb"] = em.matmul(onehot, [T, V], dx, [T, H], "#km, #kn, #mn",
                             [V, H], "f32", "wgrad", 0)

    rets = [grads["emb"]]
    for l in range(L):
        rets += [grads[f"{n}{l}"] for n in names]
    rets.append(grads["head"])
    em.emit(f"return {', '.join(rets)} : {', '.join(results)}")

    return module_text(
        "train_step", params, results, em, annotate,
        ["// Generated by gen_transformer_training.py; do not edit.",
         f"// One training step (forward + backward) of a {L}-block "
         "decoder-only"], args)


def module_text(name, params, results, em, annotate, title, args):
    """The module: a header (`title` lines, then the shape and whether it is
    annotated), the maps, and the function `name` with the emitted body."""
    variant = "with" if annotate else "without"
    header = title + [
        f"// transformer: {args.tokens} tokens, hidden {args.hidden}, FFN "
        f"{args.ffn}, {args.heads} heads, vocabulary {args.vocab},",
        f"// {variant} nvfp4 recipe annotations.",
        "",
    ]
    body = [MAPS,
            f"func.func @{name}({', '.join(params)})",
            f"    -> ({', '.join(results)}) {{"]
    return "\n".join(header + body + em.lines + ["}", ""])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=2048)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--ffn", type=int, default=14336)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--inference", action="store_true",
                        help="write the forward pass only (@forward: ids -> "
                             "logits) as transformer_inference[_annotated].mlir")
    parser.add_argument("outdir", nargs="?",
                        default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    stem = "transformer_inference" if args.inference else "transformer_training"
    for annotate, name in ((True, stem + "_annotated.mlir"),
                           (False, stem + ".mlir")):
        with open(os.path.join(args.outdir, name), "w") as f:
            f.write(generate(args, annotate))


if __name__ == "__main__":
    main()
