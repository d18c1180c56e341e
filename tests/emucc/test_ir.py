"""emucc's passes over LLVM IR text (cudaemu_cc/ir.py and arithmetic.py), on canned IR for every LLVM version emucc
takes (14 and newer).

LLVM 14: lines trimmed from what clang 14 and opt 14 printed for the tiny kernels below, with emucc's IR passes
turned off (the input the passes get); the -O0 fallback's from clang -O0 -fsanitize-coverage=inline-bool-flag,
trace-loads,trace-stores, as emucc runs it without opt.

LLVM 15 and newer print opaque pointers (`ptr`, no bitcasts of pointers): their lines are trimmed from what clang 16
and opt 16 printed for the same kernels (LLVM 15 prints the same but for attribute groups, which the passes copy as
they are). LLVM 21 prints `captures(none)` where older versions print `nocapture`: its declarations are hand-written
in that syntax.

    struct Pair { float4 a; float4 b; };
    struct __attribute__((packed)) Packed { char c; float f; };
    __device__ float axpy(float a, float x, float y) { return a * x + y; }
    __global__ void copy_pairs(Pair* out, const Pair* in) { out[threadIdx.x] = in[threadIdx.x]; }
    __global__ void zero_pairs(Pair* out) { out[threadIdx.x] = Pair{}; }
    __global__ void packed_read(float* out, const Packed* in) { out[threadIdx.x] = in[threadIdx.x].f; }
    __global__ void packed_write(Packed* out, float v) { out[threadIdx.x].f = v; }
    __global__ void first_of_four(float* out, const float4* in) { out[threadIdx.x] = in[threadIdx.x].x; }
    __global__ void local_array(float* out, int i) { float t[4] = {1, 2, 3, 4}; out[threadIdx.x] = t[i & 3]; }
    __global__ void shift(float* a, int n) { memmove(a, a + 1, n * sizeof(float)); }
    float host_mad(float a, float b, float c) { return a * b + c; }
"""
import pytest

from cudaemu_cc.arithmetic import count_flops, fuse_device_multiply_adds
from cudaemu_cc.ir import (check_vector_indices, detach_coverage_flags, device_inline_asm, index_check_names,
                           name_index_checks, name_shared_dimensions, raise_vector_alignment, rewrite_ir,
                           route_by_alignment, strip_stack_slot_callbacks, vector_alignments)

VERSIONS = ["llvm14", "llvm16"]


def lines(*text):
    """IR text, one line each."""
    return "".join(line + "\n" for line in text)


# ---------------------------------------------------------------------------------------------------------------
# rewrite_ir: llvm.memcpy/memmove/memset -> __cudaemu_*(..., i64 align)
# ---------------------------------------------------------------------------------------------------------------
# (input, output) per version: calls from copy_pairs (a 32-byte struct copy), zero_pairs (memset), the -O0 copy of
# threadIdx (two alignments: the smaller counts), local_array (a constant expression among the arguments) and shift
MEMORY_CALLS = {
    "llvm14": [
        ("  call void @llvm.memcpy.p0i8.p0i8.i64(i8* align 16 %13, i8* align 16 %14, i64 32, i1 false), !dbg !567, "
         "!tbaa.struct !568",
         "  call void @__cudaemu_memcpy(i8* align 16 %13, i8* align 16 %14, i64 32, i1 false, i64 16), !dbg !567, "
         "!tbaa.struct !568"),
        ("  call void @llvm.memset.p0i8.i64(i8* align 16 %.0.sroa_cast8, i8 0, i64 32, i1 false), !dbg !590",
         "  call void @__cudaemu_memset(i8* align 16 %.0.sroa_cast8, i8 0, i64 32, i1 false, i64 16), !dbg !590"),
        ("  call void @llvm.memcpy.p0i8.p0i8.i64(i8* align 4 %20, i8* align 8 %21, i64 12, i1 false), !dbg !576",
         "  call void @__cudaemu_memcpy(i8* align 4 %20, i8* align 8 %21, i64 12, i1 false, i64 4), !dbg !576"),
        ("  call void @llvm.memcpy.p0i8.p0i8.i64(i8* align 16 %9, i8* align 16 bitcast ([4 x float]* "
         "@__const._Z11local_arrayPfi.t to i8*), i64 16, i1 false), !dbg !694",
         "  call void @__cudaemu_memcpy(i8* align 16 %9, i8* align 16 bitcast ([4 x float]* "
         "@__const._Z11local_arrayPfi.t to i8*), i64 16, i1 false, i64 16), !dbg !694"),
        ("  call void @llvm.memmove.p0i8.p0i8.i64(i8* align 4 %7, i8* align 4 %9, i64 %11, i1 false), !dbg !707",
         "  call void @__cudaemu_memmove(i8* align 4 %7, i8* align 4 %9, i64 %11, i1 false, i64 4), !dbg !707"),
    ],
    "llvm16": [
        ("  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %12, ptr align 16 %9, i64 32, i1 false), !dbg !569, "
         "!tbaa.struct !570",
         "  call void @__cudaemu_memcpy(ptr align 16 %12, ptr align 16 %9, i64 32, i1 false, i64 16), !dbg !569, "
         "!tbaa.struct !570"),
        ("  call void @llvm.memset.p0.i64(ptr align 16 %2, i8 0, i64 32, i1 false), !dbg !592",
         "  call void @__cudaemu_memset(ptr align 16 %2, i8 0, i64 32, i1 false, i64 16), !dbg !592"),
        ("  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %6, ptr align 8 %7, i64 12, i1 false), !dbg !734",
         "  call void @__cudaemu_memcpy(ptr align 4 %6, ptr align 8 %7, i64 12, i1 false, i64 4), !dbg !734"),
        ("  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %3, ptr align 16 @__const._Z11local_arrayPfi.t, i64 16, "
         "i1 false), !dbg !705",
         "  call void @__cudaemu_memcpy(ptr align 16 %3, ptr align 16 @__const._Z11local_arrayPfi.t, i64 16, "
         "i1 false, i64 16), !dbg !705"),
        ("  call void @llvm.memmove.p0.p0.i64(ptr align 4 %0, ptr align 4 %7, i64 %9, i1 false), !dbg !722",
         "  call void @__cudaemu_memmove(ptr align 4 %0, ptr align 4 %7, i64 %9, i1 false, i64 4), !dbg !722"),
    ],
}

