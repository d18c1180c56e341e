"""emucc's source rewrite as a whole (cudaemu_cc/source.py): what it refuses, with file:line, and the rewrites it
makes itself (extended lambdas, __CUDA_ARCH__ comparisons); and scan.code_mask, which every rewrite relies on to
leave comments and strings alone. Launches and declarations have files of their own."""
import os

import pytest

from cudaemu_cc.declarations import DYNAMIC_SHARED_DEFINITION
from cudaemu_cc.errors import SourceError
from cudaemu_cc.scan import code_mask, line_of
from cudaemu_cc.source import (CUDA_ARCH, device_arch_in_device_bodies, drop_lambda_device, drop_static_of_shared,
                               rename_builtin_variables, rewrite_arch_comparisons, rewrite_source)


def code_of(text):
    """The characters code_mask calls code, the others as '.'."""
    return "".join(c if code else "." for c, code in zip(text, code_mask(text)))


# ---------------------------------------------------------------------------------------------------------------
# code_mask
# ---------------------------------------------------------------------------------------------------------------
def test_code_mask_hides_comments_and_literals():
    text = 'a = b; // c<<<\nd /* e */ f "g\\"h" \'i\' j'
    assert code_of(text) == "a = b; .......\nd ....... f ...... ... j"


def test_code_mask_block_comment_spans_lines_and_an_unclosed_one_runs_to_the_end():
    assert code_of("a /* b\nc */ d") == "a ......... d"
    assert code_of("a /* b\nc") == "a ......"


def test_code_mask_string_ends_at_its_line():
    # an unterminated string literal does not swallow the rest of the file (its newline goes with it)
    assert code_of('"abc\nd') == ".....d"


def test_line_of_counts_from_one():
    assert line_of("a\nb\nc", 0) == 1
    assert line_of("a\nb\nc", 4) == 3


# ---------------------------------------------------------------------------------------------------------------
# refusals
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line, why", [
    ('    asm volatile("membar.gl;");', "inline PTX (asm)"),
    ("__global__ void __cluster_dims__(2, 1, 1) k() {}", "thread block clusters"),
    ("    v = __shfl_down(v, 1);", "warp functions without _sync"),
    ("    if (__any(v)) return;", "warp functions without _sync"),
])
def test_unsupported_construct_is_refused_with_its_line(line, why):
    with pytest.raises(SourceError) as refused:
        rewrite_source("k.cu", "// a kernel\n\n" + line + "\n")
    assert refused.value.messages[0].startswith("k.cu:3: error: " + why)
    assert "not supported by the CPU emulator" in refused.value.messages[0]


def test_every_refusal_is_reported_at_once_in_line_order():
    source = "asm(\"nop\");\nint ok;\nv = __shfl(v, 0);\n__managed__ int m;\nk<<<1, 1();\n"
    with pytest.raises(SourceError) as refused:
        rewrite_source("dir/k.cu", source)
    assert [m.split(": error: ")[0] for m in refused.value.messages] == \
        ["dir/k.cu:1", "dir/k.cu:3", "dir/k.cu:4", "dir/k.cu:5"]
    assert str(refused.value) == "\n".join(refused.value.messages)


def test_mma_ptx_h_keeps_its_inline_assembly_out_of_the_emulators_reach():
    """common/mma_ptx.h, which a lab's kernel.cu may include, is rewritten as the kernel's own header: it has no asm,
    and picks its nvcc side (mma_ptx_gpu.h, whose asm would be refused) only where CUDAEMU is not defined."""
    common = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common")
    with open(os.path.join(common, "mma_ptx.h"), encoding="utf-8") as f:
        header = f.read()
    assert rewrite_source("common/mma_ptx.h", header) == header
    assert '#ifdef CUDAEMU\n#include <cudaemu_mma_ptx.h>' in header and '#else\n#include "mma_ptx_gpu.h"' in header
    with open(os.path.join(common, "mma_ptx_gpu.h"), encoding="utf-8") as f:
        with pytest.raises(SourceError) as refused:
            rewrite_source("common/mma_ptx_gpu.h", f.read())
    assert len(refused.value.messages) == 4  # one instruction each: mma, ldmatrix x4 and x2, cvt
    assert all("inline PTX (asm)" in m for m in refused.value.messages)


