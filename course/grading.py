"""`make grade`: every lab of a submission built against the course's own tests and run one case at a time.

With a sandbox factory (class grading, grader/classgrade.py), each lab's kernel is built and run in a bubblewrap
sandbox, and a test stopped by one of its limits ends the lab: every remaining test gets the same reason. The test
cases come from the course's own test program (Toolchain.test_cases), never from the submission's.
"""
import concurrent.futures
import os
import time

from . import labs, paths, results, scoring
from .results import Status, TestResult, cap_output
from .runner import SandboxLimit, run_test_case
from .toolchain import BuildError, Refused, Toolchain, choose_backend, say, shown_path, staged_kernel

# A sandboxed lab's wall-clock budget for all its test cases together, however many there are
LAB_WALL_S = int(os.environ.get("GRADE_LAB_WALL_S") or 900)
# ... and its CPU budget, scaled from what the reference's tests take (lab.ini's `reference cpu s`): a kernel that
# is right but burns CPU (a spin in every test) costs the class at most this much. Per backend run.
LAB_CPU_FACTOR = float(os.environ.get("GRADE_LAB_CPU_FACTOR") or 10)
LAB_CPU_EXTRA_S = float(os.environ.get("GRADE_LAB_CPU_EXTRA_S") or 20)


def lab_cpu_budget(lab):
    """The CPU seconds a sandboxed lab's tests may take together, or None for no budget."""
    reference = labs.find(lab).manifest.reference_cpu_s
    return LAB_CPU_FACTOR * reference + LAB_CPU_EXTRA_S if reference > 0 else None


def grade_lab(lab, kernel, backend, work_dir, make_sandbox=None, shown_as=None):
    """[TestResult] for one lab's kernel. With make_sandbox (a function of the folder the lab is built in, returning a
    sandbox.Sandbox), the kernel is built and run in that sandbox. Diagnostics name the kernel shown_as (default: its
    path from here, or <lab>/kernel.cu)."""
    def not_built(status, why):  # the lab's only result: it scores zero
        return [TestResult(lab, "builds", "correctness", status, why)]

    if not os.path.isfile(kernel):
        return not_built(Status.MISSING, "no %s/kernel.cu in the submission" % lab)
    out = []
    runs = [("gpu", "correctness"), ("emu", None)] if backend == "gpu" else [("emu", None)]
    for b, only_suite in runs:
        out_dir = os.path.join(work_dir, b, lab)
        sandbox = None
        try:
            staged = staged_kernel(kernel, os.path.join(out_dir, "src"))
            if make_sandbox:
                sandbox = make_sandbox(out_dir)
                sandbox.prepare()
            bins = Toolchain(b, sandbox).build_lab(lab, staged, out_dir, shown_as=shown_as or shown_path(kernel, lab),
                                                   with_demo=not sandbox)
        except Refused as e:
            return not_built(Status.REFUSED, "kernel.cu refused: " + cap_output(str(e)))
        except BuildError as e:
            return not_built(Status.NOT_BUILT, "kernel.cu does not build:\n" + str(e)[-4000:])
        cases = Toolchain(b).test_cases(lab)  # the course's list, never the submission's
        stopped = None
        started = time.time()
        cpu_used, cpu_budget = 0.0, lab_cpu_budget(lab) if make_sandbox else None
        for name, suite in cases:
            # On the GPU backend the emulator runs the correctness cases too: what only it can see (a matmul()
            # that copies A or B to do the work elsewhere, a NaN from an uninitialised variable) fails the case
            # there, and a case must pass on both (merged below).
            if only_suite and suite != only_suite:
                continue
            if not stopped and make_sandbox and time.time() - started > LAB_WALL_S:
                stopped = "stopped by the lab's time budget (%d s for all its tests; GRADE_LAB_WALL_S)" % LAB_WALL_S
                out.append(TestResult(lab, name, suite, Status.STOPPED, stopped, backend=b))
            elif stopped:
                out.append(TestResult(lab, name, suite, Status.NOT_RUN, "not run: an earlier test was " + stopped,
                                      backend=b))
            else:
                try:
                    v = run_test_case(bins["tests"], name, sandbox)
                    cpu_used += v.cpu_s
                    if cpu_budget is not None and cpu_used > cpu_budget:
                        stopped = ("stopped by the lab's CPU budget: its tests took %.0f s of CPU by the end of this "
                                   "one, where %.0f s is allowed (%g times the reference's %.1f s, plus %g s): does "
                                   "your kernel or launcher spin or repeat work?"
                                   % (cpu_used, cpu_budget, LAB_CPU_FACTOR, labs.find(lab).manifest.reference_cpu_s,
                                      LAB_CPU_EXTRA_S))
                        out.append(TestResult(lab, name, suite, Status.STOPPED, stopped, backend=b))
                        continue
                    out.append(TestResult(lab, name, suite, v.status, v.output, v.findings, v.failed_checks,
                                          backend=b, cpu_s=v.cpu_s))
                except SandboxLimit as e:
                    stopped = str(e)
                    out.append(TestResult(lab, name, suite, Status.STOPPED, stopped, backend=b))
    return both_backends(out) if backend == "gpu" else out