# declarations: immarg goes (the alignment argument is not an immediate), an i64 for the alignment is added
MEMORY_DECLARATIONS = {
    "llvm14": [
        ("declare void @llvm.memcpy.p0i8.p0i8.i64(i8* noalias nocapture writeonly, i8* noalias nocapture readonly, "
         "i64, i1 immarg) #4",
         "declare void @__cudaemu_memcpy(i8* noalias nocapture writeonly, i8* noalias nocapture readonly, i64, i1, "
         "i64) #4"),
        ("declare void @llvm.memset.p0i8.i64(i8* nocapture writeonly, i8, i64, i1 immarg) #5",
         "declare void @__cudaemu_memset(i8* nocapture writeonly, i8, i64, i1, i64) #5"),
        ("declare void @llvm.memmove.p0i8.p0i8.i64(i8* nocapture writeonly, i8* nocapture readonly, i64, i1 immarg) "
         "#4",
         "declare void @__cudaemu_memmove(i8* nocapture writeonly, i8* nocapture readonly, i64, i1, i64) #4"),
    ],
    "llvm16": [
        ("declare void @llvm.memcpy.p0.p0.i64(ptr noalias nocapture writeonly, ptr noalias nocapture readonly, i64, "
         "i1 immarg) #4",
         "declare void @__cudaemu_memcpy(ptr noalias nocapture writeonly, ptr noalias nocapture readonly, i64, i1, "
         "i64) #4"),
        ("declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg) #5",
         "declare void @__cudaemu_memset(ptr nocapture writeonly, i8, i64, i1, i64) #5"),
        ("declare void @llvm.memmove.p0.p0.i64(ptr nocapture writeonly, ptr nocapture readonly, i64, i1 immarg) #4",
         "declare void @__cudaemu_memmove(ptr nocapture writeonly, ptr nocapture readonly, i64, i1, i64) #4"),
    ],
    "llvm21": [
        ("declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly "
         "captures(none), i64, i1 immarg) #4",
         "declare void @__cudaemu_memcpy(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), "
         "i64, i1, i64) #4"),
        ("declare void @llvm.memset.p0.i64(ptr writeonly captures(none), i8, i64, i1 immarg) #5",
         "declare void @__cudaemu_memset(ptr writeonly captures(none), i8, i64, i1, i64) #5"),
    ],
}


@pytest.mark.parametrize("version", VERSIONS)
def test_memory_intrinsic_calls_pass_their_alignment(version):
    for call, rewritten in MEMORY_CALLS[version]:
        assert rewrite_ir(call + "\n") == rewritten + "\n"


@pytest.mark.parametrize("version", VERSIONS + ["llvm21"])
def test_memory_intrinsic_declarations_take_the_alignment(version):
    for declaration, rewritten in MEMORY_DECLARATIONS[version]:
        assert rewrite_ir(declaration + "\n") == rewritten + "\n"


@pytest.mark.parametrize("pointer", ["i8*", "ptr"])
def test_alignment_of_a_pointer_without_one_is_1_and_none_is_above_16(pointer):
    p0 = "p0i8" if pointer == "i8*" else "p0"
    call = "  call void @llvm.memcpy.%s.%s.i64(%s %%a, %s align 8 %%b, i64 8, i1 false)\n" % (p0, p0, pointer, pointer)
    assert rewrite_ir(call).endswith("i1 false, i64 1)\n")
    call = "  call void @llvm.memset.%s.i64(%s align 32 %%a, i8 0, i64 64, i1 false)\n" % (p0, pointer)
    assert rewrite_ir(call) == "  call void @__cudaemu_memset(%s align 32 %%a, i8 0, i64 64, i1 false, i64 16)\n" \
        % pointer


@pytest.mark.parametrize("text", [
    "  call void @llvm.lifetime.start.p0i8(i64 16, i8* %13) #7, !dbg !728",
    "  call void @llvm.lifetime.start.p0(i64 16, ptr %5) #7, !dbg !728",
    "  %8 = call float @llvm.fmuladd.f32(float %0, float %1, float %2), !dbg !539",
    "; the comment names @llvm.memcpy",
])
def test_other_lines_stay(text):
    assert rewrite_ir(text + "\n") == text + "\n"


# ---------------------------------------------------------------------------------------------------------------
# detach_coverage_flags
# ---------------------------------------------------------------------------------------------------------------
# SanitizerCoverage's flags print the same in every version from 14 on (globals show no pointer types): clang 14's
# and clang 16's lines for axpy and copy_pairs are these
COVERAGE_FLAGS = [
    ('@__sancov_gen_ = private global [1 x i1] zeroinitializer, section "__sancov_bools", comdat($_Z4axpyfff), '
     'align 1',
     '@__sancov_gen_ = private global [1 x i1] zeroinitializer, section "__sancov_bools", align 1'),
    ('@__sancov_gen_.1 = private global [1 x i1] zeroinitializer, section "__sancov_bools", '
     'comdat($_Z10copy_pairsP4PairPKS_), align 1',
     '@__sancov_gen_.1 = private global [1 x i1] zeroinitializer, section "__sancov_bools", align 1'),
]


def test_coverage_flags_leave_their_functions_comdat():
    for flags, detached in COVERAGE_FLAGS:
        assert detach_coverage_flags(flags + "\n") == detached + "\n"


def test_coverage_flags_detach_in_a_module_and_nothing_else_changes():
    others = ["$_Z4axpyfff = comdat nodeduplicate",
              "@_ZZ4dim3vE4zero = linkonce_odr dso_local global i32 0, comdat, align 4",
              "define dso_local noundef float @_Z4axpyfff(float noundef %0, float noundef %1, float noundef %2) #0 "
              "comdat !dbg !530 {"]
    module = lines(others[0], COVERAGE_FLAGS[0][0], others[1], COVERAGE_FLAGS[1][0], others[2])
    assert detach_coverage_flags(module) == lines(others[0], COVERAGE_FLAGS[0][1], others[1], COVERAGE_FLAGS[1][1],
                                                  others[2])


# ---------------------------------------------------------------------------------------------------------------
# fuse_device_multiply_adds
# ---------------------------------------------------------------------------------------------------------------
# axpy (a __device__ function) and host_mad (host code) each compute a * b + c; axpy and the kernel `fused` carry
# the annotation that marks device code (the table trimmed to those two entries)
ANNOTATIONS = {
    "llvm14": '@llvm.global.annotations = appending global [2 x { i8*, i8*, i8*, i32, i8* }] [{ i8*, i8*, i8*, i32, '
              'i8* } { i8* bitcast (float (float, float, float)* @_Z4axpyfff to i8*), i8* getelementptr inbounds '
              '([15 x i8], [15 x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([5 x i8], [5 x i8]* @.str.1, '
              'i32 0, i32 0), i32 4, i8* null }, { i8*, i8*, i8*, i32, i8* } { i8* bitcast (void (float*, float*, '
              'float*)* @_Z5fusedPfPKfS1_ to i8*), i8* getelementptr inbounds ([15 x i8], [15 x i8]* @.str, i32 0, '
              'i32 0), i8* getelementptr inbounds ([5 x i8], [5 x i8]* @.str.1, i32 0, i32 0), i32 10, i8* null }], '
              'section "llvm.metadata"',
    "llvm16": '@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, '
              'ptr } { ptr @_Z4axpyfff, ptr @.str, ptr @.str.1, i32 4, ptr null }, { ptr, ptr, ptr, i32, ptr } '
              '{ ptr @_Z5fusedPfPKfS1_, ptr @.str, ptr @.str.1, i32 10, ptr null }], section "llvm.metadata"',
}
# (definition, multiply-add, return) of axpy and of host_mad
AXPY = {
    "llvm14": ("define dso_local noundef float @_Z4axpyfff(float noundef %0, float noundef %1, float noundef %2) #0 "
               "comdat !dbg !530 {",
               "  %8 = call float @llvm.fmuladd.f32(float %0, float %1, float %2), !dbg !539",
               "  ret float %8, !dbg !540"),
    "llvm16": ("define dso_local noundef float @_Z4axpyfff(float noundef %0, float noundef %1, float noundef %2) #0 "
               "comdat !dbg !530 {",
               "  %8 = call float @llvm.fmuladd.f32(float %0, float %1, float %2), !dbg !539",
               "  ret float %8, !dbg !540"),
}
HOST_MAD = {
    "llvm14": ("define dso_local noundef float @_Z8host_madfff(float noundef %0, float noundef %1, float noundef %2) "
               "#0 comdat !dbg !658 {",
               "  %8 = call float @llvm.fmuladd.f32(float %0, float %1, float %2), !dbg !665",
               "  ret float %8, !dbg !666"),
    "llvm16": ("define dso_local noundef float @_Z8host_madfff(float noundef %0, float noundef %1, float noundef %2) "
               "#0 comdat !dbg !668 {",
               "  %8 = call float @llvm.fmuladd.f32(float %0, float %1, float %2), !dbg !675",
               "  ret float %8, !dbg !676"),
}
# the functions' attribute group (%s: where the pass adds +fma), and llvm.fmuladd's
FUNCTION_ATTRIBUTES = {
    "llvm14": 'attributes #%s = { mustprogress nounwind uwtable "disable-tail-calls"="true" "frame-pointer"="none" '
              '"min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" '
              '"target-cpu"="x86-64" "target-features"="%s+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }',
    "llvm16": 'attributes #%s = { mustprogress nounwind uwtable "disable-tail-calls"="true" '
              '"min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" '
              '"target-cpu"="x86-64" "target-features"="%s+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }',
}
FMULADD_ATTRIBUTES = {
    "llvm14": "attributes #1 = { nofree nosync nounwind readnone speculatable willreturn }",
    "llvm16": "attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }",
}


