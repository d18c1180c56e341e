#!/usr/bin/env python3
"""gputool — measure kernels on a real GPU: what `make bench`, `make profile` and `make sanitize` run.

    gputool.py bench    [--lab N --kernel FILE | --submission DIR] [--sizes ...] [--shapes MxNxK ...]
    gputool.py profile  --lab N [--kernel FILE] [--size N | --shape MxNxK]
    gputool.py sanitize --lab N [--kernel FILE]
    gputool.py sanitize-catalogue [--lab N]         every kernel of the grader's catalogue (or one lab's) through the four tools
    gputool.py autotune [--size N]                 sweeps the lab 6 reference's tile shape, fastest first

Without a usable GPU each command says so in one line and exits 1 (profile first prints the emulator's counts).
Results go to build/bench, build/profile and build/sanitize.
"""
import argparse
import concurrent.futures
import itertools
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from course import catalogue, labs, toolchain  # the catalogue's kernels, the Lab model, GPU detection
from tools.lessons import emulator  # the lesson tools' measuring program: exact counts on the emulator
from tools.perf import perfdata, svgplot

COMMON = os.path.join(ROOT, "common")
SANITIZER_TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]
NCU_METRICS = {
    "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum": "L1 bytes requested by global loads",
    "dram__bytes_read.sum": "DRAM bytes read",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occupancy",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shared-memory bank conflicts (loads)",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shared-memory bank conflicts (stores)",
    "gpu__time_duration.sum": "kernel time",
}
# Why a compute-bound kernel is not faster: how busy the FMA pipe (labs 7 and 8: the tensor pipe) and the issue slots
# are, and per instruction issued, how many warps were waiting and on what (barrier: __syncthreads; short scoreboard:
# shared memory; long scoreboard: global memory; MIO throttle: the shared-memory queue full; math pipe throttle: the
# FMA or tensor pipe busy).
NCU_WHY_METRICS = {
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active": "FMA pipe busy",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": "tensor pipe busy (labs 7 and 8)",
    "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue slots used",
    "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio": "warps at a barrier, per issue",
    "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio":
        "warps waiting on shared memory, per issue",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio":
        "warps waiting on global memory, per issue",
    "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio": "warps held by the MIO queue, per issue",
    "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio":
        "warps held by a busy math pipe, per issue",
    "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio": "warps ready but not picked, per issue",
}


def say(message):
    print(message, flush=True)


def need_gpu(what):
    ok, reason = toolchain.gpu_status()
    if not ok:
        say("make %s needs a GPU: %s" % (what, reason))
        sys.exit(1)
    return reason


def lab_folder(lab):
    try:
        return labs.find(lab).folder
    except labs.LabError as e:
        raise SystemExit("gputool: %s" % e) from None


def reference_kernel(lab):
    path = os.path.join(ROOT, "solutions", lab, "kernel.cu")
    return path if os.path.isfile(path) else None


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def run_checked(cmd, what, timeout=None, **kw):
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        raise SystemExit("gputool: %s did not finish within %d s" % (what, timeout))
    if proc.returncode != 0:
        raise SystemExit("gputool: %s failed:\n%s" % (what, (proc.stdout + proc.stderr).strip()[-3000:]))
    return proc.stdout


def nvcc(sources, lab, out, extra=()):
    os.makedirs(os.path.dirname(out), exist_ok=True)
    arch = os.environ.get("CUDA_ARCH", "native")
    run_checked(["nvcc", "-O2", "-std=c++17", "-arch=" + arch, "-lineinfo", "-I", COMMON,
                 "-I", os.path.join(ROOT, "labs", lab), "-o", out] + list(sources) + list(extra),
                "nvcc " + " ".join(os.path.relpath(s, ROOT) for s in sources))
    return out


def build_bench(lab, kernel, out):
    return nvcc([os.path.join(HERE, "gemm_bench.cu"), kernel], lab, out, ["-lcublas"])


