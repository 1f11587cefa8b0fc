#!/usr/bin/env python3
"""Inspects AMDGPU assembly (hipcc/clang --cuda-device-only -S) of the blockvec kernels.

Checks: every dot kernel (matmul) contains v_mfma instructions; no kernel uses scratch (private
segment) or spills VGPRs/SGPRs. Writes a Markdown report with VGPR/AGPR/SGPR counts, LDS bytes and
the occupancy they allow (waves per SIMD). Exit status 1 when a check fails.

usage: isa_check.py --report OUT.md ARCH=FILE.s [ARCH=FILE.s ...] [--informational ARCH=FILE.s ...]
Inputs given with --informational (kernels that have no GPU launcher and tests yet) must compile;
their scratch/spill findings are listed as open findings and do not fail the check.
"""
import argparse
import re
import shutil
import subprocess
import sys

MAX_WAVES_PER_SIMD = {"gfx90a": 8, "gfx940": 8, "gfx941": 8, "gfx942": 8}
LDS_PER_CU = 65536
VGPRS_PER_SIMD_LANE = 512  # the unified VGPR+AGPR file of CDNA2/CDNA3


def demangle(names):
    tool = shutil.which("llvm-cxxfilt-19") or shutil.which("llvm-cxxfilt") or shutil.which("c++filt")
    if not tool or not names:
        return {n: n for n in names}
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True).stdout
    return dict(zip(names, out.splitlines()))


def short(d):
    m = re.search(r"bv::kernels::(\w+)<([^()]*?)>\(", d)
    if m:
        return f"{m.group(1)}<{m.group(2)}>"
    # A mangled name the demangler did not know (clang-19's C++20 template-argument mangling):
    # read the kernel's name and template arguments off it.
    m = re.search(r"7kernels(\d+)", d)
    if m:
        n = int(m.group(1))
        start = m.end()
        name = d[start:start + n]
        rest = d[start + n:]
        args, subs = [], []
        if rest.startswith("I"):
            for t in re.finditer(r"DF16_|NS_8bfloat16E|S\d*_|Li(\d+)E|f|E", rest[1:]):
                tok = t.group(0)
                if tok == "E":
                    break
                if tok == "DF16_":
                    args.append("_Float16"); subs.append("_Float16")
                elif tok == "NS_8bfloat16E":
                    args.append("bv::bfloat16"); subs.append("bv::bfloat16")
                elif tok == "f":
                    args.append("float")
                elif tok.startswith("S"):
                    args.append(subs[-1] if subs else "?")
                else:
                    args.append(t.group(1))
        return f"{name}<{', '.join(args)}>"
    return d[:120]


def parse(path):
    text = open(path).read()
    kernels = {}
    # function bodies: instruction counts
    current = None
    for line in text.splitlines():
        m = re.match(r"^(_Z\S+):", line)
        if m:
            current = kernels.setdefault(m.group(1), {})
            current.setdefault("mfma", 0)
            current.setdefault("instructions", 0)
            continue
        if line.startswith(".Lfunc_end"):
            current = None
            continue
        if current is not None and re.match(r"^\s+[sv]_\w+", line):
            current["instructions"] += 1
            if re.match(r"^\s+v_mfma", line):
                current["mfma"] += 1
    # kernel descriptors
    for m in re.finditer(r"\.amdhsa_kernel (\S+)\n(.*?)\.end_amdhsa_kernel", text, re.S):
        k = kernels.setdefault(m.group(1), {})
        for key in ("next_free_vgpr", "next_free_sgpr", "accum_offset",
                    "private_segment_fixed_size", "group_segment_fixed_size"):
            mm = re.search(r"\.amdhsa_" + key + r"\s+(\d+)", m.group(2))
            if mm:
                k[key] = int(mm.group(1))
    # metadata (YAML): spill counts, agprs, workgroup size
    for m in re.finditer(r"- \.agpr_count:\s+(\d+)(.*?)(?=\n  - \.agpr_count|\n\s*\.end_amdgpu_metadata)", text, re.S):
        block = "agpr_count: " + m.group(1) + m.group(2)
        nm = re.search(r"\.name:\s+(\S+)", block)
        if not nm:
            continue
        k = kernels.setdefault(nm.group(1), {})
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True)
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--informational", action="append", default=[])
    a = ap.parse_args()
    failures, lines, findings = [], [], []
    lines.append("# ISA report: blockvec kernels on AMD CDNA\n")
    lines.append("Generated by `gpu_backend/scripts/isa_check.py` from device-only assembly of "
                 "`gpu_backend/src/host_api.cu` (every kernel launcher the GPU backend has). "
                 "Checks: dot kernels contain `v_mfma`; no kernel uses scratch or spills. "
                 "Occupancy = waves per SIMD allowed by the unified VGPR file (512 per lane, "
                 "granule 8) and by 64 KiB of LDS per CU.\n")
    specs = [(s, False) for s in a.inputs] + [(s, True) for s in a.informational]
    for spec, info in specs:
        arch, path = spec.split("=", 1)
        ks = parse(path)
        names = demangle(sorted(ks))
        sink = findings if info else failures
        lines.append(f"\n## {arch}" + (" (the rest of kernels/, compile coverage)" if info else "") + "\n")
        lines.append("| kernel | VGPR (total) | AGPR | SGPR | LDS bytes | scratch | spills | v_mfma | waves/SIMD |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        if not ks:
            failures.append(f"{arch}: no kernels found in {path}")
        for n in sorted(ks, key=lambda x: short(names[x])):
            k = ks[n]
            label = short(names[n])
            scratch = max(k.get("private_segment_fixed_size", 0), 0)
            spills = k.get("vgpr_spill_count", 0) + k.get("sgpr_spill_count", 0)
            occ, _, _ = occupancy(arch, k)
            lines.append(f"| `{label}` | {k.get('next_free_vgpr', '?')} | {k.get('agpr_count', 0)} | "
                         f"{k.get('next_free_sgpr', '?')} | {k.get('group_segment_fixed_size', 0)} | "
                         f"{scratch} | {spills} | {k.get('mfma', 0)} | {occ} |")
            if scratch:
                sink.append(f"{arch} {label}: uses {scratch} bytes of scratch")
            if spills:
                sink.append(f"{arch} {label}: spills {spills} registers")
            if ("matmul" in label or "attention_fwd" in label) and k.get("mfma", 0) == 0:
                sink.append(f"{arch} {label}: dot kernel without v_mfma")
    if findings:
        lines.append("\n## Open findings (compile-coverage kernels; not failing the check)\n")
        lines.extend("- " + f for f in findings)
    lines.append("\n## Result\n")
    lines.append("PASS: every check holds." if not failures else
                 "FAIL:\n" + "\n".join("- " + f for f in failures))
    open(a.report, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines[-1:]))
    for f in failures:
        print("ISA check failed:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
