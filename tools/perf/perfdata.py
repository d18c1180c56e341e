"""perfdata — the numbers behind `make bench` and `make profile`: CSV rows, the device's roofline, tables.

Everything here is plain computation on data handed in, so it is unit-tested on the CPU with canned inputs
(tests/perf/test_perf.py); the GPU only produces the inputs.
"""
import csv
import io
import math
import re

BENCH_FIELDS = ["kernel", "M", "N", "K", "reps", "median_ms", "min_ms", "gflops", "verified", "worst_error_ratio"]
CUBLAS_FP32 = "cuBLAS FP32"
CUBLAS_TF32 = "cuBLAS TF32"

# FP32 lanes (FFMA per clock) of one SM, by compute capability: the CUDA C++ Programming Guide's arithmetic
# throughput table. The runtime reports SMs and clocks but not this.
FP32_LANES_PER_SM = {(6, 0): 64, (6, 1): 128, (7, 0): 64, (7, 5): 64, (8, 0): 64, (8, 6): 128, (8, 7): 128,
                     (8, 9): 128, (9, 0): 128, (10, 0): 128, (12, 0): 128}


# ---------------------------------------------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------------------------------------------
def parse_bench_line(kernel, line):
    """One CSV line of gemm_bench (impl,M,N,K,reps,median_ms,min_ms,gflops,verified,worst_error_ratio) -> row."""
    parts = line.strip().split(",")
    if len(parts) != 10:
        raise ValueError("not a gemm_bench line: %r" % line)
    return {"kernel": kernel, "M": int(parts[1]), "N": int(parts[2]), "K": int(parts[3]), "reps": int(parts[4]),
            "median_ms": float(parts[5]), "min_ms": float(parts[6]), "gflops": float(parts[7]),
            "verified": parts[8] == "yes", "worst_error_ratio": float(parts[9])}


def write_csv(rows, fields):
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({f: ("yes" if r[f] is True else "no" if r[f] is False else r[f]) for f in fields})
    return out.getvalue()


def read_bench_csv(text):
    rows = []
    for r in csv.DictReader(io.StringIO(text)):
        rows.append({"kernel": r["kernel"], "M": int(r["M"]), "N": int(r["N"]), "K": int(r["K"]), "reps": int(r["reps"]),
                     "median_ms": float(r["median_ms"]), "min_ms": float(r["min_ms"]), "gflops": float(r["gflops"]),
                     "verified": r["verified"] == "yes", "worst_error_ratio": float(r["worst_error_ratio"])})
    return rows


def shape_name(r):
    return "%d³" % r["M"] if r["M"] == r["N"] == r["K"] else "%d×%d·%d×%d" % (r["M"], r["K"], r["K"], r["N"])


# ---------------------------------------------------------------------------------------------------------------
# The device's roofline
# ---------------------------------------------------------------------------------------------------------------
class Roofline:
    """Peak FP32 rate and DRAM bandwidth from the device's reported properties (gemm_bench --info)."""

    def __init__(self, info):
        cc = tuple(int(x) for x in info["compute_capability"].split("."))
        if cc not in FP32_LANES_PER_SM:
            raise ValueError("no FP32 lane count known for compute capability %d.%d" % cc)
        self.name = info["name"]
        self.peak_flops = info["sms"] * FP32_LANES_PER_SM[cc] * 2 * info["clock_khz"] * 1e3  # an FFMA is 2 FLOPs
        self.bandwidth = 2 * info["memory_clock_khz"] * 1e3 * info["memory_bus_bits"] / 8    # double data rate

    @property
    def ridge(self):
        """FLOP per byte where the memory roof meets the compute roof."""
        return self.peak_flops / self.bandwidth

    def attainable(self, intensity):
        return min(self.peak_flops, intensity * self.bandwidth)


def intensity(M, N, K, bytes_moved):
    """FLOP per byte of global traffic: 2·M·N·K over the bytes the kernel loads and stores."""
    return 2.0 * M * N * K / bytes_moved