def test_unsupported_names_in_comments_strings_and_sync_forms_are_accepted():
    source = ('// asm("nop"); __shfl(v, 0)\n/* wmma:: */\nconst char* s = "__ballot(";\n'
              "v = __shfl_sync(0xffffffff, v, 0);\nb = __ballot_sync(0xffffffff, p);\n")
    assert rewrite_source("k.cu", source) == source


def test_rewrite_source_keeps_every_line_in_place():
    source = ("#if __CUDA_ARCH__ >= 800\n"
              "__constant__ float weights[3] = {\n    1, 2, 3};\n"
              "extern __shared__ float dynamic[];\n"
              "__global__ void k(float* out) {\n"
              "    __shared__ alignas(16) float tile[4];\n"
              "    auto f = [] __device__ (float x) { return x; };\n"
              "}\n#endif\n"
              "void launch(float* out) {\n    k\n        <<<1, 4>>>(out);\n}\n")
    rewritten = rewrite_source("k.cu", source)
    # the definition of the dynamic shared buffer, and its array's name, are appended after the last line
    appended = DYNAMIC_SHARED_DEFINITION + 'extern "C" __attribute__((weak, used)) const char __cudaemu_shared_name_dynamic = 0;\n'
    assert rewritten.endswith(appended)
    assert rewritten[:-len(appended)].count("\n") == source.count("\n")
    for kept in ("#if 900 >= 800", "alignas(16) __shared__ float tile[4];", "__launch_site(k\n",
                 "const decltype(cudaemu_initial_weights)& weights", "__asm__(CUDAEMU_DYNAMIC_SHARED)"):
        assert kept in rewritten
    lines = rewritten.split("\n")
    assert lines[5] == "    alignas(16) __shared__ float tile[4];"  # line 6, as in the source
    # a launch over two lines: the kernel's name on the first, the launch configuration and arguments on the second
    assert lines[10] == "    ::cudaemu::__launch_site(k"
    assert lines[11].startswith(', "k", __FILE__, __LINE__') and lines[11].endswith(")(1, 4)(out);")


# ---------------------------------------------------------------------------------------------------------------
# extended lambdas
# ---------------------------------------------------------------------------------------------------------------
def test_extended_lambda_loses_its_device_attribute():
    assert drop_lambda_device("auto f = [=] __device__ (int i) { return i; };") == \
        "auto f = [=]  (int i) { return i; };"
    assert drop_lambda_device("auto g = [&] __host__ __device__ () {};") == "auto g = [&]  () {};"
    assert drop_lambda_device("auto h = [] __device__ __host__ () {};") == "auto h = []  () {};"


def test_cuda_arch_is_defined_in_the_bodies_of_device_only_functions():
    device = ("__global__ void k(int* o) {\n#ifdef __CUDA_ARCH__\n  o[0] = __CUDA_ARCH__;  // __CUDA_ARCH__\n#endif\n"
              "#if !defined(__CUDA_ARCH__)\n  o[1] = 1;\n#endif\n  puts(\"__CUDA_ARCH__\");\n}\n")
    assert device_arch_in_device_bodies(device) == (
        "__global__ void k(int* o) {\n#if 1\n  o[0] = 900;  // __CUDA_ARCH__\n#endif\n"
        "#if !1\n  o[1] = 1;\n#endif\n  puts(\"__CUDA_ARCH__\");\n}\n")
    assert device_arch_in_device_bodies("__device__ int f() {\n#ifndef __CUDA_ARCH__\n  return 0;\n#endif\n}\n") == \
        "__device__ int f() {\n#if 0\n  return 0;\n#endif\n}\n"
    for host in ("__host__ __device__ int f() {\n#ifdef __CUDA_ARCH__\n  return 1;\n#endif\n}\n",  # compiled once
                 "__device__ __host__ int f() {\n#ifdef __CUDA_ARCH__\n  return 1;\n#endif\n}\n",
                 "int h() {\n#ifdef __CUDA_ARCH__\n  return 1;\n#endif\n}\n",
                 "__device__ int table[2] = {1, 2};\nint h() {\n#ifdef __CUDA_ARCH__\n  return 1;\n#endif\n}\n"):
        assert device_arch_in_device_bodies(host) == host


def test_static_of_a_shared_variable_becomes_spaces():
    assert drop_static_of_shared("    static __shared__ T shared[32];") == "           __shared__ T shared[32];"
    assert drop_static_of_shared("__shared__ static float s;") == "__shared__        float s;"
    assert drop_static_of_shared("static int n; // static __shared__") == "static int n; // static __shared__"