# The largest n for which make profile also counts the kernel on the CPU emulator: 2·2048³ FLOPs take it seconds to
# minutes, and every doubling of n multiplies that by eight.
EMULATOR_MAX_SIZE = 2048


def emulator_traffic(lab, kernel, M, N, K):
    """{"bytes_read", "bytes_written"}: global traffic counted by the emulator (the lesson tools' measuring program),
    or None with the reason printed."""
    try:
        counts = emulator.measure(emulator.build(lab, kernel), M, K, N, totals_only=True)
    except (toolchain.BuildError, RuntimeError, subprocess.TimeoutExpired) as e:
        say("  (emulator count skipped: %s)" % (str(e).strip().splitlines() or ["the emulator failed"])[-1])
        return None
    return {"bytes_read": counts["read_bytes"], "bytes_written": counts["written_bytes"]}


# ---------------------------------------------------------------------------------------------------------------
# make bench
# ---------------------------------------------------------------------------------------------------------------
def bench_kernels(args):
    kernels = [("%s reference" % lab, lab, reference_kernel(lab)) for lab in labs.folders() if reference_kernel(lab)]
    if args.kernel:
        if not args.lab:
            raise SystemExit("gputool: KERNEL= needs LAB= (which lab's contract the kernel follows)")
        if not os.path.isfile(args.kernel):
            raise SystemExit("gputool: no kernel file '%s'" % args.kernel)
        kernels.append(("%s: %s" % (lab_folder(args.lab), os.path.relpath(args.kernel)), lab_folder(args.lab),
                        os.path.abspath(args.kernel)))
    if args.submission:
        found = [lab for lab in labs.folders() if os.path.isfile(os.path.join(args.submission, lab, "kernel.cu"))]
        if not found:
            raise SystemExit("gputool: %s holds no <lab>/kernel.cu" % args.submission)
        kernels += [("%s: submission" % lab, lab, os.path.abspath(os.path.join(args.submission, lab, "kernel.cu")))
                    for lab in found]
    if not kernels:
        raise SystemExit("gputool: nothing to time here (no solutions/): give LAB=N KERNEL=file, or SUBMISSION=dir")
    return kernels


