#!/usr/bin/env python3
"""Checks the fat binaries of a HIP build (cmake/blockvecHip.cmake) without a GPU.

Each GPU translation unit STEM has a directory hip/STEM/ holding one code object per architecture
(STEM.ARCH.co), the fat binary (STEM.hipfb) and the host object (STEM.o). The device code of some
architectures comes from another compiler than the host code (clang-19 and hipcc's clang 15), and
the HIP runtime finds a kernel only by the mangled name the host code registers. So, per unit:
  - the fat binary holds a code object for every architecture asked for;
  - every code object defines the same kernels (a kernel is a symbol with a NAME.kd descriptor);
  - the host object registers each of them by name.
A mismatch would only show on a GPU, as hipErrorInvalidDeviceFunction at the first launch.

usage: hip_fatbin_check.py --bundler PATH --nm PATH --archs gfx90a,gfx942 BUILD_DIR
"""
import argparse
import pathlib
import subprocess
import sys


def kernels(nm, co):
    out = subprocess.run([nm, "--defined-only", str(co)], check=True, capture_output=True, text=True)
    return {line.split()[-1][:-3] for line in out.stdout.splitlines() if line.endswith(".kd")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundler", required=True)
    ap.add_argument("--nm", required=True)
    ap.add_argument("--archs", required=True)
    ap.add_argument("build_dir", type=pathlib.Path)
    a = ap.parse_args()
    archs = a.archs.split(",")
    units = sorted(p for p in a.build_dir.rglob("hip/*/*.hipfb"))
    if not units:
        print(f"hip_fatbin_check: no fat binaries under {a.build_dir}", file=sys.stderr)
        return 1
    problems = []
    for fb in units:
        d, stem = fb.parent, fb.stem
        listed = subprocess.run([a.bundler, "-list", "-type=o", f"-input={fb}"], check=True,
                                capture_output=True, text=True).stdout.split()
        for arch in archs:
            if f"hipv4-amdgcn-amd-amdhsa--{arch}" not in listed:
                problems.append(f"{fb}: no code object for {arch} (it holds {', '.join(listed)})")
        per_arch = {arch: kernels(a.nm, d / f"{stem}.{arch}.co") for arch in archs}
        first = archs[0]
        for arch in archs[1:]:
            for name in sorted(per_arch[first] ^ per_arch[arch]):
                where = first if name in per_arch[first] else arch
                problems.append(f"{stem}: kernel {name} is in the {where} code object only "
                                f"({first} and {arch} must define the same kernels)")
        # The registration passes each name as a C string: the object's NUL-separated strings.
        host = set((d / f"{stem}.o").read_bytes().split(b"\0"))
        for name in sorted(set().union(*per_arch.values())):
            if name.encode() not in host:
                problems.append(f"{stem}: the host code does not register kernel {name}")
        count = len(per_arch[first])
        print(f"{stem}: {count} kernels in each of {', '.join(archs)}, all registered by the host code")
    for p in problems:
        print("error: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