def test_device_after_a_subscript_in_a_comment_stays():
    text = "// a[i] __device__\nx = a[i] /* ] __device__ */;"
    assert drop_lambda_device(text) == text


# ---------------------------------------------------------------------------------------------------------------
# __CUDA_ARCH__
# ---------------------------------------------------------------------------------------------------------------
def test_cuda_arch_stands_for_an_h100():
    assert CUDA_ARCH == "900"


@pytest.mark.parametrize("directive, rewritten", [
    ("#if __CUDA_ARCH__ >= 700", "#if 900 >= 700"),
    ("#if __CUDA_ARCH__<800", "#if 900<800"),
    ("  #  elif 600 <= __CUDA_ARCH__", "  #  elif 600 <= 900"),
    ("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ != 900", "#if defined(__CUDA_ARCH__) && 900 != 900"),
    ("#if X && \\\n    __CUDA_ARCH__ == 800", "#if X && \\\n    900 == 800"),
])
def test_arch_comparison_in_if_and_elif_is_evaluated(directive, rewritten):
    assert rewrite_arch_comparisons(directive + "\n") == rewritten + "\n"


@pytest.mark.parametrize("text", [
    "#ifdef __CUDA_ARCH__",
    "#if defined(__CUDA_ARCH__)",
    "#ifndef __CUDA_ARCH__",
    "#define ARCH_OK (__CUDA_ARCH__ >= 700)",
    "int arch = __CUDA_ARCH__ >= 700;",
])
def test_arch_tests_that_tell_host_from_device_stay(text):
    assert rewrite_arch_comparisons(text + "\n") == text + "\n"


# ---------------------------------------------------------------------------------------------------------------
# Variables of the program's own named like a built-in variable
# ---------------------------------------------------------------------------------------------------------------
def test_host_variables_named_like_built_ins_are_renamed_in_their_block():
    source = ("__global__ void k(float* x) { x[blockIdx.x * blockDim.x + threadIdx.x] = gridDim.x; }\n"
              "void run(float* x) {\n"
              "    dim3 gridDim(4), blockDim(64);\n"
              "    k<<<gridDim, blockDim>>>(x);\n"
              "    printf(\"%d\", gridDim.x * blockDim.x);\n"
              "}\n"
              "void other() { int n = gridDim.x; }\n")
    lines = rename_builtin_variables(source).splitlines()
    assert lines[0] == source.splitlines()[0]   # the kernel's built-ins stay
    assert lines[2] == "    dim3 cudaemu_own_gridDim(4), cudaemu_own_blockDim(64);"
    assert lines[3] == "    k<<<cudaemu_own_gridDim, cudaemu_own_blockDim>>>(x);"
    assert lines[4] == '    printf("%d", cudaemu_own_gridDim.x * cudaemu_own_blockDim.x);'
    assert lines[6] == "void other() { int n = gridDim.x; }"   # past the block: the built-in again


def test_a_parameter_named_like_a_built_in_is_renamed_in_its_function():
    source = ("void launch(dim3 gridDim, const dim3& blockDim, float* x) {\n"
              "    k<<<gridDim, blockDim>>>(x);\n}\n"
              "void declared(dim3 gridDim);\n"
              "__global__ void k(float* x) { x[0] = gridDim.x; }\n")
    lines = rename_builtin_variables(source).splitlines()
    assert lines[0] == "void launch(dim3 cudaemu_own_gridDim, const dim3& cudaemu_own_blockDim, float* x) {"
    assert lines[1] == "    k<<<cudaemu_own_gridDim, cudaemu_own_blockDim>>>(x);"
    assert lines[3] == "void declared(dim3 cudaemu_own_gridDim);"
    assert lines[4] == "__global__ void k(float* x) { x[0] = gridDim.x; }"


@pytest.mark.parametrize("text", [
    "__global__ void k(int* x) { const int n = blockDim.x * gridDim.x; return; }\n",
    "__global__ void k(int* x) { x[0] = 2 * gridDim.x + s.gridDim + p->blockDim; }\n",
    "__global__ void k(int* x) { if (x) return blockDim.x; }\n",
    "// dim3 gridDim(4);\nvoid f() { g(gridDim); }\n",
])
def test_built_in_variables_in_use_stay(text):
    assert rename_builtin_variables(text) == text
