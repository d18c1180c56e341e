"""The traffic calculator: what the course's kernels launch, read, write and compute, worked out from the shape.

C = A·B with A M×K, B K×N, C M×N, floats (4 bytes). Two kernels:
- naive (lab 1): one thread per element of C; each owning thread reads a row of A and a column of B.
- tiled, boundary-safe (lab 3): TILE×TILE blocks walk along K in ceil(K/TILE) phases; a guarded load that falls
  outside A or B reads nothing and puts 0 in the tile, and every launched thread runs every multiply-add.

Every number the lesson tools print, the exercises expect and the lessons quote comes from QUANTITIES below, so
the docs, the answer checker and the emulator tests all agree with one piece of arithmetic.
"""
from dataclasses import dataclass

FLOAT_BYTES = 4


def ceil_div(a, b):
    return (a + b - 1) // b


@dataclass(frozen=True)
class Shape:
    M: int
    K: int
    N: int
    TILE: int

    def name(self):
        return "%d×%d·%d×%d" % (self.M, self.K, self.K, self.N)


class Quantity:
    """One number the tools can compute: its meaning, and how it follows from the shape, step by step."""

    def __init__(self, name, meaning, compute, working, decimals=0):
        self.name = name
        self.meaning = meaning
        self.compute = compute    # Shape -> number
        self.working = working    # Shape -> "formula = numbers plugged in", for explaining a wrong answer
        self.decimals = decimals  # 0: an exact integer; otherwise the number of decimals it is quoted with

    def explain(self, s):
        return "%s = %s" % (self.working(s), format_number(self.compute(s), self.decimals))


def format_number(value, decimals=0):
    return "{:,}".format(value) if decimals == 0 else "{:,.{}f}".format(value, decimals)


# -- the arithmetic, one function per idea ------------------------------------------------------------------------
def grid_x(s):
    return ceil_div(s.N, s.TILE)  # x covers the columns of C


def grid_y(s):
    return ceil_div(s.M, s.TILE)  # y covers the rows of C


def blocks(s):
    return grid_x(s) * grid_y(s)


def threads(s):
    return blocks(s) * s.TILE * s.TILE


def phases(s):
    return ceil_div(s.K, s.TILE)


def naive_read_bytes(s):
    return 2 * s.M * s.N * s.K * FLOAT_BYTES  # each owning thread: K floats of A and K of B


def tiled_read_bytes(s):
    # each element of A is loaded once per block column, each element of B once per block row
    return (s.M * s.K * grid_x(s) + s.K * s.N * grid_y(s)) * FLOAT_BYTES


def written_bytes(s):
    return s.M * s.N * FLOAT_BYTES


def flops_owned(s):
    return 2 * s.M * s.N * s.K


def flops_launched(s):
    return 2 * threads(s) * phases(s) * s.TILE  # zero-filled multiply-adds included


