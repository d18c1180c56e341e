"""emucc's fusion of multiply-adds across statements (cudaemu_cc/arithmetic.py, fuse_across_statements), on canned
IR: a device function `k` (annotated as device code) and a host function `h`, bodies as sroa leaves them. The rule
itself is what tests/emu/programs/fma_contraction.cu showed on an H100 (and the NaNs, nan_results.cu); these tests
pin each of its parts.
"""
from cudaemu_cc.arithmetic import (canonical_nans, fuse_across_statements, fuse_device_multiply_adds, host_copies,
                                   inline_device_functions, integer_division_without_traps, integer_shifts_clamped,
                                   math_function, signed_zero_min_max)

ANNOTATED = '''@.str = private unnamed_addr constant [15 x i8] c"cudaemu.device\\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } \
{ ptr @k, ptr @.str, ptr @.str, i32 1, ptr null }], section "llvm.metadata"
'''


def module(body, host_body=None):
    """The module with k's body (and h's, the same unless given) between their braces."""
    host = body if host_body is None else host_body
    return (ANNOTATED + "\ndefine void @k(float %0, float %1, float %2, float %3, ptr %4) #0 {\n" + body + "}\n" +
            "\ndefine void @h(float %0, float %1, float %2, float %3, ptr %4) #0 {\n" + host + "}\n")


def device_body(ir):
    return ir.split("define void @k(")[1].split("{\n", 1)[1].split("}\n")[0]


def fma(result, x, y, z, kind="float", suffix="f32", dbg=""):
    return "  %s = call %s @llvm.fma.%s(%s %s, %s %s, %s %s)%s\n" % (result, kind, suffix, kind, x, kind, y, kind, z,
                                                                     dbg)


def gone(result, kind="float"):
    return "  %s = freeze %s undef ; a product fused into each of its uses\n" % (result, kind)


def stored(*values, kind="float"):
    """Lines that store each value (a value nothing uses is dead code, and no use of its operands)."""
    return "".join("  store %s %s, ptr %%4, align 4\n" % (kind, v) for v in values)


def test_a_product_in_one_statement_and_its_add_in_the_next_fuse():
    body = ("  %6 = fmul float %0, %1, !dbg !10\n"
            "  %7 = fadd float %6, %2, !dbg !11\n"
            "  store float %7, ptr %4, align 4\n"
            "  ret void\n")
    fused = fuse_across_statements(module(body))
    assert device_body(fused) == gone("%6") + fma("%7", "%0", "%1", "%2", dbg=", !dbg !11") + \
        "  store float %7, ptr %4, align 4\n  ret void\n"
    assert fused.endswith("\ndeclare float @llvm.fma.f32(float, float, float)\n")
    assert "define void @h(float %0, float %1, float %2, float %3, ptr %4) #0 {\n" + body in fused  # host: as it was


def test_the_addend_may_come_first_and_subtracts_negate_the_right_operand():
    body = ("  %6 = fmul float %0, %1\n"
            "  %7 = fadd float %2, %6\n"
            "  %8 = fsub float %6, %3\n"
            "  %9 = fsub float %3, %6\n" + stored("%7", "%8", "%9") + "  ret void\n")
    assert device_body(fuse_across_statements(module(body))) == (
        gone("%6") + fma("%7", "%0", "%1", "%2") +
        "  %cudaemu.fneg.8 = fneg float %3\n" + fma("%8", "%0", "%1", "%cudaemu.fneg.8") +
        "  %cudaemu.fneg.9 = fneg float %0\n" + fma("%9", "%cudaemu.fneg.9", "%1", "%3") + stored("%7", "%8", "%9") +
        "  ret void\n")


def test_a_product_with_a_use_other_than_an_add_fuses_into_none():
    body = ("  %6 = fmul float %0, %1\n"
            "  store float %6, ptr %4, align 4\n"
            "  %7 = fadd float %6, %2\n" + stored("%7") + "  ret void\n")
    assert fuse_across_statements(module(body)) == module(body)


