"""emucc's memory declarations (cudaemu_cc/declarations.py): `extern __shared__` arrays become the one dynamic
shared buffer, namespace-scope `__device__`/`__constant__` variables become references to device memory, alignas
moves in front of __shared__; and what it refuses, with file:line."""
import pytest

from cudaemu_cc.declarations import DYNAMIC_SHARED_DEFINITION, hoist_alignas, rewrite_memory_declarations
from cudaemu_cc.scan import code_mask


def declared(text):
    """(rewritten text, errors) for text in a file a.cu."""
    errors = []
    return rewrite_memory_declarations("a.cu", text, code_mask(text), errors), errors


def reference(name, constant=False, static=False):
    """The reference a device variable `name` becomes, at the end of its declaration's line."""
    return ' %s%sdecltype(cudaemu_initial_%s)& %s = CUDAEMU_DEVICE_VARIABLE(cudaemu_initial_%s, %s, "%s");' % (
        "static " if static else "", "const " if constant else "", name, name, name, "true" if constant else "false",
        name)


# ---------------------------------------------------------------------------------------------------------------
# extern __shared__
# ---------------------------------------------------------------------------------------------------------------
def shared_name(name):
    """The symbol emucc leaves for an extern __shared__ array's name (symbols.cpp names the buffer with it)."""
    return 'extern "C" __attribute__((weak, used)) const char __cudaemu_shared_name_%s = 0;\n' % name


@pytest.mark.parametrize("declaration", [
    "extern __shared__ float buf[];",
    "extern float __shared__ buf[];",      # the type before __shared__
])
def test_extern_shared_array_names_the_dynamic_shared_buffer(declaration):
    text, errors = declared("%s\n" % declaration)
    assert errors == []
    assert text == ("extern __thread float buf[] __asm__(CUDAEMU_DYNAMIC_SHARED);\n" + DYNAMIC_SHARED_DEFINITION
                    + shared_name("buf"))


def test_dynamic_shared_buffer_is_defined_once_for_many_arrays():
    text, errors = declared("extern __shared__ float a[];\nextern __shared__ int b[];\n")
    assert errors == []
    assert text.count("cudaemu_dynamic_shared_storage") == 1
    assert text.count("__asm__(CUDAEMU_DYNAMIC_SHARED)") == 3  # two arrays and the buffer's definition
    # each name once, for the emulator's reports ('a' or 'b')
    assert text.endswith(shared_name("a") + shared_name("b"))
    twice, _ = declared("__global__ void k() { extern __shared__ float a[]; }\n"
                        "__global__ void j() { extern __shared__ float a[]; }\n")
    assert twice.count(shared_name("a")) == 1


def test_two_extern_shared_arrays_in_one_declaration_are_refused():
    text = "// header\nextern __shared__ float a[], b[];\n"
    assert declared(text) == (text, ["a.cu:2: error: write one extern __shared__ array per declaration: "
                                     "`extern __shared__ float name[];`"])


def test_nothing_is_appended_without_dynamic_shared_memory():
    text = "__global__ void k() { __shared__ float tile[16]; }\n"
    assert declared(text) == (text, [])


# ---------------------------------------------------------------------------------------------------------------
# __device__ and __constant__ variables
# ---------------------------------------------------------------------------------------------------------------
def test_device_variable_becomes_a_reference_to_device_memory():
    # its initial value constant-initialised (CUDAEMU_CONSTANT_INIT), as nvcc requires: data, no code before main();
    # without an initialiser, `{}`: zero, a constant even for a struct, whose implicit constructor is not constexpr
    assert declared("__device__ float x;\n") == \
        ("static CUDAEMU_CONSTANT_INIT float cudaemu_initial_x{};" + reference("x") + "\n", [])


def test_constant_array_keeps_its_initial_value_and_becomes_const():
    assert declared("__constant__ float c[4] = {1, 2, 3, 4};\n") == \
        ("static CUDAEMU_CONSTANT_INIT float cudaemu_initial_c[4] = {1, 2, 3, 4};" + reference("c", constant=True)
         + "\n", [])


def test_every_variable_of_a_list_gets_its_reference():
    text, errors = declared("__device__ int a, b[2] = {1, 2}, *p;\n")
    assert errors == []
    assert text == ("static CUDAEMU_CONSTANT_INIT int cudaemu_initial_a{}, cudaemu_initial_b[2] = {1, 2}, "
                    "*cudaemu_initial_p{};" + reference("a") + reference("b") + reference("p") + "\n")


def test_initialiser_over_several_lines_keeps_them():
    text, errors = declared("__constant__ float w[3] = {\n    1, 2,\n    3};\nint after;\n")
    assert errors == []
    assert text == ("static CUDAEMU_CONSTANT_INIT float cudaemu_initial_w[3] = {\n    1, 2,\n    3};"
                    + reference("w", constant=True) + "\nint after;\n")


