#!/usr/bin/env python3
"""classgrade — grade a whole class: every submission sandboxed, hidden tests, one gradebook.

    python3 -m grader.classgrade grade-all --submissions DIR [--jobs N] [--runner local|slurm]   (make grade-all)
    python3 -m grader.classgrade grade-one --submission PATH --out DIR                           (Gradescope, one student)

DIR holds one entry per student: a folder laid out like labs/ (any subset of the labs), or a .zip / .tar.gz of
one. Each student gets build/grade-all/<student>/results.json (Gradescope's format) and junit.xml, and
build/grade-all/gradebook.csv has a row per student: score per lab, total, status, reason.

Every build and run of a student's code happens in a bubblewrap sandbox (course/sandbox.py) that sees no
solutions, no hidden tests and no other student. Hidden tests (grader/hidden/) draw fresh sizes and seeds at grade
time and are judged outside the sandbox; Gradescope shows their output after grades are published.

Re-running resumes: a student whose submission, and whose grader, are unchanged keeps their results.
With --runner slurm, one Slurm array task grades each submission (SLURM_PARTITION, SLURM_GPUS to choose where).
"""
import argparse
import concurrent.futures
import csv
import fcntl
import glob
import hashlib
import json
import os
import random
import re
import shutil
import stat
import struct
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zipfile

from course import grading, labs, results, runner, sandbox, scoring, toolchain
from course.confine import read_untrusted
from course.paths import EMUCC, ROOT
from course.results import Status, TestResult

LABS = labs.folders()
HIDDEN_DIR = os.path.join(ROOT, "grader", "hidden")
HIDDEN_HEADER_BYTES = 5 * 4  # hidden_run.cpp's file: five int32 (M, N, two errors, the work done outside the kernels), then C
HIDDEN_CASES = 2             # hidden problems per lab
HIDDEN_VISIBILITY = "after_published"
ARCHIVE_MAX_BYTES = 50 << 20  # unpacked size of one student's archive
ARCHIVE_MAX_FILES = 2000
ARCHIVE_MAX_FILE_BYTES = 50 << 20  # the archive itself
ARCHIVE_MAX_NAME = 1024       # bytes of one member's name (a GNU long-name or pax header included)
# Names in the output folder that are not students' (a student folder of that name is graded under another folder)
RESERVED = {"gradebook.csv", "gradebook.csv.tmp", ".work", ".trusted", ".slurm", ".lock"}


def say(message):
    print(message, flush=True)


class Rejected(Exception):
    """A submission that cannot be graded: (status, reason)."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


# ---------------------------------------------------------------------------------------------------------------
# Submissions: names, unpacking, layout, content hash
# ---------------------------------------------------------------------------------------------------------------
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz")


def student_name(entry):
    base = os.path.basename(entry.rstrip("/"))
    for suffix in ARCHIVE_SUFFIXES:
        if base.endswith(suffix) and os.path.isfile(entry) and not os.path.islink(entry):
            base = base[:-len(suffix)]
    return re.sub(r"[^A-Za-z0-9._@+-]", "_", base).lstrip(".") or "_"


def shown_name(name):
    """A file name for a person: bytes that are not UTF-8 as \\xNN, control characters escaped, at most 100."""
    text = os.fsencode(name).decode("utf-8", errors="backslashreplace")
    return results.clean(text if len(text) <= 100 else text[:97] + "...")


def output_folder(out_root, student):
    """Where a student's results go: their name, unless the grader uses that name itself."""
    return os.path.join(out_root, ("student-" + student) if student.lower() in RESERVED else student)


def list_entries(submissions):
    if not os.path.isdir(submissions):
        raise SystemExit("classgrade: SUBMISSIONS '%s' is not a directory" % submissions)
    entries = sorted(os.path.join(submissions, e) for e in os.listdir(submissions) if not e.startswith("."))
    if not entries:
        raise SystemExit("classgrade: SUBMISSIONS '%s' is empty: it should hold one folder or archive per student"
                         % submissions)
    return entries


def without_paths(text):
    """An error's text with no path of the grading machine in it: each absolute path becomes its last part (the
    member of the student's own archive or folder it names)."""
    return re.sub(r"/(?:[^/\s'\"]+/)+([^/\s'\"]*)", lambda m: m.group(1) or ".", text)


def safe_member_name(name):
    parts = name.replace("\\", "/").split("/")
    return not (name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name) or ".." in parts)


def prescan_tar(archive):
    """Reads a tar.gz's headers as a stream, with bounded memory, before tarfile sees it: tarfile would read a
    GNU long-name or pax header of any size into memory, and a gzip bomb to its end."""
    import gzip
    members = total = 0
    try:
        with gzip.open(archive, "rb") as z:
            while True:
                header = z.read(512)
                if len(header) < 512 or header == b"\0" * 512:
                    return
                try:
                    size = int(header[124:136].split(b"\0")[0].strip() or b"0", 8)
                except ValueError:
                    size = 0
                    if header[124] & 0x80:  # base-256: only for sizes over 8 GiB
                        raise Rejected("bad-archive", "the archive holds a member over 8 GiB")
                kind = header[156:157]
                if kind in (b"L", b"K", b"x", b"g") and size > ARCHIVE_MAX_NAME * 4:
                    raise Rejected("unsafe-archive", "the archive has a %d-byte name or extended header (at most %d)"
                                   % (size, ARCHIVE_MAX_NAME * 4))
                members += 1
                total += size
                if members > 2 * ARCHIVE_MAX_FILES + 2:
                    raise Rejected("bad-archive", "the archive holds more than %d files" % ARCHIVE_MAX_FILES)
                if total > ARCHIVE_MAX_BYTES:
                    raise Rejected("bad-archive", "the archive unpacks to more than %d MiB" % (ARCHIVE_MAX_BYTES >> 20))
                left = (size + 511) // 512 * 512
                while left:
                    chunk = z.read(min(left, 1 << 20))
                    if not chunk:
                        return
                    left -= len(chunk)
    except (OSError, EOFError) as e:  # gzip's BadGzipFile is an OSError
        raise Rejected("bad-archive", "the tar.gz archive cannot be read: %s" % without_paths(str(e)))


