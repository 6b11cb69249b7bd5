#!/usr/bin/env python3
# ===- sass_stats.py - Static figures of GPU kernels -------------------=== #
#
# Part of the NVFP4-MLIR project.
#
# ===-------------------------------------------------------------------=== #
#
# Reads, per kernel, what static-compare.sh collected and prints one table:
#
#   --ptxas FILE     `ptxas -v` output: registers, spill bytes, static shared
#                    memory per entry function;
#   --sass FILE      `nvdisasm -c` output of the same cubin: the main loops;
#   --shared FILE    lines `<kernel> <dynamic shared bytes>` (the launch's);
#                    without it, the shared bytes are ptxas's static only;
#   --emulator FILE  the GPU emulator's `memory of <kernel>: ...` lines
#                    (NVFP4_GPU_EMULATOR_REPORT=1): global coalescing and
#                    shared-memory bank conflicts, matched by kernel family
#                    (the name without its m/n/k shape);
#   --kernel REGEX   the entry functions to report (default: `matmul`, the
#                    project's GEMM kernels);
#   --name NAME      the name column instead of the (mangled) function name.
#
# The MMA loop of a kernel is the innermost SASS loop (a backward branch
# and its target) that contains MMA instructions (OMMA, HMMA, QMMA: mma.sync;
# UTCOMMA, UTCQMMA, UTCHMMA: tcgen05.mma). Its columns: instructions per MMA
# (NOPs and the never-executed `@!PT` padding excluded), shared-memory load
# instructions (LDS, LDSM) per MMA, and barriers per iteration (BAR, and
# the mbarrier waits SYNCS ... TRYWAIT).
# The producer loop is the innermost loop with TMA loads (UTMALDG), bulk
# copies (UBLKCP, cp.async.bulk) or cp.async (LDGSTS) and no MMA; its
# column counts those, and `LDG` its other global loads.
#
# ===-------------------------------------------------------------------=== #

import argparse
import re
import sys

MMA_OPCODES = ("OMMA", "HMMA", "QMMA", "UTCOMMA", "UTCQMMA", "UTCHMMA")
PRODUCER_OPCODES = ("UTMALDG", "UBLKCP", "LDGSTS")

INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)(\S*)\s*(.*?)\s*;")
# The predicate of an instruction that never executes: ptxas pads the
# schedule with such as well as with NOPs (`@!PT LDS RZ, [RZ]`).
NEVER = "@!PT"
LABEL = re.compile(r"^(\.L_x_\d+):")
FUNCTION = re.compile(r"^\s*\.text\.(\S+):")


def parse_sass(path):
    """Kernel -> (instructions [(address, opcode, full opcode, operands)],
    labels {name: address})."""
    kernels = {}
    current = None
    pending_labels = []
    with open(path) as f:
        for line in f:
            m = FUNCTION.match(line)
            if m:
                current = m.group(1)
                kernels[current] = ([], {})
                pending_labels = []
                continue
            if current is None:
                continue
            m = LABEL.match(line.strip())
            if m:
                pending_labels.append(m.group(1))
                continue
            m = INSTRUCTION.match(line)
            if m:
                address = int(m.group(1), 16)
                instructions, labels = kernels[current]
                for label in pending_labels:
                    labels[label] = address
                pending_labels = []
                if (m.group(2) or "").strip() == NEVER:
                    continue
                instructions.append(
                    (address, m.group(3), m.group(3) + m.group(4), m.group(5)))
    return kernels


def loops(instructions, labels):
    """Backward branches: (start address, end address)."""
    result = []
    for address, opcode, _, operands in instructions:
        if opcode != "BRA":
            continue
        target = re.search(r"(\.L_x_\d+)", operands)
        if target and labels.get(target.group(1), address + 1) <= address:
            result.append((labels[target.group(1)], address))
    return result


def innermost(instructions, candidate_loops, predicate):
    best = None
    for start, end in candidate_loops:
        body = [i for i in instructions if start <= i[0] <= end]
        if predicate(body) and (best is None or end - start < best[1] - best[0]):
            best = (start, end, body)
    return best


def is_mma(instruction):
    return instruction[1] in MMA_OPCODES


