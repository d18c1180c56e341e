#!/usr/bin/env python3
"""The emulator's warp-level requests, sectors and wavefronts, and its FLOP counts, against Nsight Compute's on a GPU.

  requests_ncu.py emu OUT.json [REGEX]    count on the emulator (any machine): every case, or those REGEX finds
  requests_ncu.py gpu OUT.json [REGEX]    count with ncu (a machine with an NVIDIA GPU and Nsight Compute); the
                                          cases already in OUT.json are kept
  requests_ncu.py table EMU.json GPU.json    the Markdown table of docs/results.md, one row per kernel launch
  requests_ncu.py summary EMU.json GPU.json  one row per catalogue kernel: which figures differ, if any
  requests_ncu.py flops EMU.json GPU.json    the Markdown table of FLOPs by kind, one row per launch but the
                                          catalogue's
  requests_ncu.py record GPU.json CASE OUT   one case's launches as a GPU recording (one JSON object a line), as
                                          tests/emu/programs/*.h100.json keep them

The cases: tests/emu/programs/requests.cu and flops.cu (hand-computable patterns), every lab's reference and every kernel of
the grader's catalogue, each at a shape of whole tiles and one with partial tiles (where its contract allows). A
launch is matched by its order. A known-wrong kernel may compute wrong values (the counts still compare) or fault:
its run then records the exit status, and the launches counted before the fault.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from course import catalogue, labs, toolchain
from tools.perf import perfdata  # ncu's CSV

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
# Floating-point arithmetic, per thread that executed it; tensor cores: math ops (FLOPs) by input type, where this
# GPU's Nsight Compute has them (figures that come back as -1 were not available; the names are the H100's).
FLOP_KEYS = ["fp32_fma", "fp32_mul", "fp32_add", "fp64_fma", "fp64_mul", "fp64_add", "tensor_tf32_flops",
             "tensor_f16_flops"]
FLOP_NCU = {
    "fp32_fma": "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "fp32_mul": "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "fp32_add": "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "fp64_fma": "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "fp64_mul": "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "fp64_add": "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "tensor_tf32_flops": "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
    "tensor_f16_flops": "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum",
}
SHAPES = ["128x128x128", "100x75x130"]  # M x N x K: whole tiles of every lab, and partial ones


def cases():
    out = [(name, os.path.join(ROOT, "tests", "emu", "programs", name), None, []) for name in ("requests.cu", "flops.cu")]
    kernels = [(lab, "solutions/%s/kernel.cu" % lab, os.path.join(ROOT, "solutions", lab, "kernel.cu"))
               for lab in labs.folders()]
    # the catalogue's kernels, materialised under build/catalogue and named as the grader names them
    kernels += [(e.lab.folder, e.shown, path) for e, path in catalogue.materialise_all().items()]
    for lab, shown, kernel in kernels:
        for shape in SHAPES:
            if any(int(d) % labs.find(lab).size_multiple for d in shape.split("x")):
                continue  # lab 2 takes multiples of its tile only
            out.append(("%s %s" % (shown, shape), kernel, lab, shape.split("x")))
    return out


def newest_input(backend, source):
    """The latest modification time among what a counting program is built from: its source, and on the emulator
    emucc and the runtime too (a program built before a change of either counts as the emulator did then)."""
    inputs = [source]
    if backend == "emu":
        emu = os.path.join(ROOT, "common", "emu")
        inputs += [os.path.join(d, f) for d in (emu, os.path.join(emu, "cudaemu_cc"), os.path.join(emu, "include"))
                   for f in os.listdir(d) if os.path.isfile(os.path.join(d, f))]
    return max(os.path.getmtime(p) for p in inputs)


def build(backend, name, source, lab):
    """The counting program for one case, or None when the kernel does not build with the driver."""
    out = os.path.join(ROOT, "build", "requests", backend, name.split(" ")[0].replace("/", "_")[:-3])
    os.makedirs(os.path.dirname(out), exist_ok=True)
    if os.path.exists(out) and os.path.getmtime(out) > newest_input(backend, source):
        return out  # the other shape of the same kernel
    if lab is None:
        cmd = ([os.path.join(ROOT, "common", "emu", "emucc"), "-O2"] if backend == "emu" else
               ["nvcc", "-O2", "-arch=native"]) + ["-I", os.path.join(ROOT, "tests", "emu", "programs"), source, "-o", out]
        subprocess.run(cmd, check=True)
        return out
    chain = toolchain.Toolchain(backend)
    includes = [os.path.join(ROOT, "labs", lab), os.path.join(ROOT, "common")]
    try:
        objs = [chain.compile(source, out + ".kernel.o", includes),
                chain.compile(os.path.join(HERE, "requests_driver.cpp"), out + ".driver.o", includes)]
        objs += [chain.compile(os.path.join(ROOT, "common", n), os.path.join(chain.dir, "obj", n[:-4] + ".o"),
                               includes) for n in ("harness.cpp", "reference_gemm.cpp")]
        chain.link(objs, out)
    except Exception as e:  # a catalogue kernel that leaves out what the driver calls
        print("%s: does not build with the driver: %s" % (name, str(e)[-300:]), file=sys.stderr)
        return None
    return out


def count_emu(binary, args):
    stats = binary + ".stats.jsonl"
    if os.path.exists(stats):
        os.remove(stats)
    env = dict(os.environ, CUDAEMU_STATS=stats, CUDAEMU_QUIET="1", CUDAEMU_REQUESTS="1", CUDAEMU_TIMEOUT="60")
    proc = subprocess.run([binary] + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    launches = [json.loads(line) for line in open(stats)] if os.path.exists(stats) else []
    counted = [dict({"kernel": r["kernel"]}, **{k: r.get(k, 0) for k in KEYS + FLOP_KEYS}) for r in launches]
    return {"exit": proc.returncode, "launches": counted}


def launches_from_ncu(text, metrics=None):
    """ncu's CSV (perfdata.parse_ncu_csv) -> one dict per launch, in order: its kernel's name and the figures of
    `metrics` (key: metric; KEYS' by default), -1 for one the CSV lacks."""
    launches = perfdata.parse_ncu_csv(text)

    def number(launch, metric):
        try:
            return int(float(str(launch[metric]).replace(",", "")))
        except (KeyError, ValueError):
            return -1
    return [dict({"kernel": launches[i]["kernel"].split("(")[0].split("<")[0]},
                 **{key: number(launches[i], metric) for key, metric in (metrics or NCU).items()})
            for i in sorted(launches)]


def available_metrics():
    """The FLOP_NCU metrics this GPU's Nsight Compute knows (names differ between GPU generations)."""
    listed = subprocess.run(["ncu", "--query-metrics"], capture_output=True, text=True, timeout=300).stdout
    names = {line.split()[0] for line in listed.splitlines() if line.strip()}
    return {key: metric for key, metric in FLOP_NCU.items() if metric.rsplit(".", 1)[0] in names}


def count_gpu(binary, args):
    metrics = dict(NCU, **available_metrics())
    proc = subprocess.run(["ncu", "--csv", "--print-units", "base", "--metrics", ",".join(metrics.values()), binary]
                          + args, capture_output=True, text=True, timeout=600)
    try:
        launches = launches_from_ncu(proc.stdout, metrics)
    except Exception:  # no launch profiled (a fault in the first, or none made)
        launches = []
    return {"exit": proc.returncode, "launches": launches}


def summary(emu, gpu):
    """The Markdown rows of the catalogue's table: per kernel and shape, the exit statuses, the launches counted and
    the figures that differ (summed over the launches), global and shared apart."""
    rows = ["| catalogue kernel | shape | exit (emulator, GPU) | launches | global figures | shared figures |",
            "|---|---|---|---|---|---|"]
    for name in emu:
        if "/catalogue/" not in name or name not in gpu:
            continue
        e, g = emu[name], gpu[name]
        pairs = list(zip(e["launches"], g["launches"]))
        differ = {k for a, b in pairs for k in KEYS if a[k] != b[k]}

        def verdict(keys):
            if not pairs:
                return "-"
            bad = [k for k in keys if k in differ]
            return "equal" if not bad else ", ".join(
                "%s %s vs %s" % (k, sum(a[k] for a, _ in pairs), sum(b[k] for _, b in pairs)) for k in bad)
        kernel, shape = name.split(" ")
        rows.append("| %s | %s | %d, %d | %d, %d | %s | %s |" % (
            kernel.replace("grader/catalogue/", ""), shape, e["exit"], g["exit"], len(e["launches"]),
            len(g["launches"]), verdict(KEYS[:4]), verdict(KEYS[4:])))
    return rows


def flops_table(emu, gpu):
    """Markdown rows: per launch (the catalogue's left out), the FLOPs of each kind on the emulator, with the GPU's
    beside any that differ; FP32 and FP64 count 2 per fma, and the columns by instruction follow."""
    def flops(launch, kind):
        return 2 * launch[kind + "_fma"] + launch[kind + "_mul"] + launch[kind + "_add"]

    def cell(e, g):
        return "{:,}".format(e) if g in (e, -1, None) else "**{:,}** (GPU {:,})".format(e, g)
    rows = ["| case | kernel | FP32 FLOPs | FP64 FLOPs | tensor TF32 | tensor FP16 | FP32 fma, mul, add |",
            "|---|---|---|---|---|---|---|"]
    for name in emu:
        if "/catalogue/" in name:
            continue
        for e, g in zip(emu[name]["launches"], gpu.get(name, {}).get("launches", [])):
            kinds = ", ".join(cell(e[k], g.get(k)) for k in ("fp32_fma", "fp32_mul", "fp32_add"))
            rows.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                name, e["kernel"], cell(flops(e, "fp32"), flops(g, "fp32")), cell(flops(e, "fp64"), flops(g, "fp64")),
                cell(e["tensor_tf32_flops"], g.get("tensor_tf32_flops")),
                cell(e["tensor_f16_flops"], g.get("tensor_f16_flops")), kinds))
    return rows


