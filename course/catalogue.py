"""The grader's catalogue of known-wrong and known-right kernels, kept as small changes to the course's kernels.

Each entry is two files in grader/catalogue/labN/:

    NAME.patch  a unified diff from its base (a reference in solutions/, a skeleton in labs/, or /dev/null for a
                kernel written whole) to the kernel: its header comment and its bug
    NAME.ini    its expectations: the base, the lab, the verdict, what the grader must say (the format is in
                grader/catalogue/README.md)

`materialise` applies the patch and writes the kernel to build/catalogue/labN/NAME.cu, rewriting it only when its
content changed. Diagnostics name it grader/catalogue/labN/NAME.cu (Entry.shown), a name that does not depend on
where the build folder is.

    python3 -m course.catalogue list                  every entry: verdict, base, the suites it must fail
    python3 -m course.catalogue materialise [NAME..]  write the kernels (NAME: lab3/missing_second_barrier)
    python3 -m course.catalogue record NAME           after editing build/catalogue/NAME.cu: rewrite NAME.patch
    python3 -m course.catalogue readme                rewrite the tables of grader/catalogue/README.md

The patches are applied strictly: every hunk must match its base exactly at the line its header names. A hunk that
would fit a few lines away is refused, not moved: the kernel's line numbers, which the expected words and the
lessons quote (`:41`), would have moved with it. Record the patch again and check the words.
"""
import configparser
import difflib
import glob
import os
import re
import sys
import textwrap
import threading
from dataclasses import dataclass

from . import labs, paths

FOLDER = os.path.join(paths.ROOT, "grader", "catalogue")
OUT = os.path.join(paths.BUILD, "catalogue")
README = os.path.join(FOLDER, "README.md")
NO_BASE = "/dev/null"
VERDICTS = ("wrong", "slow", "right")  # wrong and slow are pitfalls: `make pitfall` shows them
# The emulator's finding kinds, as kind_name() in common/emu/report.cpp spells them (tests/course/test_catalogue.py
# compares the two)
FINDING_KINDS = ("out-of-bounds", "host-access", "race", "barrier", "uninitialised", "timeout", "misaligned",
                 "unsupported", "warp")
KEYS = {"kernel": {"lab", "base", "verdict", "description", "bug"},
        "expect": {"fails", "words", "findings", "must get", "may also get", "why"},
        "student report": {"words"}}
REQUIRED = {"kernel": KEYS["kernel"], "expect": {"fails", "must get"}}


class CatalogueError(Exception):
    """An entry whose .ini is malformed or whose .patch does not apply; the message names the file."""


@dataclass(frozen=True)
class Entry:
    name: str           # "lab3/missing_second_barrier"
    lab: labs.Lab
    base: str           # "solutions/lab3-boundary/kernel.cu", or /dev/null
    verdict: str        # wrong, slow or right
    description: str    # the header comment as one paragraph: `make pitfall` and the handout's pitfalls/<lab>/*.txt
    bug: str
    fails: frozenset    # the suites that must lose points; empty: full marks
    words: tuple        # what the failure output must say
    findings: tuple     # the emulator's finding kinds the bug must get
    must_get: str
    may_also_get: str
    why: str
    student_report: tuple  # what `make labN KERNEL=...` must print for it, where the entry says

    @property
    def short(self):
        return self.name.split("/")[1]

    @property
    def pitfall(self):
        return self.verdict != "right"

    @property
    def patch(self):
        return os.path.join(FOLDER, self.name + ".patch")

    @property
    def ini(self):
        return os.path.join(FOLDER, self.name + ".ini")

    @property
    def shown(self):
        """Its name in diagnostics and reports."""
        return "grader/catalogue/%s.cu" % self.name

    @property
    def path(self):
        """Where `materialise` writes it."""
        return os.path.join(OUT, self.name + ".cu")


