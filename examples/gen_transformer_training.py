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
# The model: weights are stored [out, in] (Y = X W^T, linalg.matmul with a
# transposed rhs map); the embedding is a one-hot matmul; each block is
# pre-norm causal attention (RMSNorm without gain, QK^T / sqrt(head dim)
# and score.V batch matmuls over the heads) and a gated bilinear FFN
# (W_d (W_g x * W_u x)); a final RMSNorm, the LM head, softmax and the mean
# cross-entropy over the tokens. The backward pass is the exact gradient of
# that loss (checked against autodiff by test/Python/train-step-gradients);
# element-wise and row-wise arithmetic is f32, tensors between ops are
# --dtype (bf16 by default, or f32). The output is deterministic.
#
#   python3 gen_transformer_training.py [--layers 4] [--tokens 2048]
#       [--hidden 4096] [--ffn 14336] [--heads 32] [--vocab 32000]
#       [--dtype bf16|f32] [--inference [--constant-weights] |
#        --optimizer sgd|adam] [outdir]
#
# @train_step(ids, labels, seed, weights...) returns the weight gradients
# (f32). With --optimizer the step is whole: it also returns the loss and
# applies the update,
#
#   sgd:  @train_step(ids, labels, seed, lr, weights...)
#           -> (loss, new weights...)
#   adam: @train_step(ids, labels, seed, step_size, weights..., m..., v...)
#           -> (loss, new weights..., new m..., new v...)
#
# Adam uses beta1 0.9, beta2 0.999, epsilon 1e-8, and takes the bias
# correction in step_size = lr * sqrt(1 - beta2^t) / (1 - beta1^t); m and v
# are f32. It writes transformer_train_{sgd,adam}[_annotated].mlir.
#
# With --inference it writes the forward pass alone (@forward: token ids to
# logits) as transformer_inference[_annotated].mlir. With --constant-weights
# too, the weights are constants in the function, as importers write
# inference graphs (`dense_resource<__elided__>`: for the recipe and its
# report only, not for running), and @forward takes the token ids alone.
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
"""


def ty(shape, elt):
    if not shape:
        return f"tensor<{elt}>"
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + elt + ">"


def lit(value):
    """An f32 literal MLIR parses: always with a mantissa point."""
    return f"{float(value):.9e}"


def affine(rank, results):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({', '.join(results)})>"


class Emitter:
    """Emits linalg on tensors. Elementwise and row-wise arithmetic is done
    in f32 whatever the model's type `dt` (bf16 or f32) is: inputs are
    extended, results truncated."""

    def __init__(self, annotate, dt):
        self.annotate = annotate
        self.dt = dt
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

    def empty(self, shape, elt):
        v = self.fresh("e")
        self.emit(f"{v} = tensor.empty() : {ty(shape, elt)}")
        return v

    def filled(self, shape, elt, value):
        e = self.empty(shape, elt)
        v = self.fresh("z")
        self.emit(f"{v} = linalg.fill ins({value} : {elt}) outs({e} : "
                  f"{ty(shape, elt)}) -> {ty(shape, elt)}")
        return v

    def attrs(self, role, layer):
        if not self.annotate:
            return ""
        return f" {{nvfp4.layer = {layer} : i64, nvfp4.role = \"{role}\"}}"

    def matmul(self, a, ash, b, bsh, maps, out, elt, role, layer,
               acc=None, batch=False):
        """out = a * b (+ acc); maps names the operand layouts."""
        init = acc if acc else self.filled(out, elt, f"%zero_{elt}")
        v = self.fresh("mm")
        op = "linalg.batch_matmul" if batch else "linalg.matmul"
        self.emit(f"{v} = {op} indexing_maps = [{maps}] ins({a}, {b} : "
                  f"{ty(ash, self.dt)}, {ty(bsh, self.dt)}) outs({init} : "
                  f"{ty(out, elt)}){self.attrs(role, layer)} -> "
                  f"{ty(out, elt)}")
        return v

    def generic(self, shape, inputs, outputs, fn, reduce=None):
        """One linalg.generic over `shape`.

        inputs: (value, element type, indexed dims) each, the dims a tuple
          of iteration dimensions (all of them for an elementwise operand);
        outputs: (element type, indexed dims, init or None) each;
        fn(xs, accs): body lines and the f32 values to store, given the
          f32 names of the inputs (xs) and of the current outputs (accs);
        reduce: the set of reduction dimensions.
        Returns the result value(s)."""
        rank = len(shape)
        dims = lambda idx: [f"d{i}" for i in idx]
        iters = ", ".join('"reduction"' if reduce and i in reduce else
                          '"parallel"' for i in range(rank))
        outs = [(init or self.empty([shape[i] for i in idx], elt), elt, idx)
                for elt, idx, init in outputs]
        operands = list(inputs) + outs
        maps = ", ".join(affine(rank, dims(idx)) for _, _, idx in operands)
        types = [ty([shape[i] for i in idx], elt) for _, elt, idx in operands]
        n_in = len(inputs)
        base = self.fresh("g")
        lhs = base if len(outs) == 1 else f"{base}:{len(outs)}"
        ins = (f" ins({', '.join(v for v, _, _ in inputs)} : "
               f"{', '.join(types[:n_in])})" if inputs else "")
        self.emit(f"{lhs} = linalg.generic {{indexing_maps = [{maps}], "
                  f"iterator_types = [{iters}]}}{ins} outs("
                  f"{', '.join(v for v, _, _ in outs)} : "
                  f"{', '.join(types[n_in:])}) {{")
        args = [f"%a{i}: {elt}" for i, (_, elt, _) in enumerate(operands)]
        self.emit(f"^bb0({', '.join(args)}):")
        body, names = [], []
        for i, (_, elt, _) in enumerate(operands):
            if elt == "f32":
                names.append(f"%a{i}")
            elif elt in ("bf16", "f16"):
                body.append(f"%a{i}f = arith.extf %a{i} : {elt} to f32")
                names.append(f"%a{i}f")
            else:
                names.append(f"%a{i}")
        lines, values = fn(names[:n_in], names[n_in:])
        body += lines
        yields = []
        for i, (value, (_, elt, _)) in enumerate(zip(values, outs)):
            if elt != "f32" and elt in ("bf16", "f16"):
                body.append(f"%y{i} = arith.truncf {value} : f32 to {elt}")
                value = f"%y{i}"
            yields.append(value)
        body.append(f"linalg.yield {', '.join(yields)} : "
                    f"{', '.join(elt for _, elt, _ in outs)}")
        for line in body:
            self.emit("  " + line)
        result_types = ", ".join(types[n_in:])
        if len(outs) > 1:
            result_types = f"({result_types})"
        self.emit(f"}} -> {result_types}")
        if len(outs) == 1:
            return base
        return [f"{base}#{i}" for i in range(len(outs))]

    def elementwise(self, shape, inputs, elt, expr):
        """out = expr(x0, x1, ..) elementwise; inputs (value, elt) of
        `shape`, or (value, elt, dims) for a broadcast one; `expr` maps
        the f32 input names to (lines, f32 result)."""
        full = tuple(range(len(shape)))
        ins = [(i[0], i[1], i[2] if len(i) > 2 else full) for i in inputs]

        def body(xs, _):
            lines, value = expr(*xs)
            return lines, [value]
        return self.generic(shape, ins, [(elt, full, None)], body)

    def rowreduce(self, shape, inputs, expr, combine="arith.addf",
                  init="%zero_f32"):
        """f32 [shape[:-1]]: combine over the last dimension of expr(..)."""
        rank = len(shape)
        full = tuple(range(rank))
        acc = self.filled(shape[:-1], "f32", init)

        def body(xs, accs):
            lines, value = expr(*xs)
            return lines + [f"%r = {combine} {value}, {accs[0]} : f32"], ["%r"]
        return self.generic(shape, [(v, e, full) for v, e in inputs],
                            [("f32", full[:-1], acc)], body,
                            reduce={rank - 1})

    def rowdot(self, shape, a, b):
        """f32 [shape[:-1]]: sum over the last dimension of a * b, for a
        and b given as (value, element type): the product, then the sum, as
        frontends write it (one generic would be a contraction the recipe
        reports)."""
        product = self.elementwise(shape, [a, b], "f32", lambda x, y: (
            [f"%p = arith.mulf {x}, {y} : f32"], "%p"))
        return self.rowreduce(shape, [(product, "f32")], lambda x: ([], x))

    def total(self, x, shape):
        """The f32 sum of all elements of f32 `x`, as an f32 scalar."""
        full = tuple(range(len(shape)))
        acc = self.filled([], "f32", "%zero_f32")
        t = self.generic(shape, [(x, "f32", full)], [("f32", (), acc)],
                         lambda xs, accs: (
                             [f"%r = arith.addf {xs[0]}, {accs[0]} : f32"],
                             ["%r"]), reduce=set(full))
        v = self.fresh("sum")
        self.emit(f"{v} = tensor.extract {t}[] : {ty([], 'f32')}")
        return v

    def onehot(self, ids, tokens, vocab):
        """[tokens, vocab]: 1 where the column is the token's id."""
        e = self.empty([tokens, vocab], self.dt)
        v = self.fresh("onehot")
        self.emit(f"{v} = linalg.generic {{indexing_maps = "
                  f"[{affine(2, ['d0'])}, {affine(2, ['d0', 'd1'])}], "
                  f"iterator_types = [\"parallel\", \"parallel\"]}} "
                  f"ins({ids} : tensor<{tokens}xi64>) outs({e} : "
                  f"{ty([tokens, vocab], self.dt)}) {{")
        self.emit(f"^bb0(%id: i64, %out: {self.dt}):")
        self.emit("  %j = linalg.index 1 : index")
        self.emit("  %ji = arith.index_cast %j : index to i64")
        self.emit("  %eq = arith.cmpi eq, %id, %ji : i64")
        self.emit(f"  %r = arith.uitofp %eq : i1 to {self.dt}")
        self.emit(f"  linalg.yield %r : {self.dt}")
        self.emit(f"}} -> {ty([tokens, vocab], self.dt)}")
        return v

    def rmsnorm(self, x, shape):
        """y = x * r, r = 1/sqrt(mean(x^2) + 1e-6) per row; returns y, r."""
        h = shape[-1]
        ss = self.rowreduce(shape, [(x, self.dt)], lambda a: (
            [f"%sq = arith.mulf {a}, {a} : f32"], "%sq"))
        r = self.elementwise(shape[:-1], [(ss, "f32")], "f32", lambda s: ([
            f"%n = arith.constant {lit(float(h))} : f32",
            "%eps = arith.constant 1.0e-06 : f32",
            f"%m = arith.divf {s}, %n : f32",
            "%me = arith.addf %m, %eps : f32",
            "%rs = math.rsqrt %me : f32"], "%rs"))
        y = self.elementwise(shape, [(x, self.dt), (r, "f32", (0,))], self.dt,
                             lambda a, b: ([f"%p = arith.mulf {a}, {b} : f32"],
                                           "%p"))
        return y, r

    def rmsnorm_backward(self, x, r, dy, shape):
        """dx = r dy - x r^3 sum(dy x) / H."""
        h = shape[-1]
        dot = self.rowdot(shape, (dy, self.dt), (x, self.dt))
        return self.elementwise(
            shape, [(x, self.dt), (dy, self.dt), (r, "f32", (0,)),
                    (dot, "f32", (0,))], self.dt,
            lambda xv, dyv, rv, dotv: ([
                f"%n = arith.constant {lit(float(h))} : f32",
                f"%r2 = arith.mulf {rv}, {rv} : f32",
                f"%r3 = arith.mulf %r2, {rv} : f32",
                f"%c0 = arith.mulf %r3, {dotv} : f32",
                "%c = arith.divf %c0, %n : f32",
                f"%t0 = arith.mulf {rv}, {dyv} : f32",
                f"%t1 = arith.mulf {xv}, %c : f32",
                "%dx = arith.subf %t0, %t1 : f32"], "%dx"))

    def softmax(self, scores, shape, elt):
        """Softmax over the last dimension of f32 `scores`, stored as elt."""
        rows = tuple(range(len(shape) - 1))
        mx = self.rowreduce(shape, [(scores, "f32")], lambda a: ([], a),
                            "arith.maximumf", "%ninf_f32")
        ex = self.elementwise(shape, [(scores, "f32"), (mx, "f32", rows)],
                              "f32", lambda a, m: ([
                                  f"%d = arith.subf {a}, {m} : f32",
                                  "%x = math.exp %d : f32"], "%x"))
        z = self.rowreduce(shape, [(ex, "f32")], lambda a: ([], a))
        p = self.elementwise(shape, [(ex, "f32"), (z, "f32", rows)], elt,
                             lambda a, b: ([f"%q = arith.divf {a}, {b} : f32"],
                                           "%q"))
        return p, mx, z

    def add(self, a, b, shape):
        return self.elementwise(shape, [(a, self.dt), (b, self.dt)], self.dt,
                                lambda x, y: ([f"%s = arith.addf {x}, {y} : "
                                               "f32"], "%s"))

    def mul(self, a, b, shape):
        return self.elementwise(shape, [(a, self.dt), (b, self.dt)], self.dt,
                                lambda x, y: ([f"%s = arith.mulf {x}, {y} : "
                                               "f32"], "%s"))

    def heads(self, x, tokens, nh, hd):
        """[T, H] -> [nh, T, hd]."""
        v = self.fresh("split")
        self.emit(f"{v} = tensor.expand_shape {x} [[0], [1, 2]] output_shape "
                  f"[{tokens}, {nh}, {hd}] : {ty([tokens, nh * hd], self.dt)} "
                  f"into {ty([tokens, nh, hd], self.dt)}")
        e = self.empty([nh, tokens, hd], self.dt)
        t = self.fresh("th")
        self.emit(f"{t} = linalg.transpose ins({v} : "
                  f"{ty([tokens, nh, hd], self.dt)}) outs({e} : "
                  f"{ty([nh, tokens, hd], self.dt)}) permutation = [1, 0, 2]")
        return t

    def merge(self, x, tokens, nh, hd):
        """[nh, T, hd] -> [T, H]."""
        e = self.empty([tokens, nh, hd], self.dt)
        t = self.fresh("tm")
        self.emit(f"{t} = linalg.transpose ins({x} : "
                  f"{ty([nh, tokens, hd], self.dt)}) outs({e} : "
                  f"{ty([tokens, nh, hd], self.dt)}) permutation = [1, 0, 2]")
        v = self.fresh("merged")
        self.emit(f"{v} = tensor.collapse_shape {t} [[0], [1, 2]] : "
                  f"{ty([tokens, nh, hd], self.dt)} into "
                  f"{ty([tokens, nh * hd], self.dt)}")
        return v


