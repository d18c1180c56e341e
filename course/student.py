"""A student's own runs: `make labN` (the lab's tests on their kernel, then a demo and the demo's memory requests
per source line) and `make pitfall` (a known-wrong kernel through the same tests, to see the feedback its bug
gets). Nothing here is graded.
"""
import json
import os
import subprocess

from . import cache, labs, pitfalls
from .paths import ROOT
from .runner import test_env
from .toolchain import BuildError, Toolchain, choose_backend_saying_why, say


def cmd_lab(args):
    try:
        the_lab = labs.find(args.lab)
    except labs.LabError as e:
        raise SystemExit("course: %s" % e)
    lab = the_lab.folder
    kernel = args.kernel or os.path.join("labs", lab, "kernel.cu")
    if not os.path.isfile(kernel):
        raise SystemExit("course: no kernel file '%s'" % kernel)
    backend, why = choose_backend_saying_why(args.backend)
    backends = [backend] if backend == "emu" else ["gpu", "emu"]  # traffic and safety always on the emulator
    ok = True
    for b in backends:
        out_dir = os.path.join(ROOT, "build", b, lab, "student")
        try:
            bins = Toolchain(b).build_lab(lab, kernel, out_dir)
        except BuildError as e:
            say(str(e))
            say("course: %s did not build" % kernel)
            return 1
        cache.used(out_dir)  # in use: another command's pruning (course/cache.py) spares it until this one ends
        title = "on the GPU" if b == "gpu" else "on the CPU emulator"
        say("== %s: tests %s%s" % (lab, title, " (%s)" % why if why and b == backend else ""))
        proc = subprocess.run([bins["tests"]] + (["--test-suite-exclude=correctness"] if len(backends) > 1 and
                                                  b == "emu" else []), env=test_env())
        ok = ok and proc.returncode == 0
        if b == backend and "demo" in bins:
            cache.used(out_dir)
            say("== %s: demo" % lab)
            demo_args = the_lab.demo_args
            # the emulator's findings are in the tests' report above: the demo only names them
            demo_env = dict(test_env(), CUDAEMU_QUIET="1")
            stats = os.path.join(out_dir, "demo.stats.jsonl")
            if b == "emu":  # the demo's memory requests, for the table after it
                if os.path.exists(stats):
                    os.remove(stats)
                demo_env.update(CUDAEMU_REQUESTS="1", CUDAEMU_STATS=stats)
            demo_ok = subprocess.run([bins["demo"]] + demo_args, env=demo_env).returncode == 0
            ok = demo_ok and ok
            if b == "emu" and demo_ok:
                for line in request_table(stats, lab):
                    say(line)
    if not ok:
        say("== %s: the lesson is %s" % (lab, os.path.relpath(the_lab.lesson, ROOT)))
    return 0 if ok else 1


REQUEST_TABLE_LINES = 8


def request_table(stats_path, lab):
    """The demo's warp-level memory requests per source line, from the emulator's stats file: a few lines for
    `make labN` (the student's own run; nothing here is graded)."""
    try:
        with open(stats_path, encoding="utf-8") as f:
            launches = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return []
    rows = {}
    for launch in launches:
        for entry in launch.get("lines", []):
            shared = entry["space"] == "shared"
            what = "shared %s" % entry["op"] if shared else "%s %s" % (entry["op"], entry["allocation"])
            row = rows.setdefault((entry["file"], entry["line"], what), [0, 0, 0])
            row[0] += entry["requests"]
            row[1] += entry["wavefronts" if shared else "sectors"]
            row[2] += entry["ideal"]
    if not rows:
        return []
    out = ["== %s: the demo's memory requests per source line (emulator; lesson 1 explains them)" % lab]
    ranked = sorted(rows.items(), key=lambda kv: -kv[1][0])[:REQUEST_TABLE_LINES]
    for (file, line, what), (requests, units, ideal) in sorted(ranked):
        unit = "wavefronts" if what.startswith("shared") else "sectors of 32 bytes"
        out.append("  %s:%d  %-13s %8s requests, %.1f %s each (%.1f at best)" % (
            os.path.basename(file), line, what, "{:,}".format(requests), units / requests, unit, ideal / requests))
    if len(rows) > REQUEST_TABLE_LINES:
        out.append("  (%d more lines)" % (len(rows) - REQUEST_TABLE_LINES))
    return out


# ---------------------------------------------------------------------------------------------------------------
# `make pitfall`
# ---------------------------------------------------------------------------------------------------------------
def cmd_pitfall(args):
    """Runs a known-wrong kernel through the lab's tests and demo on the emulator, to show the feedback its bug
    gets. Exits 0 when the tests fail, as they must; 1 if they pass (the pitfall no longer shows anything)."""
    try:
        the_lab = labs.find(args.lab) if args.lab else None
    except labs.LabError:
        the_lab = None
    if the_lab is None:
        raise SystemExit("course: say which lab: make pitfall LAB=N NAME=name (LAB one of %s)"
                         % ", ".join(str(lab.number) for lab in labs.all_labs()))
    lab = the_lab.folder
    found = pitfalls.available(lab)
    if not found:
        raise SystemExit("course: %s has no pitfalls to show" % lab)
    if args.name not in found:
        raise SystemExit("course: %s NAME=%s; %s's pitfalls: %s"
                         % ("no pitfall" if args.name else "say which pitfall:", args.name or "name", lab,
                            ", ".join(found)))
    pit = found[args.name]
    say("== pitfall %s (%s): %s" % (pit.name, lab, pit.description))
    out_dir = os.path.join(ROOT, "build", "emu", lab, "pitfall-" + pit.name)
    try:
        bins = Toolchain("emu").build_lab(lab, pit.source, out_dir, shown_as=pit.shown_as, prebuilt=pit.obj)
    except BuildError as e:
        say(str(e))
        say("course: the pitfall %s did not build here" % pit.name)
        return 1
    say("== %s: tests on the CPU emulator" % lab)
    failed = subprocess.run([bins["tests"]], env=test_env()).returncode != 0
    if "demo" in bins:
        cache.used(out_dir)  # in use: another command's pruning (course/cache.py) spares it until this one ends
        say("== %s: demo" % lab)
        subprocess.run([bins["demo"]] + the_lab.demo_args, env=dict(test_env(), CUDAEMU_QUIET="1"))
    if not failed:
        say("course: the pitfall %s passed every test: it no longer shows its bug" % pit.name)
        return 1
    say("== the failures above are what a kernel with this bug gets (%s)" % pit.name)
    return 0


