"""sandbox — runs one command of an untrusted submission under bubblewrap, with limits.

What the command sees: /usr (the compilers and libraries), a private /tmp, the paths it is given read-only (the
course's headers, the prebuilt objects) and one folder it may write (the submission's own build folder). It has no
network, no view of the rest of the course (the grader, with its solutions and hidden tests; other students), its
own process and IPC namespaces, no variable of the grader's environment (bwrap itself starts with an empty one), and runs as an
unprivileged user. Limits, per process: CPU time, memory, the size of any file it writes (its stdout and stderr are
files too, so a flood of output stops at that size); per command, over all its processes: wall time, processes (one
user per submission, claimed for this run alone), memory in use, and what it wrote to its folder.

Where bubblewrap cannot make a sandbox (a Gradescope container) but the grader runs as root, mode "setpriv" runs the
command as the slot's unprivileged user with the same limits and an empty environment: it can then read what any
user may read, but write nothing of the course's, the judge's or the results.

The grader trusts nothing the command writes: callers read its output through `Outcome` (capped) and validate any
file they take from the writable folder.
"""
import fcntl
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

# (name, default) for each limit; GRADE_<NAME> in the environment overrides it.
DEFAULT_LIMITS = {
    "cpu_s": 60,                 # CPU seconds per process
    "wall_s": 90,                # wall-clock seconds for the whole command
    "memory_mb": 2048,           # data segment and private writable memory per process (RLIMIT_DATA: the emulator
                                 # reserves terabytes of address space it never touches, so RLIMIT_AS cannot serve)
    "processes": 64,             # processes and threads of the sandbox's user
    "output_mb": 32,             # the largest file it may write, stdout and stderr included
    "total_memory_mb": 3072,     # resident memory of all its processes together
    "disk_mb": 256,              # what its writable folder may hold
}
# The sandbox's users: one per parallel slot, so a fork bomb counts against its own process limit only. A run claims
# its slots (a lock file each) so that two runs at once, on the same class or not, never share a user.
FIRST_UID = 61000
# Slots are claimed from 1000 up (users 62000 to 64999), clear of the users 61000 and up that a grader without
# claims (an older version of this one, running beside it) takes by its slot number alone.
CLAIMED_SLOTS = range(1000, 4000)
SLOT_LOCKS = os.path.join(tempfile.gettempdir(), "classgrade-sandbox-users")
POLL_S = 0.25  # how often the totals are measured
_claimed = {}
_running = set()
_running_lock = threading.Lock()
stopping = threading.Event()  # set on Ctrl-C: every running command is killed, and no new one starts


def claim_slots(n):
    """n sandbox slots no other run on this machine holds; held until this process exits."""
    os.makedirs(SLOT_LOCKS, mode=0o1777, exist_ok=True)
    got = []
    for slot in CLAIMED_SLOTS:
        if len(got) == n:
            break
        if slot in _claimed:
            continue
        try:
            fd = os.open(os.path.join(SLOT_LOCKS, "%d.lock" % slot), os.O_RDWR | os.O_CREAT, 0o666)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        _claimed[slot] = fd
        got.append(slot)
    if len(got) < n:
        raise SystemExit("sandbox: no free sandbox user (%d runs at once?)" % len(CLAIMED_SLOTS))
    return got


def stop_all():
    """Ctrl-C: kills every command running in a sandbox now, and refuses new ones."""
    stopping.set()
    with _running_lock:
        for proc in list(_running):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass


def limits_from_env(overrides=None):
    limits = dict(DEFAULT_LIMITS)
    for name in limits:
        value = os.environ.get("GRADE_" + name.upper())
        if value:
            if not value.isdigit() or int(value) < 1:
                raise SystemExit("sandbox: GRADE_%s must be a whole number >= 1, not '%s'" % (name.upper(), value))
            limits[name] = int(value)
    limits.update(overrides or {})
    return limits


