"""The traffic calculator: what the course's kernels launch, read, write and compute, worked out from the shape.

C = A·B with A M×K, B K×N, C M×N, floats (4 bytes). Three kinds of kernel:
- naive (lab 1): one thread per element of C; each owning thread reads a row of A and a column of B.
- tiled, boundary-safe (lab 3): TILE×TILE blocks walk along K in ceil(K/TILE) phases; a guarded load that falls
  outside A or B reads nothing and puts 0 in the tile, and every launched thread runs every multiply-add.
- block-tiled with register tiles (labs 4-6): each block computes a BM×BN tile of C, walking K in slices of BK;
  each thread computes a TM×TN tile of outputs held in registers. The shape is read from the lab's lab.h
  (BlockTile.of_lab), so it is written down in one place. Lab 3's TILE×TILE is the case BM = BN = BK = TILE,
  TM = TN = 1.
- block-tiled on tensor cores (lab 7): the same block tile, but each warp holds its WM×WN outputs as FM×FN
  accumulator fragments of 16×16 floats and multiplies with wmma::mma_sync, 16×16×8 (TF32) per call. A thread's
  share of a warp tile is WM·WN/32 floats, (WM/8)×(WN/4): an accumulator's 32 lanes cover 8 rows × 4 columns.
- the same through mma.sync (lab 8): FM×FN accumulator tiles of 16×8 floats, one mma_m16n8k8_tf32 (16×8×8) per
  tile and step of 8; per step a warp loads each A fragment with one ldmatrix_x4 and each B fragment with two
  32-bit loads per lane, from unpadded (swizzled) tiles. A thread's share is again (WM/8)×(WN/4) floats.

Every number the lesson tools print, the exercises expect and the lessons quote comes from QUANTITIES (shapes with
a TILE), BLOCK_QUANTITIES (shapes with a lab's block tile) below and tf32.TF32_QUANTITIES (TF32's errors), so the docs, the answer checker and the
emulator tests all agree with one piece of arithmetic.
"""
import functools
import os
from dataclasses import dataclass

from . import banks  # the references' shared-memory requests, lane by lane
from . import mma  # mma.sync's fragments lane by lane, lab 8's swizzle (lab 8)
from . import tf32  # TF32's effect on random dot products (lab 7)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from course import labs  # the Lab model: each lab.h's constants, from the compiler

FLOAT_BYTES = 4
WARP_SIZE = 32

# Tensor cores (lab 7): wmma m16n16k8 with TF32 inputs. A fragment of C is FRAG×FRAG floats; one mma_sync takes
# FRAG_K values of K. The 32 lanes of an accumulator fragment hold ACC_ROWS × ACC_COLS positions of it (lane l:
# rows l/4 and +8, columns 2·(l%4), +1, +8, +9), each 8 floats.
FRAG = 16
FRAG_K = 8
ACC_ROWS, ACC_COLS = 8, 4
# The skeleton's shared-memory padding: a row of As is BK + A_PAD floats, a row of Bs BN + B_PAD
# (labs/lab7-tensor-cores/kernel.cu's LDA and LDB; tests/lessons/test_tensor_cores.py checks that they agree).
A_PAD, B_PAD = 4, 8
# The labs whose warps multiply with mma.sync (common/mma_ptx.h's mma_m16n8k8_tf32): accumulator tiles of
# MMA_M×MMA_N floats, MMA_K values of K per call; their lab.h has the same constants as lab 7's
MMA_SYNC_LABS = (8,)
MMA_M, MMA_N, MMA_K = 16, 8, 8
LDMATRIX_BYTES = 32 * 16  # an ldmatrix_x4: 32 rows of 16 bytes, a 16×8 A fragment of floats
B_FRAGMENT_BYTES = 8 * 8 * 4  # an 8×8 B fragment: two 32-bit loads per lane


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

    def describe(self):
        return "TILE=%d" % self.TILE

    def stated_sizes(self):
        """What a question about this shape must tell the student: A's and B's sizes, and the tile."""
        return ["%d×%d" % (self.M, self.K), "%d×%d" % (self.K, self.N), "%d×%d" % (self.TILE, self.TILE)]


def lab_constants(lab):
    """{name: value} of the `constexpr int NAME = value;` lines in labs/labN-*/lab.h; ValueError if no such lab."""
    try:
        return labs.find(lab).constants
    except labs.LabError:
        raise ValueError("no lab %d" % lab) from None


