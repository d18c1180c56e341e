"""emucc's launch rewrites (cudaemu_cc/launches.py): `kernel<<<config>>>(args)` in every form a .cu file writes it,
the launches it cannot read (named with file:line), and cudaLaunchCooperativeKernel."""
import pytest

from cudaemu_cc.launches import (overloaded_kernels, rewrite_cooperative_launches, rewrite_launches,
                                 template_kernels)


def launched(text):
    """(rewritten text, errors) for text in a file a.cu."""
    errors = []
    return rewrite_launches("a.cu", text, errors), errors


def launch_site(kernel, shown=None, code=None):
    """What a launch of `kernel` starts with, up to its configuration."""
    return ('::cudaemu::__launch_site(%s, "%s", __FILE__, __LINE__, [&](auto&&... cudaemu_args) { %s(cudaemu_args...); '
            '})' % (kernel, shown or kernel, code or kernel))


@pytest.mark.parametrize("kernel", [
    "k",
    "ns::k",                # qualified
    "::k",                  # in the global namespace
    "::ns::k",
    "ns :: k",
    "obj.kernel",           # a member
    "p->kernel",
    "kernels[i]",           # any postfix expression naming a __global__ function
    "(*fp)",
    "table[pick(i, j)]",    # brackets inside brackets
])
def test_launch_of_any_kernel_expression(kernel):
    text, errors = launched("    %s<<<grid, block>>>(a, b);" % kernel)
    assert errors == []
    assert text == "    " + launch_site(kernel) + "(grid, block)(a, b);"


@pytest.mark.parametrize("kernel", [
    "k<float>",
    "k<float, 4>",
    "k<Tile<16, 16>>",      # nested template arguments, `>>` right before `<<<`
    "k<decltype(f(x)), sizeof(T[2])>",
    "k<(M >> 2)>",          # `>` and `>>` inside parentheses are no brackets
    "k<(M > 2) ? 3 : 5>",
    "k<N, (M > 2)>",
    "k<int, static_cast<unsigned>(3 < 4 ? 7 : 9)>",
    "k<decltype(p->y)>",
])
def test_launch_of_a_template_kernel(kernel):
    text, errors = launched("%s<<<1, 32>>>(out);" % kernel)
    assert errors == []
    assert text == launch_site(kernel) + "(1, 32)(out);"


@pytest.mark.parametrize("before", ["if (ok) ", "else ", "x = 1; ", "{ ", "return "])
def test_launch_of_a_global_name_after_a_statements_start(before):
    text, errors = launched(before + "::k<<<1, 1>>>();")
    assert errors == []
    assert text == before + launch_site("::k") + "(1, 1)();"


def test_launch_configuration_with_nested_brackets_and_all_four_parts():
    config = "dim3((n + 15) / 16, m), dim3(16, 16), sizeof(float) * tile[0], streams[i % 2]"
    text, errors = launched("k<<<%s>>>(f(a, b), c);" % config)
    assert errors == []
    assert text == launch_site("k") + "(%s)(f(a, b), c);" % config


def test_launch_keeps_its_lines():
    # name and configuration on different lines: the newline stays in the name, so the launch keeps its lines
    text, errors = launched("k<float>\n    <<<1, 1>>>(a);\nnext();")
    assert errors == []
    assert text == launch_site("k<float>\n", "k<float>", "k<float>") + "(1, 1)(a);\nnext();"


def test_comment_in_the_kernel_name_is_left_out_of_the_call():
    text, errors = launched("k /* the kernel */ <<<1, 1>>>();")
    assert errors == []
    assert text.startswith('::cudaemu::__launch_site(k /* the kernel */, ')
    assert "{ k(cudaemu_args...); }" in text


def test_every_launch_in_a_file_is_rewritten():
    text, errors = launched("a<<<1, 1>>>();\nb<<<2, 2>>>(x);\n")
    assert errors == []
    assert text == launch_site("a") + "(1, 1)();\n" + launch_site("b") + "(2, 2)(x);\n"


def test_launch_syntax_in_comments_and_strings_stays():
    text = '// k<<<1, 1>>>();\n/* k<<<1, 1>>>(); */\nputs("k<<<1, 1>>>()");\n'
    assert launched(text) == (text, [])