def zip_entry_count(archive):
    """How many entries a zip's end of central directory says it holds (its zip64 record's count where the classic
    field is full), read from the file's last bytes before zipfile builds an object per entry; None if there is no
    such record (zipfile then says what is wrong)."""
    with open(archive, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - (22 + 0xFFFF)))
        tail = f.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) < at + 22:
        return None
    count = struct.unpack_from("<H", tail, at + 10)[0]
    locator = tail.rfind(b"PK\x06\x07", 0, at)
    if count == 0xFFFF and locator >= 0 and len(tail) >= locator + 20:
        offset = struct.unpack_from("<Q", tail, locator + 8)[0]
        with open(archive, "rb") as f:
            f.seek(offset)
            record = f.read(56)
        if record[:4] == b"PK\x06\x06" and len(record) >= 40:
            count = struct.unpack_from("<Q", record, 32)[0]
    return count


def unpack(archive, dest):
    """Unpacks a student's archive into dest, refusing anything that could land outside it."""
    os.makedirs(dest, exist_ok=True)
    if os.path.getsize(archive) > ARCHIVE_MAX_FILE_BYTES:
        raise Rejected("bad-archive", "the archive is larger than %d MiB" % (ARCHIVE_MAX_FILE_BYTES >> 20))
    if archive.endswith(".zip"):
        count = zip_entry_count(archive)
        if count is not None and count > ARCHIVE_MAX_FILES:  # before zipfile reads a central directory that size
            raise Rejected("bad-archive", "the archive holds more than %d files (%d)" % (ARCHIVE_MAX_FILES, count))
        try:
            with zipfile.ZipFile(archive) as z:
                infos = z.infolist()
                if any(i.flag_bits & 0x1 for i in infos):
                    raise Rejected("bad-archive", "the zip archive is encrypted: upload it without a password")
                extract([(i.filename, i.is_dir(), not stat.S_ISLNK(i.external_attr >> 16), i.file_size,
                          lambda i=i: z.open(i)) for i in infos], dest)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, NotImplementedError, RuntimeError) as e:
            raise Rejected("bad-archive", "the zip archive cannot be read: %s" % without_paths(str(e)))
        return
    prescan_tar(archive)
    try:
        with tarfile.open(archive, "r:gz") as t:
            members = []
            for m in t:  # one at a time, so that a tar of a million entries is refused early
                members.append((m.name, m.isdir(), m.isfile() or m.isdir(), m.size, lambda m=m: t.extractfile(m)))
                if len(members) > ARCHIVE_MAX_FILES:
                    break
            extract(members, dest)
    except (tarfile.TarError, EOFError, OSError, ValueError) as e:  # gzip's BadGzipFile is an OSError
        raise Rejected("bad-archive", "the tar.gz archive cannot be read: %s" % without_paths(str(e)))


def extract(members, dest):
    """members: (name, is_dir, is_plain, size, open) for each entry; all are checked before any is written."""
    if len(members) > ARCHIVE_MAX_FILES:
        raise Rejected("bad-archive", "the archive holds more than %d files" % ARCHIVE_MAX_FILES)
    total = 0
    seen = set()
    for name, is_dir, plain, size, _ in members:
        if len(name.encode("utf-8", errors="surrogateescape")) > ARCHIVE_MAX_NAME:
            raise Rejected("unsafe-archive", "a name in the archive is longer than %d bytes" % ARCHIVE_MAX_NAME)
        if not safe_member_name(name):
            raise Rejected("unsafe-archive", "'%s' in the archive points outside it" % shown_name(name))
        if not plain:
            raise Rejected("unsafe-archive", "'%s' in the archive is not a plain file or folder" % shown_name(name))
        if not is_dir and name.replace("\\", "/").rstrip("/").split("/")[-1] in (".", ""):
            raise Rejected("bad-archive", "the archive holds a file named '%s', which no folder can hold"
                           % shown_name(name))
        normal = os.path.normpath(name.replace("\\", "/")).lower()  # as a case-insensitive file system may see it
        if normal in seen and not is_dir:  # which copy would win is the unpacker's choice, not the student's
            raise Rejected("bad-archive", "'%s' is in the archive twice" % shown_name(name))
        seen.add(normal)
        total += size
        if total > ARCHIVE_MAX_BYTES:
            raise Rejected("bad-archive", "the archive unpacks to more than %d MiB" % (ARCHIVE_MAX_BYTES >> 20))
    for name, is_dir, _, _, open_member in members:
        target = os.path.join(dest, name)
        if is_dir:
            os.makedirs(target, exist_ok=True)
            continue
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open_member() as src, open(target, "wb") as out:
            shutil.copyfileobj(src, out)


