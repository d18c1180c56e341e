"""The GPU's float approximations in host IR (cudaemu_cc/approx.py): the measured tables, and the IR definitions of
ex2.approx, rcp.approx and fma.rm run on this machine against what an H100 returned for zeros, infinities, NaNs,
subnormals and the edges of the range (tools/approx-f32/probe.cu printed them), and against IEEE's rounding down.
The 4,096 arguments per function of tests/emu/programs/math_library.cu check the same against the H100 in bulk.
"""
import os
import subprocess

import pytest

from cudaemu_cc import approx
from cudaemu_cc.toolchain import clang_major, find_clang, find_tool

# operand: ex2.approx.ftz.f32, ex2.approx.f32, rcp.approx.ftz.f32, as an H100 returned them (bits)
H100 = {
    0x00000000: (0x3f800000, 0x3f800000, 0x7f800000),
    0x80000000: (0x3f800000, 0x3f800000, 0xff800000),
    0x7f800000: (0x7f800000, 0x7f800000, 0x00000000),
    0xff800000: (0x00000000, 0x00000000, 0x80000000),
    0x7fc00000: (0x7fffffff, 0x7fffffff, 0x7fffffff),
    0xffc00001: (0x7fffffff, 0x7fffffff, 0x7fffffff),
    0x00000001: (0x3f800000, 0x3f800000, 0x7f800000),
    0x80000001: (0x3f800000, 0x3f800000, 0xff800000),
    0x00800000: (0x3f800000, 0x3f800000, 0x7e800000),
    0x7f7fffff: (0x7f800000, 0x7f800000, 0x00000000),
    0xff7fffff: (0x00000000, 0x00000000, 0x80000000),
    0x42fe0000: (0x7f000000, 0x7f000000, 0x3c010204),
    0x43000000: (0x7f800000, 0x7f800000, 0x3c000000),
    0xc2fc0000: (0x00800000, 0x00800000, 0xbc020821),
    0xc2fd0000: (0x00000000, 0x005a8279, 0xbc01848e),
    0xc3000000: (0x00000000, 0x00200000, 0xbc000000),
    0x33ffffff: (0x3f800000, 0x3f800000, 0x4b000001),
    0x34000000: (0x3f800001, 0x3f800001, 0x4b000000),
    0xb4000000: (0x3f7ffffe, 0x3f7ffffe, 0xcb000000),
    0xb3ffffff: (0x3f800000, 0x3f800000, 0xcb000001),
    0x3f000000: (0x3fb504f3, 0x3fb504f3, 0x40000000),
    0xbf000000: (0x3f3504f2, 0x3f3504f2, 0xc0000000),
    0x7e800000: (0x7f800000, 0x7f800000, 0x00800000),
    0x7f000000: (0x7f800000, 0x7f800000, 0x00000000),
}

# a, b, c: fma rounded down (IEEE 754's roundTowardNegative)
ROUND_DOWN = {
    (0x3f800000, 0x3f800000, 0x30800000): 0x3f800000,  # 1 + 2^-30 -> 1
    (0x3f800000, 0x3f800000, 0xb0800000): 0x3f7fffff,  # 1 - 2^-30 -> the float below 1 (to nearest: 1)
    (0x3f800000, 0xbf800000, 0x3f800000): 0x80000000,  # an exact zero is -0 rounding down
    (0x00000000, 0x00000000, 0x00000000): 0x00000000,  # ... but +0 * +0 + +0 is +0
    (0x7f000000, 0x40800000, 0x00000000): 0x7f7fffff,  # 2^127 * 4 overflows to the largest float, not infinity
    (0xff000000, 0x40800000, 0x00000000): 0xff800000,  # and to -infinity below
    (0x00000001, 0x3f000000, 0x00000000): 0x00000000,  # 2^-150 -> 0
    (0x80000001, 0x3f000000, 0x00000000): 0x80000001,  # -2^-150 -> -2^-149
    (0x7f800000, 0x3f800000, 0x00000000): 0x7f800000,  # infinity stays
    (0x40400000, 0x3eaaaaab, 0xbf800000): 0x33000000,  # 3 * (1/3 rounded up) - 1: exact, 2^-25
    (0x4b400001, 0x3f800000, 0x3f000000): 0x4b400001,  # 12582913.5 -> 12582913 (expf's use)
}