class Outcome:
    def __init__(self, returncode, stdout, stderr, limit, cpu_s=0.0):
        self.returncode = returncode  # negative: killed by that signal
        self.stdout = stdout
        self.stderr = stderr
        self.limit = limit            # which limit stopped it ("wall-time limit (90 s)", ...), or None
        # CPU seconds of all its processes, as the kernel's /proc counted them at the last look (every POLL_S
        # while it ran): what ran after that look, under POLL_S, is not in it. bubblewrap's processes reap the
        # command inside its namespace and exit unreaped themselves, so wait4's figures would hold none of it.
        self.cpu_s = cpu_s


def fallback_available():
    """(usable, reason): whether mode "setpriv" can run a command as an unprivileged user here."""
    for tool, package in (("prlimit", "util-linux"), ("setpriv", "util-linux")):
        if not shutil.which(tool):
            return False, "%s is not installed (Debian: apt-get install %s)" % (tool, package)
    if os.geteuid() != 0:
        return False, "not root, so there is no other user to run the student's code as"
    return True, "setpriv"


def available():
    """(usable, reason): whether a sandbox can be built here, tried with the command every run uses."""
    for tool, package in (("bwrap", "bubblewrap"), ("prlimit", "util-linux"), ("setpriv", "util-linux")):
        if not shutil.which(tool):
            return False, "%s is not installed (Debian: apt-get install %s)" % (tool, package)
    with tempfile.TemporaryDirectory(prefix="sandbox-probe-") as tmp:
        box = Sandbox([], tmp, slot=claim_slots(1)[0])
        box.prepare()
        outcome = box.run(["true"])
    if outcome.returncode != 0:
        return False, "bubblewrap cannot create a sandbox here: " + (outcome.stderr.strip() or
                                                                      "exit %d" % outcome.returncode)
    return True, "bubblewrap"


