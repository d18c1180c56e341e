#!/usr/bin/env python3
"""The emulator's warp-level requests, sectors and wavefronts against Nsight Compute's on a GPU.

  requests_ncu.py emu OUT.json     count on the emulator (any machine)
  requests_ncu.py gpu OUT.json     count with ncu (a machine with an NVIDIA GPU and Nsight Compute)
  requests_ncu.py table EMU.json GPU.json    the Markdown table of docs/results.md, one row per kernel launch

The cases: tests/emu/programs/requests.cu (hand-computable patterns), every lab's reference and lab 1's
row_from_x.cu, each at a shape of whole tiles and one with partial tiles (where its contract allows). A launch is matched by its order and name.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "grader"))
import labtool  # noqa: E402
import perfdata  # noqa: E402  (ncu's CSV)

KEYS = ["global_load_requests", "global_load_sectors", "global_store_requests", "global_store_sectors",
        "shared_load_requests", "shared_load_wavefronts", "shared_store_requests", "shared_store_wavefronts"]
NCU = {
    "global_load_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "global_load_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_store_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "global_store_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "shared_load_requests": "smsp__sass_inst_executed_op_shared_ld.sum",
    "shared_load_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_store_requests": "smsp__sass_inst_executed_op_shared_st.sum",
    "shared_store_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}
SHAPES = ["128x128x128", "100x75x130"]  # M x N x K: whole tiles of every lab, and partial ones


def cases():
    out = [("requests.cu", os.path.join(ROOT, "tests", "emu", "programs", "requests.cu"), None, [])]
    kernels = [(lab, os.path.join(ROOT, "solutions", lab, "kernel.cu")) for lab in labtool.LABS]
    kernels.append(("lab1-naive", os.path.join(ROOT, "grader", "catalogue", "lab1", "row_from_x.cu")))
    for lab, kernel in kernels:
        for shape in SHAPES:
            if any(int(d) % labtool.size_multiple(lab) for d in shape.split("x")):
                continue  # lab 2 takes multiples of its tile only
            out.append(("%s %s" % (os.path.relpath(kernel, ROOT), shape), kernel, lab, shape.split("x")))
    return out


def build(backend, name, source, lab):
    out = os.path.join(ROOT, "build", "requests", backend, name.split(" ")[0].replace("/", "_")[:-3])
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if os.path.exists(out) and os.path.getmtime(out) > os.path.getmtime(source):
        return out  # the other shape of the same kernel
    if lab is None:
        cmd = ([os.path.join(ROOT, "tools", "emucc"), "-O2"] if backend == "emu" else
               ["nvcc", "-O2", "-arch=native"]) + ["-I", os.path.join(ROOT, "tests", "emu", "programs"), source, "-o", out]
        subprocess.run(cmd, check=True)
        return out
    chain = labtool.Toolchain(backend)
    includes = [os.path.join(ROOT, "labs", lab), os.path.join(ROOT, "common")]
    objs = [chain.compile(source, out + ".kernel.o", includes),
            chain.compile(os.path.join(HERE, "requests_driver.cpp"), out + ".driver.o", includes)]
    objs += [chain.compile(os.path.join(ROOT, "common", n), os.path.join(chain.dir, "obj", n[:-4] + ".o"), includes)
             for n in ("harness.cpp", "reference_gemm.cpp")]
    chain.link(objs, out)
    return out


def count_emu(binary, args):
    stats = binary + ".stats.jsonl"
    if os.path.exists(stats):
        os.remove(stats)
    env = dict(os.environ, CUDAEMU_STATS=stats, CUDAEMU_QUIET="1", CUDAEMU_REQUESTS="1")
    subprocess.run([binary] + args, check=True, env=env, stdout=subprocess.DEVNULL)
    launches = [json.loads(line) for line in open(stats)]
    return [dict({"kernel": r["kernel"]}, **{k: r[k] for k in KEYS}) for r in launches]


def launches_from_ncu(text):
    """ncu's CSV (perfdata.parse_ncu_csv) -> one dict per launch, in order: its kernel's name and KEYS."""
    launches = perfdata.parse_ncu_csv(text)
    return [dict({"kernel": launches[i]["kernel"].split("(")[0].split("<")[0]},
                 **{key: int(launches[i][metric]) for key, metric in NCU.items()}) for i in sorted(launches)]


def count_gpu(binary, args):
    proc = subprocess.run(["ncu", "--csv", "--print-units", "base", "--metrics", ",".join(NCU.values()), binary]
                          + args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit("ncu failed: " + (proc.stdout + proc.stderr)[-2000:])
    return launches_from_ncu(proc.stdout)


def main():
    if len(sys.argv) == 3 and sys.argv[1] in ("emu", "gpu"):
        backend, result = sys.argv[1], {}
        for name, source, lab, args in cases():
            binary = build(backend, name, source, lab)
            result[name] = (count_emu if backend == "emu" else count_gpu)(binary, args)
            print(name, file=sys.stderr)
        os.makedirs(os.path.dirname(os.path.abspath(sys.argv[2])), exist_ok=True)
        with open(sys.argv[2], "w") as f:
            json.dump(result, f, indent=1)
    elif len(sys.argv) == 4 and sys.argv[1] == "table":
        emu, gpu = (json.load(open(p)) for p in sys.argv[2:])
        short = ["gld req", "gld sect", "gst req", "gst sect", "lds req", "lds wavef", "sts req", "sts wavef"]
        print("| case | kernel | " + " | ".join(short) + " |")
        print("|---|---|" + "---|" * len(short))
        for name in emu:
            for e, g in zip(emu[name], gpu.get(name, [])):
                cells = [str(e[k]) if e[k] == g.get(k) else "**%d** (GPU %s)" % (e[k], g.get(k)) for k in KEYS]
                print("| %s | %s | %s |" % (name, e["kernel"], " | ".join(cells)))
    else:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