def multiply_add_module(version):
    """The module's lines that the pass reads or changes, in the order clang prints them."""
    return lines(
        '@.str = private unnamed_addr constant [15 x i8] c"cudaemu.device\\00", section "llvm.metadata"',
        '@.str.1 = private unnamed_addr constant [5 x i8] c"k.cu\\00", section "llvm.metadata"',
        ANNOTATIONS[version],
        "",
        *AXPY[version], "}",
        "",
        "declare float @llvm.fmuladd.f32(float, float, float) #1",
        "",
        *HOST_MAD[version], "}",
        "",
        FUNCTION_ATTRIBUTES[version] % ("0", ""),
        FMULADD_ATTRIBUTES[version])


def fused(line):
    return line.replace("@llvm.fmuladd.", "@llvm.fma.")


@pytest.mark.parametrize("version", VERSIONS)
def test_device_function_fuses_and_host_code_does_not(version):
    module = multiply_add_module(version)
    definition, multiply_add, _ = AXPY[version]
    assert fuse_device_multiply_adds(module, host_fma=False) == \
        module.replace(lines(definition, multiply_add), lines(definition, fused(multiply_add))) + \
        "\ndeclare float @llvm.fma.f32(float, float, float) #1\n"


@pytest.mark.parametrize("version", VERSIONS)
def test_device_function_gets_the_fma_instruction_where_the_host_has_one(version):
    module = multiply_add_module(version)
    definition, multiply_add, _ = AXPY[version]
    # axpy gets an attribute group of its own, the FMA instruction among its target features; host_mad keeps #0
    assert fuse_device_multiply_adds(module, host_fma=True) == \
        module.replace(lines(definition, multiply_add),
                       lines(definition.replace(" #0 ", " #1000000 "), fused(multiply_add))) + \
        "\n" + FUNCTION_ATTRIBUTES[version] % ("1000000", "+fma,") + "\n" + \
        "\ndeclare float @llvm.fma.f32(float, float, float) #1\n"


def test_fma_target_feature_is_added_where_the_group_has_none():
    module = multiply_add_module("llvm16").replace(FUNCTION_ATTRIBUTES["llvm16"] % ("0", ""),
                                                   "attributes #0 = { mustprogress nounwind uwtable }")
    fused_module = fuse_device_multiply_adds(module, host_fma=True)
    group = fused_module.split("\nattributes #1000000 = ")[1].split("\n")[0]
    assert group.split() == ["{", "mustprogress", "nounwind", "uwtable", '"target-features"="+fma"}']


@pytest.mark.parametrize("version", VERSIONS)
def test_nothing_fuses_without_device_code(version):
    # no function carries the device annotation: a .cu file of host code only
    module = multiply_add_module(version).replace('c"cudaemu.device\\00"', 'c"something.else\\00"')
    assert fuse_device_multiply_adds(module, host_fma=True) == module


# ---------------------------------------------------------------------------------------------------------------
# strip_stack_slot_callbacks (the fallback without opt: clang instruments its -O0 IR)
# ---------------------------------------------------------------------------------------------------------------
# local_array at -O0: callbacks on its parameters' stack slots (%3, %4), on the local array (%5, through a
# getelementptr) and on a temporary (%7) go; the store to `out` stays.
STACK_SLOTS = {
    "llvm14": [
        "define dso_local void @_Z11local_arrayPfi(float* noundef %0, i32 noundef %1) #0 comdat !dbg !714 {",
        "  %3 = alloca float*, align 8",
        "  %4 = alloca i32, align 4",
        "  %5 = alloca [4 x float], align 16",
        "  %7 = alloca { i64, i32 }, align 8",
        "  %12 = bitcast float** %3 to i64*",
        "- call void @__sanitizer_cov_store8(i64* %12)",
        "  store float* %0, float** %3, align 8, !tbaa !571",
        "- call void @__sanitizer_cov_store4(i32* %4)",
        "  store i32 %1, i32* %4, align 4, !tbaa !726",
        "- call void @__sanitizer_cov_load4(i32* %4), !dbg !730",
        "  %15 = load i32, i32* %4, align 4, !dbg !730, !tbaa !726",
        "  %16 = and i32 %15, 3, !dbg !731",
        "  %17 = sext i32 %16 to i64, !dbg !732",
        "  %18 = getelementptr inbounds [4 x float], [4 x float]* %5, i64 0, i64 %17, !dbg !732",
        "  %19 = bitcast float* %18 to i32*, !dbg !732",
        "- call void @__sanitizer_cov_load4(i32* %19), !dbg !732",
        "  %20 = load float, float* %18, align 4, !dbg !732, !tbaa !538",
        "  %21 = bitcast float** %3 to i64*, !dbg !733",
        "- call void @__sanitizer_cov_load8(i64* %21), !dbg !733",
        "  %22 = load float*, float** %3, align 8, !dbg !733, !tbaa !571",
        "  %25 = bitcast { i64, i32 }* %7 to i128*, !dbg !734",
        "- call void @__sanitizer_cov_store16(i128* %25), !dbg !734",
        "  store { i64, i32 } %24, { i64, i32 }* %7, align 8, !dbg !734",
        "  %31 = getelementptr inbounds float, float* %22, i64 %30, !dbg !733",
        "  %32 = bitcast float* %31 to i32*, !dbg !736",
        "  call void @__sanitizer_cov_store4(i32* %32), !dbg !736",
        "  store float %20, float* %31, align 4, !dbg !736, !tbaa !538",
        "  ret void, !dbg !737",
        "}"],
    "llvm16": [
        "define dso_local void @_Z11local_arrayPfi(ptr noundef %0, i32 noundef %1) #0 comdat !dbg !714 {",
        "  %3 = alloca ptr, align 8",
        "  %4 = alloca i32, align 4",
        "  %5 = alloca [4 x float], align 16",
        "  %7 = alloca { i64, i32 }, align 8",
        "- call void @__sanitizer_cov_store8(ptr %3)",
        "  store ptr %0, ptr %3, align 8, !tbaa !571",
        "- call void @__sanitizer_cov_store4(ptr %4)",
        "  store i32 %1, ptr %4, align 4, !tbaa !726",
        "- call void @__sanitizer_cov_load4(ptr %4), !dbg !730",
        "  %12 = load i32, ptr %4, align 4, !dbg !730, !tbaa !726",
        "  %13 = and i32 %12, 3, !dbg !731",
        "  %14 = sext i32 %13 to i64, !dbg !732",
        "  %15 = getelementptr inbounds [4 x float], ptr %5, i64 0, i64 %14, !dbg !732",
        "- call void @__sanitizer_cov_load4(ptr %15), !dbg !732",
        "  %16 = load float, ptr %15, align 4, !dbg !732, !tbaa !538",
        "- call void @__sanitizer_cov_load8(ptr %3), !dbg !733",
        "  %17 = load ptr, ptr %3, align 8, !dbg !733, !tbaa !571",
        "- call void @__sanitizer_cov_store16(ptr %7), !dbg !734",
        "  store { i64, i32 } %18, ptr %7, align 8, !dbg !734",
        "  %22 = getelementptr inbounds float, ptr %17, i64 %21, !dbg !733",
        "  call void @__sanitizer_cov_store4(ptr %22), !dbg !736",
        "  store float %16, ptr %22, align 4, !dbg !736, !tbaa !538",
        "  ret void, !dbg !737",
        "}"],
}

