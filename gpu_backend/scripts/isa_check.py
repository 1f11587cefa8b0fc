#!/usr/bin/env python3
"""Inspects AMDGPU assembly (hipcc/clang --cuda-device-only -S) of the blockvec kernels.

The input is the device-only assembly of gpu_backend/src/coverage.cu, which instantiates every
launch configuration the kernels in kernels/ declare for gfx942 and gfx90a. Every kernel in it is
checked strictly: no scratch (private segment) and no VGPR/SGPR spills; the tiled products
(matmul, its fused and split-K forms, and conv2d's implicit GEMM) contain v_mfma; the attention kernels (forward, dK/dV, dQ)
contain v_mfma in 16-bit, whose tiles must be MFMA-sized (each wave's part of a BM x BN tile at
least 32 x 32), and in f32 where their tile is; matmul_kernel keeps at least 2 waves per SIMD. Writes a Markdown report with
VGPR/AGPR/SGPR counts, LDS bytes, the occupancy they allow (waves per SIMD) and, for the matmul
kernels, the MFMA instructions one K step issues and the issue time they need at the MFMA
rate. Exit status 1 when a check fails.

--known FILE lists spills that are known and not yet fixed, one a line:
    ARCH | KERNEL | vgpr V sgpr S scratch B | why
A listed kernel may spill up to its listed counts (the report lists it as open); more fails, and
so does an entry whose kernel no longer spills (remove it), so the list can only shrink. An
entry whose kernel is not built (its configuration changed) allows nothing and is reported.
Entries for targets not checked in this run are ignored.

usage: isa_check.py --report OUT.md [--known FILE] ARCH=FILE.s [ARCH=FILE.s ...]
"""
import argparse
import re
import shutil
import subprocess
import sys

MAX_WAVES_PER_SIMD = {"gfx90a": 8, "gfx940": 8, "gfx941": 8, "gfx942": 8}
LDS_PER_CU = 65536
VGPRS_PER_SIMD_LANE = 512  # the unified VGPR+AGPR file of CDNA2/CDNA3
# Clocks one SIMD needs per MFMA instruction at its peak issue rate, from the published dense peaks
# (FLOPs per clock per CU = peak / (CUs * clock), a quarter of it per SIMD):
#  - gfx942 (MI300X: 1307.4 TFLOPS f16/bf16, 163.4 TFLOPS f32 matrix, 304 CUs, 2.1 GHz):
#    512 f16 and 64 f32 FLOPs per clock per SIMD;
#  - gfx90a (MI250X: 383 TFLOPS f16/bf16, 95.7 f32 matrix, 220 CUs, 1.7 GHz): 256 and 64.
# One 32x32x8 f16/bf16 MFMA is 16384 FLOPs, one 32x32x2 f32 MFMA 4096.
MFMA_CLOCKS = {
    "gfx942": {"v_mfma_f32_32x32x8f16": 32, "v_mfma_f32_32x32x8bf16_1k": 32,
               "v_mfma_f32_32x32x8_f16": 32, "v_mfma_f32_32x32x8_bf16": 32,
               "v_mfma_f32_32x32x2f32": 64, "v_mfma_f32_32x32x2_f32": 64},
    "gfx90a": {"v_mfma_f32_32x32x8f16": 64, "v_mfma_f32_32x32x8bf16_1k": 64,
               "v_mfma_f32_32x32x2f32": 64},
}


def demangle(names):
    tool = shutil.which("llvm-cxxfilt-19") or shutil.which("llvm-cxxfilt") or shutil.which("c++filt")
    if not tool or not names:
        return {n: n for n in names}
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True).stdout
    return dict(zip(names, out.splitlines()))


def balanced(s, start):
    """The text of the <...> that opens at s[start], without the brackets."""
    depth = 0
    for i in range(start, len(s)):
        if s[i] == "<":
            depth += 1
        elif s[i] == ">":
            depth -= 1
            if depth == 0:
                return s[start + 1:i]
    return s[start + 1:]


TYPE_CODES = {"DF16_": "_Float16", "NS_8bfloat16E": "bv::bfloat16", "NS0_8bfloat16E": "bv::bfloat16",
              "f": "float"}


