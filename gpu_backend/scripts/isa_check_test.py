#!/usr/bin/env python3
"""Tests of isa_check.py on small assembly files written here, shaped as clang's AMDGPU output
(a function body, its .amdhsa_kernel descriptor, its entry in the amdgpu_metadata YAML), with
kernel names mangled as clang-19 mangles the trampolines of gpu_backend/src/coverage.cu.

Each case runs the check and compares its exit status and the lines it prints with what the
rules say: a spill or scratch use anywhere fails, unless isa_known_spills-style entries allow it
(up to their counts; a fixed entry fails, one not built is reported); a matmul without v_mfma fails, and so
does a matmul_kernel below 2 waves per SIMD; a 16-bit attention kernel on a tile too small for MFMA
fails, as does an MFMA-sized attention tile without v_mfma, and an f32 one on a small tile passes.

usage: isa_check_test.py   (exit 0 when every case holds)
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, "isa_check.py")


def mangled(kernel, args):
    """clang-19's name of trampoline<&kernel<args...>> (enough of it for the check's reader)."""
    return (f"_ZN2bv8gpu_lang6detail10trampolineITnDaXadL_ZNS_7kernels{len(kernel)}{kernel}I"
            f"{args}EEEvNS0_7programIXT1_EEEEJEEEvDpT0_")


def kernel_asm(name, vgpr=32, agpr=0, sgpr=20, lds=0, scratch=0, vspill=0, sspill=0, mfma=0,
               threads=256, loop_barriers=None):
    body = "\n".join(["\tv_mfma_f32_32x32x8_f16 a[0:15], v[0:1], v[2:3], a[0:15]"] * mfma)
    if loop_barriers is not None:
        # A loop as LLVM prints it: one barrier before it (not counted), its header, a block of
        # the loop and one of an inner loop, the barriers spread over them.
        b = ["\ts_barrier"] * loop_barriers
        body = "\n".join(["\ts_barrier", ".LBB7_1:                 ; =>This Loop Header: Depth=1",
                          body] + b[:1] +
                         ["; %bb.2:                  ;   in Loop: Header=BB7_1 Depth=1"] + b[1:2] +
                         [".LBB7_3:                 ;   Parent Loop BB7_1 Depth=1",
                          "                         ; =>  This Inner Loop Header: Depth=2"] +
                         b[2:] + ["\ts_cbranch_scc1 .LBB7_1", "; %bb.4:"])
    text = f"""\t.globl {name}
{name}:
\ts_load_dwordx2 s[0:1], s[4:5], 0x0
{body}
\ts_endpgm
.Lfunc_end_{abs(hash(name))}:
\t.amdhsa_kernel {name}
\t\t.amdhsa_group_segment_fixed_size {lds}
\t\t.amdhsa_private_segment_fixed_size {scratch}
\t\t.amdhsa_next_free_vgpr {vgpr}
\t\t.amdhsa_next_free_sgpr {sgpr}
\t\t.amdhsa_accum_offset {max(4, vgpr - agpr)}
\t.end_amdhsa_kernel
"""
    meta = f"""  - .agpr_count:     {agpr}
    .group_segment_fixed_size: {lds}
    .max_flat_workgroup_size: {threads}
    .name:           {name}
    .private_segment_fixed_size: {scratch}
    .sgpr_count:     {sgpr}
    .sgpr_spill_count: {sspill}
    .vgpr_count:     {vgpr}
    .vgpr_spill_count: {vspill}
    .wavefront_size: 64"""
    return text, meta


def asm_file(d, fname, kernels):
    texts, metas = zip(*kernels)
    path = os.path.join(d, fname)
    with open(path, "w") as f:
        f.write("\t.text\n" + "".join(texts))
        f.write("\t.amdgpu_metadata\n---\namdhsa.kernels:\n" + "\n".join(metas) +
                "\namdhsa.target: amdgcn-amd-amdhsa--gfx942\n...\n\n\t.end_amdgpu_metadata\n")
    return path


ADD = mangled("add_kernel", "fLi2048ELi4E")
SOFTMAX = mangled("softmax_kernel", "fLi8192ELi16E")
MATMUL = mangled("matmul_kernel", "DF16_S5_Li128ELi128ELi32ELi8ELi8E")
ATT_FWD = mangled("attention_fwd_kernel", "DF16_Li128ELi128ELi64ELb0ELi8ELi0E")
ATT_SMALL = mangled("attention_bwd_dq_kernel", "DF16_Li128ELi32ELi32ELb1ELi4E")
ATT_F32_SMALL = mangled("attention_fwd_kernel", "fLi128ELi32ELi16ELb0ELi4ELi0E")
CONV = mangled("conv2d_kernel", "DF16_Li64ELi64ELi32ELi4E")


def run(d, inputs, known=None):
    args = [sys.executable, CHECK, "--report", os.path.join(d, "report.md")]
    if known is not None:
        kpath = os.path.join(d, "known.txt")
        with open(kpath, "w") as f:
            f.write(known)
        args += ["--known", kpath]
    p = subprocess.run(args + inputs, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr, open(os.path.join(d, "report.md")).read()


failures = []


def expect(name, cond, detail=""):
    if not cond:
        failures.append(f"{name}: {detail}")


with tempfile.TemporaryDirectory() as d:
    clean = [kernel_asm(ADD), kernel_asm(MATMUL, vgpr=241, agpr=113, lds=20480, mfma=4, threads=512)]
    f = asm_file(d, "clean.s", clean)
    rc, out, rep = run(d, [f"gfx942={f}"])
    expect("clean", rc == 0 and "PASS" in out, out)
    expect("clean: label", "`matmul_kernel<_Float16, _Float16, 128, 128, 32, 8, 8>`" in rep, rep)
    expect("clean: MFMA per K step", "| 64 (8 a wave) | 512 |" in rep, rep)

    f = asm_file(d, "spill.s", clean + [kernel_asm(SOFTMAX, vgpr=128, sspill=3)])
    rc, out, _ = run(d, [f"gfx942={f}"])
    expect("SGPR spill fails", rc == 1 and
           "softmax_kernel<float, 8192, 16>: spills 0 VGPRs and 3 SGPRs" in out, out)

    f = asm_file(d, "scratch.s", clean + [kernel_asm(SOFTMAX, scratch=24)])
    rc, out, _ = run(d, [f"gfx90a={f}"])
    expect("scratch fails", rc == 1 and "uses 24 bytes of scratch" in out, out)

    f = asm_file(d, "nomfma.s", [kernel_asm(MATMUL, vgpr=100, threads=512)])
    rc, out, _ = run(d, [f"gfx942={f}"])
    expect("matmul without MFMA fails", rc == 1 and "tiled product without v_mfma" in out, out)

    f = asm_file(d, "conv.s", [kernel_asm(CONV, vgpr=224, agpr=32, mfma=2)])
    rc, out, _ = run(d, [f"gfx942={f}"])
    expect("conv2d with MFMA passes", rc == 0, out)
    f = asm_file(d, "convnomfma.s", [kernel_asm(CONV, vgpr=113)])
    rc, out, _ = run(d, [f"gfx942={f}"])
    expect("conv2d without MFMA fails", rc == 1 and
           "conv2d_kernel<_Float16, 64, 64, 32, 4>: tiled product without v_mfma" in out, out)

    f = asm_file(d, "occ.s", [kernel_asm(MATMUL, vgpr=300, mfma=4, threads=512)])
    rc, out, _ = run(d, [f"gfx942={f}"])
    expect("matmul at 1 wave per SIMD fails", rc == 1 and "1 wave(s) per SIMD" in out, out)

    f = asm_file(d, "att.s", clean + [kernel_asm(ATT_FWD, vgpr=159, lds=47104, mfma=8,
                                                 threads=512, loop_barriers=5),
                                      kernel_asm(ATT_F32_SMALL)])
    rc, out, rep = run(d, [f"gfx942={f}"])
    expect("MFMA attention and small f32 attention pass", rc == 0, out)
    expect("attention: label",
           "`attention_fwd_kernel<_Float16, 128, 128, 64, false, 8, 0>`" in rep, rep)
    # 2 x 128 x 64 x 128 multiply-adds a key step over 32 x 32 x 8, 32 clocks each on gfx942,
    # 8 waves over 4 SIMDs.
    # The barriers of its key loop: the one before the loop is not counted.
    expect("attention: MFMA and barriers per key step", "| 256 (32 a wave) | 2048 | 5 | 2 |" in rep,
           rep)
    f = asm_file(d, "att_nomfma.s", [kernel_asm(ATT_FWD, vgpr=159, threads=512)])
    rc, out, _ = run(d, [f"gfx942={f}"])
    expect("MFMA-sized attention without MFMA fails",
           rc == 1 and "attention tile without v_mfma" in out, out)
    f = asm_file(d, "att_small.s", [kernel_asm(ATT_SMALL, vgpr=160)])
    rc, out, _ = run(d, [f"gfx90a={f}"])
    expect("16-bit attention on a small tile fails",
           rc == 1 and "a 32x32 tile on 4 waves is too small for MFMA" in out, out)

    # The known list: allowed up to its counts, listed in the report; more, fixed or gone fails.
    f = asm_file(d, "known.s", clean + [kernel_asm(SOFTMAX, vspill=5, scratch=32)])
    entry = "gfx942 | softmax_kernel<float, 8192, 16> | vgpr {} sgpr 0 scratch 32 | why\n"
    rc, out, rep = run(d, [f"gfx942={f}"], entry.format(5))
    expect("known spill allowed", rc == 0 and "1 known spills open" in out, out)
    expect("known spill in the report", "## Known spills" in rep and "why" in rep, rep)
    rc, out, _ = run(d, [f"gfx942={f}"], entry.format(4))
    expect("known spill grown fails", rc == 1 and "allows 4, 0, 32" in out, out)
    f2 = asm_file(d, "fixed.s", clean + [kernel_asm(SOFTMAX)])
    rc, out, _ = run(d, [f"gfx942={f2}"], entry.format(5))
    expect("fixed entry fails", rc == 1 and "no longer spills" in out, out)
    rc, out, rep = run(d, [f"gfx942={asm_file(d, 'gone.s', clean)}"], entry.format(5))
    expect("vanished entry is reported, not failed", rc == 0 and "not built" in rep, out + rep)
    rc, out, _ = run(d, [f"gfx90a={asm_file(d, 'other.s', clean)}"], entry.format(5))
    expect("entries of targets not checked are ignored", rc == 0, out)
    rc, out, _ = run(d, [f"gfx942={f}"], "gfx942 | softmax | five spills\n")
    expect("malformed entry is refused", rc != 0 and "expected 'ARCH | KERNEL" in out, out)

for f in failures:
    print("FAIL", f)
print(f"isa_check_test: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
