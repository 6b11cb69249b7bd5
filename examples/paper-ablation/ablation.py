#!/usr/bin/env python3
# ===- ablation.py - The NVFP4 paper's ablation in miniature ------------=== #
#
# Part of the NVFP4-MLIR project.
#
# ===---------------------------------------------------------------------=== #
"""The NVFP4 paper's ablation (arXiv 2509.25149) in miniature, on a CPU.

A small decoder-only transformer LM (byte level, RMSNorm, causal attention,
GELU MLP) is trained on the Python standard library's own sources -- a
corpus every machine with Python has -- once per arm and seed:

  bf16          GEMM operands rounded to bf16 (f32 accumulation): baseline
  nvfp4         the full recipe (nvfp4.Recipe): 16x16 RN weights, 1x16 RN
                activations, 1x16 SR gradients, RHT on wgrad operands,
                first and last block kept in bf16
  no-rht        the recipe without the Hadamard transform
  no-sr         the recipe with gradients rounded to nearest
  1x16-weights  the recipe with 1x16 weight blocks
  all-fp4       the recipe with every block in NVFP4
  mxfp4         the recipe in MXFP4 (1x32 E8M0-scaled blocks, RN, no RHT
                or SR: the OCP format), first and last block in bf16
  nvfp4+mxfp8   the recipe, with the first and last block in MXFP8 (E4M3)
                instead of bf16 (formats=nvfp4,mxfp8,bf16)

Every linear layer of every block is an nvfp4.torch linear (fake
quantization: bit for bit dequantize(quantize()) of the library); the
embedding and the LM head stay in bf16, as the compiler's recipe keeps
them. All arms of one seed start from the same weights and see the same
batches. The script prints, per arm, the final validation loss (mean over
seeds), its gap to bf16 (paired by seed, with the standard error) and the
paired t statistic of each ablation against the full recipe; with --out it
writes the table and a loss-curve plot.

  python3 examples/paper-ablation/ablation.py [--steps 600] [--seeds 3]
      [--layers 4] [--hidden 128] [--out docs]

Needs PyTorch (and matplotlib for the plot); run from the build tree
(PYTHONPATH=build/python_packages).
"""

import argparse
import datetime
import glob
import math
import os
import platform
import sys
import time

import numpy as np
import torch

import nvfp4
import nvfp4.torch as nt

ARMS = ("bf16", "nvfp4", "no-rht", "no-sr", "1x16-weights", "all-fp4",
        "mxfp4", "nvfp4+mxfp8")


def corpus(max_bytes: int) -> np.ndarray:
    """The standard library's .py files, sorted by path, concatenated."""
    root = os.path.dirname(os.__file__)
    data = bytearray()
    for path in sorted(glob.glob(os.path.join(root, "*.py"))):
        with open(path, "rb") as f:
            data += f.read()
        if len(data) >= max_bytes:
            break
    return np.frombuffer(bytes(data[:max_bytes]), dtype=np.uint8)


class _BF16Gemm(torch.autograd.Function):
    """Y = X W^T with every GEMM operand rounded to bf16, accumulated in f32
    (what bf16 tensor-core GEMMs compute)."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        bf = lambda t: t.to(torch.bfloat16).to(torch.float32)
        return bf(x) @ bf(w).T

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        bf = lambda t: t.to(torch.bfloat16).to(torch.float32)
        return bf(dy) @ bf(w), bf(dy).T @ bf(x)


class Linear(torch.nn.Module):
    """A linear layer of the model: GEMMs in the block-scaled format the
    recipe's ladder gives its block, bf16 GEMMs otherwise."""

    def __init__(self, fan_in, fan_out, recipe, layer, num_layers):
        super().__init__()
        self.weight = torch.nn.Parameter(
            torch.randn(fan_out, fan_in) / math.sqrt(fan_in))
        self.recipe = recipe
        self.format = (None if recipe is None else
                       recipe.layer_format(layer, num_layers))

    def forward(self, x):
        if self.format:
            return nt.nvfp4_linear(x, self.weight, self.recipe,
                                   format=self.format)
        shape = x.shape
        y = _BF16Gemm.apply(x.reshape(-1, shape[-1]), self.weight)
        return y.reshape(*shape[:-1], -1)