def from_mangled(d):
    """Kernel name and template arguments read off a mangled name the demangler did not know
    (clang-19's C++20 mangling of template <auto K> arguments)."""
    m = re.search(r"7kernels(\d+)", d)
    if not m:
        return None
    n = int(m.group(1))
    name = d[m.end():m.end() + n]
    rest = d[m.end() + n:]
    args, subs = [], []
    if rest.startswith("I"):
        for t in re.finditer(r"DF16_|NS0?_8bfloat16E|S\d*_|Li(\d+)E|Lb([01])E|L[^E]*?(\d+)E|f|E",
                             rest[1:]):
            tok = t.group(0)
            if tok == "E":
                break
            if tok in TYPE_CODES:
                args.append(TYPE_CODES[tok]); subs.append(TYPE_CODES[tok])
            elif tok.startswith("S"):
                args.append(subs[-1] if subs else "?")
            elif t.group(1) is not None:
                args.append(t.group(1))
            elif t.group(2) is not None:
                args.append("true" if t.group(2) == "1" else "false")
            else:
                args.append(t.group(3))
    return f"{name}<{', '.join(args)}>"


def short(mangled, d):
    """kernel_name<template arguments> of a kernel or of the trampoline that launches it."""
    i = d.find("bv::kernels::")
    if i >= 0:
        j = i + len("bv::kernels::")
        m = re.match(r"\w+", d[j:])
        if m:
            name = m.group(0)
            k = j + len(name)
            if k < len(d) and d[k] == "<":
                return f"{name}<{balanced(d, k)}>"
            return name
    return from_mangled(mangled) or from_mangled(d) or d[:120]


def parse(path):
    text = open(path).read()
    kernels = {}
    current = None
    for line in text.splitlines():
        m = re.match(r"^(_Z\S+):", line)
        if m:
            current = kernels.setdefault(m.group(1), {})
            current.setdefault("mfma", 0)
            current.setdefault("mfma_ops", set())
            # The kernels whose loops the report reads keep their assembly (loop_barriers).
            current["keep"] = names_kernel(m.group(1), LOOP_KERNELS)
            continue
        if line.startswith(".Lfunc_end"):
            current = None
            continue
        if current is not None:
            if current["keep"]:
                current.setdefault("lines", []).append(line)
            mm = re.match(r"^\s+(v_mfma\w*)", line)
            if mm:
                current["mfma"] += 1
                current["mfma_ops"].add(mm.group(1))
    for m in re.finditer(r"\.amdhsa_kernel (\S+)\n(.*?)\.end_amdhsa_kernel", text, re.S):
        k = kernels.setdefault(m.group(1), {"mfma": 0, "mfma_ops": set()})
        for key in ("next_free_vgpr", "next_free_sgpr", "accum_offset",
                    "private_segment_fixed_size", "group_segment_fixed_size"):
            mm = re.search(r"\.amdhsa_" + key + r"\s+(\d+)", m.group(2))
            if mm:
                k[key] = int(mm.group(1))
    for m in re.finditer(r"- \.agpr_count:\s+(\d+)(.*?)(?=\n  - \.agpr_count|\n\s*\.end_amdgpu_metadata)",
                         text, re.S):
        block = "agpr_count: " + m.group(1) + m.group(2)
        nm = re.search(r"\.name:\s+(\S+)", block)
        if not nm:
            continue
        k = kernels.setdefault(nm.group(1), {"mfma": 0, "mfma_ops": set()})
        k["agpr_count"] = int(m.group(1))
        for key in ("vgpr_count", "sgpr_count", "vgpr_spill_count", "sgpr_spill_count",
                    "max_flat_workgroup_size", "private_segment_fixed_size"):
            mm = re.search(r"\." + key + r":\s+(\d+)", block)
            if mm:
                k[key] = int(mm.group(1))
    return {n: k for n, k in kernels.items() if "next_free_vgpr" in k}


