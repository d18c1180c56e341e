"""The H100 figures a lesson quotes, tied to the tables of docs/results.md, where every measurement lives with the
command that made it. A mark on its own line right under the paragraph, table or list that quotes the figures:

    <!-- h100 every-lab-next-to-cublas-make-bench: lab5-register-tiling@4096³=33,799 cuBLAS_FP32@4096³=51,693 -->

The word after `h100` names a table by the anchor of the heading above it in docs/results.md, with /2, /3 for the
second and third table under one heading. Each claim is ROW@COLUMN=FIGURE: ROW is the start of the row's first
cell and COLUMN the start of a header cell, spaces written as _ (an exact label wins over a longer one). FIGURE is
one of the numbers written in that cell (33,799 and 65 in "33,799 (65 %)"), as the lesson writes it, and must
appear in the text above the mark. Written with k it is the cell in thousands, rounded to the decimals written
(52.1k for 52,074 GFLOP/s quoted as 52.1 TFLOP/s). A ratio of two cells' first numbers is CELL/CELL=1.51x (as a
percentage: CELL/CELL=69%); `peak` stands for the FP32 peak results.md computes in its first lines:

    <!-- h100 every-lab-next-to-cublas-make-bench: lab4-coarsening@4096³/lab3-boundary@4096³=2.1x lab6-warptiling@4096³/peak=69% -->

`unmarked_figures` finds what looks like an H100 figure in a lesson (a number with %, GFLOP/s, TFLOP/s, ms, µs, MB or
GB, a number with a thousands comma, or any number in a table, in a block that names the H100, cuBLAS, Nsight or
a GFLOP/s) and is neither claimed by a mark under its block (this kind, or a calculator's check) nor in
NOT_IN_RESULTS, the short list of figures no table of results.md holds, each with the words around it and its
reason.
"""
import os
import re
from dataclasses import dataclass

from .lesson_marks import MARK, ROOT, block_above, lesson_files

RESULTS = os.path.join(ROOT, "docs", "results.md")
H100_MARK = re.compile(r"<!--\s*h100\b(.*?)-->")
H100_BODY = re.compile(r"^ ([\w-]+(?:/\d+)?):((?: \S+=[\d,.]+[kx%]?)+) $")
NUMBER = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d])|(?<![\d,.])\d+(?:\.\d+)?(?![\d])")
PEAK = re.compile(r"peak FP32 = [^=]*=\s+([\d,]+) GFLOP/s")

# What no table of docs/results.md holds, lesson by lesson: (figure, the words around it in the lesson, why it is
# quoted anyway). The figure passes only in a block whose text holds those words.
NOT_IN_RESULTS = {
    "lab3-boundary.md": [
        ("50", "H100's 50 MB L2", "the H100's L2 cache size, a property of the GPU, not a measurement"),
    ],
    "lab6-warptiling.md": [
        ("65,536", "65,536 registers", "the registers of an H100 multiprocessor, a property of the GPU"),
        ("45,834", "45,834 (91 %)", "lab 6's one-tile reference at 2048³ in the 2026-11-21 run, which results.md "
                                    "no longer keeps (it says only: within 1 % of today's)"),
        ("91", "45,834 (91 %)", "that run's percentage of its own cuBLAS"),
        ("46,679", "46,679 (90 %)", "the same earlier run, at 4096³"),
        ("46,893", "46,893 (91 %)", "the same earlier run, at 8192³"),
        ("91", "46,893 (91 %)", "that run's percentage of its own cuBLAS"),
        ("46,626", "46,626 (96 %)", "the same earlier run, at 8192×4096·4096×1024"),
        ("96", "46,626 (96 %)", "that run's percentage of its own cuBLAS"),
        ("46,500", "46,500 (96 %)", "the same earlier run, at 1024×4096·4096×8192"),
        ("34,424", "34,424 and 29,828", "the wide tile split 4 ways at 1024³, an experiment of the earlier run"),
        ("29,828", "34,424 and 29,828", "the wide tile split 3 ways at 1000×800·800×1200, the same experiment"),
        ("3.6", "3.6 % at 512³ against a static buffer", "results.md's prose: a second run, each kernel three "
                                                        "times in turn"),
        ("1", "about 1 % at 1024³", "results.md's prose: −1.2 % at 1024³ in that second run"),
        ("1", "within 1 % of each other", "a bound: the autotune table's three fastest, 46,649, 46,491 and 46,489 "
                                          "GFLOP/s"),
        ("50", "H100's 50 MB L2", "the H100's L2 cache size, a property of the GPU, not a measurement"),
    ],
}


class H100Error(Exception):
    pass


@dataclass
class Table:
    name: str       # "every-lab-next-to-cublas-make-bench", "what-the-hardware-counts-make-profile/2"
    header: list    # the header cells
    rows: list      # each a list of cells