def test_an_alignment_in_the_declaration_is_no_function_parameter_list():
    # `__align__(16)` after the keyword or the type: its ( is the attribute's, and the variable is still rewritten
    for text in ("__device__ __align__(16) float v[4];\n", "__device__ float __align__(16) v[4];\n",
                 "__device__ __attribute__((aligned(16))) float v[4];\n"):
        rewritten, errors = declared(text)
        assert errors == [] and reference("v") in rewritten, text
    assert declared("__device__ float __align__(16) f(int);\n") == ("__device__ float __align__(16) f(int);\n", [])
    # after the name, or in [[...]], it would not fit the rewritten declaration: refused by name, never left on the host
    for text in ("__device__ float w[4] __attribute__((aligned(16)));\n", "__device__ [[gnu::aligned(16)]] float q[4];\n",
                 "__device__ float v __attribute__((unused)) = 1.f;\n"):
        rewritten, errors = declared(text)
        assert rewritten == text and len(errors) == 1 and "before its name" in errors[0], text


def test_static_device_variable_stays_static_and_so_does_its_reference():
    assert declared("static __device__ int s;\n") == \
        ("static CUDAEMU_CONSTANT_INIT int cudaemu_initial_s{};" + reference("s", static=True) + "\n", [])


def test_device_constant_variable_is_constant():
    assert declared("__device__ __constant__ float c;\n") == \
        ("static CUDAEMU_CONSTANT_INIT  float cudaemu_initial_c{};" + reference("c", constant=True) + "\n", [])


def test_two_dimensional_array():
    assert declared("__device__ float table[2][3];\n") == \
        ("static CUDAEMU_CONSTANT_INIT float cudaemu_initial_table[2][3]{};" + reference("table") + "\n", [])


@pytest.mark.parametrize("text", [
    "__device__ float f(float x) { return x; }\n",      # functions
    "__device__ __forceinline__ int g();\n",
    "__host__ __device__ bool operator==(A a, A b);\n",
    "#define DEVICE_VAR __device__ int d;\n",             # a macro's body
    "// __device__ float x;\n",
])
def test_functions_macros_and_comments_stay(text):
    assert declared(text) == (text, [])


@pytest.mark.parametrize("text, error", [
    ("__managed__ int m;", "__managed__ variables are not supported by the CPU emulator; allocate with "
                           "cudaMallocManaged"),
    ("extern __device__ int e;", "extern __device__ variables (separate compilation of device code, -rdc) are not "
                                 "supported by the CPU emulator; define the variable in the .cu that uses it"),
    ("extern __constant__ float c[4];", "extern __constant__ variables (separate compilation of device code, -rdc) "
                                        "are not supported by the CPU emulator; define the variable in the .cu that "
                                        "uses it"),
    ("template <class T> __device__ T v;", "__device__ variable templates are not supported by the CPU emulator"),
])
def test_unsupported_variable_is_refused_with_its_line(text, error):
    source = "int first;\n\n" + text + "\n"
    assert declared(source) == (source, ["a.cu:3: error: " + error])


# ---------------------------------------------------------------------------------------------------------------
# alignas
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, hoisted", [
    ("__shared__ alignas(16) float tile[4];", "alignas(16) __shared__ float tile[4];"),
    ("    __shared__ alignas(sizeof(float4)) float As[16][16];",
     "    alignas(sizeof(float4)) __shared__ float As[16][16];"),
    ("static __device__ alignas(8) int x;", "alignas(8) static __device__ int x;"),
    ("{ __constant__   alignas(16) float c[4]; }", "{ alignas(16) __constant__   float c[4]; }"),
])
def test_alignas_moves_to_the_declarations_start_on_the_same_line(text, hoisted):
    assert hoist_alignas(text, code_mask(text)) == hoisted
    assert len(hoisted) == len(text)


@pytest.mark.parametrize("text", [
    "// __shared__ alignas(16) float t[4];",
    "#define TILE __shared__ alignas(16) float t[4];",
    "alignas(16) __shared__ float t[4];",
])
def test_alignas_in_comments_macros_or_already_first_stays(text):
    assert hoist_alignas(text, code_mask(text)) == text


def test_extern_shared_arrays_in_functions_get_names_of_their_own():
    # two kernels' arrays of one name and two types: each declaration names the buffer on its own, and the kernel's
    # name is a reference to it (the same line keeps everything)
    text, errors = declared("__global__ void f() {\n    extern __shared__ float s[];\n}\n"
                            "__global__ void i() { extern __shared__ int s[]; }\n"
                            "namespace n { extern __shared__ double d[]; }\n")
    assert errors == []
    assert text.splitlines()[:5] == [
        "__global__ void f() {",
        "    extern __thread float cudaemu_shared_2_s[] __asm__(CUDAEMU_DYNAMIC_SHARED); auto& s = cudaemu_shared_2_s;",
        "}",
        "__global__ void i() { extern __thread int cudaemu_shared_4_s[] __asm__(CUDAEMU_DYNAMIC_SHARED); "
        "auto& s = cudaemu_shared_4_s; }",
        "namespace n { extern __thread double d[] __asm__(CUDAEMU_DYNAMIC_SHARED); }",  # namespace scope: as it was
    ]