def occupancy(arch, k):
    vgprs = k.get("next_free_vgpr", 0)
    granule = 8
    alloc = max(granule, -(-vgprs // granule) * granule)
    by_vgpr = min(MAX_WAVES_PER_SIMD.get(arch, 8), VGPRS_PER_SIMD_LANE // alloc)
    wg_threads = k.get("max_flat_workgroup_size", 256)
    waves_per_wg = max(1, wg_threads // 64)
    lds = k.get("group_segment_fixed_size", 0)
    by_lds = 99
    if lds:
        wgs = LDS_PER_CU // lds
        by_lds = max(0, wgs * waves_per_wg // 4)
    return min(by_vgpr, by_lds), by_vgpr, by_lds


def template_args(label):
    m = re.match(r"\w+<(.*)>$", label)
    return [a.strip() for a in m.group(1).split(",")] if m else []


def matmul_tile(label):
    """(element type, BM, BN, BK, waves) of a tiled product (the matmul family, conv2d), from its
    template arguments."""
    a = template_args(label)
    try:
        if label.startswith("matmul_kernel<") and len(a) in (7, 8):  # (8: the loop's stages)
            return a[0], int(a[2]), int(a[3]), int(a[4]), int(a[6])
        if label.startswith(("matmul_bias_act_kernel<", "matmul_bias_act_bp_kernel<")) and \
                len(a) in (8, 9):  # (9: the streamed variant's stages)
            return a[0], int(a[3]), int(a[4]), int(a[5]), int(a[7])
        if label.startswith("matmul_splitk_kernel<") and len(a) == 5:
            return a[0], int(a[1]), int(a[2]), int(a[3]), int(a[4])
        if label.startswith("conv2d_kernel<") and len(a) == 5:  # an implicit GEMM
            return a[0], int(a[1]), int(a[2]), int(a[3]), int(a[4])
    except ValueError:
        pass
    return None


# The attention forward's kernels (whole D by pointers or block pointers, and D in halves), whose
# MFMA table the report lists.
ATTENTION_FWD = ("attention_fwd_kernel<", "attention_fwd_bp_kernel<", "attention_fwd_halves_kernel<")
# The kernels whose loops the report reads (loop_barriers), as label prefixes.
LOOP_KERNELS = ("matmul_kernel<",) + ATTENTION_FWD


def names_kernel(mangled, prefixes):
    """Whether a mangled name is an instance of one of the kernel templates that label prefixes
    ("name<") name: it holds the name as the Itanium ABI encodes a template's, <length><name>I."""
    return any(f"{len(p) - 1}{p[:-1]}I" in mangled for p in prefixes)


def attention_tile(label):
    """(element type, D, BM, BN, waves) of an attention kernel, from its template arguments."""
    a = template_args(label)
    try:
        if label.startswith(ATTENTION_FWD) and len(a) == 7:
            return a[0], int(a[1]), int(a[2]), int(a[3]), int(a[5])
        if label.startswith(("attention_bwd_dkdv_kernel<", "attention_bwd_dkdv_halves_kernel<",
                             "attention_bwd_dq_kernel<", "attention_bwd_dq_halves_kernel<")) and \
                len(a) == 6:
            return a[0], int(a[1]), int(a[2]), int(a[3]), int(a[5])
    except ValueError:
        pass
    return None


def mfma_sized(bm, bn, waves):
    """Whether each wave's part of a BM x BN tile is at least one 32x32 MFMA accumulator: the
    AMD layout puts waves 1x1, 2x1, 2x2, 4x2 or 4x4 over a 2-D block (lang/bv/layout.hpp)."""
    wm = 1 if waves <= 1 else (2 if waves <= 4 else 4)
    wn = max(1, waves // wm)
    return bm >= 32 * wm and bn % (32 * wn) == 0


def mfma_per_k_step(tile):
    """MFMA instructions a workgroup issues per BK step: the tile's multiply-adds over one MFMA's
    (32x32x8 for 16-bit inputs, 32x32x2 for f32)."""
    t, bm, bn, bk, w = tile
    k_per = 2 if t == "float" else 8
    return bm * bn * bk // (32 * 32 * k_per)


def loop_barriers(k):
    """s_barrier instructions in the outermost loop that holds v_mfma (a tiled product's K loop):
    in the blocks LLVM's comments place in it (its header, "in Loop: Header=BB..", and its inner
    loops, "Parent Loop BB.."), which every step runs. A barrier outside them that only the first
    step runs is not counted. None where no such loop is found."""
    blocks, cur = [], None
    for line in k.get("lines", []):
        m = re.match(r"^(?:\.L(BB\w+)|; %bb\.\d+):\s*(.*)$", line)
        if m:
            cur = {"name": m.group(1), "comment": m.group(2), "lines": []}
            blocks.append(cur)
        elif cur is not None:
            cur["lines"].append(line)
    best = None
    for b in blocks:
        if "This Loop Header: Depth=1" not in b["comment"] or not b["name"]:
            continue
        h = b["name"]
        member = [x for x in blocks if x is b or re.search(
            r"(Header=|Parent Loop )" + re.escape(h) + r"\b", x["comment"])]
        seg = [ln for x in member for ln in x["lines"]]
        mfma = sum(1 for x in seg if re.match(r"^\s+v_mfma", x))
        barriers = sum(1 for x in seg if re.match(r"^\s+s_barrier\b", x))
        if mfma and (best is None or mfma > best[0]):
            best = (mfma, barriers)
    return None if best is None else best[1]


def issue_clocks(arch, k, per_step, waves):
    """The kernel's MFMA instructions, and the clocks its busiest SIMD needs to issue per_step of
    them at the peak rate (the workgroup's waves share the CU's 4 SIMDs), "?" when unknown."""
    ops = sorted(k.get("mfma_ops", ()))
    clocks = max((MFMA_CLOCKS.get(arch, {}).get(o, 0) for o in ops), default=0)
    return ops, (f"{per_step * clocks // max(1, min(waves, 4))}" if clocks else "?")


def read_known(path):
    known = {}
    if not path:
        return known
    for n, raw in enumerate(open(path), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        m = re.fullmatch(r"vgpr (\d+) sgpr (\d+) scratch (\d+)", parts[2]) if len(parts) == 4 else None
        if not m:
            sys.exit(f"{path}:{n}: expected 'ARCH | KERNEL | vgpr V sgpr S scratch B | why'")
        known[(parts[0], parts[1])] = (int(m.group(1)), int(m.group(2)), int(m.group(3)), parts[3])
    return known


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    ap.add_argument("--known")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    known = read_known(a.known)
    failures, lines, mm_lines, at_lines, open_known, seen = [], [], [], [], [], set()
    lines.append("# ISA report: blockvec kernels on AMD CDNA\n")
    lines.append(
        "Generated by `gpu_backend/scripts/isa_check.py` from device-only assembly of "
        "`gpu_backend/src/coverage.cu`, which instantiates every launch configuration the kernels "
        "in `kernels/` declare for gfx942 and gfx90a (walked from their tables at compile time), "
        "in every element type. Checks, on every kernel: no scratch, no spills; the tiled "
        "products (matmul and its forms, conv2d) contain `v_mfma`; the attention kernels contain "
        "`v_mfma` in 16-bit, whose tiles must be MFMA-sized (each wave's part at least 32x32), "
        "and in f32 where their tile is; `matmul_kernel` keeps at least 2 waves per SIMD. "
        "Occupancy = waves per SIMD allowed by the unified "
        "VGPR file (512 per lane, granule 8) and by 64 KiB of LDS per CU.\n")
    for spec in a.inputs:
        arch, path = spec.split("=", 1)
        ks = parse(path)
        names = demangle(sorted(ks))
        labels = {n: short(n, names[n]) for n in ks}
        lines.append(f"\n## {arch}\n")
        lines.append("| kernel | VGPR (total) | AGPR | SGPR | LDS bytes | scratch | spills (VGPR / SGPR) | v_mfma | waves/SIMD |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        if not ks:
            failures.append(f"{arch}: no kernels found in {path}")
        for n in sorted(ks, key=lambda x: labels[x]):
            k = ks[n]
            label = labels[n]
            scratch = max(k.get("private_segment_fixed_size", 0), 0)
            vs, ss = k.get("vgpr_spill_count", 0), k.get("sgpr_spill_count", 0)
            spills = vs + ss
            occ, _, _ = occupancy(arch, k)
            lines.append(f"| `{label}` | {k.get('next_free_vgpr', '?')} | {k.get('agpr_count', 0)} | "
                         f"{k.get('next_free_sgpr', '?')} | {k.get('group_segment_fixed_size', 0)} | "
                         f"{scratch} | {vs} / {ss} | {k.get('mfma', 0)} | {occ} |")
            entry = known.get((arch, label))
            if entry:
                seen.add((arch, label))
                kv, ks_, kb, why = entry
                if not (spills or scratch):
                    failures.append(f"{arch} {label}: no longer spills; remove it from {a.known}")
                elif vs > kv or ss > ks_ or scratch > kb:
                    failures.append(f"{arch} {label}: spills {vs} VGPRs and {ss} SGPRs, {scratch} "
                                    f"bytes of scratch; {a.known} allows {kv}, {ks_}, {kb}")
                else:
                    open_known.append(f"{arch} `{label}`: {vs} VGPRs and {ss} SGPRs spilled, "
                                      f"{scratch} bytes of scratch. {why}")
            else:
                if scratch:
                    failures.append(f"{arch} {label}: uses {scratch} bytes of scratch")
                if spills:
                    failures.append(f"{arch} {label}: spills {vs} VGPRs and {ss} SGPRs")
            tile = matmul_tile(label)
            if tile and k.get("mfma", 0) == 0:
                failures.append(f"{arch} {label}: tiled product without v_mfma")
            at = attention_tile(label)
            if at:
                t, d, bm, bn, w = at
                if t != "float" and not mfma_sized(bm, bn, w):
                    failures.append(f"{arch} {label}: a {bm}x{bn} tile on {w} waves is too small "
                                    "for MFMA (each wave's part must be at least 32x32); 16-bit "
                                    "attention must run on the matrix cores")
                elif mfma_sized(bm, bn, w) and k.get("mfma", 0) == 0:
                    failures.append(f"{arch} {label}: attention tile without v_mfma")
            if at and label.startswith(ATTENTION_FWD) and k.get("mfma", 0):
                t, d, bm, bn, w = at
                per_step = 2 * bm * bn * d // (32 * 32 * (2 if t == "float" else 8))
                ops, issue = issue_clocks(arch, k, per_step, w)
                bars = loop_barriers(k)
                at_lines.append(
                    f"| {arch} | `{label}` | {bm}x{bn}, D = {d}, {w} waves | {', '.join(ops)} | "
                    f"{per_step} ({per_step // w} a wave) | {issue} | "
                    f"{'?' if bars is None else bars} | {occ} |")
            if label.startswith("matmul_kernel<") and occ < 2:
                failures.append(f"{arch} {label}: {occ} wave(s) per SIMD; matmul needs at least 2")
            if tile and label.startswith("matmul_kernel<"):
                per_step = mfma_per_k_step(tile)
                t, bm, bn, bk, w = tile
                ops, issue = issue_clocks(arch, k, per_step, w)
                bars = loop_barriers(k)
                mm_lines.append(
                    f"| {arch} | `{label}` | {bm}x{bn}x{bk}, {w} waves | {', '.join(ops) or '-'} | "
                    f"{per_step} ({per_step // w} a wave) | {issue} | "
                    f"{'?' if bars is None else bars} | {occ} |")
    if mm_lines:
        lines.append("\n## matmul: MFMA work per K step\n")
        lines.append(
            "MFMA instructions a workgroup issues per BK step (BM x BN x BK over one MFMA's "
            "32 x 32 x 8 for 16-bit inputs, 32 x 32 x 2 for f32), and the clocks the busiest "
            "SIMD of its CU needs to issue them at the peak MFMA rate (one SIMD finishes a "
            "32x32x8 f16/bf16 MFMA every 32 clocks on gfx942, 64 on gfx90a; a 32x32x2 f32 MFMA "
            "every 64: from the published dense peaks, see the script). The waves of a workgroup "
            "share the CU's 4 SIMDs; the global loads and LDS traffic of one step must fit in "
            "that time for the MFMA units to stay busy. Barriers per step: the `s_barrier`s in "
            "the K loop (two where the step's tiles go through one LDS image: before its stores "
            "and after them; one where the loop takes two images in turn, `for_range<2>`).\n")
        lines.append("| target | kernel | tile | MFMA | MFMA per K step | issue clocks per step (one SIMD) | barriers per step | waves/SIMD |")
        lines.append("|---|---|---|---|---|---|---|---|")
        lines.extend(mm_lines)
    if at_lines:
        lines.append("\n## attention forward: MFMA work per key step\n")
        lines.append(
            "MFMA instructions a workgroup issues per step of BN keys (q k^T, BM x BN x D, and "
            "p v, BM x D x BN, over one MFMA's 32 x 32 x 8 or 32 x 32 x 2), and the clocks the "
            "busiest SIMD needs to issue them at the peak MFMA rate, as for matmul above: a "
            "step's loads of k and v, its LDS traffic and its softmax must fit in that time for "
            "the MFMA units to stay busy. Barriers per step: the `s_barrier`s in the key loop "
            "(each dot's two, around its LDS stores, and two for each row reduction whose rows "
            "span more than one wave).\n")
        lines.append("| target | kernel | tile | MFMA | MFMA per key step | issue clocks per step (one SIMD) | barriers per step | waves/SIMD |")
        lines.append("|---|---|---|---|---|---|---|---|")
        lines.extend(at_lines)
    checked = {spec.split("=", 1)[0] for spec in a.inputs}
    unbuilt = [f"{arch} `{label}`" for (arch, label) in sorted(known)
               if arch in checked and (arch, label) not in seen]
    if open_known:
        lines.append("\n## Known spills, not yet fixed\n")
        lines.append("Allowed by `gpu_backend/scripts/isa_known_spills.txt` up to the counts listed "
                     "there; every other kernel is held to no spills and no scratch.\n")
        lines.extend("- " + o for o in open_known)
    if unbuilt:
        lines.append("\nListed there but not built by this run's declarations (a configuration "
                     "changed or removed; the entry allows nothing now):\n")
        lines.extend("- " + u for u in unbuilt)
    lines.append("\n## Result\n")
    summary = f" ({len(open_known)} known spills open)" if open_known else ""
    lines.append(f"PASS: every check holds{summary}." if not failures else
                 "FAIL:\n" + "\n".join("- " + f for f in failures))
    open(a.report, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines[-1:]))
    for f in failures:
        print("ISA check failed:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