# first_of_four at -O0: a slot holding a pointer to a struct (%4), and a struct's (%5, threadIdx's uint3, in every
# kernel that reads threadIdx): a named type (`%struct.uint3`) stands before the slot among the operands
STRUCT_SLOTS = {
    "llvm14": [
        "define dso_local void @_Z13first_of_fourPfPK6float4(float* noundef %0, %struct.float4* noundef %1) #0 comdat "
        "!dbg !636 {",
        "  %3 = alloca float*, align 8",
        "  %4 = alloca %struct.float4*, align 8",
        "  %5 = alloca %struct.uint3, align 4",
        "  %14 = bitcast %struct.float4** %4 to i64*",
        "- call void @__sanitizer_cov_store8(i64* %14)",
        "  store %struct.float4* %1, %struct.float4** %4, align 8, !tbaa !571",
        "  %15 = bitcast %struct.float4** %4 to i64*, !dbg !647",
        "- call void @__sanitizer_cov_load8(i64* %15), !dbg !647",
        "  %16 = load %struct.float4*, %struct.float4** %4, align 8, !dbg !647, !tbaa !571",
        "  %22 = getelementptr inbounds %struct.uint3, %struct.uint3* %5, i32 0, i32 0, !dbg !649",
        "- call void @__sanitizer_cov_load4(i32* %22), !dbg !649",
        "  %23 = load i32, i32* %22, align 4, !dbg !649, !tbaa !578",
        "  %24 = zext i32 %23 to i64, !dbg !647",
        "  %25 = getelementptr inbounds %struct.float4, %struct.float4* %16, i64 %24, !dbg !647",
        "  %26 = getelementptr inbounds %struct.float4, %struct.float4* %25, i32 0, i32 0, !dbg !650",
        "  %27 = bitcast float* %26 to i32*, !dbg !650",
        "  call void @__sanitizer_cov_load4(i32* %27), !dbg !650",
        "  %28 = load float, float* %26, align 16, !dbg !650, !tbaa !651",
        "  ret void, !dbg !657",
        "}"],
    "llvm16": [
        "define dso_local void @_Z13first_of_fourPfPK6float4(ptr noundef %0, ptr noundef %1) #0 comdat !dbg !636 {",
        "  %3 = alloca ptr, align 8",
        "  %4 = alloca ptr, align 8",
        "  %5 = alloca %struct.uint3, align 4",
        "- call void @__sanitizer_cov_store8(ptr %4)",
        "  store ptr %1, ptr %4, align 8, !tbaa !571",
        "- call void @__sanitizer_cov_load8(ptr %4), !dbg !647",
        "  %13 = load ptr, ptr %4, align 8, !dbg !647, !tbaa !571",
        "  %15 = getelementptr inbounds %struct.uint3, ptr %5, i32 0, i32 0, !dbg !649",
        "- call void @__sanitizer_cov_load4(ptr %15), !dbg !649",
        "  %16 = load i32, ptr %15, align 4, !dbg !649, !tbaa !578",
        "  %17 = zext i32 %16 to i64, !dbg !647",
        "  %18 = getelementptr inbounds %struct.float4, ptr %13, i64 %17, !dbg !647",
        "  %19 = getelementptr inbounds %struct.float4, ptr %18, i32 0, i32 0, !dbg !650",
        "  call void @__sanitizer_cov_load4(ptr %19), !dbg !650",
        "  %20 = load float, ptr %19, align 16, !dbg !650, !tbaa !651",
        "  ret void, !dbg !657",
        "}"],
}


def before_and_after(marked):
    """(IR, IR without the lines marked '- ') from lines where '- ' marks a line the pass must remove."""
    before = lines(*("  " + line[2:] if line.startswith("- ") else line for line in marked))
    after = lines(*(line for line in marked if not line.startswith("- ")))
    return before, after


@pytest.mark.parametrize("version", VERSIONS)
def test_callbacks_on_stack_slots_go_and_the_others_stay(version):
    before, after = before_and_after(STACK_SLOTS[version])
    assert strip_stack_slot_callbacks(before) == after


@pytest.mark.parametrize("version", VERSIONS)
def test_callbacks_on_struct_slots_go_too(version):
    before, after = before_and_after(STRUCT_SLOTS[version])
    assert strip_stack_slot_callbacks(before) == after


@pytest.mark.parametrize("slot, field", [("{ i64, i32 }*", "i32*"), ("ptr", "ptr")])
def test_slot_of_a_literal_struct_type(slot, field):
    # hand-written: a getelementptr whose element type holds a comma, into a { i64, i32 } slot as clang makes one
    before, after = before_and_after([
        "  %6 = alloca { i64, i32 }, align 8",
        "  %%9 = getelementptr inbounds { i64, i32 }, %s %%6, i32 0, i32 1" % slot,
        "- call void @__sanitizer_cov_load4(%s %%9)" % field,
        "  %%10 = load i32, %s %%9, align 8" % field])
    assert strip_stack_slot_callbacks(before) == after

@pytest.mark.parametrize("version", VERSIONS)
def test_stack_slots_are_per_function(version):
    # %3 is a slot of local_array; in the next function, %3 is an ordinary pointer and its callback stays
    before, after = before_and_after(STACK_SLOTS[version])
    pointer = "float*" if version == "llvm14" else "ptr"
    other = lines("define dso_local void @_Z3setPff(%s noundef %%0, float noundef %%1) #0 {" % pointer,
                  "  %%3 = getelementptr inbounds float, %s %%0, i64 1" % pointer,
                  "  call void @__sanitizer_cov_store4(%s %%3)" % ("i32*" if version == "llvm14" else "ptr"),
                  "  store float %%1, %s %%3, align 4" % pointer,
                  "}")
    assert strip_stack_slot_callbacks(before + other) == after + other


def test_noinline_of_minus_o0_goes_unless_optnone_needs_it():
    # clang -O0 marks every function noinline; with -disable-O0-optnone (as emucc runs it) there is no optnone
    attributes = ('attributes #0 = { mustprogress%s nounwind%s uwtable "frame-pointer"="all" '
                  '"min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" '
                  '"target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }\n')
    assert strip_stack_slot_callbacks(attributes % (" noinline", "")) == attributes % ("", "")
    assert strip_stack_slot_callbacks(attributes % (" noinline", " optnone")) == attributes % (" noinline", " optnone")


