"""build/ stays bounded: what a student's runs leave there is pruned, least recently used first, past a size.

Each `make labN`, `make pitfall` and lesson tool (make heatmap, make coalescing...) builds its programs into a folder of
its own, an entry: build/<backend>/<lab>/student, build/<backend>/<lab>/pitfall-NAME, build/lessons/<lab>/<kernel>.
A pitfall's entry alone holds a test program and a demo, each statically linked with the emulator, and a lab has
many pitfalls. Every entry is rebuilt when it is missing, so after each command the oldest go while build/ is
over the bound: BUILD_LIMIT_MB (default 100 in the student handout, none in the course repository, whose build/
holds the test suites' programs for the next `make test`; 0 keeps everything). Never pruned: the newest entry of each lab (its
latest result), an entry used in the last RECENT_S seconds (a command running beside this one may need it), and what
is not an entry (the shared objects, the emulator's runtime, the maps make heatmap drew).
"""
import os
import shutil
import time

from . import paths

DEFAULT_LIMIT_MB = 100
RECENT_S = 600  # a command marks its entry used (used()) before each program it runs from there
BACKENDS = ("emu", "gpu")


def limit_bytes():
    """BUILD_LIMIT_MB from the environment (make passes its variables there), in bytes; 0: no bound. Unset: the
    default in the handout, no bound in the course repository (the one with tests/)."""
    handout = not os.path.isdir(os.path.join(paths.ROOT, "tests"))
    text = os.environ.get("BUILD_LIMIT_MB", "").strip() or str(DEFAULT_LIMIT_MB if handout else 0)
    try:
        mb = float(text)
    except ValueError:
        raise SystemExit("course: BUILD_LIMIT_MB=%s is not a number of megabytes" % text)
    return int(max(mb, 0) * 1024 * 1024)


def size_and_time(path):
    """(bytes, latest modification) of everything under `path`, itself included."""
    total, latest = 0, os.lstat(path).st_mtime
    for folder, _, files in os.walk(path):
        latest = max(latest, os.lstat(folder).st_mtime)
        for name in files:
            try:
                st = os.lstat(os.path.join(folder, name))
            except OSError:  # removed by a command beside this one
                continue
            total += st.st_size
            latest = max(latest, st.st_mtime)
    return total, latest


def entries(build):
    """[(group, path)] of every entry under `build`: a group is one lab's entries of one kind (backend or lessons)."""
    found = []
    for kind in BACKENDS + ("lessons",):
        top = os.path.join(build, kind)
        if not os.path.isdir(top):
            continue
        for lab in sorted(os.listdir(top)):
            if not lab.startswith("lab") or not os.path.isdir(os.path.join(top, lab)):
                continue  # obj/, the runtime objects, staged/: shared, not an entry
            for name in sorted(os.listdir(os.path.join(top, lab))):
                if os.path.isdir(os.path.join(top, lab, name)):
                    found.append(((kind, lab), os.path.join(top, lab, name)))
    return found


def used(path):
    """Marks an entry as used now (a program reused as it is, which writes nothing there)."""
    try:
        os.utime(path)
    except OSError:
        pass


def prune(build=paths.BUILD, bound=None, now=None, recent_s=RECENT_S):
    """Removes entries, least recently used first, until `build` holds at most `bound` bytes (default: BUILD_LIMIT_MB)
    or none is left that may go. Returns the paths removed."""
    bound = limit_bytes() if bound is None else bound
    if not bound or not os.path.isdir(build):
        return []
    total, _ = size_and_time(build)
    if total <= bound:
        return []
    now = time.time() if now is None else now
    measured = {path: (group,) + size_and_time(path) for group, path in entries(build)}
    newest = {}
    for path, (group, _, when) in measured.items():
        if group not in newest or when > measured[newest[group]][2]:
            newest[group] = path
    keep = set(newest.values())
    removed = []
    for path, (_, size, when) in sorted(measured.items(), key=lambda kv: kv[1][2]):
        if total <= bound:
            break
        if path in keep or now - when < recent_s:
            continue
        shutil.rmtree(path, ignore_errors=True)
        total -= size
        removed.append(path)
    return removed