# ---------------------------------------------------------------------------------------------------------------
# The entries
# ---------------------------------------------------------------------------------------------------------------
def entries():
    """Every entry, lab by lab, by name; [] where there is no catalogue (the student handout). A .patch without
    its .ini, an .ini without its .patch, or any other file in a lab's folder is an error."""
    if not os.path.isdir(FOLDER):
        return []
    files = {os.path.relpath(p, FOLDER) for p in glob.glob(os.path.join(FOLDER, "lab*", "*"))}
    for f in sorted(files):
        stem, ext = os.path.splitext(f)
        if ext not in (".ini", ".patch"):
            raise CatalogueError("grader/catalogue/%s: an entry is a .patch and an .ini (course/catalogue.py)" % f)
        other = stem + (".patch" if ext == ".ini" else ".ini")
        if other not in files:
            raise CatalogueError("grader/catalogue/%s has no %s beside it" % (f, os.path.basename(other)))
    found = [read_entry(os.path.splitext(f)[0]) for f in files if f.endswith(".ini")]
    return sorted(found, key=lambda e: (e.lab.number, e.short))


def find(name):
    """The entry `name` names: lab3/missing_second_barrier (a trailing .cu is allowed)."""
    name = re.sub(r"\.(cu|ini|patch)$", "", name.strip())
    if not re.fullmatch(r"lab\d+/\w+", name) or not os.path.isfile(os.path.join(FOLDER, name + ".ini")):
        raise CatalogueError("no catalogue entry '%s' (labN/name, one of grader/catalogue/*/*.ini)" % name)
    return read_entry(name)


def lines_of(value):
    """A multi-line value's lines: `words`, one phrase a line."""
    return tuple(line.strip() for line in value.splitlines() if line.strip())


def one_line(value):
    """A value wrapped over several lines, as one."""
    return " ".join(value.split())


def list_of(value):
    return tuple(v.strip() for v in value.split(",") if v.strip())


def read_entry(name):
    """The entry grader/catalogue/<name>.ini describes; CatalogueError, naming the file, when it is malformed."""
    where = "grader/catalogue/%s.ini" % name
    parser = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=None)
    try:
        with open(os.path.join(FOLDER, name + ".ini"), encoding="utf-8") as f:
            parser.read_file(f)
    except (OSError, configparser.Error) as e:
        raise CatalogueError("%s: %s" % (where, e)) from None

    def problem(text, *args):
        return CatalogueError("%s: %s" % (where, text % args))

    unknown = set(parser.sections()) - set(KEYS)
    if unknown:
        raise problem("unknown section [%s] (one of: %s)", ", ".join(sorted(unknown)), ", ".join(KEYS))
    for section, keys in KEYS.items():
        if section not in parser:
            if section in REQUIRED:
                raise problem("no [%s] section", section)
            continue
        extra = set(parser[section]) - keys
        if extra:
            raise problem("[%s] has no key %s (its keys: %s)", section, ", ".join(sorted(extra)),
                          ", ".join(sorted(keys)))
        needed = sorted(REQUIRED.get(section, ()))
        missing = [k for k in needed if k not in parser[section] or (k != "fails" and not parser[section][k].strip())]
        if missing:
            raise problem("[%s] needs %s", section, ", ".join(missing))
    kernel, expect = parser["kernel"], parser["expect"]
    try:
        lab = labs.find(kernel["lab"])
    except labs.LabError as e:
        raise problem("%s", e) from None
    if lab.short != name.split("/")[0]:
        raise problem("lab = %s, but the entry is in %s/", kernel["lab"], name.split("/")[0])
    base = kernel["base"].strip()
    if base != NO_BASE and not re.fullmatch(r"(solutions|labs)/lab\d+-[a-z0-9-]+/kernel\.cu", base):
        raise problem("base = %s: a solutions/<lab>/kernel.cu, a labs/<lab>/kernel.cu or %s", base, NO_BASE)
    verdict = kernel["verdict"].strip()
    if verdict not in VERDICTS:
        raise problem("verdict = %s: one of %s", verdict, ", ".join(VERDICTS))
    fails = list_of(expect["fails"])
    if set(fails) - set(labs.SUITES):
        raise problem("fails = %s: each one of %s, or nothing for full marks", expect["fails"], ", ".join(labs.SUITES))
    words = lines_of(expect.get("words", ""))
    findings = list_of(expect.get("findings", ""))
    if set(findings) - set(FINDING_KINDS):
        raise problem("findings = %s: each one of the emulator's kinds (%s)", expect["findings"],
                      ", ".join(FINDING_KINDS))
    if (verdict == "right") != (not fails):
        raise problem("verdict = %s with fails = %s: a right kernel fails nothing, a wrong or slow one fails a suite",
                      verdict, expect["fails"].strip() or "(nothing)")
    if fails and not words:
        raise problem("fails = %s, but no words say what the failure output must contain", expect["fails"].strip())
    if not fails and (words or findings):
        raise problem("a kernel that scores full marks has no failure output: no words, no findings")
    report = parser["student report"]["words"] if "student report" in parser else ""
    return Entry(name=name, lab=lab, base=base, verdict=verdict, description=one_line(kernel["description"]),
                 bug=one_line(kernel["bug"]), fails=frozenset(fails), words=words, findings=findings,
                 must_get=one_line(expect["must get"]), may_also_get=one_line(expect.get("may also get", "")),
                 why=one_line(expect.get("why", "")), student_report=lines_of(report))