# ---------------------------------------------------------------------------------------------------------------
# route_by_alignment
# ---------------------------------------------------------------------------------------------------------------
# (callback, access, the callback it becomes or None): packed_read and packed_write (align 1), first_of_four (the
# first float of a float4: align 16), and an ordinary store (align 4, unchanged)
ACCESSES = {
    "llvm14": [
        ("  call void @__sanitizer_cov_load4(i32* %11), !dbg !612",
         "  %12 = load float, float* %10, align 1, !dbg !612, !tbaa !613",
         "  call void @__cudaemu_load4_align1(i32* %11), !dbg !612"),
        ("  call void @__sanitizer_cov_store4(i32* %11), !dbg !679",
         "  store float %1, float* %10, align 1, !dbg !679, !tbaa !613",
         "  call void @__cudaemu_store4_align1(i32* %11), !dbg !679"),
        ("  call void @__sanitizer_cov_load4(i32* %11), !dbg !631",
         "  %12 = load float, float* %10, align 16, !dbg !631, !tbaa !632",
         "  call void @__cudaemu_load4_align16(i32* %11), !dbg !631"),
        ("  call void @__sanitizer_cov_store4(i32* %16), !dbg !617",
         "  store float %12, float* %15, align 4, !dbg !617, !tbaa !569",
         None),
    ],
    "llvm16": [
        ("  call void @__sanitizer_cov_load4(ptr %10), !dbg !616",
         "  %11 = load float, ptr %10, align 1, !dbg !616, !tbaa !617",
         "  call void @__cudaemu_load4_align1(ptr %10), !dbg !616"),
        ("  call void @__sanitizer_cov_store4(ptr %10), !dbg !690",
         "  store float %1, ptr %10, align 1, !dbg !690, !tbaa !617",
         "  call void @__cudaemu_store4_align1(ptr %10), !dbg !690"),
        ("  call void @__sanitizer_cov_load4(ptr %10), !dbg !637",
         "  %11 = load float, ptr %10, align 16, !dbg !637, !tbaa !638",
         "  call void @__cudaemu_load4_align16(ptr %10), !dbg !637"),
        ("  call void @__sanitizer_cov_store4(ptr %14), !dbg !622",
         "  store float %11, ptr %14, align 4, !dbg !622, !tbaa !571",
         None),
    ],
}


@pytest.mark.parametrize("version", VERSIONS)
def test_access_with_another_alignment_than_its_size_calls_that_alignments_callback(version):
    pointer = "i32*" if version == "llvm14" else "ptr"
    for callback, access, routed in ACCESSES[version]:
        if routed is None:
            assert route_by_alignment(lines(callback, access)) == lines(callback, access)
        else:
            name = routed.split("@")[1].split("(")[0]
            assert route_by_alignment(lines(callback, access)) == \
                lines(routed, access, "declare void @%s(%s)" % (name, pointer))


@pytest.mark.parametrize("version", VERSIONS)
def test_each_alignment_callback_is_declared_once(version):
    callback, access, routed = ACCESSES[version][0]
    routed_module = route_by_alignment(lines(callback, access, callback, access))
    assert routed_module.count("declare void @__cudaemu_load4_align1(") == 1
    assert routed_module.count(routed.strip()) == 2


def test_callback_not_followed_by_its_access_stays():
    # the line after a load callback is not a load: nothing to read the alignment from
    text = lines("  call void @__sanitizer_cov_load4(ptr %10)", "  store float %1, ptr %10, align 1")
    assert route_by_alignment(text) == text


# ---------------------------------------------------------------------------------------------------------------
# count_flops
# ---------------------------------------------------------------------------------------------------------------
def flops_calls(ir):
    """The arguments of every __cudaemu_flops call, in order, as tuples of ints."""
    import re
    return [tuple(int(n) for n in re.findall(r"i32 (\d+)", line)) for line in ir.splitlines()
            if "call void @__cudaemu_flops(" in line]


@pytest.mark.parametrize("version", VERSIONS)
def test_device_arithmetic_is_counted_and_host_arithmetic_is_not(version):
    module = multiply_add_module(version)
    counted = count_flops(module)
    assert flops_calls(counted) == [(1, 0, 0, 0, 0, 0)]  # axpy's multiply-add; host_mad's is host code
    definition = AXPY[version][0]
    assert lines(definition, "  call void @__cudaemu_flops(i32 1, i32 0, i32 0, i32 0, i32 0, i32 0)") in counted
    assert counted.endswith("declare void @__cudaemu_flops(i32, i32, i32, i32, i32, i32)\n")


@pytest.mark.parametrize("version", VERSIONS)
def test_each_basic_block_counts_its_own_kinds_after_its_phi_nodes(version):
    body = lines(
        AXPY[version][0],
        "  %4 = fmul contract float %0, %1, !dbg !1",
        "  %5 = fsub float %4, %2",
        "  br label %loop",
        "",
        "loop:                                             ; preds = %loop, %3",
        "  %i = phi i32 [ 0, %3 ], [ %n, %loop ]",
        "  %s = phi float [ %5, %3 ], [ %t, %loop ]",
        "  %t = call contract float @llvm.fma.f32(float %s, float %0, float %1)",
        "  %v = fadd <4 x float> zeroinitializer, zeroinitializer",
        "  %w = call <2 x double> @llvm.fmuladd.v2f64(<2 x double> zeroinitializer, <2 x double> zeroinitializer, "
        "<2 x double> zeroinitializer)",
        "  %d = fmul double 1.0, 2.0",
        "  %x = fneg float %t",
        "  %n = add i32 %i, 1",
        "  %c = icmp slt i32 %n, 10",
        "  br i1 %c, label %loop, label %end",
        "",
        "end:",
        "  ret float %t",
        "}")
    module = multiply_add_module(version).replace(lines(*AXPY[version], "}"), body)
    counted = count_flops(module)
    # the entry block: a mul and a subtract; the loop: an fma, 4 float adds, 2 double fmas, a double mul (fneg and
    # integer arithmetic are not FLOPs); the end: nothing
    assert flops_calls(counted) == [(0, 1, 1, 0, 0, 0), (1, 0, 4, 2, 1, 0)]
    loop = counted.split("loop:")[1]
    assert loop.index("%s = phi") < loop.index("@__cudaemu_flops") < loop.index("@llvm.fma.f32")


@pytest.mark.parametrize("version", VERSIONS)
def test_no_count_without_device_code(version):
    module = multiply_add_module(version).replace('c"cudaemu.device\\00"', 'c"something.else\\00"')
    assert count_flops(module) == module


# ---------------------------------------------------------------------------------------------------------------
# name_index_checks: -fsanitize=array-bounds's calls -> __cudaemu_index_out_of_bounds(data, index, "As[.][%][.]")
# ---------------------------------------------------------------------------------------------------------------
# clang 14's checks for `acc[i][c & 7]` (line 5) and `As[s][k][c]` and `p->As[s][k][c]` (line 6) of
INDEXED = ("struct S { float As[2][16][128]; };\n"
           "float As[2][16][128];\n"
           "float f(int s, int k, int c, S* p) {\n"
           "  float acc[4][4];\n"
           "  for (int i = 0; i < 4; ++i) acc[i][c & 7] = 1;\n"
           "  return As[s][k][c] + p->As[s][k][c];\n"
           "}\n")
