"""`make grade-all SUBMISSIONS=dir RUNNER=slurm`, the README's line, run in a fresh copy of the course against a
one-node Slurm this file starts and stops (make test-slurm, part of make test).

Starts munged and a Slurm controller and node daemon on this machine, once for the file, each with its files in a
temporary folder and on ports of its own, grades a small class through a Slurm job array, then grades the same class
locally and checks that the two gradebooks agree. Needs Debian's slurm-wlm and munge, and root (the daemons' user):
without them every test fails, saying which is missing.
"""
import csv
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
from types import SimpleNamespace

import pytest

from course import labs, toolchain
from course.paths import ROOT

LABS = labs.folders()
NEEDED = ["munged", "slurmctld", "slurmd", "sbatch", "sinfo"]

SLURM_CONF = """ClusterName=grading
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
AuthType=auth/munge
AuthInfo=socket={dir}/munge.socket
CredType=cred/munge
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=grading Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tail(path, n=3000):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-n:]
    except OSError:
        return "(no %s)" % path


class Cluster:
    """munged, slurmctld and slurmd, started here and stopped by their process ids."""

    def __init__(self, folder):
        self.dir = folder
        self.host = socket.gethostname().split(".")[0]
        self.conf = os.path.join(folder, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.procs = []

    def start(self):
        for sub in ("state", "spool"):
            os.makedirs(os.path.join(self.dir, sub))
        key = os.path.join(self.dir, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        socket_path = os.path.join(self.dir, "munge.socket")
        munged = subprocess.Popen(["munged", "--foreground", "--force", "--key-file=" + key, "--socket=" + socket_path,
                                   "--pid-file=" + os.path.join(self.dir, "munged.pid"),
                                   "--log-file=" + os.path.join(self.dir, "munged.log"),
                                   "--seed-file=" + os.path.join(self.dir, "munged.seed")],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.procs.append(munged)
        deadline = time.time() + 20
        while not os.path.exists(socket_path) and munged.poll() is None and time.time() < deadline:
            time.sleep(0.1)
        if not os.path.exists(socket_path):
            return "munged did not start: " + tail(os.path.join(self.dir, "munged.log"))
        with open(self.conf, "w") as f:
            f.write(SLURM_CONF.format(host=self.host, dir=self.dir, ctld_port=free_port(), d_port=free_port(),
                                      cpus=os.cpu_count() or 1))
        for cmd in (["slurmctld", "-D", "-i", "-f", self.conf], ["slurmd", "-D", "-f", self.conf, "-N", self.host]):
            self.procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, env=self.env))
        deadline = time.time() + 60
        while time.time() < deadline:
            out = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, env=self.env).stdout
            if out.strip() in ("idle", "mix", "alloc"):
                return None
            if any(p.poll() is not None for p in self.procs):
                break
            time.sleep(1)
        return "the node did not come up:\n" + tail(os.path.join(self.dir, "slurmctld.log")) + \
            tail(os.path.join(self.dir, "slurmd.log"))

    def stop(self):
        for p in reversed(self.procs):  # the Slurm daemons first, munged last
            if p.poll() is None:
                p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def make_class(folder):
    os.makedirs(os.path.join(folder, "correct", LABS[0]))
    shutil.copy(os.path.join(ROOT, "solutions", LABS[0], "kernel.cu"), os.path.join(folder, "correct", LABS[0]))
    with tarfile.open(os.path.join(folder, "skeleton.tar.gz"), "w:gz") as t:
        t.add(toolchain.skeleton(LABS[-1]), "%s/kernel.cu" % LABS[-1])
    with open(os.path.join(folder, "broken.zip"), "wb") as f:
        f.write(b"PK not a zip")
    os.makedirs(os.path.join(folder, "include_solution", "lab1-naive"))
    shutil.copy(os.path.join(ROOT, "grader", "malicious", "lab1", "include_solution.cu"),
                os.path.join(folder, "include_solution", "lab1-naive", "kernel.cu"))


def gradebook(out):
    with open(os.path.join(out, "gradebook.csv"), newline="") as f:
        return {r["student"]: (r["status"], r["total"]) for r in csv.DictReader(f)}


def grade_all_via_slurm(course, submissions, env):
    """The README's line, as written, in a fresh copy of the course (conftest.fresh): its gradebook is
    course/build/grade-all."""
    env = {k: v for k, v in env.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "CUDAEMU_CACHE")}
    return subprocess.run(["make", "grade-all", "SUBMISSIONS=" + submissions, "RUNNER=slurm", "BACKEND=emu"],
                          capture_output=True, text=True, env=env, cwd=course, timeout=900)


@pytest.fixture(scope="module")
def tmp():
    """The file's temporary folder, readable by all: the array tasks read the class and write their results."""
    with tempfile.TemporaryDirectory(prefix="test-slurm-") as folder:
        os.chmod(folder, 0o755)
        yield folder


