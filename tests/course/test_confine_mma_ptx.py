"""common/mma_ptx.h in a lab's kernel.cu, built as the grader builds it (emucc, --same-for-nvcc, the IR checked by
course/confine.py): the header's instructions are allowed (on the emulator they are calls into the runtime, on the
allowlist), while inline assembly written in kernel.cu itself stays refused."""
import pytest

from course import confine, paths, toolchain

KERNEL = r"""#include <cstdint>

#include "mma_ptx.h"

// one 16×8 tile of D = A·B: As is A (16×8, row-major), Bs is B's transpose (8×8), both in shared memory
__global__ void tile_kernel(const float* A, const float* Bt, float* D) {
    __shared__ alignas(16) float As[16][8];
    __shared__ alignas(16) float Bs[8][8];
    const int lane = threadIdx.x;
    for (int i = lane; i < 16 * 8; i += 32) As[i / 8][i % 8] = A[i];
    for (int i = lane; i < 8 * 8; i += 32) Bs[i / 8][i % 8] = Bt[i];
    __syncthreads();
    uint32_t a[4], b[2];
    ldmatrix_x4(a, &As[lane % 16][4 * (lane / 16)]);
    ldmatrix_x2(b, &Bs[lane % 8][4 * (lane / 8 % 2)]);
    for (int i = 0; i < 4; ++i) a[i] = cvt_rna_tf32(__uint_as_float(a[i]));
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f}, d[4];
    mma_m16n8k8_tf32(d, a, b, c);
    // EXTRA
    for (int i = 0; i < 4; ++i) D[lane * 4 + i] = d[i];
}
"""
OWN_ASM = ('    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0}, {%1}, {%2}, {%3};"\n'
           '                 : "+f"(d[0]) : "r"(a[0]), "r"(b[0]), "f"(c[0]));\n')


def build(tmp_path, extra):
    """The IR of KERNEL with `extra` in place of its EXTRA line, compiled as the grader compiles a kernel.cu."""
    source = tmp_path / "kernel.cu"
    source.write_text(KERNEL.replace("    // EXTRA\n", extra))
    obj, ir = str(tmp_path / "kernel.o"), str(tmp_path / "kernel.ll")
    toolchain.run_build(toolchain.compile_command("emu", str(source), obj, includes=[paths.COMMON],
                                                  shown_as="kernel.cu", emit_ir=ir))
    return confine.read_ir(ir)


def test_the_header_is_allowed_in_a_kernel(tmp_path):
    ir = build(tmp_path, "")
    assert ir is not None and "ptx_mma_m16n8k8_tf32" in ir and "ptx_ldmatrix" in ir
    assert confine.check_ir(ir, "kernel.cu") == []


def test_inline_assembly_in_the_kernel_itself_is_still_refused(tmp_path):
    with pytest.raises(toolchain.BuildError) as refused:
        build(tmp_path, OWN_ASM)
    line = KERNEL.replace("    // EXTRA\n", OWN_ASM).splitlines().index(OWN_ASM.splitlines()[0]) + 1
    assert "kernel.cu:%d: error: inline PTX (asm) is not supported" % line in str(refused.value)
