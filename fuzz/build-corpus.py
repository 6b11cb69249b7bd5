#!/usr/bin/env python3
"""Builds the seed corpus and the dictionary of the nvfp4 MLIR fuzzer.

Every .mlir file below test/ (and examples/) is split on `// -----` (the
split-input-file separator); comment lines are dropped; each non-empty chunk
of at most --max-size bytes becomes one corpus file named by its SHA-1.
The dictionary holds the op, type and attribute names and the keywords found
in those chunks, in libFuzzer's -dict format.

usage: fuzz/build-corpus.py OUT_DIR [--dict FILE] [--max-size N]
"""

import argparse
import hashlib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPLIT = re.compile(r"^// -----\s*$", re.M)
TOKEN = re.compile(
    r"(?:[!#]?[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_.]*)"  # ops, !dialect.type
    r"|(?:\b[a-z_][a-z0-9_]*(?:-[a-z0-9_]+)*\b)")      # keywords


def chunks(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    for part in SPLIT.split(text):
        lines = [l for l in part.splitlines() if not l.lstrip().startswith("//")]
        body = "\n".join(lines).strip()
        if body:
            yield body + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--dict")
    parser.add_argument("--max-size", type=int, default=32 * 1024)
    args = parser.parse_args()

    os.makedirs(args.out, exist_ok=True)
    sources = []
    for top in ("test", "examples"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            sources += [os.path.join(dirpath, f) for f in files
                        if f.endswith(".mlir")]
    written = skipped = 0
    tokens = set()
    for path in sorted(sources):
        for body in chunks(path):
            data = body.encode()
            if len(data) > args.max_size:
                skipped += 1
                continue
            name = hashlib.sha1(data).hexdigest()
            with open(os.path.join(args.out, name), "wb") as f:
                f.write(data)
            written += 1
            tokens.update(t for t in TOKEN.findall(body) if 2 < len(t) <= 48)
    if args.dict:
        with open(args.dict, "w") as f:
            for t in sorted(tokens):
                f.write('"%s"\n' % t.replace("\\", "\\\\").replace('"', '\\"'))
    print("corpus: %d inputs from %d files in %s (%d over %d bytes skipped)%s"
          % (written, len(sources), args.out, skipped, args.max_size,
             ", dictionary: %d tokens" % len(tokens) if args.dict else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
