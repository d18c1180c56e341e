"""emucc's use of CUDA's libdevice in device code (cudaemu_cc/libdevice.py), on canned IR: libdevice's functions made
host IR (NVVM intrinsics and inline PTX lowered where exact, __nvvm_reflect answered as nvcc does), only the exact
ones chosen, and device code's calls routed to them while host code keeps the C library's. Whether the results are
the GPU's bits is tests/emu/programs/math_library.cu's test, against what the H100 printed.
"""
import os
import re
import subprocess

from cudaemu_cc.libdevice import EXACT, Libdevice, prepare, route
from cudaemu_cc.toolchain import clang_major, find_clang, find_tool

LIBDEVICE = r'''target datalayout = "e-i64:64-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-gpulibs"

@.str = private unnamed_addr constant [11 x i8] c"__CUDA_FTZ\00", align 1
@__cudart_table = internal addrspace(1) constant [2 x i64] [i64 1, i64 2], align 8

define double @__nv_exact(double %a) #0 {
  %1 = call i32 @__nvvm_reflect(i8* getelementptr inbounds ([11 x i8], [11 x i8]* @.str, i32 0, i32 0))
  %2 = call i32 @llvm.nvvm.d2i.hi(double %a)
  %3 = call double @llvm.nvvm.fma.rn.d(double %a, double %a, double %a)
  %4 = call { i32, i32 } asm "{\0A\09mad.lo.cc.u32   $0, $2, $3, $4;\0A\09madc.hi.u32     $1, $2, $3,  0;\0A\09}", "=r,=r,r,r,r"(i32 %2, i32 %2, i32 %2)
  ret double %3
}

define double @__nv_fused(double %a, double %b) #0 {
  %1 = fmul double %a, %b
  %2 = fadd double %1, 1.000000e+00
  %3 = call double @llvm.nvvm.mul.rn.d(double %a, double %b)
  %4 = fadd double %3, 1.000000e+00
  %5 = fsub double %2, %4
  ret double %5
}

define double @__nv_reciprocal(double %a) #0 {
  %1 = call double @llvm.nvvm.rcp.approx.ftz.d(double %a)
  ret double %1
}

define float @__nv_approx(float %a) #0 {
  %1 = call float @llvm.nvvm.lg2.approx.ftz.f(float %a)
  ret float %1
}

define float @__nv_measured(float %a) #0 {
  %1 = call float @llvm.nvvm.ex2.approx.ftz.f(float %a)
  %2 = call float @llvm.nvvm.fma.rm.f(float %1, float %a, float %a)
  %3 = call float asm "rcp.approx.ftz.f32 $0,$1;", "=f,f"(float %2)
  ret float %3
}

define float @__nv_calls_approx(float %a) #0 {
  %1 = call float @__nv_approx(float %a)
  ret float %1
}

define float @__nv_directed(float %a) #0 {
  %1 = call float asm "sub.rm.f32 $0, $1, $2;", "=f,f,f"(float %a, float %a)
  ret float %1
}

declare i32 @__nvvm_reflect(i8*)
declare i32 @llvm.nvvm.d2i.hi(double)
declare double @llvm.nvvm.fma.rn.d(double, double, double)
declare float @llvm.nvvm.ex2.approx.ftz.f(float)
declare float @llvm.nvvm.lg2.approx.ftz.f(float)
declare float @llvm.nvvm.fma.rm.f(float, float, float)
declare double @llvm.nvvm.mul.rn.d(double, double)
declare double @llvm.nvvm.rcp.approx.ftz.d(double)

attributes #0 = { alwaysinline nounwind }
'''


def test_only_functions_without_hardware_approximations_or_directed_rounding_are_exact():
    _, exact = prepare(LIBDEVICE)
    assert exact == {"__nv_exact", "__nv_fused", "__nv_reciprocal", "__nv_measured"}