def test_nvvm_fuses_the_adds_of_a_block_last_to_first_left_product_first():
    # fma_contraction.cu, "product of two uses + product of one" and "product added before NVVM fuses its fma":
    # %10 (last) fuses %7, which has two adds; %9 and then %8 fuse %6, whose adds are then gone; %7, the addend of
    # %8's fma now, stays
    body = ("  %6 = fmul float %0, %1\n"
            "  %7 = fmul float %2, %3\n"
            "  %8 = fadd float %6, %7\n"
            "  %9 = fadd float %6, %2\n"
            "  %10 = fadd float %7, %0\n" + stored("%8", "%9", "%10") + "  ret void\n")
    assert device_body(fuse_across_statements(module(body))) == (
        gone("%6") + "  %7 = fmul float %2, %3\n" + fma("%8", "%0", "%1", "%7") + fma("%9", "%0", "%1", "%2") +
        fma("%10", "%2", "%3", "%0") + stored("%8", "%9", "%10") + "  ret void\n")
    # the other way round, the add of %7 alone comes first: %8 (now last) makes %7 an addend before %7's add asks
    body = ("  %6 = fmul float %0, %1\n"
            "  %7 = fmul float %2, %3\n"
            "  %8 = fadd float %7, %0\n"
            "  %9 = fadd float %6, %7\n" + stored("%8", "%9") + "  ret void\n")
    assert device_body(fuse_across_statements(module(body))) == (
        gone("%6") + "  %7 = fmul float %2, %3\n  %8 = fadd float %7, %0\n" + fma("%9", "%0", "%1", "%7") +
        stored("%8", "%9") + "  ret void\n")


def test_nvvm_fuses_a_product_of_at_most_four_adds():
    # fma_contraction.cu, "product of four adds" and "product of five adds"
    four = ("  %6 = fmul float %0, %1\n  %7 = fmul float %2, %3\n  %8 = fadd float %6, %7\n"
            "  %9 = fadd float %6, %1\n  %10 = fadd float %6, %2\n  %11 = fadd float %6, %3\n")
    out = device_body(fuse_across_statements(module(four + stored("%8", "%9", "%10", "%11") + "  ret void\n")))
    assert out.startswith(gone("%6") + "  %7 = fmul float %2, %3\n" + fma("%8", "%0", "%1", "%7") +
                          fma("%9", "%0", "%1", "%1"))
    # five: NVVM leaves %6 and fuses %7 into %8, after which %6 is %8's addend, and ptxas fuses it nowhere
    five = four + "  %12 = fadd float %6, %0\n"
    out = device_body(fuse_across_statements(module(five + stored("%8", "%9", "%10", "%11", "%12") + "  ret void\n")))
    assert out.startswith("  %6 = fmul float %0, %1\n" + gone("%7") + fma("%8", "%2", "%3", "%6") +
                          "  %9 = fadd float %6, %1\n")
    assert "@llvm.fma" not in out.split("%9 = ")[1]


def test_ptxas_fuses_in_program_order_the_product_of_fewer_uses_first():
    # fma_contraction.cu, "product of three uses, kept by an add" and "the same, its lone add first". The subtract
    # leaves both to ptxas; a*b (%6, written three times: one value) has three uses, c*d (%7, twice) two
    def body(lone_add_first):
        lone = "  %14 = fadd float %12, %0\n"
        return ("  %6 = fmul float %0, %1\n  %7 = fmul float %2, %3\n" + (lone if lone_add_first else "") +
                "  %8 = fsub float %6, %7\n  %9 = fmul float %0, %1\n  %10 = fmul float %3, %2\n"
                "  %11 = fadd float %9, %10\n  %12 = fmul float %1, %0\n" + ("" if lone_add_first else lone) +
                stored("%8", "%11", "%14") + "  ret void\n")
    out = device_body(fuse_across_statements(module(body(False))))
    assert "  %6 = fmul float %0, %1\n" + gone("%7") in out  # c*d fused into both, a*b kept as their addend
    assert "  %cudaemu.fneg.8 = fneg float %2\n" + fma("%8", "%cudaemu.fneg.8", "%3", "%6") in out
    assert fma("%11", "%3", "%2", "%9") in out and "  %14 = fadd float %12, %0\n" in out  # a*b: a value, not fused
    out = device_body(fuse_across_statements(module(body(True))))
    assert fma("%14", "%1", "%0", "%0") in out  # before a*b was kept