def loop_stats(kernel):
    instructions, labels = kernel
    candidate_loops = loops(instructions, labels)
    stats = {}
    mma_loop = innermost(instructions, candidate_loops,
                         lambda body: any(is_mma(i) for i in body))
    if mma_loop:
        body = [i for i in mma_loop[2] if i[1] != "NOP"]
        mmas = sum(1 for i in body if is_mma(i))
        shared_loads = sum(1 for i in body if i[1] in ("LDS", "LDSM"))
        barriers = sum(1 for i in body
                       if i[1] == "BAR" or (i[1] == "SYNCS" and "TRYWAIT" in i[2]))
        stats["mma_loop"] = len(body)
        stats["mmas"] = mmas
        stats["per_mma"] = len(body) / mmas
        stats["lds_per_mma"] = shared_loads / mmas
        stats["barriers"] = barriers
    producer_loop = innermost(
        instructions, candidate_loops,
        lambda body: any(i[1] in PRODUCER_OPCODES for i in body) and
        not any(is_mma(i) for i in body))
    if producer_loop:
        body = [i for i in producer_loop[2] if i[1] != "NOP"]
        stats["producer_loop"] = len(body)
        stats["producer_ldg"] = sum(1 for i in body if i[1] == "LDG")
        stats["producer_tma"] = sum(1 for i in body if i[1] in PRODUCER_OPCODES)
    return stats


def parse_ptxas(path):
    result = {}
    current = None
    with open(path) as f:
        for line in f:
            m = re.search(r"Compiling entry function '([^']+)'", line)
            if m:
                current = m.group(1)
                result[current] = {"spills": 0, "registers": 0, "static_smem": 0}
                continue
            if current is None:
                continue
            m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
            if m:
                result[current]["spills"] = int(m.group(1)) + int(m.group(2))
            m = re.search(r"Used (\d+) registers", line)
            if m:
                result[current]["registers"] = int(m.group(1))
                m = re.search(r"(\d+) bytes smem", line)
                if m:
                    result[current]["static_smem"] = int(m.group(1))
    return result


def family(kernel):
    """The kernel name without its shape (m..n..k.. and batch)."""
    return re.sub(r"_b?\d*m\d+n\d+k\d+", "", kernel)


def parse_emulator(path):
    result = {}
    with open(path) as f:
        for line in f:
            m = re.search(r"memory of (\S+): global .*coalescing ([0-9.]+)%; "
                          r"shared .*?(\d+) bank conflicts", line)
            if m:
                result[family(m.group(1))] = (m.group(2), m.group(3))
    return result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptxas", required=True)
    parser.add_argument("--sass", required=True)
    parser.add_argument("--shared")
    parser.add_argument("--emulator")
    parser.add_argument("--label", default="")
    parser.add_argument("--kernel", default="matmul")
    parser.add_argument("--name")
    args = parser.parse_args()
    ptxas = parse_ptxas(args.ptxas)
    sass = parse_sass(args.sass)
    shared = {}
    if args.shared:
        with open(args.shared) as f:
            for line in f:
                name, bytes_ = line.split()
                shared[name] = int(bytes_)
    emulator = parse_emulator(args.emulator) if args.emulator else {}
    for kernel in sorted(ptxas):
        if not re.search(args.kernel, kernel):
            continue
        p = ptxas[kernel]
        s = loop_stats(sass.get(kernel, ([], {})))
        e = emulator.get(family(kernel))
        smem = str(shared.get(kernel, 0) + p["static_smem"])
        if not args.shared:
            smem += " (static only)"
        cells = [
            args.label, args.name or kernel, str(p["registers"]),
            str(p["spills"]), smem,
            "%d / %d = %.2f" % (s["mma_loop"], s["mmas"], s["per_mma"])
            if "mmas" in s else "-",
            "%.2f" % s["lds_per_mma"] if "mmas" in s else "-",
            str(s.get("barriers", "-")),
            "%d (%d TMA/bulk/cp.async, %d LDG)" % (s["producer_loop"], s["producer_tma"],
                                             s["producer_ldg"])
            if "producer_loop" in s else "-",
            (e[0] + "%") if e else "-",
            e[1] if e else "-",
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