class Sandbox:
    """One sandbox configuration: read-only paths, one writable folder, limits, and a slot (parallel worker)."""

    def __init__(self, read_only, writable, slot=0, limits=None, cwd=None, mode="bwrap"):
        self.read_only = [os.path.abspath(p) for p in read_only]
        self.writable = os.path.abspath(writable)
        self.slot = slot
        self.limits = limits or limits_from_env()
        self.cwd = cwd or self.writable
        self.mode = mode

    def _uid(self):
        return FIRST_UID + self.slot if os.geteuid() == 0 else os.geteuid()

    def prepare(self):
        """Hands the writable folder to the sandbox's user."""
        os.makedirs(self.writable, exist_ok=True)
        if os.geteuid() == 0:
            uid = self._uid()
            for dirpath, dirnames, filenames in os.walk(self.writable):
                for name in [dirpath] + [os.path.join(dirpath, n) for n in dirnames + filenames]:
                    os.lchown(name, uid, uid)

    def _reap(self, patience_s=10):
        """Waits until no process of this slot's user is left (the namespace's teardown takes a moment after a
        fork bomb), killing stragglers: the next command of the slot must start with its whole process limit."""
        if os.geteuid() != 0:
            return  # the pid namespace died with bwrap; there is no user of our own to check
        deadline = time.time() + patience_s
        while time.time() < deadline:
            pids = _pids_of(self._uid(), running_only=True)
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.05)

    def command(self, cmd):
        """The full command line. As root, bwrap sets up the namespaces with root's right to bind any path (a
        course in a private /root included) and setpriv, inside, drops to the slot's user for good. Otherwise bwrap
        runs unprivileged, in a user namespace of its own."""
        lim = self.limits
        uid = self._uid()
        root = os.geteuid() == 0
        # Not root: the process limit counts every process of this user, so it starts from how many run now.
        nproc = lim["processes"] + (0 if root else len(_pids_of(uid)))
        prefix = ["prlimit", "--cpu=%d:%d" % (lim["cpu_s"], lim["cpu_s"] + 2), "--data=%d" % (lim["memory_mb"] << 20),
                  "--nproc=%d" % nproc, "--fsize=%d" % (lim["output_mb"] << 20), "--core=0", "--"]
        namespaces = (["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
                      if root else ["--unshare-all"])
        bw = ["bwrap"] + namespaces + ["--die-with-parent", "--new-session", "--clearenv",
              "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
              "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin", "--proc", "/proc", "--dev", "/dev",
              "--size", str(64 << 20), "--perms", "1777", "--tmpfs", "/tmp"]
        etc = [p for p in ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime") if os.path.exists(p)]
        # the folders above each bound path, open to the sandbox's user (bwrap would copy a private folder's mode)
        above = sorted({a for p in etc + self.read_only + [self.writable] for a in _ancestors(p)},
                       key=lambda a: a.count("/"))
        for a in above:
            bw += ["--perms", "0755", "--dir", a]
        for p in etc + self.read_only:
            bw += ["--ro-bind", p, p]
        bw += ["--bind", self.writable, self.writable]
        for dev in sorted(os.listdir("/dev")):
            if dev.startswith("nvidia"):  # the GPU backend: the driver's device files
                bw += ["--dev-bind", "/dev/" + dev, "/dev/" + dev]
        bw += ["--remount-ro", "/", "--chdir", self.cwd,
               "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp", "--setenv", "LANG", "C.UTF-8",
               "--setenv", "TMPDIR", "/tmp"]
        for key in PASSED_ENV:
            if os.environ.get(key):
                bw += ["--setenv", key, os.environ[key]]
        drop = (["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups", "--no-new-privs",
                 "--inh-caps=-all", "--bounding-set=-all", "--"] if root else [])
        if self.mode == "setpriv":
            # no namespaces: the unprivileged user and an empty environment are the walls
            return prefix + drop + ["env", "-i", "PATH=/usr/bin:/bin", "HOME=/tmp", "LANG=C.UTF-8"] + [
                "%s=%s" % (k, os.environ[k]) for k in PASSED_ENV if os.environ.get(k)] + cmd
        return prefix + bw + ["--"] + drop + cmd

    def run(self, cmd, env=None, stdin=b""):
        """Runs cmd in the sandbox, with `stdin` as its standard input; returns an Outcome. Never raises for
        anything the command does."""
        lim = self.limits
        full = self.command(cmd)
        if env and self.mode == "setpriv":
            i = full.index("env") + 2  # after "env -i"
            full = full[:i] + ["%s=%s" % kv for kv in env.items()] + full[i:]
        elif env:
            extra = sum((["--setenv", k, v] for k, v in env.items()), [])
            i = full.index("--chdir")
            full = full[:i] + extra + full[i:]
        for attempt in range(10):
            if stopping.is_set():
                return Outcome(-signal.SIGKILL, "", "", "stop (Ctrl-C)")
            outcome = self._run_once(full, lim, stdin)
            # bwrap could not set up (the slot's last processes are still exiting): not the submission's doing
            if not (outcome.returncode == 1 and outcome.stderr.startswith("bwrap: ") and
                    "Resource temporarily unavailable" in outcome.stderr):
                break
            time.sleep(0.5 * (attempt + 1))
        return outcome

    def _run_once(self, full, lim, stdin=b""):
        cap = lim["output_mb"] << 20
        with tempfile.TemporaryDirectory(prefix="sandbox-") as tmp:
            out_path, err_path = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
            with open(out_path, "wb") as out, open(err_path, "wb") as err:
                # bwrap itself gets an empty environment: its process 1 in the sandbox keeps what bwrap was given
                proc = subprocess.Popen(full, stdin=subprocess.PIPE, stdout=out, stderr=err, start_new_session=True,
                                        env={"PATH": "/usr/bin:/bin"})
                with _running_lock:
                    _running.add(proc)
                try:
                    proc.stdin.write(stdin)
                    proc.stdin.close()
                except OSError:
                    pass
                limit, cpu_s = self._watch(proc, lim)
                if limit:
                    os.killpg(proc.pid, signal.SIGKILL)  # bwrap dies, and with it every process in its namespace
                proc.wait()
                with _running_lock:
                    _running.discard(proc)
            sizes = os.path.getsize(out_path), os.path.getsize(err_path)
            stdout, stderr = (_read_capped(p, 1 << 20) for p in (out_path, err_path))
        self._reap()
        rc = proc.returncode
        # bwrap reports a child killed by signal S as exit status 128 + S
        sig = -rc if rc < 0 else (rc - 128 if 128 < rc < 128 + 65 else 0)
        if limit is None:
            if sig == signal.SIGXCPU or sig == signal.SIGKILL:  # SIGKILL: the hard CPU limit, 2 s after the soft one
                limit = "CPU-time limit (%d s)" % lim["cpu_s"]
            elif sig == signal.SIGXFSZ or max(sizes) >= cap:
                limit = "output limit (%d MiB)" % lim["output_mb"]
            elif "bad_alloc" in stderr or "Cannot allocate memory" in stderr or "out of memory" in stderr.lower():
                limit = "memory limit (%d MiB)" % lim["memory_mb"]
            elif "Resource temporarily unavailable" in stderr and "fork" in stderr:
                limit = "process limit (%d)" % lim["processes"]
        if sig and rc > 0:
            rc = -sig
        return Outcome(rc, stdout, stderr, limit, cpu_s)


    def _watch(self, proc, lim):
        """Waits for the command, measuring what all its processes hold together; (the limit it broke or None, the
        CPU seconds it was last seen to have used)."""
        deadline = time.time() + lim["wall_s"]
        cpu_s, wait_s = 0.0, 0.02  # looks often at first, so that a short command's CPU is seen too
        while True:
            try:
                proc.wait(timeout=wait_s)
                return None, cpu_s
            except subprocess.TimeoutExpired:
                pass
            wait_s = min(wait_s * 2, POLL_S)
            rss, cpu = _tree_usage(proc.pid)
            cpu_s = max(cpu_s, cpu)
            if stopping.is_set():
                return "stop (Ctrl-C)", cpu_s
            if time.time() > deadline:
                return "wall-time limit (%d s)" % lim["wall_s"], cpu_s
            if rss > lim["total_memory_mb"] << 20:
                return "memory limit (%d MiB over all its processes)" % lim["total_memory_mb"], cpu_s
            if _folder_bytes(self.writable) > lim["disk_mb"] << 20:
                return "disk limit (%d MiB written)" % lim["disk_mb"], cpu_s


PASSED_ENV = ("CUDAEMU_TIMEOUT", "CUDAEMU_CACHE", "CUDAEMU_CLANG", "CUDAEMU_THREADS", "CUDA_ARCH")


def _tree_usage(root_pid):
    """(resident bytes, CPU seconds) of root_pid and every process below it: the CPU each has used, and what the
    children it has waited for used."""
    children, rss, cpu = {}, {}, {}
    page = os.sysconf("SC_PAGE_SIZE")
    tick = os.sysconf("SC_CLK_TCK")
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(pid))
            rss[int(pid)] = int(fields[21]) * page
            cpu[int(pid)] = sum(int(t) for t in fields[11:15]) / tick  # utime, stime, cutime, cstime
        except (OSError, IndexError, ValueError):
            pass
    total, cpu_s, todo = 0, 0.0, [root_pid]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        cpu_s += cpu.get(pid, 0.0)
        todo += children.get(pid, [])
    return total, cpu_s


def _folder_bytes(folder):
    total = 0
    for dirpath, _, filenames in os.walk(folder):
        for name in filenames:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                pass
    return total


def _ancestors(path):
    out = []
    path = os.path.dirname(path)
    while path not in ("/", ""):
        out.append(path)
        path = os.path.dirname(path)
    return out


PF_EXITING = 0x4  # in /proc/PID/stat's flags: the task is on its way out (a namespace's teardown takes a moment)


def _pids_of(uid, running_only=False):
    pids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if os.stat("/proc/" + pid).st_uid != uid:
                    continue
                if running_only:
                    with open("/proc/%s/stat" % pid) as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                    if fields[0] in "ZX" or int(fields[6]) & PF_EXITING:
                        continue
                pids.append(int(pid))
            except (OSError, IndexError, ValueError):
                pass
    return pids


def _read_capped(path, cap):
    with open(path, "rb") as f:
        data = f.read(cap)
    return data.decode("utf-8", errors="replace")
