"""Toolchain discovery: the clang++ to compile with (14 or newer), LLVM's tools of the same version, and whether
Boost.Context is there for the emulator's fibers; and run, which runs one compiler step."""
import os
import re
import shutil
import subprocess

from .errors import Error, StepFailed


def find_clang():
    """$CUDAEMU_CLANG, else clang++ on the PATH, else the newest versioned clang++ from 20 down to 14."""
    candidates = [os.environ.get("CUDAEMU_CLANG")] if os.environ.get("CUDAEMU_CLANG") else []
    candidates.append("clang++")
    for v in range(20, 13, -1):
        candidates += ["clang++-%d" % v, "/usr/lib/llvm-%d/bin/clang++" % v]
    for c in candidates:
        path = shutil.which(c) if not os.path.isabs(c) else (c if os.access(c, os.X_OK) else None)
        if path:
            return path
    raise Error("no clang++ found: install Debian's clang and llvm packages (apt-get install clang llvm), or set "
                "CUDAEMU_CLANG")


def compiler_identity(clang):
    """What names the compiler whatever path string reached it: the binary it resolves to (its real path, size and
    modification time) and what it says of its version, less the InstalledDir line, which is the path it was called
    by (/usr/bin, or /usr/lib/llvm-14/bin when that is first on the PATH)."""
    real = os.path.realpath(clang)
    st = os.stat(real)
    out = subprocess.run([clang, "--version"], capture_output=True, text=True).stdout
    version = "\n".join(l for l in out.splitlines() if not l.startswith("InstalledDir:"))
    return "%s %d %d\n%s" % (real, st.st_size, int(st.st_mtime), version)


def clang_major(clang):
    """clang's major version; an Error below 14, the oldest the emulator's IR passes read."""
    out = subprocess.run([clang, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"clang version (\d+)", out)
    if not m:
        raise Error("cannot tell the version of %s" % clang)
    major = int(m.group(1))
    if major < 14:
        raise Error("%s is clang %d; the emulator needs clang 14 or newer" % (clang, major))
    return major


def find_tool(clang, major, name):
    """LLVM's `name` tool of the same version as clang, or None."""
    real_dir = os.path.dirname(os.path.realpath(clang))
    for c in [os.path.join(real_dir, name), "/usr/lib/llvm-%d/bin/%s" % (major, name), "%s-%d" % (name, major)]:
        path = c if os.path.isabs(c) and os.access(c, os.X_OK) else shutil.which(c)
        if path:
            return path
    return None


def have_boost_context(clang):
    """Whether Boost.Context's library and headers are there (else the fibers use glibc's ucontext), unless
    CUDAEMU_FIBERS=ucontext asks for the fallback."""
    if os.environ.get("CUDAEMU_FIBERS") == "ucontext":
        return False
    lib = subprocess.run([clang, "-print-file-name=libboost_context.so"], capture_output=True, text=True).stdout.strip()
    header_dirs = [d for d in os.environ.get("CPATH", "").split(":") if d] + ["/usr/include", "/usr/local/include"]
    header = any(os.path.isfile(os.path.join(d, "boost", "context", "detail", "fcontext.hpp")) for d in header_dirs)
    return os.path.isabs(lib) and os.path.exists(lib) and header


def run(cmd, what):
    """Runs one step (`what`: compile, instrument, optimise, link, ...); StepFailed if it fails, after the tool has
    printed its diagnostics."""
    proc = subprocess.run(cmd)
    if proc.returncode != 0:
        raise StepFailed(what, cmd, proc.returncode)