MAIN = r'''#include <stdio.h>
#include <stdlib.h>
#include <string.h>
float ex2_ftz(float), ex2(float), rcp(float), fma_rm(float, float, float);
static float f(const char* s) { unsigned u = strtoul(s, 0, 16); float x; memcpy(&x, &u, 4); return x; }
static unsigned b(float x) { unsigned u; memcpy(&u, &x, 4); return u; }
int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (strchr(argv[i], ',')) {
            char* p = argv[i]; char* q = strchr(p, ','); *q = 0; char* r = strchr(q + 1, ','); *r = 0;
            printf("%08x\n", b(fma_rm(f(p), f(q + 1), f(r + 1))));
        } else {
            float x = f(argv[i]);
            printf("%08x %08x %08x\n", b(ex2_ftz(x)), b(ex2(x)), b(rcp(x)));
        }
    }
    return 0;
}
'''


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    """A program that calls the IR definitions (with the tables' archive) on operands given as hex bits."""
    tmp = tmp_path_factory.mktemp("approx")
    clang = find_clang()
    major = clang_major(clang)
    typed = major < 15  # LLVM 15 made pointers opaque
    wrappers = ("define float @ex2_ftz(float %a) {\n  %r = call float @cudaemu.nvvm.ex2.approx.ftz.f(float %a)\n"
                "  ret float %r\n}\n"
                "define float @ex2(float %a) {\n  %r = call float @cudaemu.nvvm.ex2.approx.f(float %a)\n"
                "  ret float %r\n}\n"
                "define float @rcp(float %a) {\n  " + "\n  ".join(approx.rcp_asm_body(typed)) +
                "\n  ret float %r\n}\n"
                "define float @fma_rm(float %a, float %b, float %c) {\n"
                "  %r = call float @cudaemu.nvvm.fma.rm.f(float %a, float %b, float %c)\n  ret float %r\n}\n"
                "declare float @llvm.fabs.f32(float)\ndeclare double @llvm.minnum.f64(double, double)\n"
                "declare double @llvm.floor.f64(double)\ndeclare i64 @llvm.ctpop.i64(i64)\n"
                "declare float @llvm.fma.f32(float, float, float)\n")
    ir = approx.typed(approx.GLOBALS, typed) + approx.definitions(approx.INTRINSICS, typed) + wrappers
    (tmp / "approx.ll").write_text(ir)
    (tmp / "main.c").write_text(MAIN)
    archive = approx.archive(clang, str(tmp / "cache"), lambda: approx.find_archiver(clang, major, find_tool))
    exe = str(tmp / "approx")
    subprocess.run([clang, "-O1", "-Wno-override-module", "-o", exe, "-x", "c", str(tmp / "main.c"), "-x", "ir",
                    str(tmp / "approx.ll"), "-x", "none", archive], check=True)
    return exe


def run(program, args):
    return subprocess.run([program] + args, capture_output=True, text=True, check=True).stdout.split("\n")[:-1]


def test_ex2_and_rcp_give_what_the_h100_gave_at_the_edges(program):
    got = run(program, ["%08x" % x for x in H100])
    assert got == ["%08x %08x %08x" % H100[x] for x in H100]


def test_fma_rounds_down_as_ieee_754_says(program):
    got = run(program, ["%08x,%08x,%08x" % abc for abc in ROUND_DOWN])
    assert got == ["%08x" % r for r in ROUND_DOWN.values()]


def test_the_tables_are_the_measured_ones():
    starts, steps, rounds_up = approx.tables()
    assert starts[0] == 1 << 23 and all(a <= b for a, b in zip(starts, starts[1:]))
    last = starts[-1] + sum((steps[-1] >> (2 * j)) & 3 for j in range(31))  # T(2^23 - 1), the step after it is none
    assert last == 0xffffff  # just below 2: ex2 of 1 - 2^-23 is the float below 2
    assert sum(bin(w).count("1") for w in rounds_up) == 4552774  # as the probe measured


def test_a_cache_it_may_not_write_gets_a_private_archive_for_the_run():
    clang = find_clang()
    path = approx.archive(clang, "/dev/null/cache", lambda: approx.find_archiver(clang, clang_major(clang), find_tool))
    assert os.path.basename(os.path.dirname(path)).startswith("emucc-approx-") and os.path.getsize(path) > 4 << 20


def test_only_objects_that_use_the_tables_link_them(tmp_path):
    (tmp_path / "uses.o").write_bytes(b"\x7fELF...cudaemu.ex2_approx.steps\0...")
    (tmp_path / "plain.o").write_bytes(b"\x7fELF...matmul_kernel\0...")
    assert approx.referenced([str(tmp_path / "plain.o"), str(tmp_path / "uses.o")])
    assert not approx.referenced([str(tmp_path / "plain.o"), str(tmp_path / "missing.o")])