def cmd_bench(args):
    device = need_gpu("bench")
    out = os.path.join(ROOT, "build", "bench")
    os.makedirs(out, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split()]
    shapes = ["%dx%dx%d" % (n, n, n) for n in sizes] + args.shapes.split()
    kernels = bench_kernels(args)
    say("bench: %s; %d kernels and cuBLAS at %s" % (device, len(kernels), ", ".join(shapes)))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:  # nvcc is slow: build side by side
        built = list(pool.map(lambda k: build_bench(k[1], k[2], os.path.join(out, "bin", slug(k[0]))), kernels))
    binaries = [(label, lab, kernel, binary) for (label, lab, kernel), binary in zip(kernels, built)]
    info = json.loads(run_checked([binaries[0][3], "--info"], "gemm_bench --info"))
    with open(os.path.join(out, "device.json"), "w") as f:
        json.dump(info, f, indent=2)
    rows = []
    csv_path = os.path.join(out, "bench.csv")
    runs = [(perfdata.CUBLAS_FP32, binaries[0][3], "cublas-fp32"), (perfdata.CUBLAS_TF32, binaries[0][3], "cublas-tf32")]
    runs += [(label, binary, "kernel") for label, _, _, binary in binaries]
    lab_of = {label: lab for label, lab, _, _ in binaries}
    for label, binary, impl in runs:
        say("  %s" % label)
        multiple = labs.find(lab_of[label]).size_multiple if label in lab_of else 1  # lab 2: its lab.h's 16
        allowed = [s for s in shapes if all(int(d) % multiple == 0 for d in s.split("x"))]
        if len(allowed) < len(shapes):
            say("    (only shapes that are multiples of %d: the lab's contract)" % multiple)
        if not allowed:
            continue
        # a lab whose kernel multiplies in fewer mantissa bits than FP32 (lab 7: TF32) is verified allowing for it
        bits = labs.find(lab_of[label]).constants.get("INPUT_MANTISSA_BITS", 23) if label in lab_of else 23
        proc = subprocess.run([binary, "--impl", impl, "--shapes", ",".join(allowed), "--reps", str(args.reps),
                               "--warmup", str(args.warmup)] + (["--input-bits", str(bits)] if bits < 23 else []),
                              capture_output=True, text=True, timeout=1800)
        got = [perfdata.parse_bench_line(label, l) for l in proc.stdout.splitlines() if l.strip()]
        rows += got
        with open(csv_path, "w") as f:  # rewritten after every kernel: a later crash loses nothing measured
            f.write(perfdata.write_csv(rows, perfdata.BENCH_FIELDS))
        if proc.returncode != 0 or proc.stderr.strip():
            say("    " + (proc.stderr.strip() or "exit status %d" % proc.returncode).replace("\n", "\n    "))
    table = perfdata.bench_table(rows)
    say("\n" + table)
    series = {}
    for r in rows:
        if r["M"] == r["N"] == r["K"] and r["verified"] and r["kernel"] != perfdata.CUBLAS_TF32:
            series.setdefault(r["kernel"], []).append((r["M"], r["gflops"]))
    with open(os.path.join(out, "gflops.svg"), "w") as f:
        f.write(svgplot.throughput_chart(series, title="SGEMM on %s: GFLOP/s against n" % info["name"]))
    roof = perfdata.Roofline(info)
    points = roofline_points(binaries, rows, args.roofline_size)
    if points:
        with open(os.path.join(out, "roofline.svg"), "w") as f:
            f.write(svgplot.roofline_chart(roof, points, "Roofline at n = %d: %s" % (args.roofline_size, info["name"])))
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write("%s (peak FP32 %s GFLOP/s, DRAM %s GB/s)\n\n%s\n" % (
            info["name"], perfdata.thousands(roof.peak_flops / 1e9), perfdata.thousands(roof.bandwidth / 1e9), table))
    say("\nwrote build/bench/bench.csv, bench.md, gflops.svg%s" % (", roofline.svg" if points else ""))
    return 0 if all(r["verified"] for r in rows) else 1


def roofline_points(binaries, rows, n):
    """(label, intensity, GFLOP/s) per kernel measured at n³; the emulator counts the kernels side by side."""
    measured = {}
    for r in rows:
        if r["M"] == r["N"] == r["K"] == n and r["verified"]:
            measured[r["kernel"]] = r["gflops"]
    todo = [(label, lab, kernel) for label, lab, kernel, _ in binaries if label in measured]
    if not todo:
        say("  (no roofline: no kernel was measured at n = %d; --roofline-size picks another)" % n)
        return []
    say("  counting each kernel's traffic at %d³ on the emulator" % n)
    with concurrent.futures.ThreadPoolExecutor(len(todo)) as pool:
        counts = list(pool.map(lambda t: emulator_traffic(t[1], t[2], n, n, n), todo))
    return [(label, perfdata.intensity(n, n, n, c["bytes_read"] + c["bytes_written"]), measured[label])
            for (label, _, _), c in zip(todo, counts) if c]


# ---------------------------------------------------------------------------------------------------------------
# make profile
# ---------------------------------------------------------------------------------------------------------------
def parse_shape(text):
    """'4096x4096x1023' -> (M, N, K), as gemm_bench takes them; SystemExit with the reason otherwise."""
    parts = text.lower().split("x")
    if len(parts) != 3 or not all(p.isdigit() and int(p) >= 1 for p in parts):
        raise SystemExit("gputool: a shape is MxNxK, three whole numbers >= 1, not '%s'" % text)
    return tuple(int(p) for p in parts)


