"""course/confine.py and namespace-scope __device__/__constant__ variables: emucc binds each one to its device memory
while the program starts, with one call to the runtime and nothing else, which confinement lets through in a lab's
kernel.cu; any other code before main() (a variable whose initial value is computed, however the source gets it past
emucc) is refused, at the line of its declaration. Each source is compiled by emucc as the grader compiles a kernel.cu:
its IR and its object are both checked."""
import os
import subprocess

import pytest

from course import confine

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EMUCC = os.path.join(ROOT, "common", "emu", "emucc")

KERNEL = """
__global__ void scale_kernel(float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < c_dims[0]) x[i] = c_scale * x[i] + d_offset[i % 2];
}
"""
VARIABLES = """
struct Box { float lo, hi; };
__device__ Box d_box;
__constant__ int c_dims[3];
__constant__ float c_scale = 2.0f;
static __device__ float d_offset[2] = {0.5f, 1.5f};
"""
LAUNCHER = """
void launch(float* x, int n) {
    const int dims[3] = {n, 1, 1};
    cudaMemcpyToSymbol(c_dims, dims, sizeof(dims));
    scale_kernel<<<(n + 127) / 128, 128>>>(x, n);
}
"""


def confined(tmp_path, source):
    """(emucc's exit status and messages, check_ir's reasons, check_object's reasons) for source as kernel.cu."""
    cu, ir, obj = (str(tmp_path / n) for n in ("kernel.cu", "kernel.ll", "kernel.o"))
    with open(cu, "w") as f:
        f.write(source)
    proc = subprocess.run([EMUCC, "--emit-ir=" + ir, "-c", cu, "-o", obj], capture_output=True, text=True,
                          cwd=str(tmp_path))
    if proc.returncode != 0:
        return proc.returncode, proc.stderr, None, None
    with open(ir) as f:
        text = f.read()
    return 0, proc.stderr, confine.check_ir(text, "kernel.cu"), \
        confine.check_object(obj, "kernel.cu", device_variables=confine.binds_device_variables(text))


def test_constant_and_device_variables_with_constant_initial_values_are_allowed(tmp_path):
    status, messages, ir_reasons, object_reasons = confined(tmp_path, VARIABLES + KERNEL + LAUNCHER)
    assert status == 0, messages
    assert ir_reasons == [] and object_reasons == []


def test_a_dynamic_initialiser_does_not_compile(tmp_path):
    source = ("float from_host();\n" + VARIABLES.replace("c_scale = 2.0f", "c_scale = from_host()") + KERNEL
              + LAUNCHER)
    status, messages, _, _ = confined(tmp_path, source)
    assert status != 0 and "kernel.cu:6:" in messages and "does not have a constant initializer" in messages


@pytest.mark.parametrize("extra, line", [
    # emucc's attribute defined away: the initial value is computed before main() after all
    ("#undef CUDAEMU_CONSTANT_INIT\n#define CUDAEMU_CONSTANT_INIT\nfloat from_host();\n"
     "__device__ float d_late = from_host();\n", 4),
    # an ordinary global initialised by code, beside the device variables
    ("int from_host();\nstatic int g_count = from_host();\n", 2),
])
def test_other_code_before_main_is_refused_at_its_line(tmp_path, extra, line):
    status, messages, ir_reasons, object_reasons = confined(tmp_path, extra + VARIABLES + KERNEL + LAUNCHER)
    assert status == 0, messages
    assert ir_reasons and ir_reasons[0].startswith("kernel.cu:%d: a static constructor" % line), ir_reasons
    assert any("static constructor" in r for r in object_reasons), object_reasons


def test_the_runtime_call_is_allowed_only_where_emucc_binds_a_variable(tmp_path):
    launcher = LAUNCHER.replace("    scale_kernel", "    static float initial = 0.0f;\n"
                                "    cudaemu::define_device_variable(&initial, sizeof(initial), 4, false, \"v\", "
                                "\"f\", 1);\n    scale_kernel")
    status, messages, ir_reasons, _ = confined(tmp_path, VARIABLES + KERNEL + launcher)
    assert status == 0, messages
    assert any("define_device_variable" in r and "is not allowed" in r for r in ir_reasons), ir_reasons


def test_without_device_variables_the_runtime_call_and_a_constructor_stay_refused(tmp_path):
    source = ("__attribute__((constructor)) static void before_main() {\n"
              "    static float initial = 0.0f;\n"
              "    cudaemu::define_device_variable(&initial, sizeof(initial), 4, false, \"v\", \"f\", 1);\n}\n")
    status, messages, ir_reasons, object_reasons = confined(tmp_path, source)
    assert status == 0, messages
    assert any("static constructor" in r for r in ir_reasons), ir_reasons
    assert any("define_device_variable" in r for r in ir_reasons), ir_reasons
    assert any("static constructor" in r for r in object_reasons), object_reasons