ADAM_BETA1, ADAM_BETA2, ADAM_EPSILON = 0.9, 0.999, 1e-8


def generate(args, annotate):
    L, T, H, F, NH, V = (args.layers, args.tokens, args.hidden, args.ffn,
                         args.heads, args.vocab)
    HD = H // NH
    dt = args.dtype
    em = Emitter(annotate, dt)
    wkind = ' {nvfp4.kind = "weight"}' if annotate else ""
    names = ["wq", "wk", "wv", "wo", "wg", "wu", "wd"]
    shapes = {"wq": [H, H], "wk": [H, H], "wv": [H, H], "wo": [H, H],
              "wg": [F, H], "wu": [F, H], "wd": [H, F]}
    weights = [("emb", [V, H])] + [(f"{n}{l}", shapes[n]) for l in range(L)
                                   for n in names] + [("head", [V, H])]
    params = [f"%ids: tensor<{T}xi64>", f"%labels: tensor<{T}xi64>",
              "%seed: i64 {nvfp4.seed}"]
    if args.optimizer == "sgd":
        params.append("%lr: f32")
    elif args.optimizer == "adam":
        params.append("%step_size: f32")
    params += [f"%{w}: {ty(shape, dt)}{wkind}" for w, shape in weights]
    if args.optimizer == "adam":
        params += [f"%{w}_m: {ty(shape, 'f32')}" for w, shape in weights]
        params += [f"%{w}_v: {ty(shape, 'f32')}" for w, shape in weights]
    if args.inference:
        # Forward only: token ids in, logits out.
        params = [params[0]]
        if not args.constant_weights:
            params += [f"%{w}: {ty(shape, dt)}{wkind}" for w, shape in weights]
        results = [ty([T, V], "f32")]
    elif args.optimizer:
        results = ["f32"] + [ty(shape, dt) for _, shape in weights]
        if args.optimizer == "adam":
            results += [ty(shape, "f32") for _, shape in weights] * 2
    else:
        results = [ty(shape, "f32") for _, shape in weights]

    if args.inference and args.constant_weights:
        for w, shape in weights:
            em.emit(f"%{w} = arith.constant dense_resource<__elided__> : "
                    f"{ty(shape, dt)}")
    em.emit("%zero_f32 = arith.constant 0.0 : f32")
    if dt != "f32":
        em.emit(f"%zero_{dt} = arith.constant 0.0 : {dt}")
    em.emit("%ninf_f32 = arith.constant 0xFF800000 : f32")

    # ---------------------------------------------------------------- forward
    em.comment("Forward: embedding (one-hot matmul).")
    onehot = em.onehot("%ids", T, V)
    x = em.matmul(onehot, [T, V], "%emb", [V, H], "#mk, #kn, #mn", [T, H],
                  dt, "fprop", 0)
    saved = []
    for l in range(L):
        em.comment(f"Forward: block {l}, causal attention.")
        s = {"x": x}
        xn, s["r"] = em.rmsnorm(x, [T, H])
        s["xn"] = xn
        for n in ["wq", "wk", "wv"]:
            s[n] = em.matmul(xn, [T, H], f"%{n}{l}", [H, H], "#mk, #nk, #mn",
                             [T, H], dt, "fprop", l)
        q = em.heads(s["wq"], T, NH, HD)
        k = em.heads(s["wk"], T, NH, HD)
        v = em.heads(s["wv"], T, NH, HD)
        s.update(q=q, k=k, v=v)
        scores = em.matmul(q, [NH, T, HD], k, [NH, T, HD], "#bmk, #bnk, #bmn",
                           [NH, T, T], "f32", "fprop", l, batch=True)
        # Scaled by 1/sqrt(head dim); a key after the query is masked.
        masked = em.generic(
            [NH, T, T], [(scores, "f32", (0, 1, 2))],
            [("f32", (0, 1, 2), None)],
            lambda xs, _: ([
                f"%scale = arith.constant {lit(1.0 / HD ** 0.5)} : f32",
                "%i = linalg.index 1 : index",
                "%j = linalg.index 2 : index",
                "%future = arith.cmpi ugt, %j, %i : index",
                f"%scaled = arith.mulf {xs[0]}, %scale : f32",
                "%m = arith.select %future, %ninf_f32, %scaled : f32"],
                ["%m"]))
        p, _, _ = em.softmax(masked, [NH, T, T], dt)
        s["p"] = p
        o = em.matmul(p, [NH, T, T], v, [NH, T, HD], "#bmk, #bkn, #bmn",
                      [NH, T, HD], dt, "fprop", l, batch=True)
        attn = em.merge(o, T, NH, HD)
        s["attn"] = attn
        y = em.matmul(attn, [T, H], f"%wo{l}", [H, H], "#mk, #nk, #mn",
                      [T, H], dt, "fprop", l)
        x = em.add(x, y, [T, H])
        em.comment(f"Forward: block {l}, gated (bilinear) FFN.")
        s["x2"] = x
        xn2, s["r2"] = em.rmsnorm(x, [T, H])
        s["xn2"] = xn2
        g = em.matmul(xn2, [T, H], f"%wg{l}", [F, H], "#mk, #nk, #mn",
                      [T, F], dt, "fprop", l)
        u = em.matmul(xn2, [T, H], f"%wu{l}", [F, H], "#mk, #nk, #mn",
                      [T, F], dt, "fprop", l)
        s.update(g=g, u=u)
        hcur = em.mul(g, u, [T, F])
        s["h"] = hcur
        d = em.matmul(hcur, [T, F], f"%wd{l}", [H, F], "#mk, #nk, #mn",
                      [T, H], dt, "fprop", l)
        x = em.add(x, d, [T, H])
        saved.append(s)

    em.comment("Forward: final norm, LM head, softmax.")
    hn, rf = em.rmsnorm(x, [T, H])
    logits = em.matmul(hn, [T, H], "%head", [V, H], "#mk, #nk, #mn", [T, V],
                       "f32", "fprop", L - 1)
    if args.inference:
        em.emit(f"return {logits} : {results[0]}")
        return module_text(
            "forward", params, results, em, annotate,
            ["// Generated by gen_transformer_training.py --inference; do "
             "not edit.",
             f"// The forward pass (inference) of a {L}-block decoder-only"],
            args)
    prob, mx, z = em.softmax(logits, [T, V], "f32")

    # --------------------------------------------------------------- backward
    em.comment("Loss: mean cross-entropy; its gradient (softmax - one-hot)/T.")
    target = em.onehot("%labels", T, V)
    if args.optimizer:
        picked = em.rowdot([T, V], (logits, "f32"), (target, dt))
        nll = em.elementwise([T], [(mx, "f32"), (z, "f32"), (picked, "f32")],
                             "f32", lambda m, zz, pk: ([
                                 f"%lz = math.log {zz} : f32",
                                 f"%lse = arith.addf {m}, %lz : f32",
                                 f"%n = arith.subf %lse, {pk} : f32",
                                 f"%t = arith.constant {lit(float(T))} : f32",
                                 "%l = arith.divf %n, %t : f32"], "%l"))
        loss = em.total(nll, [T])
    dlogits = em.elementwise([T, V], [(prob, "f32"), (target, dt)], dt,
                             lambda pv, tv: ([
                                 f"%d = arith.subf {pv}, {tv} : f32",
                                 f"%t = arith.constant {lit(float(T))} : f32",
                                 "%g = arith.divf %d, %t : f32"], "%g"))
    grads = {}
    em.comment("Backward: LM head, final norm.")
    dhn = em.matmul(dlogits, [T, V], "%head", [V, H], "#mk, #kn, #mn", [T, H],
                    dt, "dgrad", L - 1)
    grads["head"] = em.matmul(dlogits, [T, V], hn, [T, H], "#km, #kn, #mn",
                              [V, H], "f32", "wgrad", L - 1)
    dx = em.rmsnorm_backward(x, rf, dhn, [T, H])
    for l in reversed(range(L)):
        s = saved[l]
        em.comment(f"Backward: block {l}, gated (bilinear) FFN.")
        dh = em.matmul(dx, [T, H], f"%wd{l}", [H, F], "#mk, #kn, #mn",
                       [T, F], dt, "dgrad", l)
        grads[f"wd{l}"] = em.matmul(dx, [T, H], s["h"], [T, F],
                                    "#km, #kn, #mn", [H, F], "f32", "wgrad", l)
        dg = em.mul(dh, s["u"], [T, F])
        du = em.mul(dh, s["g"], [T, F])
        dxn2 = em.matmul(dg, [T, F], f"%wg{l}", [F, H], "#mk, #kn, #mn",
                         [T, H], dt, "dgrad", l)
        dxn2 = em.matmul(du, [T, F], f"%wu{l}", [F, H], "#mk, #kn, #mn",
                         [T, H], dt, "dgrad", l, acc=dxn2)
        grads[f"wg{l}"] = em.matmul(dg, [T, F], s["xn2"], [T, H],
                                    "#km, #kn, #mn", [F, H], "f32", "wgrad", l)
        grads[f"wu{l}"] = em.matmul(du, [T, F], s["xn2"], [T, H],
                                    "#km, #kn, #mn", [F, H], "f32", "wgrad", l)
        dx = em.add(dx, em.rmsnorm_backward(s["x2"], s["r2"], dxn2, [T, H]),
                    [T, H])
        em.comment(f"Backward: block {l}, causal attention.")
        dattn = em.matmul(dx, [T, H], f"%wo{l}", [H, H], "#mk, #kn, #mn",
                          [T, H], dt, "dgrad", l)
        grads[f"wo{l}"] = em.matmul(dx, [T, H], s["attn"], [T, H],
                                    "#km, #kn, #mn", [H, H], "f32", "wgrad", l)
        do = em.heads(dattn, T, NH, HD)
        dp = em.matmul(do, [NH, T, HD], s["v"], [NH, T, HD],
                       "#bmk, #bnk, #bmn", [NH, T, T], dt, "dgrad", l,
                       batch=True)
        dv = em.matmul(s["p"], [NH, T, T], do, [NH, T, HD],
                       "#bkm, #bkn, #bmn", [NH, T, HD], dt, "wgrad", l,
                       batch=True)
        # Softmax backward, times the score scale: p (dp - sum(dp p)) / sqrt.
        rows = (0, 1)
        dpp = em.rowdot([NH, T, T], (dp, dt), (s["p"], dt))
        ds = em.elementwise(
            [NH, T, T], [(dp, dt), (s["p"], dt), (dpp, "f32", rows)], dt,
            lambda a, b, c: ([
                f"%scale = arith.constant {lit(1.0 / HD ** 0.5)} : f32",
                f"%d = arith.subf {a}, {c} : f32",
                f"%e = arith.mulf {b}, %d : f32",
                "%f = arith.mulf %e, %scale : f32"], "%f"))
        dq = em.matmul(ds, [NH, T, T], s["k"], [NH, T, HD],
                       "#bmk, #bkn, #bmn", [NH, T, HD], dt, "dgrad", l,
                       batch=True)
        dk = em.matmul(ds, [NH, T, T], s["q"], [NH, T, HD],
                       "#bkm, #bkn, #bmn", [NH, T, HD], dt, "wgrad", l,
                       batch=True)
        dqf = em.merge(dq, T, NH, HD)
        dkf = em.merge(dk, T, NH, HD)
        dvf = em.merge(dv, T, NH, HD)
        dxn = em.matmul(dqf, [T, H], f"%wq{l}", [H, H], "#mk, #kn, #mn",
                        [T, H], dt, "dgrad", l)
        dxn = em.matmul(dkf, [T, H], f"%wk{l}", [H, H], "#mk, #kn, #mn",
                        [T, H], dt, "dgrad", l, acc=dxn)
        dxn = em.matmul(dvf, [T, H], f"%wv{l}", [H, H], "#mk, #kn, #mn",
                        [T, H], dt, "dgrad", l, acc=dxn)
        for n, dy in (("wq", dqf), ("wk", dkf), ("wv", dvf)):
            grads[f"{n}{l}"] = em.matmul(dy, [T, H], s["xn"], [T, H],
                                         "#km, #kn, #mn", [H, H], "f32",
                                         "wgrad", l)
        dx = em.add(dx, em.rmsnorm_backward(s["x"], s["r"], dxn, [T, H]),
                    [T, H])
    em.comment("Backward: embedding.")
    grads["emb"] = em.matmul(onehot, [T, V], dx, [T, H], "#km, #kn, #mn",
                             [V, H], "f32", "wgrad", 0)

    rets = [grads[w] for w, _ in weights]
    if args.optimizer == "sgd":
        em.comment("SGD: w - lr * grad.")
        rets = [loss] + [
            em.elementwise(shape, [(f"%{w}", dt), (grads[w], "f32")], dt,
                           lambda wv, gv: ([
                               f"%step = arith.mulf %lr, {gv} : f32",
                               f"%new = arith.subf {wv}, %step : f32"],
                               "%new"))
            for w, shape in weights]
    elif args.optimizer == "adam":
        em.comment(f"Adam (beta1 {ADAM_BETA1}, beta2 {ADAM_BETA2}, epsilon "
                   f"{ADAM_EPSILON}); %step_size carries the bias correction.")
        new_w, new_m, new_v = [], [], []
        for w, shape in weights:
            full = tuple(range(len(shape)))
            wv, mv, vv = em.generic(
                shape, [(f"%{w}", dt, full), (grads[w], "f32", full),
                        (f"%{w}_m", "f32", full), (f"%{w}_v", "f32", full)],
                [(dt, full, None), ("f32", full, None), ("f32", full, None)],
                lambda xs, _: ([
                    f"%b1 = arith.constant {lit(ADAM_BETA1)} : f32",
                    f"%c1 = arith.constant {lit(1 - ADAM_BETA1)} : f32",
                    f"%b2 = arith.constant {lit(ADAM_BETA2)} : f32",
                    f"%c2 = arith.constant {lit(1 - ADAM_BETA2)} : f32",
                    f"%eps = arith.constant {lit(ADAM_EPSILON)} : f32",
                    f"%m0 = arith.mulf %b1, {xs[2]} : f32",
                    f"%m1 = arith.mulf %c1, {xs[1]} : f32",
                    "%m = arith.addf %m0, %m1 : f32",
                    f"%g2 = arith.mulf {xs[1]}, {xs[1]} : f32",
                    f"%v0 = arith.mulf %b2, {xs[3]} : f32",
                    "%v1 = arith.mulf %c2, %g2 : f32",
                    "%v = arith.addf %v0, %v1 : f32",
                    "%sv = math.sqrt %v : f32",
                    "%den = arith.addf %sv, %eps : f32",
                    "%ratio = arith.divf %m, %den : f32",
                    "%step = arith.mulf %step_size, %ratio : f32",
                    f"%new = arith.subf {xs[0]}, %step : f32"],
                    ["%new", "%m", "%v"]))
            new_w.append(wv)
            new_m.append(mv)
            new_v.append(vv)
        rets = [loss] + new_w + new_m + new_v
    em.emit(f"return {', '.join(rets)} : {', '.join(results)}")

    what = {None: "(forward + backward)",
            "sgd": "(forward, backward, loss and SGD update)",
            "adam": "(forward, backward, loss and Adam update)"}
    return module_text(
        "train_step", params, results, em, annotate,
        ["// Generated by gen_transformer_training.py; do not edit.",
         f"// One training step {what[args.optimizer]} of a {L}-block "
         "decoder-only"], args)