def traffic_rows(lab, kernel, M, N, K, shape_text):
    """The profile's first rows: the lab's traffic formula and the emulator's exact count (up to
    EMULATOR_MAX_SIZE)."""
    expected, formula = labs.find(lab).traffic_bytes(M, N, K)
    if max(M, N, K) <= EMULATOR_MAX_SIZE:
        counts = emulator_traffic(lab, kernel, M, N, K)
    else:
        counts = None
        say("  (emulator count skipped: %s is more than the %d³ the CPU emulator counts in reasonable time)"
            % (shape_text, EMULATOR_MAX_SIZE))
    return [["global bytes by the formula %s" % formula, perfdata.thousands(expected)],
            ["global bytes counted by the emulator (loads + stores)",
             perfdata.thousands(counts["bytes_read"] + counts["bytes_written"]) if counts else "–"]]


def cmd_profile(args):
    need_gpu("profile")  # before any work: the emulator's count alone is make traffic's and make coalescing's job
    if not shutil.which("ncu"):
        say("make profile needs Nsight Compute (ncu) on the PATH")
        return 1
    lab = lab_folder(args.lab)
    kernel = os.path.abspath(args.kernel) if args.kernel else reference_kernel(lab) or \
        os.path.join(ROOT, "labs", lab, "kernel.cu")
    if not os.path.isfile(kernel):
        raise SystemExit("gputool: no kernel file '%s'" % kernel)
    if args.shape:
        M, N, K = parse_shape(args.shape)
        shape_text = "%d×%d·%d×%d" % (M, K, K, N)
    else:
        M = N = K = args.size
        shape_text = "n = %d" % args.size
    out = os.path.join(ROOT, "build", "profile", slug(lab + "-" + os.path.relpath(kernel, ROOT)))
    rows = traffic_rows(lab, kernel, M, N, K, shape_text)
    title = "%s, %s, %s" % (lab, os.path.relpath(kernel, ROOT), shape_text)
    binary = build_bench(lab, kernel, os.path.join(out, "gemm_bench"))
    metrics = dict(NCU_METRICS, **NCU_WHY_METRICS)

    def ncu(names):
        return subprocess.run(["ncu", "--csv", "--print-units", "base", "--metrics", ",".join(names), binary,
                               "--profile", "%dx%dx%d" % (M, N, K)], capture_output=True, text=True, timeout=600)
    proc = ncu(metrics)
    if proc.returncode != 0:  # an older ncu may not know a metric of the second set: the first alone, then
        say("  (ncu refused the stall metrics, so they are left out: %s)"
            % ((proc.stdout + proc.stderr).strip().splitlines() or ["?"])[-1])
        metrics = dict(NCU_METRICS)
        proc = ncu(metrics)
    if proc.returncode != 0:
        raise SystemExit("gputool: ncu failed: %s" % (proc.stdout + proc.stderr).strip()[-2000:])
    launches = perfdata.parse_ncu_csv(proc.stdout)
    for launch_id, m in sorted(launches.items()):
        table = list(rows)
        for metric, what in metrics.items():
            v = m.get(metric)
            if v is None:
                cell = "–"
            elif metric.endswith("pct_of_peak_sustained_active"):
                cell = "%.1f %%" % v
            elif metric.endswith(".ratio"):
                cell = "%.2f" % v
            elif metric.startswith("gpu__time"):
                cell = "%.3f ms" % (v / 1e6)
            elif "bytes" in metric:
                cell = "{:,} ({})".format(int(v), perfdata.si_bytes(v))
            else:
                cell = "{:,}".format(int(v))
            table.append(["%s (%s)" % (what, metric), cell])
        text = "## %s — kernel %s\n\n%s\n" % (title, m["kernel"], perfdata.markdown_table(["quantity", "value"], table))
        say(text)
        with open(os.path.join(out, "profile.md"), "a" if launch_id else "w") as f:
            f.write(text + "\n")
    say("wrote %s" % os.path.relpath(os.path.join(out, "profile.md"), os.getcwd()))
    return 0


# ---------------------------------------------------------------------------------------------------------------
# make sanitize
# ---------------------------------------------------------------------------------------------------------------
def build_tests(lab, kernel, out):
    return nvcc([os.path.join(ROOT, "labs", lab, "tests.cpp"), kernel] +
                [os.path.join(COMMON, s) for s in ("harness.cpp", "reference_gemm.cpp", "doctest_main.cpp")],
                lab, os.path.join(out, "tests"))