# ---------------------------------------------------------------------------------------------------------------
# Patches: a strict unified-diff applier, and the diff that `record` writes
# ---------------------------------------------------------------------------------------------------------------
HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply_patch(patch, base, patch_name, base_name):
    """The text `patch` (one file's unified diff) makes of `base`. Every hunk must match at the line its header
    names, with no offset and no fuzz; anything else raises CatalogueError naming patch_name. A blank context line
    may have lost its leading space (editors trim it)."""
    def problem(lineno, text):
        return CatalogueError("%s:%d: %s" % (patch_name, lineno, text))

    lines = patch.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        raise problem(len(lines), "the patch does not end with a newline")
    if len(lines) < 2 or not lines[0].startswith("--- ") or not lines[1].startswith("+++ "):
        raise problem(1, "not a unified diff: it begins with a '--- base' line and a '+++ kernel' line")
    named = lines[0][4:].rstrip("\n").split("\t")[0]
    if named != base_name:
        raise problem(1, "the patch is from %s, but its base is %s" % (named, base_name))
    old = base.splitlines(keepends=True)
    out, pos, i, number = [], 0, 2, 0
    if len(lines) == 2:
        raise problem(2, "no hunk")
    while i < len(lines):
        m = HUNK.match(lines[i])
        if not m:
            raise problem(i + 1, "expected a hunk header '@@ -l,s +l,s @@' (or the hunk above has more lines than its "
                                 "header counts), found %r" % lines[i].rstrip("\n"))
        number += 1
        header, at = lines[i].rstrip("\n"), i + 1
        a_start, b_start = int(m.group(1)), int(m.group(3))
        a_len = int(m.group(2)) if m.group(2) is not None else 1
        b_len = int(m.group(4)) if m.group(4) is not None else 1
        first = a_start - 1 if a_len else a_start  # an empty range names the line it follows
        if first < pos or first > len(old):
            raise problem(at, "hunk %d (%s) starts at line %d of %s, %s" % (
                number, header, a_start, base_name,
                "which the hunk before it already covers" if first < pos else "which has only %d lines" % len(old)))
        out.extend(old[pos:first])
        pos = first
        lands = len(out) + 1 if b_len else len(out)
        if lands != b_start:
            raise problem(at, "hunk %d (%s) says the kernel's lines start at %d, but they start at %d" % (
                number, header, b_start, lands))
        i += 1
        seen_a = seen_b = 0
        while seen_a < a_len or seen_b < b_len:
            if i >= len(lines):
                raise problem(i, "hunk %d (%s) ends after %d of its %d base lines and %d of its %d kernel lines" % (
                    number, header, seen_a, a_len, seen_b, b_len))
            line = lines[i]
            tag, text = (" ", "\n") if line == "\n" else (line[:1], line[1:])
            if tag == "\\":
                raise problem(i + 1, "'%s': a catalogue kernel and its base end with a newline" % line.rstrip("\n"))
            if tag not in " -+":
                raise problem(i + 1, "hunk %d (%s): a line of a hunk begins with ' ', '-' or '+', not %r" % (
                    number, header, tag))
            if tag in " -":
                if seen_a == a_len:
                    raise problem(i + 1, "hunk %d (%s) has more base lines than its header's %d" % (
                        number, header, a_len))
                if pos >= len(old) or old[pos] != text:
                    found = old[pos].rstrip("\n") if pos < len(old) else "the end of the file"
                    raise problem(i + 1, "hunk %d (%s) does not apply: line %d of %s is %r, the patch expects %r" % (
                        number, header, pos + 1, base_name, found, text.rstrip("\n")))
                pos += 1
                seen_a += 1
            if tag in " +":
                if seen_b == b_len:
                    raise problem(i + 1, "hunk %d (%s) has more kernel lines than its header's %d" % (
                        number, header, b_len))
                out.append(text)
                seen_b += 1
            i += 1
    out.extend(old[pos:])
    return "".join(out)