def anchor(heading):
    """A heading's anchor, as GitHub makes it: lower case, punctuation dropped, spaces to -."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")


def cells(line):
    return [c.strip().replace("`", "") for c in line.strip().strip("|").split("|")]


def read_tables(text=None):
    """Every table of docs/results.md, by name."""
    if text is None:
        with open(RESULTS, encoding="utf-8") as f:
            text = f.read()
    tables, heading, count = {}, "", {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if line.startswith("#"):
            heading = anchor(line.lstrip("#"))
        if line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-:| ]+\|$", lines[i + 1].strip()):
            count[heading] = count.get(heading, 0) + 1
            name = heading if count[heading] == 1 else "%s/%d" % (heading, count[heading])
            rows = []
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(cells(lines[i]))
                i += 1
            tables[name] = Table(name, cells(line), rows)
            continue
        i += 1
    return tables


def peak(text=None):
    """The FP32 peak in GFLOP/s that results.md computes from the GPU's properties."""
    if text is None:
        with open(RESULTS, encoding="utf-8") as f:
            text = f.read()
    return float(PEAK.search(text).group(1).replace(",", ""))


def label_index(labels, key, what):
    """The index of the label `key` names (its start, _ for a space; an exact label first), or H100Error."""
    key = key.replace("_", " ").lower()
    plain = [label.replace("_", " ").lower() for label in labels]
    exact = [i for i, label in enumerate(plain) if label == key]
    starts = [i for i, label in enumerate(plain) if label.startswith(key)]
    found = exact or starts
    if len(found) != 1:
        raise H100Error("%s '%s' names %s" % (what, key, "no label" if not found else
                                              "%d labels: %s" % (len(found), ", ".join(labels[i] for i in found))))
    return found[0]


def cell(table, key):
    """The text of the cell ROW@COLUMN of `table`."""
    if "@" not in key:
        raise H100Error("'%s' is not ROW@COLUMN" % key)
    row, column = key.split("@", 1)
    r = label_index([row_cells[0] for row_cells in table.rows], row, "row")
    c = label_index(table.header, column, "column")
    return table.rows[r][c]


def numbers(text):
    return [float(n.replace(",", "")) for n in NUMBER.findall(text)]


def first_number(table, key, gpu_peak):
    if key == "peak":
        return gpu_peak
    found = numbers(cell(table, key))
    if not found:
        raise H100Error("%s@%s holds no number" % (table.name, key))
    return found[0]


@dataclass
class H100Mark:
    where: str      # "docs/lab4-coarsening.md:95"
    table: str
    claims: list    # [(key, figure as written in the mark)]
    above: str      # the block the mark vouches for


def read_h100_marks(path, text=None):
    """The h100 marks of a lesson; H100Error for one that does not parse."""
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    lines = text.splitlines()
    marks = []
    for i, line in enumerate(lines):
        for mark in H100_MARK.finditer(line):
            where = "%s:%d" % (os.path.relpath(path, ROOT), i + 1)
            m = H100_BODY.match(mark.group(1))
            if not m or line.strip() != mark.group(0):
                raise H100Error("%s: an h100 mark stands alone on its line, as '<!-- h100 TABLE: ROW@COLUMN=figure "
                                "... -->'" % where)
            claims = [tuple(c.rsplit("=", 1)) for c in m.group(2).split()]
            marks.append(H100Mark(where, m.group(1), claims, block_above(lines, i)))
    return marks


def written_number(figure):
    """'52.1k' -> ('52.1', 52.1, 1, 'k')."""
    suffix = figure[-1] if figure[-1] in "kx%" else ""
    digits = figure[:-1] if suffix else figure
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return digits, float(digits.replace(",", "")), decimals, suffix


def wrong_figures(mark, tables=None, gpu_peak=None):
    """What is wrong with one h100 mark, as sentences; empty when the lesson and results.md agree."""
    tables = read_tables() if tables is None else tables
    gpu_peak = peak() if gpu_peak is None else gpu_peak
    if mark.table not in tables:
        return ["%s: results.md has no table %s (it has: %s)" % (mark.where, mark.table, ", ".join(sorted(tables)))]
    table = tables[mark.table]
    problems = []
    for key, figure in mark.claims:
        digits, value, decimals, suffix = written_number(figure)
        try:
            if "/" in key:
                top, bottom = key.split("/", 1)
                ratio = first_number(table, top, gpu_peak) / first_number(table, bottom, gpu_peak)
                if suffix not in ("x", "%"):
                    raise H100Error("a ratio is written 1.51x or 69%")
                have = round(ratio * (100 if suffix == "%" else 1), decimals)
                if abs(have - value) > 1e-9:
                    problems.append("%s: %s says %s, but results.md's %s gives %s" % (
                        mark.where, key, figure, mark.table, ("%%.%df" % decimals) % have))
            else:
                text = cell(table, key)
                if suffix not in ("", "k"):
                    raise H100Error("a cell's figure is written as in the cell, or in thousands with k")
                scale = 1000.0 if suffix == "k" else 1.0
                found = numbers(text)
                if not any((round(n / scale, decimals) if scale != 1.0 else n) == value for n in found):
                    problems.append("%s: %s says %s, but results.md's %s reads '%s'" % (
                        mark.where, key, figure, mark.table, text))
        except H100Error as e:
            problems.append("%s: %s in %s: %s" % (mark.where, key, mark.table, e))
            continue
        if not re.search(r"(?<![\d,.])%s(?![\d]|[,.]\d)" % re.escape(digits), mark.above):
            problems.append("%s: %s is not in the text above the mark" % (mark.where, digits))
    return problems