def refuse_links(folder):
    """A folder submission must be the student's own files: any symbolic link (to a classmate's folder, to
    solutions/) or anything but plain files and folders refuses the whole submission, without following it."""
    if os.path.islink(folder):
        raise Rejected("unsafe-submission", "the submission is a symbolic link")
    count = 0
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                raise Rejected("unsafe-submission", "'%s' is a symbolic link" % shown_name(os.path.relpath(path, folder)))
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise Rejected("unsafe-submission", "'%s' is not a plain file or folder"
                               % shown_name(os.path.relpath(path, folder)))
            count += 1
            if count > ARCHIVE_MAX_FILES:
                raise Rejected("bad-layout", "the submission holds more than %d files" % ARCHIVE_MAX_FILES)


def locate_labs(folder, only=None):
    """({lab: kernel.cu path}, [labs left out]) for the lab folders of a submission: in `folder` itself, in its
    labs/ (a copy of the whole course), or in either of those under its one subfolder (an archive of labs/, a
    repository's archive from GitHub: name-main/labs/...). With `only` (a one-lab assignment), that lab alone;
    its kernel may also be a lone kernel.cu, at the top or in the one subfolder; the other labs found are left out,
    and listed."""
    def labs_in(d):
        return {lab: os.path.join(d, lab, "kernel.cu") for lab in LABS if os.path.isdir(os.path.join(d, lab))}
    if not any(os.scandir(folder)):
        raise Rejected("empty", "the submission is empty")
    subs = [e.path for e in os.scandir(folder) if e.is_dir() and not e.name.startswith(("__MACOSX", "."))]
    tops = [folder] + (subs if len(subs) == 1 else [])
    found = {}
    for d in [r for top in tops for r in (top, os.path.join(top, "labs"))]:
        if os.path.isdir(d) and not os.path.islink(d):
            found = labs_in(d)
            if found:
                break
    left_out = []
    if only:
        left_out = sorted(lab for lab in found if lab != only)
        found = {only: found[only]} if only in found else {}
        lone = [os.path.join(top, "kernel.cu") for top in tops if os.path.isfile(os.path.join(top, "kernel.cu"))]
        if not found and lone and not left_out:  # a lone kernel.cu, not another lab's
            found = {only: lone[0]}
    if not found:
        wanted = only or ", ".join(LABS)
        raise Rejected("bad-layout", "no lab folder (%s)%s in the submission" % (
            wanted, " and no lone kernel.cu" if only else ""))
    for lab, kernel in found.items():
        if os.path.islink(kernel) or os.path.islink(os.path.dirname(kernel)):
            raise Rejected("unsafe-archive", "%s/kernel.cu is a symbolic link" % lab)
    return found, left_out


def submission_bytes(entry):
    """(the bytes a submission holds, from the file system's sizes: nothing is read; whether a grader takes that
    many: ARCHIVE_MAX_FILE_BYTES for an archive, ARCHIVE_MAX_BYTES for a folder, what an archive may unpack to)."""
    if os.path.islink(entry):
        return 0, True
    if os.path.isfile(entry):
        size = os.path.getsize(entry)
        return size, size <= ARCHIVE_MAX_FILE_BYTES
    total = 0
    for dirpath, _, filenames in os.walk(entry):
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total, total <= ARCHIVE_MAX_BYTES