def both_backends(results):
    """The GPU's correctness results, each failed where the same case failed on the emulator; the emulator's own
    correctness results are dropped (every other suite is the emulator's alone). A case the emulator does not run
    (the large one) passes only where every correctness case the emulator ran passed: only it sees a matmul() that
    does the work outside its kernels (a copy of A to the host), on any size."""
    on_emu = {r.name: r for r in results if r.suite == "correctness" and r.backend == "emu"}
    first_emu_failure = next((r for r in on_emu.values() if not r.passed), None)
    merged = []
    for r in results:
        if r.suite == "correctness" and r.backend == "emu":
            continue
        emu = on_emu.get(r.name) if r.suite == "correctness" else None
        if emu is not None and r.passed and not emu.passed:
            r.status, r.findings, r.failed_checks = emu.status, emu.findings, emu.failed_checks
            r.output = "right on the GPU, but not on the CPU emulator, which sees more:\n" + emu.output
        elif emu is None and r.suite == "correctness" and r.passed and first_emu_failure is not None:
            r.status, r.failed_checks = first_emu_failure.status, first_emu_failure.failed_checks
            r.output = ("right on the GPU, but only counted when the CPU emulator's correctness tests pass too, and "
                        "'%s' did not:\n%s" % (first_emu_failure.name, first_emu_failure.output))
        merged.append(r)
    return merged


def cmd_grade(args):
    submission = os.path.abspath(args.submission or paths.LABS_DIR)
    if not os.path.isdir(submission):
        raise SystemExit("course: SUBMISSION '%s' is not a directory" % args.submission)
    backend = choose_backend(args.backend)
    out_dir = os.path.abspath(args.out or os.path.join(paths.BUILD, "grade"))
    work_dir = os.path.join(out_dir, "work")
    every = labs.folders()
    chosen = [lab for lab in every if os.path.isdir(os.path.join(submission, lab))] if args.submission else every
    if not chosen:
        raise SystemExit("course: %s holds none of the lab folders (%s)" % (args.submission, ", ".join(every)))
    say("grading %s (%s)" % (os.path.relpath(submission, os.getcwd()), ", ".join(chosen)))
    found = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(len(chosen), os.cpu_count() or 1)) as pool:
        futures = [pool.submit(grade_lab, lab, os.path.join(submission, lab, "kernel.cu"), backend, work_dir)
                   for lab in chosen]
        for f in futures:
            found.extend(f.result())
    totals = scoring.score(found)
    for r in found:
        if not r.earned:
            say("FAILED %s\n  %s" % (r.title(), r.report_output().replace("\n", "\n  ")))
    for line in results.table(found, totals, labs.SUITES):
        say(line)
    results.write_reports(found, out_dir, backend)
    say("wrote %s and %s" % (os.path.relpath(os.path.join(out_dir, "results.json"), os.getcwd()),
                             os.path.relpath(os.path.join(out_dir, "junit.xml"), os.getcwd())))
    return 0