def unified_diff(base, text, base_name, name, context=3):
    """The unified diff from `base` to `text` with `context` lines around each change, as `diff -u` writes it."""
    a, b = base.splitlines(keepends=True), text.splitlines(keepends=True)
    for what, lines in ((base_name, a), (name, b)):
        if lines and not lines[-1].endswith("\n"):
            raise CatalogueError("%s does not end with a newline" % what)

    def span(start, length):
        return "%d" % (start + 1) if length == 1 else "%d,%d" % (start + (1 if length else 0), length)

    out = ["--- %s\n" % base_name, "+++ %s\n" % name]
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        out.append("@@ -%s +%s @@\n" % (span(i1, i2 - i1), span(j1, j2 - j1)))
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out += [" " + line for line in a[a1:a2]]
                continue
            out += ["-" + line for line in a[a1:a2]]
            out += ["+" + line for line in b[b1:b2]]
    return "".join(out)


def base_text(entry):
    if entry.base == NO_BASE:
        return ""
    if entry.base.startswith("labs/"):  # the skeleton as committed, not a student's work in labs/
        from .toolchain import pristine_labs
        path = os.path.join(pristine_labs(), entry.base[len("labs/"):])
    else:
        path = os.path.join(paths.ROOT, entry.base)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise CatalogueError("grader/catalogue/%s.ini: base %s: %s" % (entry.name, entry.base, e.strerror)) from None


def text(entry):
    """The kernel: the entry's patch applied to its base."""
    with open(entry.patch, encoding="utf-8") as f:
        patch = f.read()
    return apply_patch(patch, base_text(entry), os.path.relpath(entry.patch, paths.ROOT), entry.base)


WRITE_LOCK = threading.Lock()


def materialise(entry):
    """Writes the kernel to build/catalogue/labN/NAME.cu unless it is there already with this content (so its
    modification time says when it last changed); returns its path."""
    content = text(entry)
    with WRITE_LOCK:
        try:
            with open(entry.path, encoding="utf-8") as f:
                if f.read() == content:
                    return entry.path
        except OSError:
            pass
        os.makedirs(os.path.dirname(entry.path), exist_ok=True)
        partial = "%s.%d.tmp" % (entry.path, os.getpid())
        with open(partial, "w", encoding="utf-8") as f:
            f.write(content)
        os.replace(partial, entry.path)
    return entry.path


def materialise_all():
    """{entry: path} for every entry."""
    return {e: materialise(e) for e in entries()}


def header_description(kernel_text):
    """A kernel's header comment as one paragraph, up to its Build line: the description its .ini must carry.
    The "Grader catalogue, lab N, known WRONG:" that opens a pitfall's comment is left out."""
    lines = []
    for line in kernel_text.splitlines():
        if not line.startswith("//"):
            break
        words = line[2:].strip()
        if words.startswith("Build:"):
            break
        lines.append(words)
    paragraph = " ".join(w for w in lines if w)
    return re.sub(r"^Grader catalogue, lab \d+, known WRONG\s*", "", paragraph).lstrip(":").strip()


def record(entry):
    """Rewrites the entry's patch from the kernel in build/catalogue (edited there); returns the patch's path."""
    try:
        with open(entry.path, encoding="utf-8") as f:
            edited = f.read()
    except OSError:
        raise CatalogueError("%s: no such file: materialise it, edit it, then record it" %
                             os.path.relpath(entry.path, paths.ROOT)) from None
    patch = unified_diff(base_text(entry), edited, entry.base, entry.shown)
    if patch.count("\n") == 2:
        raise CatalogueError("%s is its base unchanged: a catalogue kernel differs from its base" % entry.shown)
    with open(entry.patch, "w", encoding="utf-8") as f:
        f.write(patch)
    return entry.patch