UBSAN_LLVM14 = lines(
    '@.src = private unnamed_addr constant [6 x i8] c"t.cpp\\00", align 1',
    "@0 = private unnamed_addr constant { i16, i16, [14 x i8] } { i16 -1, i16 0, [14 x i8] c\"'float[4][4]'\\00\" }",
    "@1 = private unnamed_addr constant { i16, i16, [6 x i8] } { i16 0, i16 11, [6 x i8] c\"'int'\\00\" }",
    "@2 = private unnamed_addr global { { [6 x i8]*, i32, i32 }, { i16, i16, [14 x i8] }*, { i16, i16, [6 x i8] }* } "
    "{ { [6 x i8]*, i32, i32 } { [6 x i8]* @.src, i32 5, i32 31 }, { i16, i16, [14 x i8] }* @0, "
    "{ i16, i16, [6 x i8] }* @1 }",
    "@3 = private unnamed_addr constant { i16, i16, [11 x i8] } { i16 -1, i16 0, [11 x i8] c\"'float[4]'\\00\" }",
    "@4 = private unnamed_addr global { { [6 x i8]*, i32, i32 }, { i16, i16, [11 x i8] }*, { i16, i16, [6 x i8] }* } "
    "{ { [6 x i8]*, i32, i32 } { [6 x i8]* @.src, i32 5, i32 31 }, { i16, i16, [11 x i8] }* @3, "
    "{ i16, i16, [6 x i8] }* @1 }",
    "@5 = private unnamed_addr constant { i16, i16, [20 x i8] } "
    "{ i16 -1, i16 0, [20 x i8] c\"'float[2][16][128]'\\00\" }",
    "@6 = private unnamed_addr global { { [6 x i8]*, i32, i32 }, { i16, i16, [20 x i8] }*, { i16, i16, [6 x i8] }* } "
    "{ { [6 x i8]*, i32, i32 } { [6 x i8]* @.src, i32 6, i32 10 }, { i16, i16, [20 x i8] }* @5, "
    "{ i16, i16, [6 x i8] }* @1 }",
    "@9 = private unnamed_addr constant { i16, i16, [13 x i8] } { i16 -1, i16 0, [13 x i8] c\"'float[128]'\\00\" }",
    "@10 = private unnamed_addr global { { [6 x i8]*, i32, i32 }, { i16, i16, [13 x i8] }*, { i16, i16, [6 x i8] }* } "
    "{ { [6 x i8]*, i32, i32 } { [6 x i8]* @.src, i32 6, i32 10 }, { i16, i16, [13 x i8] }* @9, "
    "{ i16, i16, [6 x i8] }* @1 }",
    "@13 = private unnamed_addr global { { [6 x i8]*, i32, i32 }, { i16, i16, [13 x i8] }*, { i16, i16, [6 x i8] }* } "
    "{ { [6 x i8]*, i32, i32 } { [6 x i8]* @.src, i32 6, i32 24 }, { i16, i16, [13 x i8] }* @9, "
    "{ i16, i16, [6 x i8] }* @1 }",
    "@14 = private unnamed_addr global { { [6 x i8]*, i32, i32 }, { i16, i16, [20 x i8] }*, { i16, i16, [6 x i8] }* } "
    "{ { [6 x i8]*, i32, i32 } { [6 x i8]* @.src, i32 6, i32 24 }, { i16, i16, [20 x i8] }* @5, "
    "{ i16, i16, [6 x i8] }* @1 }",
    "  call void @__ubsan_handle_out_of_bounds(i8* bitcast ({ { [6 x i8]*, i32, i32 }, { i16, i16, [11 x i8] }*, "
    "{ i16, i16, [6 x i8] }* }* @4 to i8*), i64 %32) #3, !nosanitize !11",
    "  call void @__ubsan_handle_out_of_bounds(i8* bitcast ({ { [6 x i8]*, i32, i32 }, { i16, i16, [13 x i8] }*, "
    "{ i16, i16, [6 x i8] }* }* @13 to i8*), i64 %87) #3, !nosanitize !11",
    "declare void @__ubsan_handle_out_of_bounds(i8*, i64) #2")
# the same in LLVM 16's opaque pointers (hand-written from the form clang 16 prints)
UBSAN_LLVM16 = lines(
    '@.src = private unnamed_addr constant [6 x i8] c"t.cpp\\00", align 1',
    "@3 = private unnamed_addr constant { i16, i16, [11 x i8] } { i16 -1, i16 0, [11 x i8] c\"'float[4]'\\00\" }",
    "@0 = private unnamed_addr constant { i16, i16, [14 x i8] } { i16 -1, i16 0, [14 x i8] c\"'float[4][4]'\\00\" }",
    "@2 = private unnamed_addr global { { ptr, i32, i32 }, ptr, ptr } { { ptr, i32, i32 } { ptr @.src, i32 5, i32 31 "
    "}, ptr @0, ptr @1 }",
    "@4 = private unnamed_addr global { { ptr, i32, i32 }, ptr, ptr } { { ptr, i32, i32 } { ptr @.src, i32 5, i32 31 "
    "}, ptr @3, ptr @1 }",
    "  call void @__ubsan_handle_out_of_bounds(ptr @4, i64 %32) #3, !nosanitize !11",
    "declare void @__ubsan_handle_out_of_bounds(ptr, i64) #2")


def test_each_index_check_names_its_access_with_the_index_that_is_out_marked():
    names = index_check_names(UBSAN_LLVM14, "t.cpp", INDEXED)
    assert names == {"@2": "acc[%][.]", "@4": "acc[.][%]", "@6": "As[%][.][.]", "@10": "As[.][.][%]",
                     "@13": "p->As[.][.][%]", "@14": "p->As[%][.][.]"}
    assert index_check_names(UBSAN_LLVM16, "t.cpp", INDEXED) == {"@2": "acc[%][.]", "@4": "acc[.][%]"}


def test_an_index_check_in_another_file_or_a_macro_has_no_name():
    assert set(index_check_names(UBSAN_LLVM14, "other.cu", INDEXED).values()) == {""}
    macro = INDEXED.replace("  return As[s][k][c] + p->As[s][k][c];", "  return AT(s, k, c) + p->As[s][k][c];")
    assert index_check_names(UBSAN_LLVM14, "t.cpp", macro)["@10"] == ""


@pytest.mark.parametrize("ir, pointer", [
    (UBSAN_LLVM14, "i8* getelementptr inbounds ([10 x i8], [10 x i8]* @__cudaemu_index_name.0, i64 0, i64 0)"),
    (UBSAN_LLVM16, "ptr @__cudaemu_index_name.0")], ids=VERSIONS)
def test_index_checks_call_the_runtime_with_their_access(ir, pointer):
    out = name_index_checks(ir, "t.cpp", INDEXED)
    assert "__ubsan" not in out
    call = [line for line in out.splitlines() if "@4" in line and "call" in line][0]
    assert call.endswith("i64 %32, " + pointer + ") #3, !nosanitize !11")
    assert '@__cudaemu_index_name.0 = private unnamed_addr constant [10 x i8] c"acc[.][%]\\00"' in out
    assert out.count("declare void @__cudaemu_index_out_of_bounds(") == 1
    assert name_index_checks(lines("define void @f() {", "}"), "t.cpp", INDEXED) == lines("define void @f() {", "}")