def test_intrinsics_inline_ptx_and_reflect_become_host_ir():
    ir, _ = prepare(LIBDEVICE)
    exact = ir.split("@__nv_exact(")[1].split("\n}\n")[0]
    assert "%1 = add i32 0, 0" in exact  # __CUDA_FTZ: nvcc's default, no flush to zero
    assert "@cudaemu.nvvm.d2i.hi(" in exact and "@cudaemu.asm.mad.wide(" in exact and 'asm "' not in exact
    assert "define internal double @cudaemu.nvvm.fma.rn.d(double %a, double %b, double %c)" in ir
    assert "call double @llvm.fma.f64(double %a, double %b, double %c)" in ir
    assert "declare double @llvm.fma.f64(double, double, double)" in ir
    assert "declare float @cudaemu.nvvm.lg2.approx.ftz.f(float)" in ir  # kept undefined: never linked
    assert "nvptx" not in ir and "addrspace" not in ir
    assert re.search(r"^define linkonce_odr hidden double @__nv_exact\(", ir, re.M)  # one copy per program


def test_plain_multiplies_and_adds_fuse_as_in_device_code_and_mul_rn_never_does():
    ir, _ = prepare(LIBDEVICE)
    fused = ir.split("@__nv_fused(")[1].split("\n}\n")[0]
    assert "%2 = call double @llvm.fma.f64(double %a, double %b, double 1.000000e+00)" in fused
    assert "%3 = call double @cudaemu.nvvm.mul.rn.d(double %a, double %b)" in fused
    assert "%4 = fadd double %3, 1.000000e+00" in fused


def test_the_reciprocal_approximation_is_the_measured_table_in_the_ir_own_pointer_syntax():
    typed, _ = prepare(LIBDEVICE)
    assert "define internal double @cudaemu.nvvm.rcp.approx.ftz.d(double %a)" in typed
    table = re.search(r"^@cudaemu\.rcp_approx\.rounds_up = internal constant \[32768 x i32\] \[(.*)\]", typed, re.M)
    words = [int(w.split()[1]) for w in table.group(1).split(", ")]
    assert len(words) == 32768 and sum(bin(w).count("1") for w in words) == 72677  # as the probe measured
    assert "[32768 x i32]* @cudaemu.rcp_approx.rounds_up" in typed
    opaque, _ = prepare(LIBDEVICE.replace("i8* getelementptr inbounds ([11 x i8], [11 x i8]* @.str", "ptr @.str"))
    assert "ptr @cudaemu.rcp_approx.rounds_up" in opaque and "i32*" not in opaque


def test_every_exact_intrinsic_is_defined_in_well_formed_lines():
    for name, body in EXACT.items():
        assert body[-1].startswith("%r = "), name
        assert all(line.count(" = ") == 1 for line in body), name


DEVICE = '''@.str = private unnamed_addr constant [15 x i8] c"cudaemu.device\\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } \
{ ptr @k, ptr @.str, ptr @.str, i32 1, ptr null }], section "llvm.metadata"

define void @k(double %0, float %1, ptr %2) #0 {
  %4 = call double @exp(double %0) #3
  %5 = call float @_ZSt3powfi(float %1, i32 3), !dbg !7
  %6 = call float @expf(float %1)
  ret void
}

define void @h(double %0) #0 {
  %2 = call double @exp(double %0) #3
  %3 = call float @_ZSt3powfi(float 1.0, i32 3)
  ret void
}

define linkonce_odr dso_local float @_ZSt3powfi(float %0, i32 %1) #0 comdat !dbg !9 {
  %3 = fpext float %0 to double
  %4 = sitofp i32 %1 to double
  call void @llvm.dbg.value(metadata float %0, metadata !10, metadata !DIExpression()), !dbg !11
  %5 = call double @pow(double %3, double %4), !dbg !11
  %6 = fptrunc double %5 to float
  ret float %6
}

declare double @exp(double) #1
declare double @pow(double, double) #1
declare float @expf(float) #1
'''