def main():
    if len(sys.argv) in (3, 4) and sys.argv[1] in ("emu", "gpu"):
        backend, result = sys.argv[1], {}
        if os.path.exists(sys.argv[2]):
            result = json.load(open(sys.argv[2]))
        for name, source, lab, args in cases():
            if len(sys.argv) == 4 and not re.search(sys.argv[3], name):
                continue
            binary = build(backend, name, source, lab)
            if binary:
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
            if "/catalogue/" in name:
                continue  # the summary's
            for e, g in zip(emu[name]["launches"], gpu.get(name, {}).get("launches", [])):
                cells = [str(e[k]) if e[k] == g.get(k) else "**%d** (GPU %s)" % (e[k], g.get(k)) for k in KEYS]
                print("| %s | %s | %s |" % (name, e["kernel"], " | ".join(cells)))
    elif len(sys.argv) == 4 and sys.argv[1] == "flops":
        print("\n".join(flops_table(*(json.load(open(p)) for p in sys.argv[2:]))))
    elif len(sys.argv) == 5 and sys.argv[1] == "record":
        launches = json.load(open(sys.argv[2]))[sys.argv[3]]["launches"]
        with open(sys.argv[4], "w") as f:
            f.write("[\n" + ",\n".join(json.dumps(launch) for launch in launches) + "\n]\n")
    elif len(sys.argv) == 4 and sys.argv[1] == "summary":
        print("\n".join(summary(*(json.load(open(p)) for p in sys.argv[2:]))))
    else:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