class Block(torch.nn.Module):
    def __init__(self, d, heads, recipe, layer, num_layers):
        super().__init__()
        self.heads = heads
        make = lambda i, o: Linear(i, o, recipe, layer, num_layers)
        self.qkv = make(d, 3 * d)
        self.out = make(d, d)
        self.up = make(d, 4 * d)
        self.down = make(4 * d, d)

    @staticmethod
    def norm(x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm(x)).split(d, dim=-1)
        split = lambda z: z.view(b, t, self.heads, d // self.heads) \
            .transpose(1, 2)
        a = torch.nn.functional.scaled_dot_product_attention(
            split(q), split(k), split(v), is_causal=True)
        x = x + self.out(a.transpose(1, 2).reshape(b, t, d))
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


class LM(torch.nn.Module):
    def __init__(self, layers, d, heads, recipe):
        super().__init__()
        self.embed = torch.nn.Parameter(torch.randn(256, d) * 0.02)
        self.blocks = torch.nn.ModuleList(
            Block(d, heads, recipe, i, layers) for i in range(layers))
        self.head = Linear(d, 256, None, 0, 1)

    def forward(self, ids):
        x = self.embed[ids]
        for block in self.blocks:
            x = block(x)
        return self.head(Block.norm(x))


def batches(data, rng, steps, batch, context):
    starts = rng.integers(0, len(data) - context - 1, size=(steps, batch))
    index = starts[..., None] + np.arange(context + 1)
    return torch.from_numpy(data[index].astype(np.int64))


def loss_of(model, tokens):
    logits = model(tokens[:, :-1])
    return torch.nn.functional.cross_entropy(
        logits.reshape(-1, 256), tokens[:, 1:].reshape(-1))


def train(arm, seed, args, train_data, val_tokens):
    torch.manual_seed(seed)
    recipe = None if arm == "bf16" else nvfp4.Recipe.ablation(
        arm, keep_first=1, keep_last=1, mode="fake", seed=seed)
    model = LM(args.layers, args.hidden, args.heads, recipe)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr,
                            weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 50) *
        0.5 * (1 + math.cos(math.pi * min(s, args.steps) / args.steps)))
    data = batches(train_data, np.random.default_rng(1000 + seed),
                   args.steps, args.batch, args.context)
    curve = []
    for step in range(args.steps):
        opt.zero_grad()
        loss = loss_of(model, data[step])
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        schedule.step()
        curve.append(loss.item())
    with torch.no_grad():
        val = float(np.mean([loss_of(model, v).item() for v in val_tokens]))
    return np.array(curve), val


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--context", type=int, default=64)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--arms", default=",".join(ARMS))
    parser.add_argument("--corpus-bytes", type=int, default=4_000_000)
    parser.add_argument("--out", help="write the plot paper-ablation.png "
                        "into this directory and the results into its "
                        "paper-ablation.md, between the lines "
                        "'<!-- results -->' and '<!-- /results -->' (the "
                        "whole file when it has no such lines)")
    args = parser.parse_args()
    arms = args.arms.split(",")
    if arms[0] != "bf16" or any(a not in ARMS for a in arms):
        parser.error(f"--arms: bf16 first, then any of {ARMS}")
    torch.set_num_threads(max(1, os.cpu_count() or 1))

    data = corpus(args.corpus_bytes)
    split = int(len(data) * 0.9)
    val_tokens = batches(data[split:], np.random.default_rng(7), 8,
                         args.batch, args.context)
    print(f"corpus: {len(data)} bytes of the Python {platform.python_version()}"
          f" standard library; model: {args.layers} blocks, hidden "
          f"{args.hidden}, {args.heads} heads, context {args.context}, batch "
          f"{args.batch}; {args.steps} AdamW steps; seeds "
          f"{list(range(args.seeds))}", flush=True)
    curves, vals = {}, {}
    start = time.time()
    for seed in range(args.seeds):
        for arm in arms:
            t0 = time.time()
            curve, val = train(arm, seed, args, data[:split], val_tokens)
            curves.setdefault(arm, []).append(curve)
            vals.setdefault(arm, []).append(val)
            print(f"seed {seed} {arm:13s} validation loss {val:.4f} "
                  f"({time.time() - t0:.0f} s)", flush=True)

    rows = table(arms, vals)
    print("\n".join(rows))
    print(f"total {time.time() - start:.0f} s")
    if args.out:
        write_outputs(args, arms, curves, rows, time.time() - start)


def table(arms, vals):
    """Markdown rows: mean loss, paired gap to bf16, t against nvfp4."""
    base = np.array(vals["bf16"])
    n = len(base)
    rows = ["| arm | validation loss | gap to bf16 (paired) | vs full recipe "
            "(paired t) |", "| --- | --- | --- | --- |"]
    for arm in arms:
        v = np.array(vals[arm])
        gap = (v - base) / base * 100
        se = gap.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
        vs = ""
        if arm not in ("bf16", "nvfp4") and "nvfp4" in vals:
            d = v - np.array(vals["nvfp4"])
            sd = d.std(ddof=1) if n > 1 else float("nan")
            t = d.mean() / (sd / np.sqrt(n)) if n > 1 and sd > 0 else \
                float("nan")
            vs = f"{d.mean():+.4f} (t = {t:+.2f}, {n - 1} dof)"
        gap_text = "--" if arm == "bf16" else f"{gap.mean():+.2f}% +- {se:.2f}%"
        rows.append(f"| {arm} | {v.mean():.4f} | {gap_text} | {vs} |")
    return rows


def write_outputs(args, arms, curves, rows, seconds):
    os.makedirs(args.out, exist_ok=True)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(8, 5))
        window = max(1, args.steps // 30)
        kernel = np.ones(window) / window
        for arm in arms:
            mean = np.mean(curves[arm], axis=0)
            smooth = np.convolve(mean, kernel, mode="valid")
            ax.plot(np.arange(len(smooth)) + window, smooth, label=arm)
        ax.set_xlabel("step")
        ax.set_ylabel(f"training loss (mean of {len(curves['bf16'])} seeds, "
                      f"{window}-step average)")
        ax.set_ylim(top=min(3.5, ax.get_ylim()[1]))
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "paper-ablation.png"), dpi=110)
    except ImportError:
        print("matplotlib missing: no plot written", file=sys.stderr)
    command = ("python3 examples/paper-ablation/ablation.py " +
               " ".join(sys.argv[1:]))
    results = (f"Recorded {datetime.date.today().isoformat()} on "
               f"{platform.machine()} ({os.cpu_count()} CPUs), Python "
               f"{platform.python_version()}, PyTorch {torch.__version__}, "
               f"in {seconds / 60:.0f} minutes:\n\n`{command}`\n\n" +
               "\n".join(rows) + "\n")
    path = os.path.join(args.out, "paper-ablation.md")
    begin, end = "<!-- results -->\n", "<!-- /results -->\n"
    text = ""
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + begin + results + end + rest.split(end, 1)[1]
    else:
        text = results
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
