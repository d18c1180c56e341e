#!/usr/bin/env python3
"""bench-emu — how fast the emulator runs the lab 3 reference kernel, next to Numba's CUDA simulator.

Emulated GFLOP/s (2·n³ per launch) at n = 64, 256, 512, with every check on (the default build), with warp-level
requests counted as well (CUDAEMU_REQUESTS=1), and with the checks off (emucc --no-checks), and in the same run Numba's simulator (Debian python3-numba, NUMBA_ENABLE_CUDASIM=1) on the
same kernel at n = 64; then a warp-shuffle sum reduction (tools/bench-emu/reduce.cu: __shfl_down_sync within each
warp, shared memory across warps) of REDUCE_N ints, checks on and off. Writes build/bench-emu/results.csv and
build/bench-emu/reduce.csv. A benchmark: it reports, it asserts nothing.
"""
import csv
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "build", "bench-emu")
LAB = os.path.join(ROOT, "labs", "lab3-boundary")
SIZES = [(64, 5), (256, 2), (512, 1)]  # n, repetitions (the fastest is kept)
REDUCE_N, REDUCE_REPS = 1 << 18, 3


def build(name, extra):
    exe = os.path.join(OUT, name)
    cmd = [os.path.join(ROOT, "common", "emu", "emucc"), "-O2", "-I", os.path.join(ROOT, "common"), "-I", LAB,
           "-o", exe, os.path.join(HERE, "driver.cpp"), os.path.join(ROOT, "common", "harness.cpp"),
           os.path.join(ROOT, "common", "reference_gemm.cpp"),
           os.path.join(ROOT, "solutions", "lab3-boundary", "kernel.cu")] + extra
    subprocess.run(cmd, check=True)
    return exe


def build_reduce(name, extra):
    exe = os.path.join(OUT, name)
    subprocess.run([os.path.join(ROOT, "common", "emu", "emucc"), "-O2", "-o", exe,
                    os.path.join(HERE, "reduce.cu")] + extra, check=True)
    return exe


def timed(cmd, env=None):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout.split()
    return float(out[1])


def main():
    os.makedirs(OUT, exist_ok=True)
    checked, unchecked = build("matmul_checked", []), build("matmul_unchecked", ["--no-checks"])
    threads = os.environ.get("CUDAEMU_THREADS") or str(os.cpu_count())
    rows = []
    for n, reps in SIZES:
        flops = 2.0 * n ** 3
        on = timed([checked, str(n), str(reps)])
        requests = timed([checked, str(n), str(reps)], env=dict(os.environ, CUDAEMU_REQUESTS="1"))
        off = timed([unchecked, str(n), str(reps)])
        rows.append({"n": n, "checks_on_s": on, "checks_off_s": off, "checks_on_gflops": flops / on / 1e9,
                     "checks_off_gflops": flops / off / 1e9, "requests_on_s": requests,
                     "requests_on_gflops": flops / requests / 1e9})
    numba_s = None
    try:
        numba_s = timed(["/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable,
                         os.path.join(HERE, "numba_tiled.py"), "64"],
                        env=dict(os.environ, NUMBA_ENABLE_CUDASIM="1"))
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        print("bench-emu: Numba's simulator did not run (apt-get install python3-numba): %s" % e, file=sys.stderr)
    print("Emulated 16×16 tiled matmul (lab 3 reference), %s worker threads" % threads)
    print("%6s %14s %10s %18s %10s %14s %10s" % ("n", "checks on (s)", "GFLOP/s", "+ requests (s)", "GFLOP/s",
                                                  "checks off (s)", "GFLOP/s"))
    for r in rows:
        print("%6d %14.4f %10.4f %18.4f %10.4f %14.4f %10.4f" % (
            r["n"], r["checks_on_s"], r["checks_on_gflops"], r["requests_on_s"], r["requests_on_gflops"],
            r["checks_off_s"], r["checks_off_gflops"]))
    if numba_s:
        on64 = rows[0]["checks_on_s"]
        print("Numba CUDA simulator, n=64: %.3f s (%.6f GFLOP/s); the emulator with all checks on is %.0f× faster"
              % (numba_s, 2.0 * 64 ** 3 / numba_s / 1e9, numba_s / on64))
    with open(os.path.join(OUT, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) + ["numba_n64_s"])
        w.writeheader()
        for r in rows:
            w.writerow(dict(r, numba_n64_s=numba_s if r["n"] == 64 and numba_s else ""))
    print("wrote build/bench-emu/results.csv")

    reduce_on = timed([build_reduce("reduce_checked", []), str(REDUCE_N), str(REDUCE_REPS)])
    reduce_off = timed([build_reduce("reduce_unchecked", ["--no-checks"]), str(REDUCE_N), str(REDUCE_REPS)])
    print("Warp-shuffle sum reduction of %d ints (256-thread blocks, 5 shuffles per warp and level):" % REDUCE_N)
    print("  checks on %.4f s (%.2f M elements/s), checks off %.4f s (%.2f M elements/s)"
          % (reduce_on, REDUCE_N / reduce_on / 1e6, reduce_off, REDUCE_N / reduce_off / 1e6))
    with open(os.path.join(OUT, "reduce.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n", "checks_on_s", "checks_off_s"])
        w.writerow([REDUCE_N, reduce_on, reduce_off])
    print("wrote build/bench-emu/reduce.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
