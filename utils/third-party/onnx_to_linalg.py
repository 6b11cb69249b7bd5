"""Shared by the third-party generators: ONNX file -> linalg on tensors.

IREE's ONNX importer (`iree-import-onnx`, torch-mlir's ONNX frontend) writes
the torch dialect; torch-mlir's pipelines registered in `iree-opt` lower it
to plain func/arith/math/tensor/linalg IR that MLIR 22 upstream parses.
Needs only the `iree-base-compiler` PyPI package (not `onnx`), so a Python
without it (e.g. Debian's, for python3-torch) can use it too.
"""

import re
import shutil
import subprocess
import sys

# ONNX ops -> torch backend contract -> linalg on tensors.
LOWER = ("builtin.module(torch-onnx-to-torch-backend-pipeline,"
         "torch-backend-to-linalg-on-tensors-backend-pipeline)")


def tool(name):
    path = shutil.which(name)
    if not path:
        sys.exit(f"{name} not found: pip install iree-base-compiler")
    return path


def clean(text):
    """Drop what MLIR 22 upstream might not parse: torch/IREE attributes.

    With iree-base-compiler 3.13.0 the lowered IR has none (only func,
    arith, math, tensor and linalg ops), so this is a no-op safeguard."""
    text = re.sub(r"\s*attributes \{torch\.[^}]*\}", "", text)
    text = re.sub(r"module attributes \{[^}]*\}", "module", text)
    return text


def onnx_to_linalg(onnx_path, torch_ir_path):
    """Imports `onnx_path` (writing the torch dialect to `torch_ir_path`)
    and returns the linalg-on-tensors text."""
    subprocess.run([tool("iree-import-onnx"), onnx_path, "-o", torch_ir_path],
                   check=True)
    out = subprocess.run(
        [tool("iree-opt"), torch_ir_path, f"--pass-pipeline={LOWER}"],
        check=True, capture_output=True, text=True).stdout
    return clean(out)


def unwrap_module(text):
    """Drops the `module { ... }` around the functions (attribute aliases
    stay in front), so that a test can append a driver to the file."""
    lines = text.rstrip("\n").split("\n")
    start = lines.index("module {")
    if lines[-1] != "}":
        sys.exit("unexpected module layout")
    body = [l[2:] if l.startswith("  ") else l for l in lines[start + 1:-1]]
    return "\n".join(lines[:start] + body) + "\n"