def test_ptxas_fuses_no_product_across_a_division_or_square_root_after_it():
    # fma_contraction.cu, "product before a division, subtracted after it" and "product after a division"
    before = ("  %6 = fmul float %0, %1\n  %7 = fdiv float %2, %3\n  %8 = fsub float %6, %7\n" + stored("%8") +
              "  ret void\n")
    assert "@llvm.fma" not in device_body(fuse_across_statements(module(before)))
    root = before.replace("fdiv float %2, %3", "call float @llvm.sqrt.f32(float %2)")
    assert "@llvm.fma" not in device_body(fuse_across_statements(module(root)))
    after = ("  %6 = fdiv float %2, %3\n  %7 = fmul float %0, %1\n  %8 = fsub float %7, %6\n" + stored("%8") +
             "  ret void\n")
    assert fma("%8", "%0", "%1", "%cudaemu.fneg.8") in device_body(fuse_across_statements(module(after)))
    added = before.replace("fsub", "fadd")  # NVVM's stage fuses an add of its block whatever lies between
    assert fma("%8", "%0", "%1", "%7") in device_body(fuse_across_statements(module(added)))
    folded = before.replace("fdiv float %2, %3", "fdiv float 1.000000e+00, 3.000000e+00")  # no division at run time
    assert fma("%8", "%0", "%1", "%cudaemu.fneg.8") in device_body(fuse_across_statements(module(folded)))


def test_arithmetic_on_constants_alone_is_no_product_to_fuse():
    # fma_contraction.cu, "product of two constants": nvcc computes it first. Not a call: Rodinia's myocyte's cell
    # volume, pi * pow(r, 2) * l of constant locals, is computed at run time in nvcc's PTX
    body = ("  %6 = fmul float 0x3FF0010000000000, 0x3FF0010000000000\n  %7 = fadd float %0, %6\n"
            "  %8 = fdiv float 1.000000e+00, 3.000000e+00\n  %9 = fmul float %8, 1.500000e+00\n"
            "  %10 = fsub float %9, %1\n  %11 = call float @powf(float 2.000000e+00, float 3.000000e+00)\n"
            "  %12 = fmul float %11, 1.500000e+00\n  %13 = fsub float %12, %1\n" +
            stored("%7", "%10", "%13") + "  ret void\n")
    out = device_body(fuse_across_statements(module(body)))
    assert "  %7 = fadd float %0, %6\n" in out and "  %10 = fsub float %9, %1\n" in out
    assert fma("%13", "%11", "1.500000e+00", "%cudaemu.fneg.13") in out  # pow's result is a value at run time


def test_a_call_of_a_math_function_with_branches_ends_nvvms_block():
    # fma_contraction.cu, "product added after a call of powf" and "... of expf"
    def body(call):
        return ("  %6 = fmul float %0, %1\n  %7 = fmul float %2, %3\n  %8 = fadd float %6, %7\n"
                "  %9 = call float @" + call + "(float %0, float %1)\n  %10 = fadd float %3, %7\n" +
                stored("%8", "%9", "%10") + "  ret void\n")
    out = device_body(fuse_across_statements(module(body("powf"))))
    assert fma("%8", "%0", "%1", "%7") in out and "  %10 = fadd float %3, %7\n" in out  # %7 is %8's addend
    out = device_body(fuse_across_statements(module(body("expf"))))
    assert fma("%10", "%2", "%3", "%3") in out and fma("%8", "%0", "%1", "%7") in out  # one block: last add first
    dead = body("_ZSt3powff").replace(stored("%8", "%9", "%10"), stored("%8", "%10"))  # nvcc drops an unused call
    assert fma("%10", "%2", "%3", "%3") in device_body(fuse_across_statements(module(dead)))


