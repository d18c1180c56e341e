"""`make heatmap`: SVG maps of what the emulator counted per element, for one lab's kernel on one shape.

- A and B: how many times kernel code loaded each element. The colour scale runs up to the naive kernel's count
  (N for A, M for B), what a kernel that reuses nothing reads, so a tiled kernel's map is visibly lighter.
- C: which block stored each element (the emulator's writer_block), so the grid and its partial edge blocks show.
  An element nobody wrote is white with a grey cross; one written more than once is outlined in red.
Thick lines mark the tiles: along K every TILE values (one phase), along M and N every block.
A kernel the emulator found a bug in (a race, a read of uninitialised memory) still finishes: its maps are drawn,
with the findings named under them and in the summary, file:line first.
"""
import math
import os
from dataclasses import dataclass
from xml.sax.saxutils import escape

UNREAD = "#eeeeee"
UNWRITTEN = "#ffffff"
# light to dark: how often an element was read, on a log scale from 1 to the scale's top
READ_RAMP = ["#fff5b8", "#fdd68a", "#f7a35c", "#e0663f", "#b23a48", "#6b2152", "#2d1a3e"]
# one colour per block, repeating every 3 blocks each way, so that neighbouring blocks always differ
BLOCK_COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2", "#e15759", "#9c755f", "#bab0ac"]
TILE_LINE = "#202020"
TWICE_WRITTEN = "#d00000"
MAX_SIZE = 128  # one cell per element; beyond this the cells get too small to see
# Partial edge blocks and a partial last phase with 16×16 tiles; a lab whose sizes are multiples of its tile (lab 2:
# SIZE_MULTIPLE = 16 in its lab.h) gets the nearest multiples of MULTIPLES_SHAPE instead.
DEFAULT_SHAPE = (40, 24, 36)
MULTIPLES_SHAPE = (48, 32, 32)
MARGIN = 12
TITLE_HEIGHT = 40
LEGEND_HEIGHT = 44
NOTE_HEIGHT = 18  # one line of notes under the legend
MOST_FINDINGS = 3  # findings named, the first few: one of each is what a student needs to see


