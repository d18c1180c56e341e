"""The Lab model: one object per folder labs/labN-topic, built from the two places a lab's facts live.

- lab.h, the C++ contract the kernel compiles against: the lab's numbers (`constexpr int BM = 128;`, SIZE_MULTIPLE,
  STAGES, ...) and `valid_shape(M, N, K)`. The tools ask the compiler for them, through a small probe program built
  from lab.h (build/labs/), so that a value or a rule is written once, in C++.
- lab.ini beside it: what only the tools need (the title, the demo, the points of each suite, the hidden tests'
  sizes).

Adding a lab means adding its folder: `all_labs()` finds every labs/labN-topic holding a lab.h, and `find("6")`,
`find("lab6")` and `find("lab6-warptiling")` name the same lab.
"""
import configparser
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import threading
from dataclasses import dataclass

from . import paths

FOLDER = re.compile(r"lab(\d+)-[a-z0-9-]+")
SUITES = ("correctness", "traffic", "memory safety")


class LabError(Exception):
    """A lab that does not exist, or whose lab.h or lab.ini cannot be read."""


@dataclass(frozen=True)
class Manifest:
    """A lab's lab.ini."""
    title: str
    idea: str             # one line for the README's table of labs
    demo_args: tuple      # the demo's WIDTH A B after the tests (all-ones inputs scaled by A and B)
    demo_program: str     # "demo" (common/demo.cpp) or a source file of the lab's own (lab 1: host_flow.cu)
    points: dict          # suite -> points, shared equally by the suite's test cases
    hidden_max_size: int  # the largest M, N or K a hidden test draws
    reference_cpu_s: float = 0.0  # the CPU seconds the reference's tests take on the emulator (0: no CPU budget)


@dataclass(frozen=True)
class Lab:
    folder: str  # "lab6-warptiling"

    @property
    def number(self):
        return int(FOLDER.fullmatch(self.folder).group(1))

    @property
    def short(self):
        """"lab6": make lab6, a submission's folder label in tables."""
        return "lab%d" % self.number

    @property
    def path(self):
        return os.path.join(paths.LABS_DIR, self.folder)

    @property
    def header(self):
        return os.path.join(self.path, "lab.h")

    @property
    def lesson(self):
        """The lab's lesson, docs/<folder>.md."""
        return os.path.join(paths.DOCS, self.folder + ".md")

    @property
    def solution(self):
        """The reference kernel, or None where the tree has none (the student handout)."""
        p = os.path.join(paths.SOLUTIONS, self.folder, "kernel.cu")
        return p if os.path.isfile(p) else None

    def __str__(self):
        return self.folder

    # -- lab.ini ---------------------------------------------------------------------------------------------
    @property
    def manifest(self):
        return read_manifest(os.path.join(self.path, "lab.ini"))

    @property
    def title(self):
        return self.manifest.title

    @property
    def idea(self):
        return self.manifest.idea

    @property
    def demo_args(self):
        return list(self.manifest.demo_args)

    @property
    def demo_program(self):
        return self.manifest.demo_program

    @property
    def points(self):
        return dict(self.manifest.points)

    @property
    def hidden_max_size(self):
        return self.manifest.hidden_max_size

    # -- lab.h, through the compiler -------------------------------------------------------------------------
    @property
    def constants(self):
        """{name: value} of every `constexpr int NAME` in lab.h, as the compiler evaluates it."""
        return dict(probe(self.header).constants)

    @property
    def size_multiple(self):
        """What every size is a multiple of (lab 2: 16), else 1."""
        return self.constants.get("SIZE_MULTIPLE", 1)

    def valid_shape(self, M, N, K):
        """lab.h's valid_shape(M, N, K): whether the harness may call matmul with this shape."""
        return probe(self.header).valid(((M, N, K),))[0]

    def valid_shapes(self, shapes):
        return probe(self.header).valid(tuple(tuple(s) for s in shapes))

    @property
    def block_tile(self):
        """(BM, BN): the block tile lab.h fixes and the traffic contract is stated for; None for the naive lab."""
        c = self.constants
        if "BM" in c and "BN" in c:
            return c["BM"], c["BN"]
        if "TILE_WIDTH" in c:
            return c["TILE_WIDTH"], c["TILE_WIDTH"]
        return None

    def traffic_bytes(self, M, N, K):
        """Global bytes by the lab's formula: every read of A and B (naive: 2·M·N·K floats; a BM×BN block tile:
        M·K·⌈N/BN⌉ + K·N·⌈M/BM⌉ floats) plus one store per element of C. Returns (bytes, the formula)."""
        return traffic_bytes(self.block_tile, M, N, K)