def test_a_call_is_named_by_the_math_function_it_reaches():
    assert math_function("powf") == "powf" and math_function("__nv_logf") == "logf"
    assert math_function("llvm.pow.f32") == "powf" and math_function("llvm.exp.f64") == "exp"
    assert math_function("_ZSt3powff") == "powf" and math_function("_ZSt3expf.cudaemu.device") == "expf"
    assert math_function("_ZSt3powIfiEN9__gnu_cxx9__promoteIDTplcvNS1_IT_E") == "pow"  # promoted to double


def test_a_value_nothing_uses_is_no_use():
    # Rodinia's cfd: a pressure p (a product) added four times, and divided for a speed of sound never used
    body = ("  %6 = fmul float %0, %1\n"
            "  %7 = fadd float %2, %6\n"
            "  %8 = fmul float %6, 1.4e+00\n"
            "  %9 = fdiv float %8, %3\n"
            "  %10 = call float @sqrtf(float %9)\n" + stored("%7") + "  ret void\n")
    assert fma("%7", "%0", "%1", "%2") in device_body(fuse_across_statements(module(body)))
    used = body.replace(stored("%7"), stored("%7", "%10"))
    assert "@llvm.fma" not in device_body(fuse_across_statements(module(used)))


def test_a_block_that_a_bounds_check_split_is_still_one_block_for_nvvm():
    # cuda-samples' finite-difference, built with the checks: a bounds check between the left product and the add
    # splits the block; nvcc's code has no such split, and NVVM fuses the left product (the H100's RMS error)
    check = ("  %8 = icmp ult i64 %7, 4, !nosanitize !1\n"
             "  br i1 %8, label %11, label %9, !nosanitize !1\n\n"
             "9:                                                ; preds = %5\n"
             "  call void @__ubsan_handle_out_of_bounds(ptr @2, i64 %7), !nosanitize !1\n"
             "  br label %11, !nosanitize !1\n\n"
             "11:                                               ; preds = %9, %5\n")
    body = ("  %6 = fmul float %0, %1\n  %7 = zext i32 3 to i64\n" + check +
            "  %12 = fmul float %2, %3\n  %13 = fadd float %6, %12\n" + stored("%13") + "  ret void\n")
    out = device_body(fuse_across_statements(module(body)))
    assert gone("%6") in out and fma("%13", "%0", "%1", "%12") in out
    # a branch of the program's own splits it: the left product is another block's, and NVVM fuses the right one
    own = body.replace(", !nosanitize !1", "").replace("@__ubsan_handle_out_of_bounds", "@report")
    out = device_body(fuse_across_statements(module(own)))
    assert "  %6 = fmul float %0, %1\n" in out and fma("%13", "%2", "%3", "%6") in out


def test_across_basic_blocks_and_in_double():
    body = ("  %6 = fpext float %0 to double\n"
            "  %7 = fmul double %6, %6\n"
            "  br label %8\n"
            "8:\n"
            "  %9 = fadd double %7, 1.000000e+00\n" + stored("%9", kind="double") + "  ret void\n")
    assert device_body(fuse_across_statements(module(body))) == (
        "  %6 = fpext float %0 to double\n" + gone("%7", "double") + "  br label %8\n8:\n" +
        fma("%9", "%6", "%6", "1.000000e+00", "double", "f64") + stored("%9", kind="double") + "  ret void\n")