def sanitize_binary(binary, out):
    """[(tool, verdict line)]: the lab's correctness tests (all but the large case) under each compute-sanitizer
    tool; the full reports go to out/<tool>.log."""
    verdicts = []
    for tool in SANITIZER_TOOLS:
        cmd = ["compute-sanitizer", "--tool", tool, "--print-limit", "3", binary, "--test-case-exclude=large*"]
        if tool == "racecheck":
            cmd[3:3] = ["--racecheck-report", "hazard"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            text, timed_out = proc.stdout + proc.stderr, False
        except subprocess.TimeoutExpired as e:
            text, timed_out = (e.stdout or b"").decode(errors="replace"), True
        with open(os.path.join(out, tool + ".log"), "w") as f:
            f.write(text)
        verdicts.append((tool, perfdata.sanitizer_verdict(tool, text, timed_out)))
    return verdicts


def cmd_sanitize(args):
    need_gpu("sanitize")
    if not shutil.which("compute-sanitizer"):
        say("make sanitize needs compute-sanitizer on the PATH (CUDA Toolkit)")
        return 1
    lab = lab_folder(args.lab)
    kernel = os.path.abspath(args.kernel) if args.kernel else os.path.join(ROOT, "labs", lab, "kernel.cu")
    if not os.path.isfile(kernel):
        raise SystemExit("gputool: no kernel file '%s'" % kernel)
    out = os.path.join(ROOT, "build", "sanitize", slug(lab + "-" + os.path.relpath(kernel, ROOT)))
    say("sanitize: %s with %s's tests (logs in %s)" % (os.path.relpath(kernel, ROOT), lab, os.path.relpath(out, ROOT)))
    verdicts = sanitize_binary(build_tests(lab, kernel, out), out)
    for _, line in verdicts:
        say("  " + line)
    return 0 if all(v.endswith(": clean") for _, v in verdicts) else 1


def cmd_sanitize_catalogue(args):
    need_gpu("sanitize-catalogue")
    try:
        found = catalogue.materialise_all()  # every entry, and what the emulator must report for it (make test)
    except catalogue.CatalogueError as e:
        raise SystemExit("gputool: %s" % e)
    if not found:
        raise SystemExit("gputool: sanitize-catalogue needs the grader's catalogue (grader/catalogue/), which the "
                         "student handout does not have")
    if args.lab:
        only = labs.find(args.lab)
        found = {entry: path for entry, path in found.items() if entry.lab.folder == only.folder}
    jobs = []
    for entry, path in found.items():
        out = os.path.join(ROOT, "build", "sanitize", "catalogue", slug(entry.name))
        jobs.append((entry, path, out))
    say("sanitize-catalogue: building %d kernels' tests" % len(jobs))
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        binaries = list(pool.map(lambda j: build_tests(j[0].lab.folder, j[1], j[2]), jobs))
    say("sanitize-catalogue: four tools on each")
    with concurrent.futures.ThreadPoolExecutor(4) as pool:  # separate processes share the GPU
        verdicts = list(pool.map(lambda jb: dict(sanitize_binary(jb[1], jb[0][2])), zip(jobs, binaries)))
    rows = []
    for (entry, _, _), v in zip(jobs, verdicts):
        emulator = "fails %s: %s" % (", ".join(sorted(entry.fails)), "; ".join(entry.words)) if entry.fails else "passes"
        rows.append([entry.name + ".cu"] + [short_verdict(v[t]) for t in SANITIZER_TOOLS] + [emulator])
    table = perfdata.markdown_table(["kernel"] + SANITIZER_TOOLS + ["emulator (make grade)"], rows,
                                    ["l"] * (len(SANITIZER_TOOLS) + 2))
    with open(os.path.join(ROOT, "build", "sanitize", "catalogue.md"), "w") as f:
        f.write(table + "\n")
    say("\n" + table + "\n\nwrote build/sanitize/catalogue.md")
    return 0


# ---------------------------------------------------------------------------------------------------------------
# make autotune
# ---------------------------------------------------------------------------------------------------------------
TUNABLE = ["BM", "BN", "BK", "WM", "WN", "WMITER", "WNITER", "TM", "TN", "MIN_BLOCKS"]


def lab6_candidates(wide=False, only=None):
    """Tile shapes of the lab 6 reference worth timing: the kernel's static_asserts hold, 128 or 256 threads,
    64 or 128 outputs per thread, a block tile at least lab.h's 128×128 (so the lab's traffic bound still holds),
    4×4 register tiles (wide: 4 or 8 rows and columns). only: {"BN": 256, ...} keeps the shapes that match."""
    out = []
    for bm, bn, bk, wm, wn, wmiter, wniter, tm, tn, min_blocks in itertools.product(
            (128, 256), (128, 256), (8, 16), (32, 64, 128), (32, 64, 128), (1, 2, 4), (1, 2, 4), (4, 8), (4, 8), (1, 2)):
        if bm % wm or bn % wn or wm % wmiter or wn % wniter:
            continue
        threads = 32 * (bm // wm) * (bn // wn)
        sub_m, sub_n = wm // wmiter, wn // wniter
        outputs = wmiter * tm * wniter * tn
        if threads not in (128, 256) or sub_m % tm or sub_n % tn or (sub_m // tm) * (sub_n // tn) != 32:
            continue
        if (bm * bk // 4) % threads or (bk * bn // 4) % threads or 2 * bk * (bm + bn) * 4 > 48 * 1024:
            continue
        if outputs not in (64, 128) or (min_blocks == 2 and outputs == 128):  # 128 outputs need > 128 registers
            continue
        if not wide and (tm, tn) != (4, 4):
            continue
        c = dict(zip(TUNABLE, (bm, bn, bk, wm, wn, wmiter, wniter, tm, tn, min_blocks)))
        if all(c[k] == v for k, v in (only or {}).items()):
            out.append(c)
    return out


def parse_only(text):
    only = {}
    for item in filter(None, (text or "").split(",")):
        key, _, value = item.partition("=")
        if key not in TUNABLE or not value.isdigit():
            raise SystemExit("gputool: --only takes NAME=VALUE,... with NAME one of %s, not '%s'" % (" ".join(TUNABLE), item))
        only[key] = int(value)
    return only


def cmd_autotune(args):
    device = need_gpu("autotune")
    lab = lab_folder("6")
    kernel = reference_kernel(lab)
    if not kernel:
        raise SystemExit("gputool: autotune tunes solutions/%s/kernel.cu, which this tree does not have" % lab)
    out = os.path.join(ROOT, "build", "autotune")
    os.makedirs(out, exist_ok=True)
    candidates = lab6_candidates(args.wide, parse_only(args.only))
    if not candidates:
        raise SystemExit("gputool: no tile shape matches --only %s" % args.only)
    say("autotune: %s; %d tile shapes of %s at %d³" % (device, len(candidates), lab, args.size))
    arch = os.environ.get("CUDA_ARCH", "native")
    bench_obj = os.path.join(out, "gemm_bench.o")
    run_checked(["nvcc", "-O2", "-std=c++17", "-arch=" + arch, "-I", COMMON, "-I", os.path.join(ROOT, "labs", lab),
                 "-c", os.path.join(HERE, "gemm_bench.cu"), "-o", bench_obj], "nvcc gemm_bench.cu")

    def build(c):
        name = "-".join("%s%d" % (k, v) for k, v in c.items())
        binary = os.path.join(out, name)
        proc = subprocess.run(["nvcc", "-O2", "-std=c++17", "-arch=" + arch, "-I", COMMON, "-I",
                               os.path.join(ROOT, "labs", lab)] + ["-DLAB6_%s=%d" % kv for kv in c.items()] +
                              ["-o", binary, kernel, bench_obj, "-lcublas"], capture_output=True, text=True)
        return binary if proc.returncode == 0 else None

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        binaries = list(pool.map(build, candidates))
    shapes = "%dx%dx%d" % (args.size, args.size, args.size)
    rows = []
    for c, binary in zip(candidates, binaries):
        row = dict(c, gflops=0.0, status="did not compile")
        if binary:
            proc = subprocess.run([binary, "--impl", "kernel", "--shapes", shapes, "--reps", "5", "--warmup", "2"],
                                  capture_output=True, text=True, timeout=300)
            lines = [l for l in proc.stdout.splitlines() if l.strip()]
            if proc.returncode == 0 and lines:
                r = perfdata.parse_bench_line("lab6", lines[-1])
                row.update(gflops=r["gflops"], status="ok" if r["verified"] else "wrong")
            else:
                row["status"] = "failed: " + (proc.stderr.strip().splitlines() or ["?"])[-1]
        rows.append(row)
    cublas = subprocess.run([next(b for b in binaries if b), "--impl", "cublas-fp32", "--shapes", shapes, "--reps", "5"],
                            capture_output=True, text=True).stdout.strip().splitlines()
    cublas_gflops = perfdata.parse_bench_line(perfdata.CUBLAS_FP32, cublas[-1])["gflops"] if cublas else 0
    rows.sort(key=lambda r: -r["gflops"])
    with open(os.path.join(out, "autotune.csv"), "w") as f:
        f.write(perfdata.write_csv(rows, TUNABLE + ["gflops", "status"]))
    table = [[" ".join("%s=%d" % (k, r[k]) for k in TUNABLE), perfdata.thousands(r["gflops"]),
              "%d %%" % round(100 * r["gflops"] / cublas_gflops) if cublas_gflops else "–", r["status"]]
             for r in rows[:args.top]]
    say(perfdata.markdown_table(["tile shape (-D LAB6_...)", "GFLOP/s", "% of cuBLAS FP32", "status"], table))
    say("cuBLAS FP32 in the same run: %s GFLOP/s" % perfdata.thousands(cublas_gflops))
    best = rows[0]
    say("best: " + " ".join("-DLAB6_%s=%d" % (k, best[k]) for k in TUNABLE))
    say("wrote build/autotune/autotune.csv")
    return 0


def short_verdict(line):
    """A table cell: 'clean', or the first error in a few words and how many there were."""
    body = line.split(": ", 1)[1]
    if body == "clean":
        return "clean"
    m = re.match(r"(\d+) errors?: (.*)", body)
    if not m:
        return body
    first = m.group(2)
    race = re.search(r"Potential (\w+) hazard detected at __shared__", first)
    if race:
        first = "%s hazard on shared memory" % race.group(1)
    return "**%s** (%s)" % (first[:70], m.group(1))


def main(argv):
    parser = argparse.ArgumentParser(prog="gputool", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("bench")
    p.add_argument("--lab")
    p.add_argument("--kernel")
    p.add_argument("--submission")
    p.add_argument("--sizes", default="512 1024 2048 4096 8192")
    p.add_argument("--shapes", default="1000x1200x800 8192x1024x4096 1024x8192x4096 4096x4096x1023")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--roofline-size", type=int, default=2048)
    p = sub.add_parser("profile")
    p.add_argument("--lab", default="3")
    p.add_argument("--kernel")
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--shape", help="MxNxK instead of n³, e.g. 4096x4096x1023")
    p = sub.add_parser("sanitize")
    p.add_argument("--lab", default="3")
    p.add_argument("--kernel")
    p = sub.add_parser("sanitize-catalogue")
    p.add_argument("--lab", help="only this lab's kernels (6, lab6 or lab6-warptiling)")
    p = sub.add_parser("autotune")
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--wide", action="store_true", help="also 8-row and 8-column register tiles (four times the shapes)")
    p.add_argument("--only", help="keep shapes with these values, e.g. BN=256,BK=16")
    args = parser.parse_args(argv)
    return {"bench": cmd_bench, "profile": cmd_profile, "sanitize": cmd_sanitize,
            "sanitize-catalogue": cmd_sanitize_catalogue, "autotune": cmd_autotune}[args.command](args)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