# ---------------------------------------------------------------------------------------------------------------
# The README's tables
# ---------------------------------------------------------------------------------------------------------------
BEGIN = "<!-- From here to the end mark: generated from the .ini files by `python3 -m course.catalogue readme`. -->"
END = "<!-- End of the generated part. -->"


def cell(value):
    return value.replace("|", "\\|")


def tables(found):
    """The README's generated part: per lab, a table of its entries (wrong, then slow, then right), then the
    entries' `why`, one note for each distinct text."""
    out = []
    for lab in labs.all_labs():
        rows = sorted((e for e in found if e.lab == lab), key=lambda e: (VERDICTS.index(e.verdict), e.short))
        if not rows:
            continue
        out += ["## %s/ (%s, %s)" % (lab.short, lab.title, lab.folder), "",
                "| kernel | verdict | base | bug | fails | findings | must get | may also get |",
                "|---|---|---|---|---|---|---|---|"]
        for e in rows:
            base = "whole file" if e.base == NO_BASE else "`%s`" % e.base.rsplit("/", 1)[0]
            fails = "all" if e.fails == set(labs.SUITES) else ", ".join(s for s in labs.SUITES if s in e.fails)
            out.append("| `%s.cu` | %s | %s | %s | %s | %s | %s | %s |" % (
                e.short, e.verdict, base, cell(e.bug), fails or "nothing", ", ".join(e.findings), cell(e.must_get),
                cell(e.may_also_get)))
        notes = {}
        for e in rows:
            if e.why:
                notes.setdefault(e.why, []).append("`%s.cu`" % e.short)
        out.append("")
        for why, names in notes.items():
            out.append(textwrap.fill("%s: %s" % (", ".join(names), why), width=116, initial_indent="- ",
                                     subsequent_indent="  ", break_long_words=False, break_on_hyphens=False))
        if notes:
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def readme(current, found):
    """The README with its generated part (between BEGIN and END) rewritten from the entries."""
    if current.count(BEGIN) != 1 or current.count(END) != 1 or current.index(BEGIN) > current.index(END):
        raise CatalogueError("grader/catalogue/README.md: the generated part goes between one line\n%s\n"
                             "and one line\n%s" % (BEGIN, END))
    head, rest = current.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    return head + BEGIN + "\n\n" + tables(found) + "\n" + END + tail


# ---------------------------------------------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------------------------------------------
def main(argv):
    usage = "usage: python3 -m course.catalogue list | materialise [NAME...] | record NAME | readme"
    if not argv or argv[0] not in ("list", "materialise", "record", "readme"):
        raise SystemExit(usage)
    command, names = argv[0], argv[1:]
    if not os.path.isdir(FOLDER):  # "list" and "materialise" would find nothing and say nothing of why
        raise SystemExit("catalogue: this copy has no grader/catalogue/ (the student handout leaves it out): the "
                         "grader's kernels are in the course repository")
    try:
        if command == "list":
            for e in entries():
                print("%-40s %-6s %-38s %s" % (e.name, e.verdict, e.base,
                                                ", ".join(s for s in labs.SUITES if s in e.fails) or "full marks"))
        elif command == "materialise":
            chosen = [find(n) for n in names] if names else entries()
            for e in chosen:
                materialise(e)
            print("wrote %d kernels under %s" % (len(chosen), os.path.relpath(OUT, os.getcwd())))
        elif command == "record":
            if len(names) != 1:
                raise SystemExit(usage)
            print("wrote %s" % os.path.relpath(record(find(names[0])), os.getcwd()))
        else:
            if names:
                raise SystemExit(usage)
            with open(README, encoding="utf-8") as f:
                new = readme(f.read(), entries())
            with open(README, "w", encoding="utf-8") as f:
                f.write(new)
            print("wrote %s" % os.path.relpath(README, os.getcwd()))
    except CatalogueError as e:
        raise SystemExit("catalogue: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