def test_debug_locations_of_a_removed_product_say_its_value_is_gone():
    body = ("  %6 = fmul float %0, %1\n"
            "  call void @llvm.dbg.value(metadata float %6, metadata !7, metadata !DIExpression()), !dbg !8\n"
            "  %7 = fadd float %6, %2\n" + stored("%7") + "  ret void\n")
    assert device_body(fuse_across_statements(module(body))) == (
        gone("%6") + "  call void @llvm.dbg.value(metadata float undef, metadata !7, metadata !DIExpression()), "
        "!dbg !8\n" + fma("%7", "%0", "%1", "%2") + stored("%7") + "  ret void\n")


def test_vectors_and_code_without_device_functions_stay_as_they_are():
    vectors = ("  %6 = insertelement <2 x float> undef, float %0, i32 0\n"
               "  %7 = fmul <2 x float> %6, %6\n"
               "  %8 = fadd <2 x float> %7, %6\n"
               "  ret void\n")
    assert fuse_across_statements(module(vectors)) == module(vectors)
    scalars = "  %6 = fmul float %0, %1\n  %7 = fadd float %6, %2\n  ret void\n"
    host_only = module(scalars).replace('c"cudaemu.device\\00"', 'c"something.else\\00"')
    assert fuse_across_statements(host_only) == host_only


# host_copies: a __host__ __device__ function that host code calls gets a copy for the host, left unfused
HOST_DEVICE = ANNOTATED.replace("[1 x", "[2 x").replace(
    "ptr @.str, i32 1, ptr null }]", "ptr @.str, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } "
    "{ ptr @mad, ptr @.str, ptr @.str, i32 2, ptr null }]") + """
define linkonce_odr dso_local float @mad(float %0, float %1, float %2) #0 comdat !dbg !20 {
  call void @llvm.dbg.value(metadata float %0, metadata !21, metadata !DIExpression()), !dbg !22
  %4 = fmul float %0, %1, !dbg !22
  %5 = fadd float %4, %2, !dbg !22
  ret float %5, !dbg !22
}

define void @k(float %0, float %1, float %2, float %3, ptr %4) #0 {
  %6 = call float @mad(float %0, float %1, float %2)
  store float %6, ptr %4, align 4
  ret void
}

define void @h(float %0, float %1, float %2, float %3, ptr %4) #0 {
  %6 = call float @mad(float %0, float %1, float %2)
  store float %6, ptr %4, align 4
  ret void
}
"""


def test_host_code_calls_a_host_copy_of_a_host_device_function_which_stays_unfused():
    ir = fuse_across_statements(fuse_device_multiply_adds(host_copies(HOST_DEVICE), host_fma=False))
    kernel, host = ir.split("define void @k(")[1], ir.split("define void @h(")[1]
    assert "call float @mad(float %0" in kernel.split("}")[0]  # the kernel keeps the device function
    assert "call float @mad.cudaemu.host(float %0" in host.split("}")[0]
    copy = ir.split("define internal float @mad.cudaemu.host(")[1].split("}")[0]
    assert copy.startswith("float %0, float %1, float %2) #0 {\n")  # no comdat, no subprogram of its own
    assert "%4 = fmul float %0, %1\n  %5 = fadd float %4, %2\n" in copy  # unfused, without debug locations
    assert "dbg" not in copy
    device = ir.split("define linkonce_odr dso_local float @mad(")[1].split("}")[0]
    assert "@llvm.fma.f32(float %0, float %1, float %2), !dbg !22" in device  # the device copy fused as before