# ---------------------------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------------------------
def markdown_table(header, rows, align=None):
    align = align or ["l"] + ["r"] * (len(header) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def bench_table(rows):
    """Markdown: one row per kernel, one column per shape, GFLOP/s and % of cuBLAS FP32 at that shape."""
    shapes = []
    for r in rows:
        key = (r["M"], r["N"], r["K"])
        if key not in shapes:
            shapes.append(key)
    kernels = []
    for r in rows:
        if r["kernel"] not in kernels:
            kernels.append(r["kernel"])
    by = {(r["kernel"], r["M"], r["N"], r["K"]): r for r in rows}
    out = []
    for k in kernels:
        cells = [k]
        for s in shapes:
            r = by.get((k,) + s)
            ref = by.get((CUBLAS_FP32,) + s)
            if r is None:
                cells.append("–")
            elif not r["verified"]:
                cells.append("wrong")
            elif ref and ref["verified"] and ref["gflops"] > 0 and k != CUBLAS_FP32:
                cells.append("%s (%d %%)" % (thousands(r["gflops"]), round(100 * r["gflops"] / ref["gflops"])))
            else:
                cells.append(thousands(r["gflops"]))
        out.append(cells)
    header = ["kernel (GFLOP/s, % of cuBLAS FP32)"] + [shape_name({"M": s[0], "N": s[1], "K": s[2]}) for s in shapes]
    return markdown_table(header, out)


def thousands(x):
    return "{:,}".format(int(round(x)))


def si_bytes(n):
    """1234567 -> '1.23 MB' (powers of 1000, as ncu prints)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return "%.3g %s" % (n / scale, unit)
    return "%d B" % n


# ---------------------------------------------------------------------------------------------------------------
# Nsight Compute and compute-sanitizer output
# ---------------------------------------------------------------------------------------------------------------
def parse_ncu_csv(text):
    """ncu --csv --print-units base: {kernel launch index: {"kernel": name, metric: float}}."""
    start = text.find('"ID"')
    if start < 0:
        raise ValueError("no ncu CSV table in the output")
    launches = {}
    for r in csv.DictReader(io.StringIO(text[start:])):
        launch = launches.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"]})
        value = r["Metric Value"].replace(",", "")
        try:
            launch[r["Metric Name"]] = float(value)
        except ValueError:
            launch[r["Metric Name"]] = math.nan
    return launches


SANITIZER_LOCATION = re.compile(r"=========\s+at .*? in (?:.*/)?([^/\s]+:\d+)")
# racecheck ends with "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)" instead
SANITIZER_SUMMARY = re.compile(r"ERROR SUMMARY: (\d+) errors?|RACECHECK SUMMARY: .*?\((\d+) errors?")


def sanitizer_verdict(tool, output, timed_out=False):
    """One line: 'clean', or how many errors, the first one and where."""
    if timed_out:
        return "%s: did not finish (timed out)" % tool
    m = SANITIZER_SUMMARY.search(output)
    if not m:
        return "%s: no summary (the program did not run to the end)" % tool
    errors = int(m.group(1) or m.group(2))
    if errors == 0:
        return "%s: clean" % tool
    first = ""
    for line in output.splitlines():
        body = line.replace("=========", "", 1).strip()
        if line.startswith("=========") and body and not line.startswith("========= COMPUTE-SANITIZER") \
                and not body.startswith(("ERROR SUMMARY", "RACECHECK SUMMARY", "Program hit", "Saved host")):
            first = re.sub(r"^Error: ", "", body)
            # "kernel(const float *, ...)+0x1f0 in /path/kernel.cu:38" -> "kernel in kernel.cu:38"
            first = re.sub(r"\((?:[^()]|\([^()]*\))*\)\+0x[0-9a-f]+ in (?:\S*/)?", " in ", first)
            break
    where = None if re.search(r"\.\w+:\d+", first) else SANITIZER_LOCATION.search(output)
    return "%s: %d error%s: %s%s" % (tool, errors, "" if errors == 1 else "s", first,
                                     " (%s)" % where.group(1) if where else "")