@pytest.fixture(scope="module")
def started(tmp):
    """(the Cluster, why it did not start or None), stopped by its process ids after the file's last test."""
    missing = [c for c in NEEDED if not shutil.which(c)]
    if missing or os.geteuid() != 0:
        pytest.fail("test-slurm needs %s" % ("root" if not missing else "Slurm and munge (apt-get install slurm-wlm "
                                             "munge): no " + ", ".join(missing)))
    cluster = Cluster(os.path.join(tmp, "slurm"))
    os.makedirs(cluster.dir)
    try:
        yield cluster, cluster.start()
    finally:
        cluster.stop()


@pytest.fixture(scope="module")
def cluster(started):
    """The running cluster, for the tests that grade through it."""
    cluster, why = started
    if why is not None:
        pytest.fail("the one-node Slurm did not start (see test_a_one_node_slurm_starts)")
    return cluster


@pytest.fixture(scope="module")
def via_slurm(cluster, tmp, fresh):
    """The class graded once through the Slurm job array, from a fresh copy of the course: submissions, out, proc
    and seconds."""
    submissions = os.path.join(tmp, "class")
    make_class(submissions)
    started = time.time()
    proc = grade_all_via_slurm(fresh, submissions, cluster.env)
    return SimpleNamespace(course=fresh, submissions=submissions, out=os.path.join(fresh, "build", "grade-all"),
                           proc=proc, seconds=time.time() - started)


def test_a_one_node_slurm_starts(started):
    _, why = started
    assert why is None, "a one-node Slurm starts (munged, slurmctld, slurmd)\n%s" % why


def test_grade_all_submits_one_array_task_per_submission(via_slurm):
    proc = via_slurm.proc
    assert proc.returncode == 0 and "Slurm job array of 4 tasks" in proc.stdout, \
        "grade-all --runner slurm submits one array task per submission (%.0f s)\n%s" % (
            via_slurm.seconds, proc.stdout[-2000:] + proc.stderr[-2000:])


def test_every_array_task_wrote_its_log(via_slurm, cluster):
    out = via_slurm.out
    logs = [f for f in os.listdir(os.path.join(out, ".slurm")) if f.startswith("task-")] \
        if os.path.isdir(os.path.join(out, ".slurm")) else []
    assert len(logs) == 4, "every array task wrote its log (%d of 4)\n%s" % (
        len(logs), tail(os.path.join(cluster.dir, "slurmctld.log")))


def test_the_slurm_gradebook_is_the_local_one(via_slurm, tmp):
    local = os.path.join(tmp, "local-graded")
    subprocess.run([sys.executable, "-m", "grader.classgrade", "grade-all",
                    "--submissions", via_slurm.submissions, "--out", local, "--backend", "emu"],
                   capture_output=True, text=True, cwd=ROOT)
    try:
        slurm, here = gradebook(via_slurm.out), gradebook(local)
    except OSError as e:
        slurm, here = {"error": str(e)}, {}
    assert slurm == here and slurm.get("correct") == ("graded", "100") and \
        slurm.get("broken", ("",))[0] == "bad-archive", \
        "the Slurm gradebook is the local one: %s\nslurm: %s\nlocal: %s" % (sorted(slurm.items()), slurm, here)


def test_a_second_slurm_run_submits_nothing(via_slurm, cluster):
    proc = grade_all_via_slurm(via_slurm.course, via_slurm.submissions, cluster.env)
    assert proc.returncode == 0 and " 0 to grade" in proc.stdout and "submitting" not in proc.stdout, \
        "a second Slurm run submits nothing: every result is kept\n" + proc.stdout[-2000:]