# ---------------------------------------------------------------------------------------------------------------
# raise_vector_alignment: a float4 copied through a float array's address is aligned as a float4
# ---------------------------------------------------------------------------------------------------------------
# `const float4 v = *reinterpret_cast<const float4*>(&As[1][2][m]);` as clang 14 and clang 16 print it before sroa
VECTOR_COPY = {
    "llvm14": lines(
        "define void @k() {",
        "  %15 = alloca %struct.float4, align 16",
        "  %87 = bitcast float* %86 to %struct.float4*",
        "  %88 = bitcast %struct.float4* %15 to i8*",
        "  %89 = bitcast %struct.float4* %87 to i8*",
        "  call void @llvm.memcpy.p0i8.p0i8.i64(i8* align 16 %88, i8* align 4 %89, i64 16, i1 false), !tbaa.struct !14",
        "  call void @llvm.memcpy.p0i8.p0i8.i64(i8* align 4 %22, i8* align 8 %23, i64 12, i1 false)",
        "}"),
    "llvm16": lines(
        "define void @k() {",
        "  %15 = alloca %struct.float4, align 16",
        "  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %15, ptr align 4 %86, i64 16, i1 false), !tbaa.struct !14",
        "  %90 = getelementptr inbounds %struct.float2, ptr %b, i64 %i",
        "  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %dst, ptr align 8 %90, i64 8, i1 false)",
        "  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %22, ptr align 8 %23, i64 12, i1 false)",
        "}")}


@pytest.mark.parametrize("version", VERSIONS)
def test_a_vector_copy_gets_the_vectors_alignment_on_both_sides(version):
    out = raise_vector_alignment(VECTOR_COPY[version])
    copies = [line for line in out.splitlines() if "@llvm.memcpy" in line]
    assert "align 16 %" in copies[0] and "align 4" not in copies[0] and copies[0].endswith("!tbaa.struct !14")
    assert copies[-1] == VECTOR_COPY[version].splitlines()[-2]  # a uint3's copy stays as it was
    if version == "llvm16":
        assert "ptr align 8 %dst, ptr align 8 %90, i64 8" in copies[1]


# ---------------------------------------------------------------------------------------------------------------
# check_vector_indices: a float4 through an element's address is checked against that element's dimension
# ---------------------------------------------------------------------------------------------------------------
# `float4 v = *reinterpret_cast<const float4*>(&As[0][c]);` and `...->w` (line 2) of
VECTOR_SOURCE = ("__shared__ float As[2][30];\n"
                 "  float4 v = *reinterpret_cast<const float4*>(&As[0][c]); float w = ...;\n")
VECTOR_COLUMN = VECTOR_SOURCE.split("\n")[1].index("As[0]") + 1
# as clang 14 prints it before sroa, with -fsanitize=array-bounds's checks (As[0]'s data alone, not its call)
VECTOR_INDEXED = {
    "llvm14": lines(
        "%struct.float4 = type { float, float, float, float }",
        '@.src = private unnamed_addr constant [6 x i8] c"t.cpp\\00", align 1',
        "@1 = private unnamed_addr constant { i16, i16, [6 x i8] } { i16 0, i16 11, [6 x i8] c\"'int'\\00\" }",
        "@5 = private unnamed_addr constant { i16, i16, [12 x i8] } { i16 -1, i16 0, [12 x i8] c\"'float[30]'\\00\" }",
        "@9 = private unnamed_addr global { { [6 x i8]*, i32, i32 }, { i16, i16, [12 x i8] }*, { i16, i16, [6 x i8] }* } "
        "{ { [6 x i8]*, i32, i32 } { [6 x i8]* @.src, i32 2, i32 %d }, { i16, i16, [12 x i8] }* @5, " % VECTOR_COLUMN +
        "{ i16, i16, [6 x i8] }* @1 }",
        "@6 = private unnamed_addr constant { i16, i16, [15 x i8] } { i16 -1, i16 0, [15 x i8] c\"'float[2][30]'\\00\" }",
        "@7 = private unnamed_addr global { { [6 x i8]*, i32, i32 }, { i16, i16, [15 x i8] }*, { i16, i16, [6 x i8] }* } "
        "{ { [6 x i8]*, i32, i32 } { [6 x i8]* @.src, i32 2, i32 %d }, { i16, i16, [15 x i8] }* @6, " % VECTOR_COLUMN +
        "{ i16, i16, [6 x i8] }* @1 }",
        "define void @k(i32 %c, i64 %other) {",
        "  %11 = alloca %struct.float4, align 16",
        "  %89 = zext i32 %c to i64, !nosanitize !1",
        "  call void @__ubsan_handle_out_of_bounds(i8* bitcast ({ { [6 x i8]*, i32, i32 }, { i16, i16, [12 x i8] }*, "
        "{ i16, i16, [6 x i8] }* }* @9 to i8*), i64 %89) #16, !dbg !5, !nosanitize !1",
        "  %91 = sext i32 %c to i64, !dbg !5",
        "  %92 = getelementptr inbounds [30 x float], [30 x float]* getelementptr inbounds ([2 x [30 x float]], "
        "[2 x [30 x float]]* @As, i64 0, i64 0), i64 0, i64 %91, !dbg !5",
        "  %93 = bitcast float* %92 to %struct.float4*, !dbg !6",
        "  %94 = bitcast %struct.float4* %11 to i8*, !dbg !6",
        "  %95 = bitcast %struct.float4* %93 to i8*, !dbg !6",
        "  call void @llvm.memcpy.p0i8.p0i8.i64(i8* align 16 %94, i8* align 4 %95, i64 16, i1 false), !dbg !6",
        "  %96 = getelementptr inbounds %struct.float4, %struct.float4* %93, i32 0, i32 3, !dbg !7",
        "  %97 = load float, float* %96, align 4, !dbg !7",
        "  %98 = getelementptr inbounds %struct.float4, %struct.float4* %93, i32 0, i32 0, !dbg !8",
        "  %99 = load float, float* %98, align 4, !dbg !8",
        "  %100 = load float, float* %92, align 4, !dbg !8",
        "  %101 = getelementptr inbounds [30 x float], [30 x float]* @Bs, i64 0, i64 %other",
        "  %102 = bitcast float* %101 to %struct.float4*",
        "  %103 = getelementptr inbounds %struct.float4, %struct.float4* %102, i32 0, i32 3",
        "  %104 = load float, float* %103, align 4",
        "  ret void",
        "}",
        "declare void @__ubsan_handle_out_of_bounds(i8*, i64) #2"),
    # the same in LLVM 16's opaque pointers (hand-written), with a vector store
    "llvm16": lines(
        "%struct.float4 = type { float, float, float, float }",
        '@.src = private unnamed_addr constant [6 x i8] c"t.cpp\\00", align 1',
        "@1 = private unnamed_addr constant { i16, i16, [6 x i8] } { i16 0, i16 11, [6 x i8] c\"'int'\\00\" }",
        "@5 = private unnamed_addr constant { i16, i16, [12 x i8] } { i16 -1, i16 0, [12 x i8] c\"'float[30]'\\00\" }",
        "@9 = private unnamed_addr global { { ptr, i32, i32 }, ptr, ptr } { { ptr, i32, i32 } { ptr @.src, i32 2, "
        "i32 %d }, ptr @5, ptr @1 }" % VECTOR_COLUMN,
        "@6 = private unnamed_addr constant { i16, i16, [15 x i8] } { i16 -1, i16 0, [15 x i8] c\"'float[2][30]'\\00\" }",
        "@7 = private unnamed_addr global { { ptr, i32, i32 }, ptr, ptr } { { ptr, i32, i32 } { ptr @.src, i32 2, "
        "i32 %d }, ptr @6, ptr @1 }" % VECTOR_COLUMN,
        "define void @k(i32 %c, i64 %other) {",
        "  %11 = alloca %struct.float4, align 16",
        "  %89 = zext i32 %c to i64, !nosanitize !1",
        "  call void @__ubsan_handle_out_of_bounds(ptr @9, i64 %89) #16, !dbg !5, !nosanitize !1",
        "  %91 = sext i32 %c to i64, !dbg !5",
        "  %92 = getelementptr inbounds [30 x float], ptr @As, i64 0, i64 %91, !dbg !5",
        "  call void @llvm.memcpy.p0.p0.i64(ptr align 16 %11, ptr align 4 %92, i64 16, i1 false), !dbg !6",
        "  %96 = getelementptr inbounds %struct.float4, ptr %92, i32 0, i32 3, !dbg !7",
        "  %97 = load float, ptr %96, align 4, !dbg !7",
        "  store <2 x float> %v, ptr %92, align 8, !dbg !8",
        "  %100 = load float, ptr %92, align 4, !dbg !8",
        "  %101 = getelementptr inbounds [30 x float], ptr @Bs, i64 0, i64 %other",
        "  %103 = getelementptr inbounds %struct.float4, ptr %101, i32 0, i32 3",
        "  %104 = load float, ptr %103, align 4",
        "  ret void",
        "}",
        "declare void @__ubsan_handle_out_of_bounds(ptr, i64) #2")}