def test_device_calls_go_to_libdevice_and_host_calls_stay_with_the_c_library():
    ir, routed = route(DEVICE, {"__nv_exp", "__nv_pow"})  # expf is not exact: it stays
    assert routed
    device = ir.split("define void @k(")[1].split("}")[0]
    host = ir.split("define void @h(")[1].split("}")[0]
    assert "call double @__nv_exp(double %0)" in device and "call float @expf(" in device
    assert "@_ZSt3powfi.cudaemu.device(float %1, i32 3)" in device
    assert "call double @exp(double %0)" in host and "@_ZSt3powfi(float 1.0" in host
    copy = ir.split("@_ZSt3powfi.cudaemu.device(float %0")[1].split("}")[0]
    assert "call double @__nv_pow(double %3, double %4)" in copy
    assert "llvm.dbg" not in copy and "!dbg" not in copy  # a copy may not share its original's subprogram
    assert re.search(r"^define internal dso_local float @_ZSt3powfi\.cudaemu\.device\(", ir, re.M)
    assert "declare double @__nv_exp(double)" in ir and "declare double @__nv_pow(double, double)" in ir
    assert "define linkonce_odr dso_local float @_ZSt3powfi(float %0, i32 %1) #0 comdat !dbg !9" in ir


def test_a_module_whose_device_code_calls_no_math_is_left_alone():
    ir = DEVICE.replace("@exp(double %0) #3\n  %5", "@fabs(double %0) #3\n  %5", 1)
    ir = ir.replace("@_ZSt3powfi(float %1", "@other(float %1")
    assert route(ir, {"__nv_exp", "__nv_pow"}) == (ir, False)


def test_cuda_fast_intrinsics_are_no_wrappers_of_the_accurate_functions():
    for name in ("_Z5__powfi", "__powfi"):  # C++ or C linkage
        ir = DEVICE.replace("_ZSt3powfi", name)
        routed, _ = route(ir, {"__nv_exp", "__nv_pow"})
        assert ".cudaemu.device(" not in routed and "@%s(float %%1, i32 3)" % name in routed


def test_a_function_of_the_program_that_shares_a_libdevice_name_is_its_own():
    ir = DEVICE.replace("@exp(", "@popc(").replace("declare double @popc(", "declare double @popc(")
    ir = ir.replace("@_ZSt3powfi(float %1", "@other(float %1")
    assert route(ir, {"__nv_popc", "__nv_pow"}) == (ir, False)  # popc is no C math function


def test_a_cache_it_may_not_write_gets_a_private_copy_for_the_run(tmp_path, monkeypatch):
    clang = find_clang()
    major = clang_major(clang)
    text = ("define double @__nv_exact(double %a) {\n"
            "  %1 = call double @llvm.nvvm.fma.rn.d(double %a, double %a, double %a)\n  ret double %1\n}\n"
            "declare double @llvm.nvvm.fma.rn.d(double, double, double)\n")
    (tmp_path / "libdevice.ll").write_text(text)
    subprocess.run([find_tool(clang, major, "llvm-as"), str(tmp_path / "libdevice.ll"), "-o",
                    str(tmp_path / "libdevice.10.bc")], check=True)
    monkeypatch.setenv("CUDAEMU_LIBDEVICE", str(tmp_path / "libdevice.10.bc"))
    libdevice = Libdevice(clang, major, "/dev/null/cache", find_tool)  # no folder can be made there
    path, exact = libdevice.prepared()
    assert exact == {"__nv_exact"}
    assert os.path.basename(os.path.dirname(path)).startswith("emucc-libdevice-") and os.path.isfile(path)


def test_a_link_that_fails_leaves_the_host_libm_and_says_so_in_one_line(tmp_path, capsys):
    clang = find_clang()
    libdevice = Libdevice(clang, clang_major(clang), str(tmp_path), find_tool)
    (tmp_path / "broken.ll").write_text("this is no IR\n")
    libdevice._prepared = (str(tmp_path / "broken.ll"), {"__nv_exp"})
    ll = tmp_path / "kernel.ll"
    ll.write_text("declare double @__nv_exp(double)\n")
    libdevice.link(str(ll), "; the IR before its math calls went to libdevice\n")
    assert ll.read_text() == "; the IR before its math calls went to libdevice\n"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "device math uses the host's libm" in err