@dataclass(frozen=True)
class BlockTile:
    """A block-tiled kernel's shape: BM×BN outputs per block, K in slices of BK, TM×TN outputs per thread (lab 6:
    (WMITER·TM)×(WNITER·TN), in pieces), in `stages` shared-memory buffers."""
    lab: int
    BM: int
    BN: int
    BK: int
    TM: int
    TN: int
    stages: int
    changes: tuple = ()  # (name, value) pairs that differ from the lab's lab.h
    warp_steps: bool = False  # lab 6: a thread's TM×TN outputs are WMITER×WNITER pieces of lab.h's TM×TN
    WM: int = 0  # lab 7: the warp tile, held as fragments (0: no tensor cores)
    WN: int = 0
    mma_sync: bool = False  # lab 8: 16×8 accumulator tiles of mma_m16n8k8_tf32, not 16×16 wmma fragments

    @property
    def tensor(self):
        """Whether the warps multiply on tensor cores (lab 7): WM×WN warp tiles of 16×16 fragments."""
        return self.WM > 0

    @property
    def FM(self):
        return self.WM // FRAG  # a warp's fragments of C: FM×FN

    @property
    def FN(self):
        return self.WN // (MMA_N if self.mma_sync else FRAG)

    @property
    def tile_name(self):
        """What a warp's accumulators are made of."""
        return "accumulator tiles of 16×8" if self.mma_sync else "accumulator fragments of 16×16"

    @property
    def warps(self):
        return self.threads // WARP_SIZE

    @property
    def tm_name(self):
        """How TM is written in a working: lab 6's lab.h calls a piece TM, and a thread holds WMITER of them; lab 7's
        thread holds (WM/8)×(WN/4) floats of its warp's fragments."""
        return "(WMITER·TM)" if self.warp_steps else "(WM/8)" if self.tensor else "TM"

    @property
    def tn_name(self):
        return "(WNITER·TN)" if self.warp_steps else "(WN/4)" if self.tensor else "TN"

    @property
    def threads(self):
        return self.BM * self.BN // (self.TM * self.TN)  # one thread per TM×TN tile of outputs

    def describe(self):
        changed = "".join(" %s=%d" % c for c in self.changes)
        return "lab %d's %d×%d block tile%s" % (self.lab, self.BM, self.BN, " (lab.h with%s)" % changed
                                                if changed else "")

    @staticmethod
    def of_lab(lab, **changes):
        """Lab `lab`'s tile shape from labs/labN-*/lab.h, with some of its constants changed if asked (for example
        BN=256); ValueError for a lab without a block tile, an unknown constant or a shape no kernel can have."""
        c = lab_constants(lab)
        unknown = [name for name in changes if name not in c]
        if unknown:
            raise ValueError("lab %d's lab.h has no constant %s" % (lab, unknown[0]))
        changed = tuple((name, v) for name, v in sorted(changes.items()) if c[name] != v)
        c.update(changes)
        if "TILE_WIDTH" in c:  # labs 2 and 3: square tiles, one output per thread
            return BlockTile(lab, c["TILE_WIDTH"], c["TILE_WIDTH"], c["TILE_WIDTH"], 1, 1, 1, changed)
        if "BM" not in c:
            raise ValueError("lab %d has no block tile" % lab)
        if "WM" in c and "WMITER" not in c:  # labs 7, 8: a warp's WM×WN outputs are FM×FN tensor-core tiles
            mma_sync = lab in MMA_SYNC_LABS
            n = MMA_N if mma_sync else FRAG
            if (c["BM"] % c["WM"] or c["BN"] % c["WN"] or c["WM"] % FRAG or c["WN"] % n
                    or c["BK"] % FRAG_K):
                raise ValueError("lab %d: warp tiles must cover the block tile, 16×%d %s a warp tile, and "
                                 "steps of 8 the slice BK" % (lab, n, "accumulator tiles" if mma_sync else
                                                              "fragments"))
            return BlockTile(lab, c["BM"], c["BN"], c["BK"], c["WM"] // ACC_ROWS, c["WN"] // ACC_COLS,
                             c.get("STAGES", 1), changed, False, c["WM"], c["WN"], mma_sync)
        if "WM" in c:  # lab 6: warps of 32 threads cover WM×WN in WMITER×WNITER sub-tiles of TM×TN per thread
            if (c["BM"] % c["WM"] or c["BN"] % c["WN"] or c["WM"] % (c["WMITER"] * c["TM"])
                    or c["WN"] % (c["WNITER"] * c["TN"])
                    or (c["WM"] // c["WMITER"] // c["TM"]) * (c["WN"] // c["WNITER"] // c["TN"]) != WARP_SIZE):
                raise ValueError("lab %d: warp tiles must cover the block tile and a warp's 32 threads a sub-tile"
                                 % lab)
            tm, tn = c["WMITER"] * c["TM"], c["WNITER"] * c["TN"]
        else:
            tm, tn = c["TM"], c.get("TN", 1)  # lab 4: a column of TM outputs
        if c["BM"] % tm or c["BN"] % tn:
            raise ValueError("lab %d: TM×TN tiles of outputs must cover the BM×BN block tile" % lab)
        return BlockTile(lab, c["BM"], c["BN"], c["BK"], tm, tn, c.get("STAGES", 1), changed, "WM" in c)


@dataclass(frozen=True)
class BlockShape:
    """A problem M×K·K×N for a block-tiled kernel of shape `tile`, with K split into `split` ranges of whole phases
    (split-K: each range is a block of its own, and a second kernel adds the partial sums), on a GPU of `sms`
    multiprocessors that each run `per_sm` of its blocks at once (0: not given; the wave quantities need both)."""
    M: int
    K: int
    N: int
    tile: BlockTile
    split: int = 1
    sms: int = 0
    per_sm: int = 0

    def name(self):
        return "%d×%d·%d×%d" % (self.M, self.K, self.K, self.N)

    def describe(self):
        gpu = ", %d multiprocessors × %d block%s" % (self.sms, self.per_sm, "s" if self.per_sm > 1 else "") \
            if self.sms else ""
        return self.tile.describe() + (", K split %d ways" % self.split if self.split > 1 else "") + gpu

    def stated_sizes(self):
        return ["%d×%d" % (self.M, self.K), "%d×%d" % (self.K, self.N), "%d×%d" % (self.tile.BM, self.tile.BN)]


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
    return labs.block_tile_floats(s.M, s.N, s.K, s.TILE, s.TILE) * FLOAT_BYTES


def written_bytes(s):
    return s.M * s.N * FLOAT_BYTES


def flops_owned(s):
    return 2 * s.M * s.N * s.K


def flops_launched(s):
    return 2 * threads(s) * phases(s) * s.TILE  # zero-filled multiply-adds included


SECTOR_BYTES = 32  # a warp's global access is served in 32-byte sectors


@functools.lru_cache(maxsize=64)
def naive_sectors(s, row_from_x=False):
    """The 32-byte sectors and warp requests of the naive kernel with TILE×TILE blocks, for the loads of A and B and
    the stores of C: (sectors_A, sectors_B, sectors_C, requests per matrix). Lane t of a block is thread
    (t % TILE, t / TILE); col = x and row = y, or the other way round (row_from_x). Every warp with a lane inside C
    makes one request per k for A and for B, and one for C. A warp by warp count, as the emulator and a GPU do."""
    a = b = c = requests = 0
    threads = s.TILE * s.TILE
    for by in range(ceil_div(s.M if row_from_x else s.N, s.TILE)):      # along x
        for bz in range(ceil_div(s.N if row_from_x else s.M, s.TILE)):  # along y
            for first in range(0, threads, 32):
                lanes = []
                for t in range(first, min(threads, first + 32)):
                    x, y = by * s.TILE + t % s.TILE, bz * s.TILE + t // s.TILE
                    row, col = (x, y) if row_from_x else (y, x)
                    if row < s.M and col < s.N:
                        lanes.append((row, col))
                if not lanes:
                    continue
                requests += 1
                c += len({(row * s.N + col) * FLOAT_BYTES // SECTOR_BYTES for row, col in lanes})
                for k in range(s.K):
                    a += len({(row * s.K + k) * FLOAT_BYTES // SECTOR_BYTES for row, _ in lanes})
                    b += len({(k * s.N + col) * FLOAT_BYTES // SECTOR_BYTES for _, col in lanes})
    return a, b, c, requests


def sector_quantities(prefix, row_from_x, how):
    def per_request(s, matrix):
        a, b, c, requests = naive_sectors(s, row_from_x)
        return {"A": a, "B": b, "C": c}[matrix] / (requests * (1 if matrix == "C" else s.K))

    out = []
    for i, matrix in enumerate("ABC"):
        what = "stores to C" if matrix == "C" else "loads of " + matrix
        out.append(Quantity("%s_sectors_%s" % (prefix, matrix), "32-byte sectors of the %s (%s)" % (what, how),
                            lambda s, i=i: naive_sectors(s, row_from_x)[i],
                            lambda s, m=matrix: "distinct sectors of each warp's %s, summed (%s)" % (
                                "store" if m == "C" else "load of " + m, how)))
        out.append(Quantity("%s_sectors_per_request_%s" % (prefix, matrix),
                            "32-byte sectors per warp request of the %s (%s)" % (what, how),
                            lambda s, m=matrix: per_request(s, m),
                            lambda s, m=matrix: "sectors / requests (%s)" % how, decimals=1))
    return out


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
    Quantity("naive_warp_requests", "warps of the naive kernel with a lane inside C (each makes K requests for A, K "
             "for B, one for C)", lambda s: naive_sectors(s)[3], lambda s: "warps with a lane inside C"),
] + sector_quantities("naive", False, "col from x, the taught mapping")
  + sector_quantities("row_from_x", True, "row from x, the grid swapped")}


# -- block tiles with register tiles (labs 4-6): s is a BlockShape, t its tile --------------------------------------
def block_grid_x(s):
    return ceil_div(s.N, s.tile.BN)


def block_grid_y(s):
    return ceil_div(s.M, s.tile.BM)


def block_tiles(s):
    return block_grid_x(s) * block_grid_y(s)  # tiles of C, one block each unless K is split


def all_phases(s):
    return ceil_div(s.K, s.tile.BK)  # the phases of K, over all its splits


def splits(s):
    # K is cut into ranges of ceil(phases / SPLIT) phases; 9 phases asked to split 4 ways give 3 ranges of 3, so
    # no range is empty
    return ceil_div(all_phases(s), ceil_div(all_phases(s), s.split))


def block_blocks(s):
    return block_tiles(s) * splits(s)  # a block per tile and range of K


def block_phases(s):
    return ceil_div(all_phases(s), splits(s))  # one block's phases (the last split may have fewer)


# Split-K's rule, as the lab 6 reference's launcher applies it: split until the blocks fill the slots (blocks the
# GPU runs at once), keeping at least MIN_SPLIT_PHASES phases in each range of K.
MIN_SPLIT_PHASES = 4


def split_for_slots(s):
    tiles, slots = block_tiles(s), slots_of(s)
    if tiles >= slots:
        return 1
    longest = all_phases(s) // MIN_SPLIT_PHASES
    return 1 if longest < 2 else min(slots // tiles, longest)


def slots_of(s):
    if not (s.sms and s.per_sm):
        raise ValueError("waves need the GPU: SMS=<multiprocessors> and PER_SM=<blocks each runs at once>")
    return s.sms * s.per_sm


def split_bytes(s):
    # each split stores its M×N partial sums, and the sum kernel reads them all back (C is written once either way)
    return 2 * splits(s) * s.M * s.N * FLOAT_BYTES if splits(s) > 1 else 0


def block_read_bytes(s):
    # a guarded load outside A or B reads nothing: each element of A is loaded once per block column, of B once
    # per block row (the bound the labs' traffic tests allow)
    return labs.block_tile_floats(s.M, s.N, s.K, s.tile.BM, s.tile.BN) * FLOAT_BYTES


def scalar_only(t):
    """ValueError for a tile whose warps multiply on tensor cores: a thread there loads and multiplies no values of
    its own, so the per-thread loads and multiply-adds of labs 4-6 do not exist (see the fragment quantities)."""
    if t.tensor:
        raise ValueError("lab %d's warps multiply whole fragments on tensor cores: no thread loads or multiplies "
                         "values of its own (see fragment_loads_per_warp_per_phase, mma_per_warp_per_phase)" % t.lab)


def shared_loads_per_step(t):
    scalar_only(t)
    return t.TM + t.TN  # step k: column k of the thread's TM rows of A, row k of its TN columns of B


def fmas_per_step(t):
    scalar_only(t)
    return t.TM * t.TN  # the outer product of those two


def block_shared_load_bytes(s):
    # every launched thread runs every step of every phase, zero-filled ones included; the splits of K share out
    # the phases of each tile
    t = s.tile
    scalar_only(t)
    return block_tiles(s) * t.threads * all_phases(s) * t.BK * shared_loads_per_step(t) * FLOAT_BYTES


def block_shared_store_bytes(s):
    # each phase, the block stores its BM×BK slice of A and its BK×BN slice of B
    t = s.tile
    return block_tiles(s) * all_phases(s) * (t.BM + t.BN) * t.BK * FLOAT_BYTES


def block_shared_bytes_per_block(s):
    t = s.tile
    if t.tensor and not t.mma_sync:  # padded rows: As is BM×(BK + A_PAD), Bs BK×(BN + B_PAD)
        return t.stages * (t.BM * (t.BK + A_PAD) + t.BK * (t.BN + B_PAD)) * FLOAT_BYTES
    return t.stages * (t.BM + t.BN) * t.BK * FLOAT_BYTES


def shared_bytes_working(s):
    t = s.tile
    if t.tensor and not t.mma_sync:
        return "stages · (BM·(BK + %d) + BK·(BN + %d)) floats · 4 B = %d · (%d·%d + %d·%d) · 4" % (
            A_PAD, B_PAD, t.stages, t.BM, t.BK + A_PAD, t.BK, t.BN + B_PAD)
    return "stages · (BM + BN)·BK floats · 4 B = %d · (%d + %d)·%d · 4" % (t.stages, t.BM, t.BN, t.BK)


# -- tensor cores (lab 7): a warp's FM×FN fragments of C, m16n16k8 products -----------------------------------------
def tensor_tile(t):
    """The tile, or ValueError for one whose warps do not use tensor cores."""
    if not t.tensor:
        raise ValueError("lab %d's tile has no tensor-core fragments: only a lab whose lab.h has WM and WN without "
                         "WMITER (lab 7) multiplies with wmma::mma_sync" % t.lab)
    return t


def mma_per_warp_per_phase(t):
    t = tensor_tile(t)
    return t.FM * t.FN * (t.BK // FRAG_K)  # every fragment of C, for each step of 8 along the slice


def wmma_tile(t):
    """The tile, or ValueError for one whose warps do not use wmma (lab 8's use mma.sync)."""
    if tensor_tile(t).mma_sync:
        raise ValueError("lab %d loads its fragments with ldmatrix_x4 and 32-bit loads, not load_matrix_sync (see "
                         "ldmatrix_per_warp_per_phase, b_loads_per_warp_per_phase)" % t.lab)
    return t


def mma_sync_tile(t):
    """The tile, or ValueError for one whose warps do not use mma.sync."""
    if not tensor_tile(t).mma_sync:
        raise ValueError("lab %d's warps multiply with wmma, not mma.sync: no ldmatrix here" % t.lab)
    return t


def ldmatrix_per_warp_per_phase(t):
    t = mma_sync_tile(t)
    return t.FM * (t.BK // MMA_K)  # one ldmatrix_x4 per A fragment and step, each used FN times


def b_loads_per_warp_per_phase(t):
    t = mma_sync_tile(t)
    return 2 * t.FN * (t.BK // MMA_K)  # b[0] and b[1] of each B fragment, each used FM times


def fragment_loads_per_warp_per_phase(t):
    t = wmma_tile(t)
    return (t.FM + t.FN) * (t.BK // FRAG_K)  # FM fragments of A and FN of B per step, each used FN or FM times


def mma_calls(s):
    # every warp of every block runs every step of every phase, zero-filled ones included
    return block_tiles(s) * all_phases(s) * s.tile.warps * mma_per_warp_per_phase(s.tile)


MMA_FLOPS = 2 * FRAG * FRAG * FRAG_K  # a 16×16×8 multiply-add: 16·16·8 multiplies and as many adds


def flops_per_mma(t):
    return 2 * MMA_M * MMA_N * MMA_K if tensor_tile(t).mma_sync else MMA_FLOPS


def mma_shape_name(t):
    return "16·8·8" if t.mma_sync else "16·16·8"


def fragment_load_bytes(s):
    # a 16×8 fragment of A and an 8×16 one of B are 128 floats each, 4 per lane; lab 8: an ldmatrix_x4 of A's
    # 16×8, two 32-bit loads of B's 8×8
    t = s.tile
    if tensor_tile(t).mma_sync:
        return block_tiles(s) * all_phases(s) * t.warps * (t.BK // MMA_K) * (t.FM * LDMATRIX_BYTES +
                                                                              t.FN * B_FRAGMENT_BYTES)
    return block_tiles(s) * all_phases(s) * t.warps * fragment_loads_per_warp_per_phase(t) * FRAG * FRAG_K * \
        FLOAT_BYTES


def mma_working(s):
    t = s.tile
    return "tiles · ceil(K / BK) · warps · FM·FN·BK/8 = %d · %d · %d · %d·%d·%d/8" % (
        block_tiles(s), all_phases(s), t.warps, t.FM, t.FN, t.BK)


def fragment_bytes_working(s):
    t = s.tile
    if t.mma_sync:
        return "tiles · ceil(K / BK) · warps · BK/8 · (FM · %d + FN · %d) B = %d · %d · %d · %d · (%d · %d + %d · %d)" % (
            LDMATRIX_BYTES, B_FRAGMENT_BYTES, block_tiles(s), all_phases(s), t.warps, t.BK // MMA_K, t.FM,
            LDMATRIX_BYTES, t.FN, B_FRAGMENT_BYTES)
    return "tiles · ceil(K / BK) · warps · (FM + FN)·BK/8 · 16·8 floats · 4 B = %d · %d · %d · %d · 128 · 4" % (
        block_tiles(s), all_phases(s), t.warps, fragment_loads_per_warp_per_phase(t))


def tm_plus_tn(t):
    return "%s + %s = %d + %d" % (t.tm_name, t.tn_name, t.TM, t.TN)


def tm_times_tn(t):
    return "%s·%s = %d · %d" % (t.tm_name, t.tn_name, t.TM, t.TN)


def blocks_working(s):
    tiles = "ceil(N / BN) · ceil(M / BM)" + (" · splits" if splits(s) > 1 else "")
    numbers = "ceil(%d / %d) · ceil(%d / %d)" % (s.N, s.tile.BN, s.M, s.tile.BM)
    values = "%d · %d" % (block_grid_x(s), block_grid_y(s))
    if splits(s) > 1:
        numbers += " · %d" % splits(s)
        values += " · %d" % splits(s)
    return "%s = %s = %s" % (tiles, numbers, values)


BLOCK_QUANTITIES = {q.name: q for q in [
    Quantity("tiles", "tiles of C (BM×BN each)", block_tiles,
             lambda s: "ceil(N / BN) · ceil(M / BM) = ceil(%d / %d) · ceil(%d / %d) = %d · %d" % (
                 s.N, s.tile.BN, s.M, s.tile.BM, block_grid_x(s), block_grid_y(s))),
    Quantity("blocks", "blocks in the grid", block_blocks, blocks_working),
    Quantity("threads_per_block", "threads in a block, one per TM×TN tile of outputs", lambda s: s.tile.threads,
             lambda s: "BM·BN / (%s·%s) = %d·%d / (%d·%d)" % (
                 s.tile.tm_name, s.tile.tn_name, s.tile.BM, s.tile.BN, s.tile.TM, s.tile.TN)),
    Quantity("warps_per_block", "warps of 32 threads in a block", lambda s: s.tile.threads // WARP_SIZE,
             lambda s: "threads per block / 32 = %d / 32" % s.tile.threads),
    Quantity("phases", "phases of the tile loop (in one block)", block_phases,
             lambda s: "ceil(ceil(K / BK) / splits) = ceil(%d / %d)" % (all_phases(s), splits(s)) if splits(s) > 1
             else "ceil(K / BK) = ceil(%d / %d)" % (s.K, s.tile.BK)),
    Quantity("read_bytes", "global bytes the kernel reads from A and B", block_read_bytes,
             lambda s: "(M·K·ceil(N/BN) + K·N·ceil(M/BM)) floats · 4 B = (%d·%d·%d + %d·%d·%d) · 4"
                       % (s.M, s.K, block_grid_x(s), s.K, s.N, block_grid_y(s))),
    Quantity("multiply_adds", "multiply-adds of the product", lambda s: s.M * s.N * s.K,
             lambda s: "M·N·K = %d · %d · %d" % (s.M, s.N, s.K)),
    Quantity("accumulators", "outputs a thread holds, each in a register", lambda s: s.tile.TM * s.tile.TN,
             lambda s: tm_times_tn(s.tile)),
    Quantity("shared_loads_per_step", "floats a thread loads from shared memory per step k",
             lambda s: shared_loads_per_step(s.tile), lambda s: tm_plus_tn(s.tile)),
    Quantity("fmas_per_step", "multiply-adds a thread makes per step k", lambda s: fmas_per_step(s.tile),
             lambda s: tm_times_tn(s.tile)),
    Quantity("shared_loads_per_fma", "floats loaded from shared memory per multiply-add",
             lambda s: shared_loads_per_step(s.tile) / fmas_per_step(s.tile),
             lambda s: "(%s + %s) / (%s·%s) = %d / %d" % (
                 s.tile.tm_name, s.tile.tn_name, s.tile.tm_name, s.tile.tn_name, shared_loads_per_step(s.tile),
                 fmas_per_step(s.tile)), decimals=2),
    Quantity("fmas_per_thread_per_phase", "multiply-adds a thread makes per phase",
             lambda s: s.tile.BK * fmas_per_step(s.tile),
             lambda s: "BK·%s·%s = %d · %d · %d" % (
                 s.tile.tm_name, s.tile.tn_name, s.tile.BK, s.tile.TM, s.tile.TN)),
    Quantity("shared_load_bytes", "bytes all the launched threads load from shared memory", block_shared_load_bytes,
             lambda s: ("tiles · threads per block · ceil(K / BK) · BK · (%s + %s) floats · 4 B"
                        " = %d · %d · %d · %d · %d · 4")
                       % (s.tile.tm_name, s.tile.tn_name, block_tiles(s), s.tile.threads, all_phases(s),
                          s.tile.BK, shared_loads_per_step(s.tile))),
    Quantity("shared_bytes_per_block", "shared memory per block for the tiles of A and B (lab 7: with the padded "
             "rows)", block_shared_bytes_per_block, shared_bytes_working),
    Quantity("fragments_per_warp", "accumulator fragments a warp holds, FM×FN (lab 7: of 16×16 floats; lab 8: "
             "accumulator tiles of 16×8)", lambda s: tensor_tile(s.tile).FM * s.tile.FN,
             lambda s: "(WM/16)·(WN/%d) = (%d/16) · (%d/%d)" % (s.tile.WN // s.tile.FN, s.tile.WM, s.tile.WN,
                                                                s.tile.WN // s.tile.FN)),
    Quantity("ldmatrix_per_warp_per_phase", "ldmatrix_x4 a warp makes per phase (one per A fragment and step of 8)",
             lambda s: ldmatrix_per_warp_per_phase(s.tile),
             lambda s: "FM·BK/8 = %d · %d/8" % (s.tile.FM, s.tile.BK)),
    Quantity("b_loads_per_warp_per_phase", "32-bit warp-wide shared loads of B fragments a warp makes per phase "
             "(two per B fragment and step of 8)", lambda s: b_loads_per_warp_per_phase(s.tile),
             lambda s: "2·FN·BK/8 = 2 · %d · %d/8" % (s.tile.FN, s.tile.BK)),
    Quantity("mma_per_warp_per_phase", "tensor-core calls a warp makes per phase (slice of K): wmma::mma_sync in "
             "lab 7, mma_m16n8k8_tf32 in lab 8",
             lambda s: mma_per_warp_per_phase(s.tile),
             lambda s: "FM·FN·BK/8 = %d · %d · %d/8" % (s.tile.FM, s.tile.FN, s.tile.BK)),
    Quantity("fragment_loads_per_warp_per_phase", "wmma::load_matrix_sync calls a warp makes per phase (fragments "
             "of A and B)", lambda s: fragment_loads_per_warp_per_phase(s.tile),
             lambda s: "(FM + FN)·BK/8 = (%d + %d) · %d/8" % (s.tile.FM, s.tile.FN, s.tile.BK)),
    Quantity("mma_calls", "tensor-core calls (wmma::mma_sync, lab 8: mma_m16n8k8_tf32) in the whole launch, "
             "zero-filled ones included", mma_calls, mma_working),
    Quantity("flops_per_mma", "FLOPs of one tensor-core call, m16n16k8 mma_sync or (lab 8) m16n8k8 mma.sync (a "
             "multiply and an add per term)", lambda s: flops_per_mma(s.tile),
             lambda s: "2·" + mma_shape_name(s.tile)),
    Quantity("mma_flops", "FLOPs the tensor cores execute in the launch, zero-filled ones included",
             lambda s: mma_calls(s) * flops_per_mma(s.tile),
             lambda s: "calls · 2·%s = %s · %d" % (mma_shape_name(s.tile), format_number(mma_calls(s)),
                                                   flops_per_mma(s.tile))),
    Quantity("mma_useful_percent", "the product's 2·M·N·K FLOPs, in percent of those the tensor cores execute",
             lambda s: 100 * 2 * s.M * s.N * s.K / (mma_calls(s) * flops_per_mma(s.tile)),
             lambda s: "100 · 2·M·N·K / tensor-core FLOPs = 100 · %s / %s" % (
                 format_number(2 * s.M * s.N * s.K), format_number(mma_calls(s) * flops_per_mma(s.tile))),
             decimals=1),
    Quantity("fragment_load_bytes", "bytes the fragment loads take from shared memory over the launch (lab 7: 128 "
             "floats per fragment of A or B; lab 8: 512 bytes per ldmatrix_x4 of A, 256 per B fragment)",
             fragment_load_bytes, fragment_bytes_working),
    Quantity("workspace_bytes", "bytes of the split-K workspace (every split's M×N partial sums)",
             lambda s: splits(s) * s.M * s.N * FLOAT_BYTES if splits(s) > 1 else 0,
             lambda s: "splits · M·N floats · 4 B = %d · %d · %d · 4" % (splits(s), s.M, s.N)),
    Quantity("split_extra_bytes", "global bytes split-K adds: the partial sums written, then read by the sum",
             split_bytes, lambda s: "2 · splits · M·N floats · 4 B = 2 · %d · %d · %d · 4" % (splits(s), s.M, s.N)),
    Quantity("split_extra_percent", "split-K's extra bytes, in percent of the unsplit kernel's reads and writes",
             lambda s: 100 * split_bytes(s) / (block_read_bytes(s) + s.M * s.N * FLOAT_BYTES),
             lambda s: "100 · extra / (bytes read + M·N·4) = 100 · %s / (%s + %s)" % (
                 format_number(split_bytes(s)), format_number(block_read_bytes(s)),
                 format_number(s.M * s.N * FLOAT_BYTES)), decimals=1),
    Quantity("slots", "blocks the GPU runs at once", slots_of,
             lambda s: "multiprocessors · blocks per multiprocessor = %d · %d" % (s.sms, s.per_sm)),
    Quantity("waves", "how many times the GPU's slots are filled to run every block",
             lambda s: block_blocks(s) / slots_of(s),
             lambda s: "blocks / slots = %d / %d" % (block_blocks(s), slots_of(s)), decimals=2),
    Quantity("busy_sms", "multiprocessors with a block to run (the scheduler spreads blocks over them first)",
             lambda s: min(block_blocks(s), s.sms) if slots_of(s) else 0,
             lambda s: "min(blocks, multiprocessors) = min(%d, %d)" % (block_blocks(s), s.sms)),
    Quantity("split_for_slots", "splits of K that fill the slots, each keeping at least %d phases" % MIN_SPLIT_PHASES,
             split_for_slots,
             lambda s: ("1: the tiles fill the slots" if block_tiles(s) >= slots_of(s) else
                        "min(slots / tiles, ceil(K / BK) / %d), 1 below 2 = min(%d / %d, %d / %d)"
                        % (MIN_SPLIT_PHASES, slots_of(s), block_tiles(s), all_phases(s), MIN_SPLIT_PHASES))),
    Quantity("splits", "ranges K is cut into (no range left empty)", splits,
             lambda s: "ceil(ceil(K / BK) / ceil(ceil(K / BK) / SPLIT)) = ceil(%d / %d)"
                       % (all_phases(s), ceil_div(all_phases(s), s.split))),
    Quantity("intensity", "FLOP per byte the kernel reads from A and B",
             lambda s: 2 * s.M * s.N * s.K / block_read_bytes(s),
             lambda s: "2·M·N·K / bytes read = %s / %s" % (format_number(2 * s.M * s.N * s.K),
                                                            format_number(block_read_bytes(s))), decimals=2),
]}



# -- shared-memory requests of the lab 5 and lab 6 references (banks.py works them out lane by lane) --------------
def tile_constants(t):
    """lab.h's constants of the tile's lab, with the tile's changes."""
    c = lab_constants(t.lab)
    c.update(dict(t.changes))
    return c


@functools.lru_cache(maxsize=64)
def shared_accesses(t, float4=False):
    """{access: (Access, requests, wavefronts, ideal, ways)} over one block and one phase of the lab's reference;
    ValueError for a lab other than 5 and 6."""
    return {name: (a,) + banks.figures(a) + (banks.ways(a),)
            for name, a in banks.accesses(t.lab, tile_constants(t), float4).items()}


def launch_share(s):
    return block_tiles(s) * all_phases(s)  # every block makes the same requests in each of its phases


def per_phase(s, name, figure, float4=False):
    """One block's phase of an access: its Access, or its requests, wavefronts, ideal or ways (figure 0 to 4)."""
    return shared_accesses(s.tile, float4)[name][figure]


def shared_requests_working(s, name):
    how, numbers = per_phase(s, name, 0).per_block.split(" = ")
    return "tiles · ceil(K / BK) · %s = %d · %d · %s" % (how, block_tiles(s), all_phases(s), numbers)


def per_request_working(s, name, figure, what, float4=False):
    return "%s / requests, over one block's phase = %s / %s" % (
        what, format_number(per_phase(s, name, figure, float4)), format_number(per_phase(s, name, 1, float4)))


def shared_quantities():
    """Per access of the references to shared memory (banks.ACCESSES): its warp requests over the launch, their
    wavefronts, per request and in all, the ideal per request and the n of its n-way bank conflict, as the
    emulator counts them; and for the accesses that nvcc makes 16 bytes wide, the same per float4 request."""
    out = []
    for name, what in banks.ACCESSES.items():
        out += [
            Quantity("shared_requests_" + name, "warp requests of %s over the launch, as the emulator counts them"
                     % what, lambda s, n=name: launch_share(s) * per_phase(s, n, 1),
                     lambda s, n=name: shared_requests_working(s, n)),
            Quantity("shared_wavefronts_" + name, "wavefronts of %s over the launch, as the emulator counts them"
                     % what, lambda s, n=name: launch_share(s) * per_phase(s, n, 2),
                     lambda s, n=name: "tiles · ceil(K / BK) · wavefronts of one block's phase = %d · %d · %s" % (
                         block_tiles(s), all_phases(s), format_number(per_phase(s, n, 2)))),
            Quantity("shared_wavefronts_per_request_" + name, "wavefronts per warp request of %s, as the emulator "
                     "counts them: the most distinct words in one bank" % what,
                     lambda s, n=name: per_phase(s, n, 2) / per_phase(s, n, 1),
                     lambda s, n=name: per_request_working(s, n, 2, "wavefronts"), decimals=1),
            Quantity("shared_ideal_per_request_" + name, "the fewest wavefronts of 128 bytes a warp request of %s "
                     "could take" % what, lambda s, n=name: per_phase(s, n, 3) / per_phase(s, n, 1),
                     lambda s, n=name: per_request_working(s, n, 3,
                                                           "ideal wavefronts (distinct bytes / 128, rounded up)"),
                     decimals=1),
            Quantity("shared_conflict_ways_" + name, "the most distinct words one bank holds in a warp request of %s "
                     "(an n-way bank conflict; 1: none)" % what, lambda s, n=name: per_phase(s, n, 4),
                     lambda s: "the busiest bank's distinct words, among the lanes served together"),
        ]
        if name in banks.FLOAT4_ACCESSES:
            out += [
                Quantity("float4_wavefronts_per_request_" + name, "wavefronts per 16-byte warp request of %s, as "
                         "nvcc makes them" % what,
                         lambda s, n=name: per_phase(s, n, 2, True) / per_phase(s, n, 1, True),
                         lambda s, n=name: per_request_working(s, n, 2, "wavefronts (a quarter-warp at a time)", True),
                         decimals=1),
                Quantity("float4_conflict_ways_" + name, "the most distinct words one bank holds in a quarter-warp "
                         "of a 16-byte request of %s (an n-way bank conflict; 1: none)" % what,
                         lambda s, n=name: per_phase(s, n, 4, True),
                         lambda s: "the busiest bank's distinct words, among the 8 lanes served together"),
            ]
    return out


SHARED_QUANTITIES = {q.name: q for q in shared_quantities()}
BLOCK_QUANTITIES.update(SHARED_QUANTITIES)


# -- lab 6's float4 loads of A from global memory, as the given load_tile maps them ------------------------------------
@functools.lru_cache(maxsize=64)
def a_float4_requests(s):
    """(warp requests, 32-byte sectors, the fewest sectors their bytes could take) of lab 6's float4 loads of A over
    the launch: float4 number f = tid + i·THREADS of the A tile is row f % BM, columns f / BM · 4 .. +3, so a warp
    takes 32 rows and each lane's 16 bytes lie in a sector of their own. ValueError for another lab, or a K that
    is not a multiple of 4 (the scalar path)."""
    if s.tile.lab != 6 or s.tile.tensor:
        raise ValueError("the float4 loads of A are worked out for lab 6's load_tile only, not lab %d" % s.tile.lab)
    if s.K % 4:
        raise ValueError("K = %d is not a multiple of 4: A takes the scalar path" % s.K)
    c = tile_constants(s.tile)
    threads = WARP_SIZE * (c["BM"] // c["WM"]) * (c["BN"] // c["WN"])
    requests = sectors = ideal = 0
    for block_row in range(block_grid_y(s)):
        for tile in range(all_phases(s)):
            for i in range(c["BM"] * c["BK"] // 4 // threads):
                for warp in range(0, threads, WARP_SIZE):
                    f = [tid + i * threads for tid in range(warp, warp + WARP_SIZE)]
                    lanes = [(block_row * c["BM"] + x % c["BM"], tile * c["BK"] + x // c["BM"] * 4) for x in f]
                    lanes = [(row, col) for row, col in lanes if row < s.M and col < s.K]  # guarded: no load
                    if lanes:
                        requests += 1
                        sectors += len({(row * s.K + col) * FLOAT_BYTES // SECTOR_BYTES for row, col in lanes})
                        ideal += ceil_div(len(lanes) * 4 * FLOAT_BYTES, SECTOR_BYTES)
    return tuple(n * block_grid_x(s) for n in (requests, sectors, ideal))  # every block column loads the same A


A_FLOAT4_QUANTITIES = {q.name: q for q in [
    Quantity("a_float4_requests", "warp requests of lab 6's float4 loads of A over the launch, as the emulator "
             "counts them", lambda s: a_float4_requests(s)[0],
             lambda s: "requests with a lane inside A, over the block rows, phases and loads of one block column, "
                       "times ceil(N / BN) = %d" % block_grid_x(s)),
    Quantity("a_float4_sectors", "32-byte sectors of lab 6's float4 loads of A over the launch",
             lambda s: a_float4_requests(s)[1], lambda s: "distinct sectors of each request, summed"),
    Quantity("a_float4_ideal_sectors", "the fewest 32-byte sectors the bytes of lab 6's float4 loads of A could "
             "take", lambda s: a_float4_requests(s)[2], lambda s: "ceil(16 B · lanes / 32 B) per request, summed"),
    Quantity("a_float4_sectors_per_request", "sectors per warp request of lab 6's float4 loads of A",
             lambda s: a_float4_requests(s)[1] / a_float4_requests(s)[0],
             lambda s: "sectors / requests = %s / %s" % tuple(map(format_number, a_float4_requests(s)[1::-1])),
             decimals=1),
    Quantity("a_float4_ideal_per_request", "the fewest sectors per warp request of lab 6's float4 loads of A",
             lambda s: a_float4_requests(s)[2] / a_float4_requests(s)[0],
             lambda s: "ideal sectors / requests = %s / %s" % tuple(map(format_number, a_float4_requests(s)[2::-2])),
             decimals=1),
]}
BLOCK_QUANTITIES.update(A_FLOAT4_QUANTITIES)


# the quantities that need the GPU's multiprocessors (SMS= and PER_SM= in a shape)
GPU_QUANTITIES = {"slots", "waves", "busy_sms", "split_for_slots"}


def quantities(shape):
    """The quantities a shape has: QUANTITIES for a Shape (a TILE), BLOCK_QUANTITIES for a BlockShape,
    tf32.TF32_QUANTITIES for a tf32.Tf32Shape (random dot products), mma.MMA_QUANTITIES for an mma.MmaShape (an
    element of mma.sync's fragments)."""
    if isinstance(shape, tf32.Tf32Shape):
        return tf32.TF32_QUANTITIES
    if isinstance(shape, mma.MmaShape):
        return mma.MMA_QUANTITIES
    return BLOCK_QUANTITIES if isinstance(shape, BlockShape) else QUANTITIES


def value(name, shape):
    return quantities(shape)[name].compute(shape)


def matches(name, shape, text, decimals=None):
    """Whether a number someone wrote is this quantity. Integers must be exact; a ratio must agree to `decimals`
    places (default: as many as the text shows), so '3.51' and '15.9' are both right for what they claim."""
    claimed = parse_number(text)
    if claimed is None:
        return False
    exact = value(name, shape)
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