QUANTITIES = {q.name: q for q in [
    Quantity("grid_x", "blocks along x (columns of C)", grid_x,
             lambda s: "ceil(N / TILE) = ceil(%d / %d)" % (s.N, s.TILE)),
    Quantity("grid_y", "blocks along y (rows of C)", grid_y,
             lambda s: "ceil(M / TILE) = ceil(%d / %d)" % (s.M, s.TILE)),
    Quantity("blocks", "blocks in the grid", blocks,
             lambda s: "ceil(N / TILE) · ceil(M / TILE) = %d · %d" % (grid_x(s), grid_y(s))),
    Quantity("threads", "threads launched", threads,
             lambda s: "blocks · TILE² = %d · %d²" % (blocks(s), s.TILE)),
    Quantity("idle_threads", "launched threads that own no element of C", lambda s: threads(s) - s.M * s.N,
             lambda s: "threads − M·N = %s − %d·%d" % (format_number(threads(s)), s.M, s.N)),
    Quantity("last_block_columns", "columns of C under the last block column",
             lambda s: s.N - (grid_x(s) - 1) * s.TILE,
             lambda s: "N − (ceil(N/TILE) − 1) · TILE = %d − %d · %d" % (s.N, grid_x(s) - 1, s.TILE)),
    Quantity("last_block_rows", "rows of C under the last block row", lambda s: s.M - (grid_y(s) - 1) * s.TILE,
             lambda s: "M − (ceil(M/TILE) − 1) · TILE = %d − %d · %d" % (s.M, grid_y(s) - 1, s.TILE)),
    Quantity("phases", "phases of the tile loop", phases,
             lambda s: "ceil(K / TILE) = ceil(%d / %d)" % (s.K, s.TILE)),
    Quantity("last_phase_k", "values of k that exist in the last phase", lambda s: s.K - (phases(s) - 1) * s.TILE,
             lambda s: "K − (phases − 1) · TILE = %d − %d · %d" % (s.K, phases(s) - 1, s.TILE)),
    Quantity("naive_read_bytes", "global bytes the naive kernel reads from A and B", naive_read_bytes,
             lambda s: "2·M·N·K floats · 4 B = 2 · %d · %d · %d · 4" % (s.M, s.N, s.K)),
    Quantity("tiled_read_bytes", "global bytes the boundary-safe tiled kernel reads from A and B", tiled_read_bytes,
             lambda s: "(M·K·ceil(N/TILE) + K·N·ceil(M/TILE)) floats · 4 B = (%d·%d·%d + %d·%d·%d) · 4"
                       % (s.M, s.K, grid_x(s), s.K, s.N, grid_y(s))),
    Quantity("naive_reads_per_A_element", "times the naive kernel reads each element of A", lambda s: s.N,
             lambda s: "N, once per column of C"),
    Quantity("naive_reads_per_B_element", "times the naive kernel reads each element of B", lambda s: s.M,
             lambda s: "M, once per row of C"),
    Quantity("tiled_reads_per_A_element", "times the tiled kernel reads each element of A", grid_x,
             lambda s: "ceil(N / TILE), once per block column = ceil(%d / %d)" % (s.N, s.TILE)),
    Quantity("tiled_reads_per_B_element", "times the tiled kernel reads each element of B", grid_y,
             lambda s: "ceil(M / TILE), once per block row = ceil(%d / %d)" % (s.M, s.TILE)),
    Quantity("written_bytes", "global bytes written to C", written_bytes,
             lambda s: "M·N floats · 4 B = %d · %d · 4" % (s.M, s.N)),
    Quantity("flops_owned", "FLOPs of the threads that own an element of C", flops_owned,
             lambda s: "2·M·N·K = 2 · %d · %d · %d" % (s.M, s.N, s.K)),
    Quantity("flops_launched", "FLOPs of every launched thread over the padded K", flops_launched,
             lambda s: "2 · threads · phases · TILE = 2 · %s · %d · %d" % (format_number(threads(s)), phases(s),
                                                                          s.TILE)),
    Quantity("flops_wasted", "FLOPs spent on zero-filled multiply-adds and idle threads",
             lambda s: flops_launched(s) - flops_owned(s),
             lambda s: "FLOPs launched − FLOPs owned = %s − %s" % (format_number(flops_launched(s)),
                                                                   format_number(flops_owned(s)))),
    Quantity("naive_intensity", "FLOP per byte the naive kernel reads", lambda s: flops_owned(s) / naive_read_bytes(s),
             lambda s: "2·M·N·K / naive bytes read = %s / %s" % (format_number(flops_owned(s)),
                                                                  format_number(naive_read_bytes(s))), decimals=2),
    Quantity("tiled_intensity", "FLOP per byte the tiled kernel reads", lambda s: flops_owned(s) / tiled_read_bytes(s),
             lambda s: "2·M·N·K / tiled bytes read = %s / %s" % (format_number(flops_owned(s)),
                                                                  format_number(tiled_read_bytes(s))), decimals=2),
    Quantity("savings", "how many times fewer bytes the tiled kernel reads than the naive one",
             lambda s: naive_read_bytes(s) / tiled_read_bytes(s),
             lambda s: "naive bytes read / tiled bytes read = %s / %s" % (format_number(naive_read_bytes(s)),
                                                                          format_number(tiled_read_bytes(s))),
             decimals=2),
    Quantity("elements_of_C", "elements of C", lambda s: s.M * s.N, lambda s: "M·N = %d · %d" % (s.M, s.N)),
    Quantity("A_bytes", "bytes of A", lambda s: s.M * s.K * FLOAT_BYTES,
             lambda s: "M·K floats · 4 B = %d · %d · 4" % (s.M, s.K)),
    Quantity("B_bytes", "bytes of B", lambda s: s.K * s.N * FLOAT_BYTES,
             lambda s: "K·N floats · 4 B = %d · %d · 4" % (s.K, s.N)),
    Quantity("naive_read_bytes_A", "global bytes the naive kernel reads from A", lambda s: naive_read_bytes(s) // 2,
             lambda s: "M·K elements · N reads · 4 B = %d · %d · %d · 4" % (s.M, s.K, s.N)),
    Quantity("busy_percent", "percentage of the launched threads that own an element of C",
             lambda s: 100 * s.M * s.N / threads(s),
             lambda s: "100 · M·N / threads = 100 · %d·%d / %s" % (s.M, s.N, format_number(threads(s))), decimals=1),
    Quantity("padded_K", "K rounded up to whole phases", lambda s: phases(s) * s.TILE,
             lambda s: "phases · TILE = %d · %d" % (phases(s), s.TILE)),
    Quantity("tiled_shared_read_bytes", "shared-memory bytes the tiled kernel reads (4 per FLOP launched)",
             lambda s: flops_launched(s) * FLOAT_BYTES,
             lambda s: "FLOPs launched · 4 B = %s · 4" % format_number(flops_launched(s))),
    Quantity("flops_wasted_percent", "how much more work every launched thread does than the owners, in percent",
             lambda s: 100 * (flops_launched(s) - flops_owned(s)) / flops_owned(s),
             lambda s: "100 · (FLOPs launched − FLOPs owned) / FLOPs owned = 100 · %s / %s" % (
                 format_number(flops_launched(s) - flops_owned(s)), format_number(flops_owned(s))), decimals=1),
    Quantity("shared_bytes_per_block", "shared memory per block for As and Bs", lambda s: 2 * s.TILE ** 2 * FLOAT_BYTES,
             lambda s: "2 tiles · TILE² floats · 4 B = 2 · %d² · 4" % s.TILE),
]}


def value(name, shape):
    return QUANTITIES[name].compute(shape)


def matches(name, shape, text, decimals=None):
    """Whether a number someone wrote is this quantity. Integers must be exact; a ratio must agree to `decimals`
    places (default: as many as the text shows), so '3.51' and '15.9' are both right for what they claim."""
    claimed = parse_number(text)
    if claimed is None:
        return False
    exact = QUANTITIES[name].compute(shape)
    if isinstance(exact, int):
        return claimed == exact
    if decimals is None:
        decimals = len(text.strip().split(".")[1]) if "." in text else 0
    return abs(round(claimed, decimals) - exact) <= 0.5 * 10 ** -decimals + 1e-9


def parse_number(text):
    """'64,704' -> 64704, '3.51' -> 3.51; None if it is not a number."""
    cleaned = text.strip().replace(",", "").replace("_", "")
    try:
        return int(cleaned)
    except ValueError:
        pass
    try:
        return float(cleaned)
    except ValueError:
        return None