def test_only_what_host_code_reaches_is_copied():
    without_host_call = HOST_DEVICE.rsplit("define void @h(", 1)[0]
    assert host_copies(without_host_call) == without_host_call
    nested = HOST_DEVICE.replace("define void @k(", """define linkonce_odr float @twice(float %0) #0 {
  %2 = call float @mad(float %0, float %0, float %0)
  ret float %2
}

define void @k(""").replace("{ ptr @mad, ptr @.str, ptr @.str, i32 2, ptr null }",
                             "{ ptr @mad, ptr @.str, ptr @.str, i32 2, ptr null }, "
                             "{ ptr, ptr, ptr, i32, ptr } { ptr @twice, ptr @.str, ptr @.str, i32 3, ptr null }")
    nested = nested.replace("[2 x", "[3 x").replace(
        "define void @h(float %0, float %1, float %2, float %3, ptr %4) #0 {\n  %6 = call float @mad(",
        "define void @h(float %0, float %1, float %2, float %3, ptr %4) #0 {\n  %6 = call float @twice(float %0)\n"
        "  %7 = call float @mad(")
    ir = host_copies(nested)
    assert "call float @mad.cudaemu.host(float %0, float %0, float %0)" in ir.split("define internal float @twice.cudaemu.host(")[1]
    assert "call float @mad(float %0, float %0, float %0)" in ir.split("define linkonce_odr float @twice(")[1]


def test_device_functions_are_marked_for_inlining_but_not_noinline_ones_or_host_code():
    ir = HOST_DEVICE.replace("define void @k(", "define void @k2() #1 {\n  ret void\n}\n\ndefine void @k(") + \
        "attributes #1 = { noinline nounwind }\n"
    ir = ir.replace("{ ptr @mad, ptr @.str, ptr @.str, i32 2, ptr null }",
                    "{ ptr @mad, ptr @.str, ptr @.str, i32 2, ptr null }, "
                    "{ ptr, ptr, ptr, i32, ptr } { ptr @k2, ptr @.str, ptr @.str, i32 3, ptr null }").replace("[2 x", "[3 x")
    marked = inline_device_functions(ir)
    assert "@mad(float %0, float %1, float %2) alwaysinline #0 comdat !dbg !20 {" in marked
    assert "define void @k(float %0, float %1, float %2, float %3, ptr %4) alwaysinline #0 {" in marked
    assert "define void @k2() #1 {" in marked  # __noinline__ (its attribute group says noinline)
    assert "define void @h(float %0, float %1, float %2, float %3, ptr %4) #0 {" in marked  # host code
    assert inline_device_functions("define void @h() {\n  ret void\n}\n") == "define void @h() {\n  ret void\n}\n"
    # a virtual function's define has unnamed_addr after its parameters: the attribute goes after it, as IR wants
    virtual = inline_device_functions(ir.replace("@mad(float %0, float %1, float %2) #0",
                                                 "@mad(float %0, float %1, float %2) unnamed_addr #0"))
    assert "@mad(float %0, float %1, float %2) unnamed_addr alwaysinline #0 comdat !dbg !20 {" in virtual


def test_a_kernel_that_a_launch_wrapper_calls_is_neither_copied_for_the_host_nor_inlined():
    ir = HOST_DEVICE.replace('@.str = private unnamed_addr constant [15 x i8] c"cudaemu.device\\00", section "llvm.metadata"\n',
                             '@.str = private unnamed_addr constant [15 x i8] c"cudaemu.device\\00", section "llvm.metadata"\n'
                             '@.str.9 = private unnamed_addr constant [15 x i8] c"cudaemu.kernel\\00", section "llvm.metadata"\n')
    ir = ir.replace("{ ptr @k, ptr @.str, ptr @.str, i32 1, ptr null }",
                    "{ ptr @k, ptr @.str, ptr @.str, i32 1, ptr null }, { ptr, ptr, ptr, i32, ptr } "
                    "{ ptr @k, ptr @.str.9, ptr @.str, i32 1, ptr null }").replace("[2 x", "[3 x")
    ir = ir.replace("define void @h(float %0, float %1, float %2, float %3, ptr %4) #0 {\n",
                    "define void @h(float %0, float %1, float %2, float %3, ptr %4) #0 {\n"
                    "  call void @k(float %0, float %1, float %2, float %3, ptr %4)\n")
    copied = host_copies(ir)
    assert "call void @k(float %0" in copied and "@k.cudaemu.host" not in copied  # the launch runs the kernel
    assert "@mad.cudaemu.host(" in copied  # the host-device function still gets its copy
    marked = inline_device_functions(copied)
    assert "define void @k(float %0, float %1, float %2, float %3, ptr %4) #0 {" in marked
    assert "@mad(float %0, float %1, float %2) alwaysinline #0" in marked