def content_hash(entry):
    """A hash of what the submission holds, read in blocks: memory stays bounded whatever a file's size."""
    h = hashlib.sha256()
    if os.path.islink(entry):
        h.update(b"link\0" + os.fsencode(os.readlink(entry)))
        return h.hexdigest()
    if os.path.isfile(entry):
        with open(entry, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    for dirpath, dirnames, filenames in os.walk(entry):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            h.update(os.fsencode(os.path.relpath(path, entry)) + b"\0")
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        h.update(block)
            h.update(b"\0")
    return h.hexdigest()


def grader_fingerprint(backend):
    """What a grade depends on besides the submission: the course's sources, the grader, the backend."""
    h = hashlib.sha256(backend.encode())
    paths = []
    # of labs/, only what the course compiles around a submission: its kernel.cu and answers.txt replace a student's
    for pattern in ("common/**", "labs/*/lab.h", "labs/*/lab.ini", "labs/*/tests.cpp", "course/*.py", "course/*.txt",
                    "grader/*.py", "grader/hidden/**"):
        paths += [p for p in glob.glob(os.path.join(ROOT, pattern), recursive=True) if os.path.isfile(p)]
    for p in sorted(paths):
        h.update(os.path.relpath(p, ROOT).encode())
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


# ---------------------------------------------------------------------------------------------------------------
# Trusted builds (outside any sandbox) and the sandbox each lab runs in
# ---------------------------------------------------------------------------------------------------------------
def hidden_multiple(lab):
    """The multiple every hidden size must be for this lab (lab 2: 16)."""
    return labs.Lab(lab).size_multiple


class Trusted:
    """The course's objects, built once from trusted sources before any submission is graded."""

    def __init__(self, out_root, backend):
        self.backend = backend
        self.dir = os.path.join(out_root, ".trusted")
        emu = toolchain.Toolchain("emu")
        self.runtime = toolchain.runtime_object()
        for lab in LABS:
            emu.prebuild(lab)
            if backend == "gpu":
                toolchain.Toolchain("gpu").prebuild(lab)
            emu.compile(os.path.join(HIDDEN_DIR, "hidden_run.cpp"), self.hidden_run(lab),
                        [os.path.join(ROOT, "common"), os.path.join(ROOT, "labs", lab)])
        objs = [emu.common_object(n, LABS[0]) for n in ("harness.cpp", "reference_gemm.cpp")]
        check_obj = emu.compile(os.path.join(HIDDEN_DIR, "hidden_check.cpp"), os.path.join(self.dir, "hidden_check.o"),
                                [os.path.join(ROOT, "common")])
        self.hidden_check = os.path.join(self.dir, "hidden_check")
        if toolchain.newer(self.hidden_check, [check_obj] + objs):
            toolchain.run_build(toolchain.link_command("emu", [check_obj] + objs, self.hidden_check))

    def hidden_run(self, lab):
        return os.path.join(self.dir, lab, "hidden_run.o")

    def read_only(self, lab):
        """What a lab's sandbox may read: the public headers and the prebuilt objects, nothing else of the course."""
        paths = [os.path.join(ROOT, "common"), os.path.join(ROOT, "labs", lab), EMUCC,
                 os.path.join(ROOT, "build", "emu", "obj"), self.runtime, self.hidden_run(lab)]
        if self.backend == "gpu":
            paths.append(os.path.join(ROOT, "build", "gpu", "obj"))
            paths += [p for p in ("/usr/local/cuda",) if os.path.isdir(p)]
        return paths


def sandbox_env():
    env = {"CUDAEMU_THREADS": "1", "CUDAEMU_CACHE": os.path.join(ROOT, "build", "emu")}
    env.setdefault("CUDAEMU_TIMEOUT", os.environ.get("CUDAEMU_TIMEOUT", "60"))
    return env


def sandbox_for(trusted, lab, slot, sandboxed):
    """A function of a build folder that makes the sandbox to run there; None without one. sandboxed: the mode
    (sandbox.Sandbox's "bwrap" or "setpriv"), or None."""
    if not sandboxed:
        return None

    def make(out_dir):
        box = sandbox.Sandbox(trusted.read_only(lab), out_dir, slot=slot, cwd=ROOT,
                              mode=sandboxed if isinstance(sandboxed, str) else "bwrap")
        base_run = box.run
        box.run = lambda cmd, env=None, **kw: base_run(cmd, dict(sandbox_env(), **(env or {})), **kw)
        return box
    return make


# ---------------------------------------------------------------------------------------------------------------
# Grading one submission
# ---------------------------------------------------------------------------------------------------------------
def hidden_problems(lab, rng):
    m = hidden_multiple(lab)
    top = max(1, labs.Lab(lab).hidden_max_size // m)
    return [tuple(m * rng.randint(1, top) for _ in range(3)) + (rng.randrange(1, 2 ** 31),) for _ in range(HIDDEN_CASES)]


def run_hidden(lab, out_dir, trusted, box, results, rng):
    """Hidden tests for one lab, run with the kernel object the visible tests were built with."""
    built = not any(r.name == "builds" for r in results)
    stopped = next((r.output for r in results if r.status is Status.STOPPED), None)
    hidden = []
    problems = hidden_problems(lab, rng)
    program = os.path.join(out_dir, "hidden_run")
    why_not = None if built else "not run: kernel.cu does not build"
    why_not = why_not or ("not run: an earlier test was " + stopped if stopped else None)
    if not why_not:
        objs = [trusted.hidden_run(lab), os.path.join(ROOT, "build", "emu", "obj", "harness.o"),
                os.path.join(ROOT, "build", "emu", "obj", "reference_gemm.o"),
                os.path.join(out_dir, "kernel.o")]  # last, as toolchain.build_lab links it
        try:
            toolchain.Toolchain("emu", box).link(objs, program)
        except toolchain.BuildError as e:
            why_not = "not run: the hidden test program did not link:\n" + str(e)[-2000:]
    for i, (M, N, K, seed) in enumerate(problems):
        entry = TestResult(lab, "hidden test %d" % (i + 1), "correctness", Status.NOT_RUN, visibility=HIDDEN_VISIBILITY)
        if why_not:
            entry.output = why_not
            hidden.append(entry)
            continue
        saved = os.path.join(out_dir, "hidden-%d.bin" % i)
        args = [str(M), str(N), str(K), str(seed), saved]
        outcome = box.run([program] + args) if box else subprocess.run([program] + args, capture_output=True,
                                                                       text=True, env=runner.test_env())
        limit = getattr(outcome, "limit", None)
        if limit:
            entry.status = Status.STOPPED
            entry.output = "%d×%d·%d×%d: stopped by the sandbox's %s" % (M, K, K, N, limit)
            why_not = "not run: an earlier test was stopped by the sandbox's " + limit
            hidden.append(entry)
            continue
        # the sandbox's file, copied through a channel that checks it; then judged outside the sandbox
        data = read_untrusted(saved, HIDDEN_HEADER_BYTES + 4 * M * N)
        with tempfile.NamedTemporaryFile(dir=trusted.dir, suffix=".bin") as copy:
            copy.write(data or b"")
            copy.flush()
            check = subprocess.run([trusted.hidden_check, str(M), str(N), str(K), str(seed), copy.name,
                                    str(labs.Lab(lab).constants["INPUT_MANTISSA_BITS"])],
                                   capture_output=True, text=True, timeout=120)
        crashed = outcome.returncode < 0 and check.returncode != 0
        entry.status = Status.PASSED if check.returncode == 0 else Status.CRASHED if crashed else Status.FAILED
        shape = "%d×%d·%d×%d seeded random (seed %d)" % (M, K, K, N, seed)
        entry.output = (shape + ": right" if entry.passed else check.stdout.strip()[:2000] +
                        ("\nthe test program crashed (signal %d)" % -outcome.returncode if crashed else ""))
        hidden.append(entry)
    return hidden


def grade_submission(entry, student, out_dir, work_root, trusted, slot=0, backend="emu", sandboxed=True, key="",
                     only=None):
    """Grades one entry; writes out_dir/results.json, junit.xml and meta.json; returns the meta dict. With `only`
    (a lab folder's name), that lab alone: a one-lab assignment. Never raises for anything the submission does."""
    started = time.time()
    work = os.path.join(work_root, student)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(out_dir, exist_ok=True)
    meta = {"student": student, "key": key, "status": "graded", "reason": "", "scores": {}, "total": 0}
    found = []
    try:
        folder = entry
        if os.path.islink(entry):
            raise Rejected("unsafe-submission", "the submission is a symbolic link")
        if os.path.isfile(entry):
            if not entry.endswith(ARCHIVE_SUFFIXES):
                raise Rejected("bad-layout", "not a folder, .zip or .tar.gz")
            folder = os.path.join(work, "unpacked")
            unpack(entry, folder)
        elif not os.path.isdir(entry):
            raise Rejected("bad-layout", "not a folder, .zip or .tar.gz")
        refuse_links(folder)
        kernels, left_out = locate_labs(folder, only)
        if left_out:
            meta["left_out"] = left_out
        rng = random.SystemRandom()
        for lab in LABS:
            if lab not in kernels:
                continue
            make = sandbox_for(trusted, lab, slot, sandboxed)
            lab_results = grading.grade_lab(lab, kernels[lab], backend, os.path.join(work, "build"), make)
            box = make(os.path.join(work, "build", "emu", lab)) if make else None
            lab_results += run_hidden(lab, os.path.join(work, "build", "emu", lab), trusted, box, lab_results, rng)
            found += lab_results
        totals = scoring.score(found)
        meta["scores"] = {lab: s for lab, (s, _) in totals.items()}
        meta["total"] = round(sum(meta["scores"].values()), 2)
        meta["reason"] = results.failure_summary(found, kernels)
    except Rejected as r:
        meta.update(status=r.status, reason=r.reason)
    except Exception as e:  # a bug in the grader must not stop the batch; it is recorded, loudly
        meta.update(status="error", reason="the grader failed: %s: %s" % (type(e).__name__, without_paths(str(e))))
    if meta["status"] != "graded":
        found = [TestResult("submission", meta["status"], "correctness", Status.NOT_RUN, meta["reason"])]
    if sandbox.stopping.is_set():  # Ctrl-C: what was cut short is not a result; the next run grades it again
        shutil.rmtree(work, ignore_errors=True)
        return None
    note = "This assignment grades %s alone; left out of the submission: %s." % (
        only, ", ".join(meta["left_out"])) if meta.get("left_out") else ""
    results.write_reports(found, out_dir, backend, note)
    meta["seconds"] = round(time.time() - started, 1)
    with open(os.path.join(out_dir, "meta.json.tmp"), "w") as f:
        json.dump(meta, f, indent=2)
    os.replace(os.path.join(out_dir, "meta.json.tmp"), os.path.join(out_dir, "meta.json"))  # written last: "done"
    shutil.rmtree(work, ignore_errors=True)
    return meta


# ---------------------------------------------------------------------------------------------------------------
# The gradebook
# ---------------------------------------------------------------------------------------------------------------
def load_meta(out_dir):
    try:
        with open(os.path.join(out_dir, "meta.json")) as f:
            meta = json.load(f)
        return meta if os.path.isfile(os.path.join(out_dir, "results.json")) else None
    except (OSError, ValueError):
        return None


def write_gradebook(out_root, rows):
    path = os.path.join(out_root, "gradebook.csv")
    with open(path + ".tmp", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(results.gradebook_header(LABS))
        for meta in sorted(rows, key=lambda m: m["student"]):
            w.writerow(results.gradebook_row(meta, LABS))
    os.replace(path + ".tmp", path)
    return path


class Progress:
    def __init__(self, total):
        self.total, self.done, self.started = total, 0, time.time()
        self.lock = threading.Lock()
        self.tty = sys.stdout.isatty()

    def finished(self, meta):
        with self.lock:
            self.done += 1
            minutes = (time.time() - self.started) / 60
            line = "[%d/%d] %s: %s %s (%.1f per minute)" % (self.done, self.total, meta["student"], meta["status"],
                                                           "%g" % meta.get("total", 0), self.done / max(minutes, 1e-9))
            print(("\r\033[K" + line) if self.tty else line, end="" if self.tty else "\n", flush=True)

    def close(self):
        if self.tty and self.done:
            print(flush=True)


def plan(entries, out_root, backend):
    """[(entry, student, key)] to grade, and the metas kept from an earlier run. Entries whose gradebook names
    collide (the same name as a folder and an archive, names that differ only in case or in characters the
    gradebook cannot hold) are all flagged, and none is graded under the other's name."""
    fingerprint = grader_fingerprint(backend)
    todo, kept, groups = [], [], {}
    for entry in entries:
        groups.setdefault(student_name(entry).lower(), []).append(entry)
    for entry in entries:
        student = student_name(entry)
        group = groups[student.lower()]
        if len(group) > 1:
            others = ", ".join("'%s'" % shown_name(os.path.basename(e)) for e in group)
            kept.append({"student": "%s@%s" % (student, shown_name(os.path.basename(entry))), "status": "duplicate",
                         "total": 0, "reason": "%s have the same name in the gradebook: rename all but one" % others})
            continue
        try:
            size, fits = submission_bytes(entry)
            if not fits:  # before anything is read: one student's 4 GiB file must not cost the class its gradebook
                kept.append({"student": student, "status": "too-large", "total": 0,
                             "reason": "the submission is %.1f MiB; a %s may hold at most %d MiB" % (
                                 size / (1 << 20), "archive" if os.path.isfile(entry) else "folder",
                                 (ARCHIVE_MAX_FILE_BYTES if os.path.isfile(entry) else ARCHIVE_MAX_BYTES) >> 20)})
                continue
            key = content_hash(entry) + "-" + fingerprint
        except OSError as e:  # unreadable: that student's row says so, and the class goes on
            kept.append({"student": student, "status": "error", "total": 0,
                         "reason": "the submission cannot be read: %s" % results.clean(without_paths(str(e)))})
            continue
        meta = load_meta(output_folder(out_root, student))
        if meta and meta.get("key") == key:
            kept.append(meta)
        else:
            todo.append((entry, student, key))
    return todo, kept


def grade_all_local(todo, out_root, trusted, jobs, backend, sandboxed):
    slots = sandbox.claim_slots(jobs) if sandboxed else list(range(jobs))
    slot_lock = threading.Lock()
    progress = Progress(len(todo))
    metas = []

    def work(item):
        entry, student, key = item
        with slot_lock:
            slot = slots.pop()
        try:
            return grade_submission(entry, student, output_folder(out_root, student), os.path.join(out_root, ".work"),
                                    trusted, slot, backend, sandboxed, key)
        finally:
            with slot_lock:
                slots.append(slot)

    # Not a `with` block: on Ctrl-C it would wait for every worker, and a worker between two sandboxed commands (a
    # compile, a confinement check) can take a while on a busy machine. The main thread leaves at once instead
    # (stopped_now() ends the process without joining the workers).
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    try:
        for future in concurrent.futures.as_completed([pool.submit(work, item) for item in todo]):
            meta = future.result()
            if meta:
                metas.append(meta)
                progress.finished(meta)
    except KeyboardInterrupt:
        sandbox.stop_all()  # the running sandboxes die now, and no new one starts
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    progress.close()
    return metas


# ---------------------------------------------------------------------------------------------------------------
# Slurm: one array task per submission, gathered into the same gradebook
# ---------------------------------------------------------------------------------------------------------------
def grade_all_slurm(todo, out_root, backend, sandboxed):
    if not shutil.which("sbatch"):
        raise SystemExit("classgrade: RUNNER=slurm needs Slurm's sbatch on the PATH (Debian: slurm-client)")
    slurm_dir = os.path.join(out_root, ".slurm")
    os.makedirs(slurm_dir, exist_ok=True)
    tasks = os.path.join(slurm_dir, "tasks.json")
    with open(tasks, "w") as f:
        json.dump([{"entry": os.path.abspath(e), "student": s, "key": k} for e, s, k in todo], f, indent=1)
    script = os.path.join(slurm_dir, "task.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n# one submission per array task; classgrade gathers the results\n"
                "cd %s && exec %s -m grader.classgrade slurm-task --tasks %s --out %s --backend %s %s\n"
                % (sh_quote(ROOT), sh_quote(sys.executable), sh_quote(tasks), sh_quote(out_root), backend,
                   "" if sandboxed else "--no-sandbox"))
    os.chmod(script, 0o755)
    cmd = ["sbatch", "--wait", "--parsable", "--job-name=grade-all", "--array=0-%d" % (len(todo) - 1),
           "--output=" + os.path.join(slurm_dir, "task-%a.log"), "--cpus-per-task=1"]
    if os.environ.get("SLURM_PARTITION"):
        cmd.append("--partition=" + os.environ["SLURM_PARTITION"])
    if os.environ.get("SLURM_GPUS"):
        cmd.append("--gres=gpu:" + os.environ["SLURM_GPUS"])
    if os.environ.get("SLURM_TIME"):
        cmd.append("--time=" + os.environ["SLURM_TIME"])
    say("submitting a Slurm job array of %d tasks: %s" % (len(todo), " ".join(cmd[1:])))
    proc = subprocess.run(cmd + [script], capture_output=True, text=True)
    if proc.returncode != 0:
        say("sbatch: " + (proc.stderr.strip() or "exit %d" % proc.returncode))
    metas = []
    for i, (entry, student, key) in enumerate(todo):
        meta = load_meta(output_folder(out_root, student))
        if not meta or meta.get("key") != key:
            meta = {"student": student, "status": "error", "total": 0, "key": "",
                    "reason": "the Slurm task did not finish: see %s" % os.path.relpath(
                        os.path.join(slurm_dir, "task-%d.log" % i), os.getcwd())}
        metas.append(meta)
    return metas


def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def cmd_slurm_task(args):
    index = int(os.environ.get("SLURM_ARRAY_TASK_ID", "-1"))
    with open(args.tasks) as f:
        tasks = json.load(f)
    if not 0 <= index < len(tasks):
        raise SystemExit("classgrade: SLURM_ARRAY_TASK_ID %d is not a task of %s" % (index, args.tasks))
    task = tasks[index]
    out_root = os.path.abspath(args.out)
    trusted = Trusted(out_root, args.backend)
    meta = grade_submission(task["entry"], task["student"], output_folder(out_root, task["student"]),
                            os.path.join(out_root, ".work"), trusted,
                            slot=sandbox.claim_slots(1)[0] if not args.no_sandbox else 0, backend=args.backend,
                            sandboxed=None if args.no_sandbox else "bwrap", key=task["key"])
    say("%s: %s %g" % (meta["student"], meta["status"], meta.get("total", 0)))
    return 0


# ---------------------------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------------------------
# What a sandbox's user must read of the course, as bubblewrap's mounts give it (Trusted.read_only): the rest (the
# hidden tests' source in grader/, course/'s metadata, solutions/ where present) is closed to other users before a
# sandbox without bubblewrap runs.
SANDBOX_READS = ("common", "labs", "build")


def hide_course_from_other_users():
    """For the setpriv fallback, run as root: the course's folder lets other users pass through but not list it,
    and every top-level entry but SANDBOX_READS loses other users' access (its owner and group keep theirs). The
    unprivileged user then reads what bubblewrap would have shown it, and what any user may read outside the
    course."""
    if os.geteuid() != 0:
        return
    os.chmod(ROOT, (os.stat(ROOT).st_mode & 0o7777 & ~0o004) | 0o001)
    for name in os.listdir(ROOT):
        path = os.path.join(ROOT, name)
        if name in SANDBOX_READS or os.path.islink(path):
            continue
        os.chmod(path, os.stat(path).st_mode & 0o7777 & ~0o007)


def check_sandbox(no_sandbox, fall_back=False):
    """The sandbox's mode ("bwrap", or "setpriv" where bubblewrap cannot run and fall_back allows), or None."""
    sandbox.limits_from_env()  # a bad GRADE_* value stops here, before anything is graded
    if no_sandbox:
        say("classgrade: grading WITHOUT a sandbox (--no-sandbox): only for code you trust")
        return None
    ok, why = sandbox.available()
    if not ok and fall_back:
        ok_fallback, why_not = sandbox.fallback_available()
        if ok_fallback:
            say("classgrade: bubblewrap cannot run here (%s); the student's code runs as an unprivileged user "
                "instead" % why)
            hide_course_from_other_users()
            return "setpriv"
        say("classgrade: grading without the sandbox: %s; and %s" % (why, why_not))
        return None
    if not ok:
        raise SystemExit("classgrade: %s (--no-sandbox grades without one, for code you trust)" % why)
    return "bwrap"


def lock_output(out_root):
    """One grade-all at a time writes to a folder: a second one says so and exits."""
    fd = os.open(os.path.join(out_root, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        with os.fdopen(fd) as f:
            holder = f.read().strip()
        raise SystemExit("classgrade: another grade-all (process %s) is writing to %s; wait for it to finish or "
                         "choose another --out" % (holder or "?", out_root))
    os.ftruncate(fd, 0)
    os.write(fd, str(os.getpid()).encode())
    return fd  # held open, and so locked, until this process exits


def cmd_grade_all(args):
    submissions = os.path.abspath(args.submissions)
    entries = list_entries(submissions)
    backend = toolchain.choose_backend(args.backend)
    sandboxed = check_sandbox(args.no_sandbox)
    out_root = os.path.abspath(args.out)
    os.makedirs(out_root, exist_ok=True)
    lock_output(out_root)  # its file stays open, and so locked, until this process exits
    todo, kept = plan(entries, out_root, backend)
    say("%d submissions: %d to grade, %d unchanged since the last run" % (len(entries), len(todo),
                                                                           len([m for m in kept if m["status"] != "duplicate"])))
    metas = list(kept)
    started = time.time()
    try:
        if todo:
            if args.runner == "slurm":
                Trusted(out_root, backend)  # built once here, on a filesystem the nodes share
                metas += grade_all_slurm(todo, out_root, backend, sandboxed)
            else:
                trusted = Trusted(out_root, backend)
                jobs = args.jobs or os.cpu_count() or 1
                metas += grade_all_local(todo, out_root, trusted, min(jobs, len(todo)), backend, sandboxed)
    except KeyboardInterrupt:
        # what is finished stays: those students' results are on disk, and the gradebook lists them
        sandbox.stop_all()
        keys = {student: key for _, student, key in todo}
        metas = list(kept) + [m for m in (load_meta(output_folder(out_root, s)) for s in keys)
                              if m and m.get("key") == keys.get(m.get("student"))]
        path = write_gradebook(out_root, metas)
        say("\nclassgrade: stopped; %d finished results kept in %s" % (len(metas), os.path.relpath(path, os.getcwd())))
        raise
    minutes = (time.time() - started) / 60
    path = write_gradebook(out_root, metas)
    counts = {}
    for m in metas:
        counts[m["status"]] = counts.get(m["status"], 0) + 1
    say("graded %d in %.1f min%s; %s" % (len(todo), minutes, " (%.1f per minute)" % (len(todo) / minutes)
                                         if todo and minutes > 0 else "",
                                         ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items()))))
    say("wrote %s" % os.path.relpath(path, os.getcwd()))
    return 0


def cmd_grade_one(args):
    if not os.path.exists(args.submission):
        raise SystemExit("classgrade: no submission at '%s'" % args.submission)
    backend = toolchain.choose_backend(args.backend)
    if args.sandbox == "setpriv" and not args.no_sandbox:
        ok, why = sandbox.fallback_available()
        if not ok:
            raise SystemExit("classgrade: --sandbox setpriv: %s" % why)
        hide_course_from_other_users()
        sandboxed = "setpriv"
    else:
        sandboxed = check_sandbox(args.no_sandbox or args.sandbox == "no", fall_back=args.sandbox == "auto")
    out_dir = os.path.abspath(args.out)
    trusted = Trusted(os.path.join(ROOT, "build", "grade-one"), backend)
    slot = sandbox.claim_slots(1)[0] if sandboxed else 0
    only = None
    if args.lab:
        try:
            only = labs.find(args.lab).folder
        except labs.LabError as e:
            raise SystemExit("classgrade: --lab: %s" % e)
    meta = grade_submission(os.path.abspath(args.submission), args.name or "submission", out_dir,
                            os.path.join(ROOT, "build", "grade-one", ".work"), trusted, slot, backend, sandboxed,
                            only=only)
    os.remove(os.path.join(out_dir, "meta.json"))
    if meta.get("left_out"):
        say("this assignment grades %s alone; left out of the submission: %s" % (only, ", ".join(meta["left_out"])))
    say("%s: %s, %g points%s" % (args.name or "submission", meta["status"], meta.get("total", 0),
                                 " (%s)" % meta["reason"] if meta["reason"] else ""))
    say("wrote %s" % os.path.join(out_dir, "results.json"))
    return 0


def cmd_reference_cpu(args):
    """Grades every lab's reference in the sandbox on the emulator and prints the CPU seconds its visible tests took
    (lab.ini's `reference cpu s`, from which grading.lab_cpu_budget scales each lab's budget); --write stores them."""
    sandboxed = check_sandbox(False, fall_back=False)
    trusted = Trusted(os.path.join(ROOT, "build", "reference-cpu"), "emu")
    slot = sandbox.claim_slots(1)[0]
    for lab in labs.folders():
        work = os.path.join(ROOT, "build", "reference-cpu", ".work")
        results = grading.grade_lab(lab, os.path.join(ROOT, "solutions", lab, "kernel.cu"), "emu", work,
                                    make_sandbox=sandbox_for(trusted, lab, slot, sandboxed))
        cpu = sum(r.cpu_s for r in results)
        failed = [r.name for r in results if not r.passed]
        say("%-22s %6.1f s of CPU in %d tests%s" % (lab, cpu, len(results), "; FAILED: " + ", ".join(failed)
                                                     if failed else ""))
        if args.write and not failed:
            labs.write_reference_cpu(lab, round(cpu, 1))
    return 0


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, as for any other bad input
        raise SystemExit("classgrade: %s (python3 -m grader.classgrade --help)" % message)


def main(argv):
    parser = Parser(prog="classgrade", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    p = sub.add_parser("grade-all", help="grade every submission in a folder")
    p.add_argument("--submissions", required=True)
    p.add_argument("--out", default=os.path.join(ROOT, "build", "grade-all"))
    p.add_argument("--jobs", type=int, default=0, help="submissions graded at once (default: one per core)")
    p.add_argument("--runner", choices=("local", "slurm"), default="local")
    p.add_argument("--backend")
    p.add_argument("--no-sandbox", action="store_true")
    p = sub.add_parser("grade-one", help="grade one submission (a folder or an archive)")
    p.add_argument("--submission", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--name")
    p.add_argument("--lab", help="grade this lab alone (a one-lab assignment); a lone kernel.cu is that lab's")
    p.add_argument("--backend")
    p.add_argument("--no-sandbox", action="store_true")
    p.add_argument("--sandbox", choices=("yes", "auto", "setpriv", "no"), default="yes",
                   help="auto: where bubblewrap cannot make a sandbox (a Gradescope container), run the student's code "
                        "as an unprivileged user instead (setpriv: always that)")
    p = sub.add_parser("reference-cpu", help="the CPU seconds each lab's reference takes to test (lab.ini)")
    p.add_argument("--write", action="store_true", help="store them in each lab.ini")
    p = sub.add_parser("slurm-task", help="grade the submission of this Slurm array task")
    p.add_argument("--tasks", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--backend", default="emu")
    p.add_argument("--no-sandbox", action="store_true")
    args = parser.parse_args(argv)
    if getattr(args, "jobs", 0) and args.jobs < 0:
        raise SystemExit("classgrade: --jobs must be >= 1")
    return {"grade-all": cmd_grade_all, "grade-one": cmd_grade_one, "slurm-task": cmd_slurm_task,
            "reference-cpu": cmd_reference_cpu}[args.command](args)


def stopped_now():
    """After Ctrl-C, once the gradebook of the finished students is written: ends the process without waiting for
    worker threads still inside a submission (none of them writes to the gradebook)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        stopped_now()