def readme_table(chosen=None):
    """The README's table of labs, from each lab's lab.ini and lab.h (tests/course/test_labs.py keeps them equal)."""
    lines = ["| lab | idea | block tile | sizes | lesson | your file |", "|---|---|---|---|---|---|"]
    for lab in chosen or all_labs():
        tile = "%d×%d" % lab.block_tile if lab.block_tile else "–"
        sizes = "multiples of %d" % lab.size_multiple if lab.size_multiple > 1 else "any"
        lesson = os.path.relpath(lab.lesson, paths.ROOT)
        lines.append("| %d | %s | %s | %s | [%s](%s) | `labs/%s/kernel.cu` |" % (lab.number, lab.idea, tile, sizes, lesson,
                                                                             lesson, lab.folder))
    return "\n".join(lines) + "\n"


TEST_SUITE = re.compile(r'TEST_SUITE\("([^"]*)"\)')
TEST_CASE = re.compile(r'TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\)')


def test_names(lab):
    """[(suite, name)] of the lab's tests.cpp, in order, read from its source (as doctest names them: adjacent
    string literals joined)."""
    with open(os.path.join(lab.path, "tests.cpp"), encoding="utf-8") as f:
        text = f.read()
    marks = sorted([(m.start(), "suite", m.group(1)) for m in TEST_SUITE.finditer(text)] +
                   [(m.start(), "case", "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))))
                    for m in TEST_CASE.finditer(text)])
    suite, out = "", []
    for _, kind, value in marks:
        if kind == "suite":
            suite = value
        else:
            out.append((suite, value))
    return out


def grade_checks(lab):
    """What a lab's grade checks beyond the correctness of C: its traffic and memory-safety tests, a Markdown list
    of each suite with its points (the README and each lesson carry it; tests/course/test_labs.py keeps them equal
    to tests.cpp)."""
    tests = test_names(lab)
    out = []
    for suite in ("traffic", "memory safety"):
        out.append("%s (%g points):\n\n" % (suite.capitalize(), lab.points[suite]))
        out += ["- `%s`\n" % name for s, name in tests if s == suite]
        out.append("\n")
    return "".join(out[:-1])


def block_tile_floats(M, N, K, bm, bn):
    """Floats a kernel reads from A and B when each block computes a bm×bn tile of C and loads only elements inside
    A and B: each element of A once per block column, each of B once per block row. The labs' traffic tests allow
    this (block_tile_floats in common/lab_tests.h; tests/course/test_labs.py checks that the two agree)."""
    return M * K * -(-N // bn) + K * N * -(-M // bm)


def traffic_bytes(tile, M, N, K):
    """The formula of Lab.traffic_bytes for a block tile (BM, BN), or None for the naive kernel."""
    if tile is None:
        reads = 2 * M * N * K
        text = "2·M·N·K·4 + M·N·4"
    else:
        bm, bn = tile
        reads = block_tile_floats(M, N, K, bm, bn)
        text = "(M·K·⌈N/%d⌉ + K·N·⌈M/%d⌉)·4 + M·N·4" % (bn, bm)
    return 4 * reads + 4 * M * N, text


# ---------------------------------------------------------------------------------------------------------------
# Finding labs
# ---------------------------------------------------------------------------------------------------------------
def all_labs(labs_dir=None):
    """Every lab, in order: the folders labs/labN-topic holding a lab.h."""
    labs_dir = labs_dir or paths.LABS_DIR
    found = [d for d in os.listdir(labs_dir) if FOLDER.fullmatch(d) and os.path.isfile(os.path.join(labs_dir, d, "lab.h"))]
    return [Lab(d) for d in sorted(found, key=lambda d: int(FOLDER.fullmatch(d).group(1)))]


def folders():
    return [lab.folder for lab in all_labs()]


def find(name):
    """The lab that `name` names: 6, "6", "lab6" or "lab6-warptiling". LabError otherwise, listing the labs."""
    text = str(name).strip()
    for lab in all_labs():
        if text in (lab.folder, lab.short, str(lab.number)):
            return lab
    raise LabError("no lab '%s' (one of: %s)" % (name, ", ".join(lab.short for lab in all_labs())))


# ---------------------------------------------------------------------------------------------------------------
# lab.ini
# ---------------------------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def read_manifest(path):
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with open(path, encoding="utf-8") as f:
            parser.read_file(f)
        lab = parser["lab"]
        demo = tuple(lab["demo"].split())
        if len(demo) != 3 or not all(re.fullmatch(r"\d+", d) for d in demo):
            raise ValueError("demo must be three whole numbers: WIDTH A B")
        points = {suite: float(parser["points"][suite]) for suite in SUITES}
        extra = set(parser["points"]) - set(SUITES)
        if extra:
            raise ValueError("points for an unknown suite: %s" % ", ".join(sorted(extra)))
        return Manifest(title=lab["title"], idea=lab["idea"], demo_args=demo, demo_program=lab.get("demo program", "demo"),
                        points=points, hidden_max_size=parser["hidden"].getint("max size"),
                        reference_cpu_s=parser.getfloat("grading", "reference cpu s", fallback=0.0))
    except (OSError, KeyError, ValueError, configparser.Error) as e:
        raise LabError("%s: %s" % (paths.rel(path), e)) from None


def write_reference_cpu(lab, seconds):
    """Sets `reference cpu s` in the [grading] section of the lab's lab.ini (added at the end if missing)."""
    path = os.path.join(find(lab).path, "lab.ini")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    line = "reference cpu s = %g" % seconds
    if re.search(r"^reference cpu s = .*$", text, re.M):
        text = re.sub(r"^reference cpu s = .*$", line, text, flags=re.M)
    else:
        text = text.rstrip("\n") + ("\n\n[grading]\n# the CPU seconds the reference's visible tests take on the "
                                     "emulator, sandboxed (python3 -m grader.classgrade\n# reference-cpu --write): "
                                     "class grading stops a lab whose tests take 10 times as much plus 20 s "
                                     "(course/grading.py)\n") + line + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    read_manifest.cache_clear()


# ---------------------------------------------------------------------------------------------------------------
# The probe: lab.h's numbers and valid_shape, from the compiler
# ---------------------------------------------------------------------------------------------------------------
PROBE_MAIN = """
// Generated by course/labs.py: prints lab.h's constants as JSON, or with M N K triples, valid_shape of each.
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
    if (argc > 1) {
        for (int i = 1; i + 2 < argc; i += 3)
            std::printf("%d\\n", valid_shape(std::atoi(argv[i]), std::atoi(argv[i + 1]), std::atoi(argv[i + 2])) ? 1 : 0);
        return 0;
    }
    std::printf("{");
@PRINTS@    std::printf("}\\n");
    return 0;
}
"""
PROBE_LOCK = threading.Lock()


class Probe:
    def __init__(self, binary, constants):
        self.binary = binary
        self.constants = constants

    def valid(self, shapes):
        if not shapes:
            return []
        out = subprocess.run([self.binary] + [str(int(v)) for s in shapes for v in s], capture_output=True,
                             text=True, timeout=60)
        answers = out.stdout.split()
        if out.returncode != 0 or len(answers) != len(shapes):
            raise LabError("the probe of lab.h failed: %s" % (out.stderr.strip() or out.returncode))
        return [a == "1" for a in answers]


def probe_compiler():
    """A C++ compiler that can build the probe: clang++ (lab.h then sees the emulator's <cuda_runtime.h>), else nvcc
    (the GPU machine)."""
    clang = os.environ.get("CUDAEMU_CLANG")
    if clang:
        return [clang, "-x", "c++", "-I", os.path.join(paths.COMMON, "emu", "include")]
    for name in ["clang++"] + ["clang++-%d" % v for v in range(30, 13, -1)]:
        if shutil.which(name):
            return [name, "-x", "c++", "-I", os.path.join(paths.COMMON, "emu", "include")]
    if shutil.which("nvcc"):
        return ["nvcc", "-x", "cu"]
    raise LabError("no C++ compiler to read lab.h with: install clang (tools/install-deps)")


@functools.lru_cache(maxsize=None)
def probe(header):
    """The probe of one lab.h: built once per content of lab.h and lab_common.h, into build/labs/."""
    with open(header, encoding="utf-8") as f:
        text = f.read()
    names = re.findall(r"^constexpr int (\w+)\b", text, re.M)
    prints = "".join('    std::printf("%s\\"%s\\": %%d", int(%s));\n' % (", " if i else "", n, n)
                     for i, n in enumerate(names))
    source = '#include "lab.h"\n' + PROBE_MAIN.replace("@PRINTS@", prints)
    h = hashlib.sha1(source.encode())
    with open(os.path.join(paths.COMMON, "lab_common.h"), "rb") as f:
        h.update(text.encode() + f.read())
    where = os.path.join(paths.BUILD, "labs", h.hexdigest()[:16])
    binary = os.path.join(where, "probe")
    with PROBE_LOCK:
        if not os.path.isfile(binary):
            os.makedirs(where, exist_ok=True)
            src = os.path.join(where, "probe.cpp")
            partial = "%s.%d-%d.tmp" % (binary, os.getpid(), threading.get_ident())
            with open(src, "w", encoding="utf-8") as f:
                f.write(source)
            cmd = probe_compiler() + ["-std=c++17", "-I", paths.COMMON, "-I", os.path.dirname(header), src, "-o",
                                      partial]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise LabError("%s does not compile:\n%s" % (paths.rel(header), (proc.stdout + proc.stderr).strip()))
            os.replace(partial, binary)
    out = subprocess.run([binary], capture_output=True, text=True, timeout=60)
    try:
        constants = json.loads(out.stdout)
    except ValueError:
        raise LabError("the probe of %s printed no constants: %s" % (paths.rel(header), out.stderr.strip())) from None
    return Probe(binary, constants)
