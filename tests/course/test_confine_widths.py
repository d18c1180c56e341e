"""course/confine.py's widths: a load or store the emulator's instrumentation cannot count (not 1, 2, 4, 8 or 16
bytes) is found in the IR; every counted width, pointers and function pointers are not."""
import pytest

from course import confine


@pytest.mark.parametrize("line, found", [
    ("  %11 = load i40, i40* %10, align 8, !dbg !1", ("load", "i40", 5)),
    ("  %3 = load i40, ptr %2, align 8", ("load", "i40", 5)),
    ("  store x86_fp80 %5, x86_fp80* %4, align 16", ("store", "x86_fp80", 10)),
    ("  %7 = load <8 x float>, <8 x float>* %6, align 32", ("load", "<8 x float>", 32)),
    ("  store <3 x float> %v, ptr %p, align 16", ("store", "<3 x float>", 12)),
    ("  %x = load volatile i24, ptr %p", ("load", "i24", 3)),
    ("  %11 = load i40, ptr addrspace(0) %10", ("load", "i40", 5))])
def test_an_uncounted_width_is_found(line, found):
    assert confine.uncounted_access(line) == found


@pytest.mark.parametrize("line", [
    "  %1 = load float, float* %0, align 4",
    "  %1 = load <4 x float>, ptr %0, align 16",
    "  %1 = load i8, ptr %0", "  %1 = load i1, ptr %0", "  %1 = load i128, ptr %0", "  %1 = load half, ptr %0",
    "  %1 = load double, double* %0", "  %1 = load float*, float** %0", "  %1 = load ptr, ptr %0",
    "  %17 = load void (float*, float*)*, void (float*, float*)** %15, align 8",
    "  store void (float*, float*)* %1, void (float*, float*)** %10, align 8",
    "  store <2 x float> %v, ptr %p", "  %x = load { float, float }, ptr %p",
    "  %x = load [3 x float], ptr %p", "  %x = load { float, float, float }, ptr %p",
    "  store { i64, i32 } %13, ptr %7, align 4, !dbg !1"
    "  call void @__sanitizer_cov_load4(ptr %0)", "  %5 = call float @llvm.fma.f32(float %1, float %2, float %3)"])
def test_a_counted_width_or_no_access_is_not(line):
    assert confine.uncounted_access(line) is None


@pytest.mark.parametrize("line", ["  store i40 %v, ptr %slot, align 8", "  %x = load x86_fp80, x86_fp80* %slot, align 16"])
def test_an_access_to_the_functions_own_stack_slot_is_not(line):
    assert confine.uncounted_access(line, stack={"%slot"}) is None
    assert confine.uncounted_access(line) is not None
