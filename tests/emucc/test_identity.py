"""emucc --same-for-nvcc (cudaemu_cc/identity.py): a .cu file whose own lines preprocess differently under nvcc's
identity is refused, naming the first such line; one that never asks which compiler builds it is not. These run
clang's preprocessor (nothing is compiled)."""
import os

import pytest

from cudaemu_cc import identity
from cudaemu_cc.build import INCLUDE_DIR
from cudaemu_cc.errors import SourceError
from cudaemu_cc.toolchain import find_clang

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLAGS = ["-std=c++17", "-I", INCLUDE_DIR, "-I", os.path.join(ROOT, "common"),
         "-I", os.path.join(ROOT, "labs", "lab3-boundary")]

SAME = '''#include "lab.h"
#ifdef __CUDA_ARCH__
#define WHERE 1
#else
#define WHERE 0
#endif
#if defined(__CUDACC__)
__global__ void k(float* c) { c[0] = WHERE + TILE_WIDTH; }
#endif
'''


def check(tmp_path, text):
    path = tmp_path / "kernel.cu"
    path.write_text('#line 1 "kernel.cu"\n' + text)
    identity.check(find_clang(), FLAGS, str(path), "kernel.cu")


def test_a_kernel_that_does_not_ask_which_compiler_builds_it_passes(tmp_path):
    check(tmp_path, SAME)  # __CUDA_ARCH__ and __CUDACC__ are the same question under both


@pytest.mark.parametrize("test, line", [
    ("#ifdef CUDAEMU\n#define T 16\n#else\n#define T 1\n#endif\nint t = T;\n", 6),
    ("#if defined(__clang__)\nint t = 16;\n#endif\n", 2),
    ("#ifndef __NVCC__\nint t = 16;\n#endif\n", 2),
    ("#if __CUDACC_VER_MAJOR__ >= 12\nint t = 1;\n#else\nint t = 16;\n#endif\n", 2),
    ("#define P(a, b) a##b\nint t = P(__NV, CC__);\n", 2),
    ("#if __GNUC__ < 5\nint t = 16;\n#endif\n", 2)])
def test_asking_which_compiler_builds_it_is_refused_at_its_line(tmp_path, test, line):
    with pytest.raises(SourceError) as e:
        check(tmp_path, test)
    assert e.value.messages[0].startswith("kernel.cu:%d: error: this line is compiled differently" % line), \
        e.value.messages


def test_own_lines_keeps_the_files_lines_by_number():
    text = '# 1 "kernel.cu"\nint a;\n\n# 1 "lab.h" 1\nint b;\n# 4 "kernel.cu" 2\nint   c ;\n'
    assert identity.own_lines(text, "kernel.cu") == {1: "int a;", 4: "int c ;"}


def test_the_compiler_is_the_same_whatever_path_reached_it(tmp_path):
    """The runtime object is named by the compiler's identity: an LLVM bin/ first on the PATH (another path string
    to the same clang++) must name the same object, or a sandbox with another PATH finds it missing."""
    from cudaemu_cc.toolchain import compiler_identity
    clang = find_clang()
    link = tmp_path / "clang++"
    link.symlink_to(clang)
    assert compiler_identity(str(link)) == compiler_identity(clang)
    assert "InstalledDir" not in compiler_identity(clang) and "clang version" in compiler_identity(clang)