def test_float_results_of_device_arithmetic_become_the_gpus_nan_and_moves_keep_their_bits():
    body = ("  %6 = fdiv float %0, %1, !dbg !9\n"
            "  %7 = call float @sqrtf(float %6)\n"
            "  %8 = fneg float %7\n"
            "  %9 = fptrunc double 1.0e+00 to float\n"
            "  %10 = fmul double 1.0e+00, 2.0e+00\n"
            "  %11 = select i1 true, float %8, float %9\n"
            "  %12 = bitcast i32 -4194303 to float\n" + stored("%11", "%12") + "  ret void\n")
    out = device_body(canonical_nans(module(body)))
    for name, operation in (("6", "fdiv float %0, %1, !dbg !9"), ("7", "call float @sqrtf(float %6)"),
                            ("8", "fneg float %7"), ("9", "fptrunc double 1.0e+00 to float")):
        assert ("  %%cudaemu.nan.%s = %s\n"
                "  %%cudaemu.isnan.%s = fcmp uno float %%cudaemu.nan.%s, 0.000000e+00\n"
                "  %%cudaemu.bits.%s = bitcast float %%cudaemu.nan.%s to i32\n"
                "  %%cudaemu.gpu.%s = select i1 %%cudaemu.isnan.%s, i32 2147483647, i32 %%cudaemu.bits.%s\n"
                "  %%%s = bitcast i32 %%cudaemu.gpu.%s to float\n" % ((name, operation) + (name,) * 9)) in out
    for kept in ("%10 = fmul double", "%11 = select i1 true", "%12 = bitcast i32 -4194303"):  # double, moves
        assert "  " + kept in out
    assert canonical_nans(module(body)).split("define void @h(")[1] == module(body).split("define void @h(")[1]


def test_of_two_products_nvvm_fuses_the_one_of_lower_rank_first():
    # fma_order.cu: loads a, b, c, d in that order; a*d ranks as d, above b*c, so b*c goes left and is fused, whichever
    # way round the add is written; arguments rank below loads; a subtract is not reordered
    loads = "".join("  %%%s = load float, ptr %%p%s, align 4\n" % (n, n) for n in "abcd")
    for add in ("  %7 = fadd float %6, %5\n", "  %7 = fadd float %5, %6\n"):
        body = loads + "  %5 = fmul float %b, %c\n  %6 = fmul float %a, %d\n" + add + stored("%7") + "  ret void\n"
        assert fma("%7", "%b", "%c", "%6") in device_body(fuse_across_statements(module(body)))
    body = "  %a = load float, ptr %pa, align 4\n  %5 = fmul float %a, %a\n  %6 = fmul float %0, %1\n" \
           "  %7 = fadd float %5, %6\n" + stored("%7") + "  ret void\n"
    assert fma("%7", "%0", "%1", "%5") in device_body(fuse_across_statements(module(body)))
    body = loads + "  %5 = fmul float %b, %c\n  %6 = fmul float %a, %d\n  %7 = fsub float %6, %5\n" + stored("%7") + \
        "  ret void\n"
    assert "%cudaemu.fneg.7 = fneg float %5" in device_body(fuse_across_statements(module(body)))