@pytest.mark.parametrize("version", VERSIONS)
def test_an_access_wider_than_its_element_is_checked_against_the_elements_dimension(version):
    out = check_vector_indices(VECTOR_INDEXED[version]).splitlines()
    data = "i8* bitcast ({ { [6 x i8]*, i32, i32 }, { i16, i16, [12 x i8] }*, { i16, i16, [6 x i8] }* }* @9 to i8*)" \
        if version == "llvm14" else "ptr @9"
    checks = [(i, line) for i, line in enumerate(out) if "@__cudaemu_index_range_check(" in line and "call" in line]
    # the float4 copy and its .w span 4 elements; LLVM 16's float2 store 2; .x and the float itself are one element;
    # the float4 through Bs's element has no index check to name it (its index is not the one checked)
    widths = [("4", "!dbg !6"), ("4", "!dbg !7")] + ([("2", "!dbg !8")] if version == "llvm16" else [])
    assert [line for _, line in checks] == [
        "  call void @__cudaemu_index_range_check(%s, i64 %%91, i64 %s, i64 30), %s, !nosanitize !1" % (data, count, dbg)
        for count, dbg in widths]
    for i, _ in checks:  # each right before its access
        assert "@llvm.memcpy" in out[i + 1] or "load float, " in out[i + 1] or "store <2 x float>" in out[i + 1]
    pointer = "ptr" if version == "llvm16" else "i8*"
    assert out[-1] == "declare void @__cudaemu_index_range_check(%s, i64, i64, i64)" % pointer
    named = name_index_checks("\n".join(out) + "\n", "t.cpp", VECTOR_SOURCE)
    assert "i64 %91, i64 4, i64 30, " in named and '[9 x i8] c"As[.][%]\\00"' in named
    assert "declare void @__cudaemu_index_range_check(%s, i64, i64, i64, %s)" % (pointer, pointer) in named
    assert check_vector_indices(lines("define void @f() {", "}")) == lines("define void @f() {", "}")


def test_vector_alignments_come_from_the_headers():
    aligned = vector_alignments()
    assert aligned["float4"] == 16 and aligned["double2"] == 16 and aligned["float2"] == 8 and "float" not in aligned
    assert "int3" not in aligned  # a 3-vector is aligned as its element


# ---------------------------------------------------------------------------------------------------------------
# device_inline_asm
# ---------------------------------------------------------------------------------------------------------------
def test_inline_asm_in_device_code_is_named_at_its_line_and_the_hosts_is_not():
    # k (device code) holds PTX through an inlined helper of a header; h (host code) holds the host's own assembly
    module = lines(
        '@.str = private unnamed_addr constant [15 x i8] c"cudaemu.device\\00", section "llvm.metadata"',
        '@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } '
        '{ ptr @k, ptr @.str, ptr @.str, i32 1, ptr null }], section "llvm.metadata"',
        "define void @k(ptr %0) #0 !dbg !10 {",
        '  %2 = call float asm sideeffect "add.f32 $0, $0, $0;", "=f,0"(float 1.0), !dbg !13',
        "  ret void",
        "}",
        "define void @h() #0 {",
        '  %1 = call { i32, i32 } asm sideeffect "rdtsc", "={ax},={dx}"(), !dbg !14',
        "  ret void",
        "}",
        '!1 = !DIFile(filename: "kernel.cu", directory: ".")',
        '!2 = !DIFile(filename: "helpers.cuh", directory: ".")',
        "!10 = distinct !DISubprogram(name: \"k\", scope: !1, file: !1, line: 3, unit: !0)",
        "!11 = distinct !DISubprogram(name: \"twice\", scope: !2, file: !2, line: 1, unit: !0)",
        "!12 = distinct !DILexicalBlock(scope: !11, file: !2, line: 2, column: 5)",
        "!13 = !DILocation(line: 4, column: 9, scope: !12, inlinedAt: !15)",
        "!14 = !DILocation(line: 8, column: 5, scope: !10)",
        "!15 = !DILocation(line: 5, column: 12, scope: !10)")
    assert device_inline_asm(module) == ["helpers.cuh:4: error: inline PTX (asm) is not supported by the CPU emulator"]
    assert device_inline_asm(module.replace(", !dbg !13", "")) == \
        ["<device code>: error: inline PTX (asm) is not supported by the CPU emulator"]


# ---------------------------------------------------------------------------------------------------------------
# name_shared_dimensions
# ---------------------------------------------------------------------------------------------------------------
def test_each_shared_array_of_two_or_more_dimensions_gets_a_symbol_naming_them():
    ir = ("@_ZZ1kPKfPfiE2As = internal thread_local global [2 x [16 x [128 x float]]] zeroinitializer, align 16\n"
          "@_ZZ1kPKfPfiE4tile = internal thread_local global [64 x float] zeroinitializer, align 16\n"
          "@_ZZ1kPKfPfiE1t = internal thread_local(initialexec) global [32 x [33 x i32]] zeroinitializer\n"
          "@global = global [2 x [2 x float]] zeroinitializer\n")
    named = name_shared_dimensions(ir)
    assert named.startswith(ir)
    added = named[len(ir):].split()
    assert '@"__cudaemu_shared_dims_2_16_128___ZZ1kPKfPfiE2As"' in added
    assert '@"__cudaemu_shared_dims_32_33___ZZ1kPKfPfiE1t"' in added
    assert "tile" not in named[len(ir):] and "global\"" not in named[len(ir):]  # one dimension; not shared
    assert name_shared_dimensions("define void @f() {\n  ret void\n}\n") == "define void @f() {\n  ret void\n}\n"