def lerp_colour(a, b, t):
    pa, pb = [int(a[i:i + 2], 16) for i in (1, 3, 5)], [int(b[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join("%02x" % round(x + (y - x) * t) for x, y in zip(pa, pb))


def read_colour(count, top):
    if count == 0:
        return UNREAD
    t = math.log(count) / math.log(top) if top > 1 else 1.0
    position = min(max(t, 0.0), 1.0) * (len(READ_RAMP) - 1)
    i = min(int(position), len(READ_RAMP) - 2)
    return lerp_colour(READ_RAMP[i], READ_RAMP[i + 1], position - i)


def block_colour(block, grid_x):
    bx, by = block % grid_x, block // grid_x
    return BLOCK_COLOURS[(bx % 3) + 3 * (by % 3)]


@dataclass
class Layout:
    """Where cell (row, col) of a rows×cols map lies in its picture, in pixels."""
    rows: int
    cols: int
    cell: int
    x0: int = MARGIN
    y0: int = MARGIN + TITLE_HEIGHT

    @staticmethod
    def fitting(rows, cols, longest_side=640):
        return Layout(rows, cols, max(4, min(16, longest_side // max(rows, cols))))

    def centre(self, row, col):
        return self.x0 + col * self.cell + self.cell // 2, self.y0 + row * self.cell + self.cell // 2

    def width(self):
        return max(self.x0 + self.cols * self.cell + MARGIN, 600)  # room for the title and the legend

    def height(self):
        return self.y0 + self.rows * self.cell + LEGEND_HEIGHT


def svg_document(layout, title, subtitle, body, notes=()):
    """notes: lines under the legend (the emulator's findings), in red."""
    w, h = layout.width(), layout.height() + NOTE_HEIGHT * len(notes)
    under = ['<text x="%d" y="%d" font-size="12" fill="%s">%s</text>'
             % (MARGIN, layout.height() + NOTE_HEIGHT * i + 4, TWICE_WRITTEN, escape(note))
             for i, note in enumerate(notes)]
    return "\n".join([
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="sans-serif" shape-rendering="crispEdges">' % (w, h, w, h),
        '<rect width="%d" height="%d" fill="#ffffff"/>' % (w, h),
        '<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>' % (MARGIN, MARGIN + 12, escape(title)),
        '<text x="%d" y="%d" font-size="12">%s</text>' % (MARGIN, MARGIN + 30, escape(subtitle)),
        *body, *under, "</svg>", ""])


def cells(layout, colour_of):
    out = []
    for r in range(layout.rows):
        for c in range(layout.cols):
            x, y = layout.x0 + c * layout.cell, layout.y0 + r * layout.cell
            out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>'
                       % (x, y, layout.cell, layout.cell, colour_of(r, c)))
    return out


def tile_lines(layout, row_step, col_step):
    """Lines along the tile boundaries, over the cells' edges (never their centres)."""
    x1, y1 = layout.x0 + layout.cols * layout.cell, layout.y0 + layout.rows * layout.cell
    out = ['<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s" stroke-width="2"/>'
           % (layout.x0, layout.y0, x1 - layout.x0, y1 - layout.y0, TILE_LINE)]
    for c in range(col_step, layout.cols, col_step):
        x = layout.x0 + c * layout.cell
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                   % (x, layout.y0, x, y1, TILE_LINE))
    for r in range(row_step, layout.rows, row_step):
        y = layout.y0 + r * layout.cell
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>'
                   % (layout.x0, y, x1, y, TILE_LINE))
    return out


def read_legend(layout, seen, top):
    """Swatches for 'not read', the counts seen, and the ends of the scale."""
    y = layout.y0 + layout.rows * layout.cell + 12
    counts = sorted({1, top, *seen} - {0})
    out, x = [], MARGIN
    for label, colour in [("not read", UNREAD)] + [("%d×" % n, read_colour(n, top)) for n in counts]:
        out.append('<rect x="%d" y="%d" width="14" height="14" fill="%s" stroke="#888888"/>' % (x, y, colour))
        out.append('<text x="%d" y="%d" font-size="12">%s</text>' % (x + 18, y + 12, escape(label)))
        x += 26 + 8 * len(label)
    return out


def read_map(name, reads, rows, cols, row_step, col_step, top, kernel, notes=()):
    layout = Layout.fitting(rows, cols)
    lo, hi = min(reads), max(reads)
    title = "%s (%d×%d): how often kernel code loaded each element" % (name, rows, cols)
    subtitle = "%s: %s (the naive kernel: %s)" % (
        kernel, "every element %s" % times(lo) if lo == hi else "%d to %d times" % (lo, hi), times(top))
    body = cells(layout, lambda r, c: read_colour(reads[r * cols + c], top)) + \
        tile_lines(layout, row_step, col_step) + read_legend(layout, {lo, hi}, top)
    return layout, svg_document(layout, title, subtitle, body, notes)


def silent_blocks(writer, grid):
    """[(bx, by)] of the launched blocks that stored no element of C, in launch order."""
    wrote = {b for b in writer if b >= 0}
    return [(b % grid[0], b // grid[0]) for b in range(grid[0] * grid[1]) if b not in wrote]


def describe_blocks(blocks, most=8):
    named = ", ".join("(%d, %d)" % b for b in blocks[:most])
    return named + (" and %d more" % (len(blocks) - most) if len(blocks) > most else "")


def writer_map(writer, writes, rows, cols, block, grid, kernel, tile, notes=()):
    """tile: (rows, cols) of C each block owns, for the lines and the labels."""
    grid_x = grid[0] or 1
    layout = Layout.fitting(rows, cols)
    title = "C (%d×%d): the block that wrote each element" % (rows, cols)
    blocks = sorted({b for b in writer if b >= 0})
    silent = silent_blocks(writer, grid)
    subtitle = "%s: %d of %d blocks of %d×%d threads wrote C%s; labels are blockIdx (x, y)" % (
        kernel, len(blocks), grid[0] * grid[1], block[0], block[1],
        "; wrote nothing: " + describe_blocks(silent, 4) if silent else "")

    def colour(r, c):
        b = writer[r * cols + c]
        return UNWRITTEN if b < 0 else block_colour(b, grid_x)

    body = cells(layout, colour) + tile_lines(layout, tile[0], tile[1])
    for i, (w, b) in enumerate(zip(writes, writer)):
        x, y = layout.x0 + (i % cols) * layout.cell, layout.y0 + (i // cols) * layout.cell
        if b < 0:
            body.append('<path d="M%d %dl%d %dM%d %dl%d %d" stroke="#bbbbbb"/>'
                        % (x, y, layout.cell, layout.cell, x + layout.cell, y, -layout.cell, layout.cell))
        elif w > 1:
            body.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s"/>'
                        % (x + 1, y + 1, layout.cell - 2, layout.cell - 2, TWICE_WRITTEN))
    for b in blocks:  # a label where the block's part of C has room for it
        bx, by = b % grid_x, b // grid_x
        r0, c0 = by * tile[0], bx * tile[1]
        if r0 >= rows or c0 >= cols:
            continue  # a block that wrote outside its own tile: its colour shows where
        height, width = (min(rows, r0 + tile[0]) - r0) * layout.cell, (min(cols, c0 + tile[1]) - c0) * layout.cell
        if width >= 44 and height >= 18:
            body.append('<text x="%d" y="%d" font-size="12" font-weight="bold" text-anchor="middle">(%d, %d)</text>'
                        % (layout.x0 + c0 * layout.cell + width // 2, layout.y0 + r0 * layout.cell + height // 2 + 4,
                           bx, by))
    y = layout.y0 + rows * layout.cell + 12
    body.append('<rect x="%d" y="%d" width="14" height="14" fill="%s" stroke="#888888"/>' % (MARGIN, y, UNWRITTEN))
    body.append('<text x="%d" y="%d" font-size="12">not written</text>' % (MARGIN + 18, y + 12))
    body.append('<rect x="%d" y="%d" width="14" height="14" fill="none" stroke="%s"/>' % (MARGIN + 110, y,
                                                                                          TWICE_WRITTEN))
    body.append('<text x="%d" y="%d" font-size="12">written more than once</text>' % (MARGIN + 128, y + 12))
    return layout, svg_document(layout, title, subtitle, body, notes)


def block_tile(counts, constants=None):
    """(rows of C, columns of C, slice of K) per block and phase: the lab's BM, BN and BK where its lab.h fixes a
    block tile (labs 4-6, whose threads own several outputs each), else one output per thread: the block's shape,
    with phases as wide as the block."""
    c = constants or {}
    if all(k in c for k in ("BM", "BN", "BK")):
        return c["BM"], c["BN"], c["BK"]
    block = counts["block"]
    return block[1] or 1, block[0] or 1, block[0] or 1


def draw(counts, kernel_name, out_dir, constants=None):
    """Writes A-reads.svg, B-reads.svg and C-writers.svg for one measurement; returns {file name: Layout}."""
    M, N, K = counts["M"], counts["N"], counts["K"]
    block, grid = counts["block"], counts["grid"]
    rows, cols, step = block_tile(counts, constants)
    notes = describe_findings(counts.get("findings", []))
    pictures = {
        "A-reads.svg": read_map("A", counts["A_reads"], M, K, rows, step, N, kernel_name, notes),
        "B-reads.svg": read_map("B", counts["B_reads"], K, N, step, cols, M, kernel_name, notes),
        "C-writers.svg": writer_map(counts["C_writer"], counts["C_writes"], M, N, block, grid, kernel_name,
                                    (rows, cols), notes),
    }
    os.makedirs(out_dir, exist_ok=True)
    for file_name, (_, svg) in pictures.items():
        with open(os.path.join(out_dir, file_name), "w", encoding="utf-8") as f:
            f.write(svg)
    return {file_name: layout for file_name, (layout, _) in pictures.items()}


def multiples_shape(multiple):
    """MULTIPLES_SHAPE rounded up to whole multiples (lab 2's 16: 48×32·32×32)."""
    return tuple(-(-d // multiple) * multiple for d in MULTIPLES_SHAPE)


def default_shape(lab, constants=None):
    """(M, K, N) to draw when none is given: partial edge blocks and a partial last phase, and several blocks each
    way where the lab's block tile (BM×BN, from its lab.h) leaves room for two within MAX_SIZE."""
    c = constants or {}
    if c.get("SIZE_MULTIPLE", 1) > 1:
        return multiples_shape(c["SIZE_MULTIPLE"])
    if all(k in c for k in ("BM", "BN", "BK")) and 2 * max(c["BM"], c["BN"]) <= MAX_SIZE:
        # lab 4's 64×64: 100×20·20×90, a 2 × 2 grid whose second row and column are partial, K = 2.5 slices
        return c["BM"] + c["BM"] * 9 // 16, 2 * c["BK"] + c["BK"] // 2, c["BN"] + c["BN"] * 13 // 32
    return DEFAULT_SHAPE


def describe_findings(findings, most=MOST_FINDINGS):
    """One line per finding of the emulator, file:line first; the first `most`, then how many more."""
    lines = []
    for f in findings[:most]:
        where = "%s:%d: " % (f["file"], f["line"]) if f["file"] and f["line"] else f["file"] + ": " if f["file"] else ""
        lines.append("%sfound by the emulator: %s: %s" % (where, f["kind"], f["message"]))
    if len(findings) > most:
        lines.append("... and %d more" % (len(findings) - most))
    return lines


def describe_reads(reads):
    lo, hi = min(reads), max(reads)
    return "every element %s" % times(lo) if lo == hi else "%d to %d times per element" % (lo, hi)


def summary(counts, kernel, out_dir, constants=None):
    """Draws the three maps and says what they show, one line each."""
    draw(counts, kernel, out_dir, constants)
    silent = silent_blocks(counts["C_writer"], counts["grid"])
    writers = {b for b in counts["C_writer"] if b >= 0}
    unwritten = sum(b < 0 for b in counts["C_writer"])
    twice = sum(w > 1 for w in counts["C_writes"])
    shape = "%d×%d·%d×%d" % (counts["M"], counts["K"], counts["K"], counts["N"])
    lines = ["%s on %s: grid %d × %d of %d×%d threads; the results are %s" % (
        kernel, shape, counts["grid"][0], counts["grid"][1], counts["block"][0], counts["block"][1],
        "right" if counts["correct"] else "WRONG"),
        "  %s  A read %s" % (os.path.join(out_dir, "A-reads.svg"), describe_reads(counts["A_reads"])),
        "  %s  B read %s" % (os.path.join(out_dir, "B-reads.svg"), describe_reads(counts["B_reads"])),
        "  %s  C written by %s; %d elements not written, %d written more than once" % (
            os.path.join(out_dir, "C-writers.svg"), "1 block" if len(writers) == 1 else "%d blocks" % len(writers),
            unwritten, twice),
        "  %s" % ("launched blocks that wrote nothing: %s (%d of %d)" % (
            describe_blocks(silent), len(silent), counts["grid"][0] * counts["grid"][1])
                  if silent else "every launched block wrote part of C")]
    lines += ["  " + line for line in describe_findings(counts.get("findings", []))]
    return "\n".join(lines)


def times(n):
    return "%d time%s" % (n, "" if n == 1 else "s")