BLOCK_WORDS = re.compile(r"H100|cuBLAS|Nsight|GFLOP/s|TFLOP/s|gemm_bench|make bench|make profile|make autotune")
UNIT_FIGURE = re.compile(r"(?<![\w.,×·])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d³×·])"
                         r"\s?(%|GFLOP/s|TFLOP/s|ms\b|µs\b|MB\b|GB\b)")
COMMA_FIGURE = re.compile(r"(?<![\w.,×·])(\d{1,3}(?:,\d{3})+(?:\.\d+)?)(?![\d³×·])")
DECIMAL_FIGURE = re.compile(r"(?<![\w.,×·])(\d+\.\d+)(?![\d³×·])")
CLAIMED = re.compile(r"=([\d,.]+[kx%]?)(?= |$)")  # name=figure in a mark
FIGURE_CELL = re.compile(r"^\d[\d,.]*(?: ?[%×])?(?: \([\d,.]+ ?%\))?$")  # 33,799 (65 %), 1.52×, 38.5 %


def blocks(lines):
    """(first line index, index after the block) of each run of non-blank lines, marks included."""
    start = None
    for i, line in enumerate(lines + [""]):
        if line.strip() and start is None:
            start = i
        elif not line.strip() and start is not None:
            yield start, i
            start = None


def unmarked_figures(path, text=None):
    """What looks like an H100 figure in a lesson and is neither claimed by a mark under its block nor in
    NOT_IN_RESULTS: ['docs/lab4-coarsening.md:93: 17,171 (On an H100 ...)']."""
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    let_through = NOT_IN_RESULTS.get(os.path.basename(path), [])
    lines = text.splitlines()
    found = []
    previous = ""
    for start, end in blocks(lines):
        body = [(i, lines[i]) for i in range(start, end) if not MARK.fullmatch(lines[i].strip())
                and not H100_MARK.fullmatch(lines[i].strip())]
        prose = "\n".join(line for _, line in body)
        introduced, previous = previous, prose  # a table is often named by the paragraph before it
        allowed = {figure for figure, words, _ in let_through if words in " ".join(prose.split())}
        if not BLOCK_WORDS.search(prose) and not (prose.startswith("|") and BLOCK_WORDS.search(introduced)):
            continue
        claimed = {written_number(figure)[0] for i in range(start, end)  # by a check or an h100 mark
                   for figure in CLAIMED.findall(lines[i]) if MARK.search(lines[i]) or H100_MARK.search(lines[i])}
        # code, links, the CUDA version and the GPU's model name hold no figures
        clean = [(i, re.sub(r"`[^`]*`|\]\([^)]*\)|H100 80GB HBM3|CUDA \d+\.\d+", "", line)) for i, line in body]
        text_lines = [(i, line) for i, line in clean if not line.lstrip().startswith("|")]
        figures = []
        if text_lines:  # a figure and its unit may fall on two lines
            joined = " ".join(line for _, line in text_lines)
            figures += [(text_lines[0][0], f) for f in [m.group(1) for m in UNIT_FIGURE.finditer(joined)] +
                        COMMA_FIGURE.findall(joined) + DECIMAL_FIGURE.findall(joined)]
        for i, line in clean:
            if line.lstrip().startswith("|"):
                figures += [(i, f) for c in cells(line)[1:] if FIGURE_CELL.match(c) for f in NUMBER.findall(c)]
        for i, figure in figures:
            if figure not in claimed and figure not in allowed:
                found.append("%s:%d: %s (%s)" % (os.path.relpath(path, ROOT), i + 1, figure, lines[i].strip()[:80]))
    return sorted(set(found), key=lambda s: (s.split(":")[0], int(s.split(":")[1]), s))


def all_marks():
    """The h100 marks of every lesson."""
    return [m for path in lesson_files() for m in read_h100_marks(path)]