def test_the_fields_of_a_struct_copied_whole_rank_alike():
    # float2 f = p[0], g = p[1]: one load each on the GPU, so f.x*g.y and f.y*g.x tie, and the left is fused
    body = "".join("  %%%s.%s = getelementptr inbounds %%struct.float2, ptr %%4, i64 %d, i32 %d\n"
                   "  %%%s.%s.copyload = load float, ptr %%%s.%s, align 4\n" % (v, f, i, j, v, f, v, f)
                   for i, v in enumerate("fg") for j, f in enumerate("xy"))
    body += ("  %5 = fmul float %f.x.copyload, %g.y.copyload\n  %6 = fmul float %f.y.copyload, %g.x.copyload\n"
             "  %7 = fadd float %5, %6\n" + stored("%7") + "  ret void\n")
    assert fma("%7", "%f.x.copyload", "%g.y.copyload", "%6") in device_body(fuse_across_statements(module(body)))
    renamed = body.replace(".copyload", ".loaded")  # separate loads: g.x ranks below g.y, so f.y*g.x goes left
    assert fma("%7", "%f.y.loaded", "%g.x.loaded", "%5") in device_body(fuse_across_statements(module(renamed)))


def test_integer_division_by_a_variable_takes_the_gpus_result_for_zero_and_minus_one():
    body = ("  %5 = sdiv i32 %a, %b, !dbg !7\n  %6 = urem i64 %c, %d\n  %7 = udiv i32 %a, 16\n"
            "  %8 = sdiv i64 %c, 0\n  ret void\n")
    out = device_body(integer_division_without_traps(module(body)))
    assert '%"cudaemu.value.5" = sdiv i32 %a, %"cudaemu.divisor.5", !dbg !7' in out
    assert '%"cudaemu.bad.5" = or i1 %"cudaemu.zero.5", %"cudaemu.minus_one.5"' in out
    assert '%5 = select i1 %"cudaemu.zero.5", i32 -1, i32 %"cudaemu.negated.5"' in out
    assert '%6 = select i1 %"cudaemu.zero.6", i64 %c, i64 %"cudaemu.value.6"' in out  # x % 0 is x
    assert "  %7 = udiv i32 %a, 16\n" in out  # a constant divisor other than 0 cannot trap
    assert '%8 = select i1 %"cudaemu.zero.8", i64 %"cudaemu.ones.8"' in out  # 0xffffffff below 2^32
    assert "define void @h(float %0, float %1, float %2, float %3, ptr %4) #0 {\n" + body in \
        integer_division_without_traps(module(body))  # host code traps as the host does


def test_min_and_max_of_device_code_order_minus_zero_below_plus_zero():
    body = "  %5 = call float @llvm.minnum.f32(float %0, float %1)\n" + stored("%5") + "  ret void\n"
    out = signed_zero_min_max(module(body) + "declare float @llvm.minnum.f32(float, float)\n")
    assert "%5 = call float @cudaemu.minnum.f32(float %0, float %1)" in device_body(out)
    assert "define linkonce_odr hidden float @cudaemu.minnum.f32(float %a, float %b) alwaysinline {" in out
    assert "  %z = or i32 %x, %y\n" in out  # min: -0 wins; max would and the bits
    assert out.count("declare float @llvm.minnum.f32(") == 1
    assert "define void @h(float %0, float %1, float %2, float %3, ptr %4) #0 {\n" + body in out


def test_shifts_by_a_variable_clamp_at_the_width_as_ptx_does():
    body = "  %5 = shl nuw i32 %a, %b\n  %6 = ashr exact i64 %c, %d\n  %7 = lshr i32 %a, 3\n  ret void\n"
    out = device_body(integer_shifts_clamped(module(body)))
    assert '%"cudaemu.big.5" = icmp uge i32 %b, 32' in out
    assert '%5 = select i1 %"cudaemu.big.5", i32 0, i32 %"cudaemu.value.5"' in out  # 1 << 32 is 0
    assert '%"cudaemu.amount.6" = select i1 %"cudaemu.big.6", i64 63, i64 %d' in out  # the sign
    assert '%6 = ashr i64 %c, %"cudaemu.amount.6"' in out  # (no exact: the clamped shift may drop ones)
    assert "  %7 = lshr i32 %a, 3\n" in out