@pytest.mark.parametrize("text, error", [
    ("x = <<<1, 1>>>();", "a.cu:1: error: cannot find the kernel name before '<<<'"),
    ("\n\nk<<<1, 1();\n", "a.cu:3: error: no '>>>' closes this '<<<'"),
])
def test_unreadable_launch_is_named_with_its_line_and_left_as_it_was(text, error):
    assert launched(text) == (text, [error])


# ---------------------------------------------------------------------------------------------------------------
# cooperative launches
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("first, name, kernel", [
    ("(void *)k", "k", "k"),
    ("(void*)reduce<256>", "reduce<256>", "reduce<256>"),
    ("(const void *)ns::k", "ns::k", "ns::k"),
    ("reinterpret_cast<void*>(reduce<256>)", "reduce<256>", "(reduce<256>)"),
    ("k", "k", "k"),
])
def test_cooperative_launch_keeps_the_kernels_type_name_and_line(first, name, kernel):
    text = "CUDA_CHECK(cudaLaunchCooperativeKernel(%s, grid, block, args, 0, stream));" % first
    assert rewrite_cooperative_launches(text) == \
        'CUDA_CHECK(::cudaemu::cooperative_launch("%s", __FILE__, __LINE__, %s, grid, block, args, 0, stream));' \
        % (name, kernel)


def test_launch_with_an_argument_array_keeps_the_kernels_type():
    text = "cudaLaunchKernel((const void*)k<2>, grid, block, args, 0, s);"
    assert rewrite_cooperative_launches(text) == \
        '::cudaemu::arguments_launch("k<2>", __FILE__, __LINE__, k<2>, grid, block, args, 0, s);'


def test_cooperative_launch_in_a_comment_stays():
    text = "// cudaLaunchCooperativeKernel((void *)k, g, b, a);\n"
    assert rewrite_cooperative_launches(text) == text


@pytest.mark.parametrize("launch", [
    "k<< <grid, block>> >(a, b);",      # spaced, as Rodinia's programs write it
    "k<<< grid, block >> >(a, b);",
    "k<<\t<grid, block>>>(a, b);",
])
def test_spaced_launch_brackets(launch):
    text, errors = launched(launch)
    assert errors == []
    assert text.replace(" ", "").replace("\t", "") == (launch_site("k") + "(grid, block)(a, b);").replace(" ", "")


def test_template_kernels_are_found_by_their_declarations():
    source = ("template <typename T, int N = 4>\n__global__ void scale(const T* in, T* out) {}\n"
              "template <class T> __device__ T twice(T x) { return 2 * x; }\n"          # not a kernel
              "template <class T> struct Box { T value; };\n"
              "__global__ void plain(float* x) {}\n"
              "// template <class T> __global__ void in_a_comment(T x);\n"
              "template <class Op>\n__global__ __launch_bounds__(256) void apply(Op op) {}\n")
    assert template_kernels(source) == {"scale", "apply"}


def test_launch_of_a_template_kernel_by_name_alone_deduces_its_arguments():
    errors = []
    text = rewrite_launches("a.cu", "scale<<<g, b>>>(in, out, 2.0f);\nplain<<<g, b>>>(x);\n"
                            "scale<float><<<g, b>>>(in, out, 2.0f);\n", errors, deduced={"scale"})
    assert errors == []
    assert text.splitlines() == [
        '::cudaemu::__launch_deduced("scale", __FILE__, __LINE__, [&](auto&&... cudaemu_args) '
        '{ scale(cudaemu_args...); })(g, b)(in, out, 2.0f);',
        launch_site("plain") + "(g, b)(x);",
        launch_site("scale<float>") + "(g, b)(in, out, 2.0f);",   # template arguments given: a function pointer
    ]


def test_overloaded_kernels_are_told_from_a_kernel_declared_twice():
    text = ("#include <cstdio>\n__global__ void k(const float* x, int n);\n"
            "__global__ void k(const float* __restrict__ in, int count = 4) {}\n"
            "__global__ void scale(float* x) {}\n__global__ void scale(int* x) {}\n"
            "__global__ void pair(unsigned int n) {}\n__global__ void pair(const unsigned int) ;\n"
            "__global__ void arity(int a) {}\n__global__ void arity(int a, int b) {}\n")
    assert overloaded_kernels(text) == {"scale", "arity"}
    errors = []
    text = rewrite_launches("a.cu", "scale<<<1, 32>>>(x);", errors, deduced={"scale"})
    assert errors == []
    assert text.startswith('::cudaemu::__launch_deduced("scale", __FILE__, __LINE__, ')