def module_text(name, params, results, em, annotate, title, args):
    """The module: a header (`title` lines, then the shape and whether it is
    annotated), the maps, and the function `name` with the emitted body."""
    variant = "with" if annotate else "without"
    header = title + [
        f"// transformer: {args.tokens} tokens, hidden {args.hidden}, FFN "
        f"{args.ffn}, {args.heads} heads, vocabulary {args.vocab}, "
        f"{args.dtype},",
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
    parser.add_argument("--dtype", choices=["bf16", "f32"], default="bf16",
                        help="the type of weights and activations")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--inference", action="store_true",
                      help="write the forward pass only (@forward: ids -> "
                           "logits) as transformer_inference[_annotated].mlir")
    mode.add_argument("--optimizer", choices=["sgd", "adam"],
                      help="a whole step: also the loss and the update, as "
                           "transformer_train_<optimizer>[_annotated].mlir")
    parser.add_argument("--constant-weights", action="store_true",
                        help="with --inference: weights as elided constants "
                             "in @forward (for the recipe, not for running)")
    parser.add_argument("outdir", nargs="?",
                        default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    if args.hidden % args.heads:
        parser.error("--hidden must be a multiple of --heads")
    if args.constant_weights and not args.inference:
        parser.error("--constant-weights needs --inference")
    stem = ("transformer_inference" if args.inference else
            f"transformer_train_{args.optimizer}" if args.optimizer else
            "transformer_training")
    for annotate, name in ((True, stem + "_annotated.mlir"),
                           (False, stem + ".mlir")):
        with open(os.path.join(args.outdir, name), "w") as f:
            f.write(generate(args, annotate))


if __name__ == "__main__":
    main()
