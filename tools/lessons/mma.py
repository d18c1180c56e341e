"""`make mma`: mma.sync's fragments lane by lane, and what lab 8's swizzle does to the banks (lab 8).

The lane maps are those common/mma_ptx.h documents for mma_m16n8k8_tf32 and ldmatrix (the PTX ISA's), with
g = lane / 4 and t = lane % 4:

    A (16×8):  a[i] = A[g + 8·(i % 2)][t + 4·(i / 2)]        B (8×8):  b[i] = B[t + 4·i][g]
    C (16×8):  c[i] = C[g + 8·(i / 2)][2t + i % 2]

The shared-memory layouts are lab 8's (solutions/lab8-mma/kernel.cu's a_index and b_index): As holds BM rows of
BK = 32 floats, Bs BK rows of BN = 128 floats, unpadded; the swizzle stores chunk c (4 floats, 16 bytes) of row m
of As at chunk c ^ (m % 8), and chunk c of row k of Bs at chunk c ^ 2·(k % 4). The wavefronts of one ldmatrix_x4
and of one B fragment load are worked out from the lanes' byte offsets by banks.wavefronts, as the emulator counts
them (a 16-byte access is served 8 lanes at a time: one ldmatrix phase of 8 rows).

The numbers are quantities like the calculator's (MMA_QUANTITIES, an MmaShape: `MMA ROW=r COL=c` in a lesson's
marks names the element A[r][c], B[r][c] or C[r][c] of a fragment, and chunk COL / 4 of row ROW of a tile).
"""
from dataclasses import dataclass

from .banks import WARP_SIZE, wavefronts

TILE_M, TILE_N, TILE_K = 16, 8, 8  # m16n8k8
CHUNK = 4                          # floats in a 16-byte chunk, what the swizzle moves
FLOAT_BYTES = 4
A_ROW, B_ROW = 32, 128             # lab 8's rows: As is BK floats wide, Bs BN floats
MAX_ROW = 127                      # the last row of As (BM = 128)


@dataclass(frozen=True)
class MmaShape:
    """An element (ROW, COL) of a fragment, or of a tile in shared memory."""
    row: int = 0
    col: int = 0

    def name(self):
        return "element (%d, %d)" % (self.row, self.col)

    def describe(self):
        return "mma_m16n8k8_tf32's fragments"

    def stated_sizes(self):
        """What a question about it must tell the student: the row and the column."""
        return ["%d" % self.row, "%d" % self.col]


def check(s, rows, cols, what):
    if not (0 <= s.row < rows and 0 <= s.col < cols):
        raise ValueError("%s is %d×%d: ROW from 0 to %d, COL from 0 to %d" % (what, rows, cols, rows - 1, cols - 1))


# -- which lane holds what ------------------------------------------------------------------------------------------
def a_place(r, c):
    """(lane, register) holding A[r][c] of a 16×8 A fragment."""
    return 4 * (r % 8) + c % 4, r // 8 + 2 * (c // 4)


def b_place(k, n):
    """(lane, register) holding B[k][n] of an 8×8 B fragment."""
    return 4 * n + k % 4, k // 4


def c_place(r, c):
    """(lane, register) holding C[r][c] of a 16×8 accumulator tile."""
    return 4 * (r % 8) + c // 2, 2 * (r // 8) + c % 2


# -- the swizzle and the banks ---------------------------------------------------------------------------------------
def a_chunk(m, c, swizzled=True):
    return c ^ (m % 8) if swizzled else c


def b_chunk(k, c, swizzled=True):
    return c ^ (2 * (k % 4)) if swizzled else c


def a_offset(m, k, swizzled):
    return (m * A_ROW + a_chunk(m, k // CHUNK, swizzled) * CHUNK + k % CHUNK) * FLOAT_BYTES


def b_offset(k, n, swizzled):
    return (k * B_ROW + b_chunk(k, n // CHUNK, swizzled) * CHUNK + n % CHUNK) * FLOAT_BYTES


def ldmatrix_offsets(swizzled, k=0):
    """The byte offsets the 32 lanes give one ldmatrix_x4 of the A fragment at rows 0-15, columns k .. k+7 of As:
    lane l the row l % 16, columns k + 4·(l / 16) .. +3."""
    return [a_offset(lane % 16, k + CHUNK * (lane // 16), swizzled) for lane in range(WARP_SIZE)]


def b_load_offsets(swizzled, k=0, e=0):
    """The byte offsets of one 32-bit B fragment load (b[e]) of the fragment at rows k .. k+7, columns 0-7 of Bs."""
    return [b_offset(k + lane % 4 + 4 * e, lane // 4, swizzled) for lane in range(WARP_SIZE)]


def ldmatrix_wavefronts(swizzled):
    return wavefronts(ldmatrix_offsets(swizzled), 16)


def b_load_wavefronts(swizzled):
    return wavefronts(b_load_offsets(swizzled), 4)


class Quantity:
    """As calculator.Quantity: a meaning, the computation, and a working that explains it."""

    def __init__(self, name, meaning, compute, working, decimals=0):
        self.name, self.meaning, self.compute, self.working, self.decimals = name, meaning, compute, working, decimals

    def explain(self, s):
        from .calculator import format_number
        return "%s = %s" % (self.working(s), format_number(self.compute(s), self.decimals))


def _a(s):
    check(s, TILE_M, TILE_K, "an A fragment")
    return a_place(s.row, s.col)


def _b(s):
    check(s, TILE_K, TILE_N, "a B fragment")
    return b_place(s.row, s.col)


def _c(s):
    check(s, TILE_M, TILE_N, "an accumulator tile")
    return c_place(s.row, s.col)


def _a_tile(s):
    check(s, 1 << 30, A_ROW, "a row of As")
    return s


def _b_tile(s):
    check(s, 1 << 30, B_ROW, "a row of Bs")
    return s


MMA_QUANTITIES = {q.name: q for q in [
    Quantity("a_lane", "lane that holds A[ROW][COL] of a 16×8 A fragment", lambda s: _a(s)[0],
             lambda s: "4·(ROW %% 8) + COL %% 4 = 4·%d + %d" % (s.row % 8, s.col % 4)),
    Quantity("a_register", "register a[i] of its lane that holds A[ROW][COL]", lambda s: _a(s)[1],
             lambda s: "ROW / 8 + 2·(COL / 4) = %d + 2·%d" % (s.row // 8, s.col // 4)),
    Quantity("b_lane", "lane that holds B[ROW][COL] (k, n) of an 8×8 B fragment", lambda s: _b(s)[0],
             lambda s: "4·COL + ROW %% 4 = 4·%d + %d" % (s.col, s.row % 4)),
    Quantity("b_register", "register b[i] of its lane that holds B[ROW][COL]", lambda s: _b(s)[1],
             lambda s: "ROW / 4 = %d / 4" % s.row),
    Quantity("c_lane", "lane that holds C[ROW][COL] of a 16×8 accumulator tile", lambda s: _c(s)[0],
             lambda s: "4·(ROW %% 8) + COL / 2 = 4·%d + %d" % (s.row % 8, s.col // 2)),
    Quantity("c_register", "register c[i] of its lane that holds C[ROW][COL]", lambda s: _c(s)[1],
             lambda s: "2·(ROW / 8) + COL %% 2 = 2·%d + %d" % (s.row // 8, s.col % 2)),
    Quantity("a_swizzled_chunk", "chunk of its row of As where the swizzle stores chunk COL / 4 of row ROW",
             lambda s: a_chunk(_a_tile(s).row, s.col // CHUNK),
             lambda s: "(COL / 4) ^ (ROW %% 8) = %d ^ %d" % (s.col // CHUNK, s.row % 8)),
    Quantity("b_swizzled_chunk", "chunk of its row of Bs where the swizzle stores chunk COL / 4 of row ROW",
             lambda s: b_chunk(_b_tile(s).row, s.col // CHUNK),
             lambda s: "(COL / 4) ^ 2·(ROW %% 4) = %d ^ %d" % (s.col // CHUNK, 2 * (s.row % 4))),
    Quantity("ldmatrix_bytes", "bytes one ldmatrix_x4 reads from shared memory (32 rows of 16 bytes)",
             lambda s: WARP_SIZE * 16, lambda s: "32 lanes' rows · 16 B"),
    Quantity("mma_flops", "FLOPs of one mma_m16n8k8_tf32 (a multiply and an add per term)",
             lambda s: 2 * TILE_M * TILE_N * TILE_K, lambda s: "2·16·8·8"),
    Quantity("ldmatrix_wavefronts_plain", "wavefronts of one ldmatrix_x4 from As without the swizzle (rows of 128 "
             "bytes)", lambda s: ldmatrix_wavefronts(False),
             lambda s: "4 phases of 8 rows, each row's chunk in the same 4 banks: 4 · %d" % (ldmatrix_wavefronts(False) // 4)),
    Quantity("ldmatrix_wavefronts_swizzled", "wavefronts of one ldmatrix_x4 from the swizzled As",
             lambda s: ldmatrix_wavefronts(True),
             lambda s: "4 phases of 8 rows, their chunks in 8 different groups of 4 banks: 4 · %d"
                       % (ldmatrix_wavefronts(True) // 4)),
    Quantity("b_load_wavefronts_plain", "wavefronts of one 32-bit B fragment load from Bs without the swizzle (rows "
             "of 512 bytes)", lambda s: b_load_wavefronts(False),
             lambda s: "4 rows (t) of 8 floats (g), the 4 rows in the same 8 banks"),
    Quantity("b_load_wavefronts_swizzled", "wavefronts of one 32-bit B fragment load from the swizzled Bs",
             lambda s: b_load_wavefronts(True),
             lambda s: "4 rows of 8 floats, each row's two chunks in banks of their own"),
]}


def grid(title, rows, cols, place, register):
    """A table of the lane and the register holding each element: '17:a2' is lane 17's a[2]."""
    out = [title, "        " + "".join("%7s" % ("col %d" % c) for c in range(cols))]
    for r in range(rows):
        out.append("  row %-2d" % r + "".join("%7s" % ("%d:%s%d" % ((place(r, c)[0], register) + place(r, c)[1:]))
                                             for c in range(cols)))
    return out


def report(s):
    q = {name: quantity for name, quantity in MMA_QUANTITIES.items()}
    lines = ["mma_m16n8k8_tf32 (D = A·B + C; A 16×8, B 8×8, C and D 16×8, TF32 inputs, FP32 sums): %d FLOPs per call"
             % q["mma_flops"].compute(s),
             "each cell: lane:register (g = lane / 4, t = lane % 4), as common/mma_ptx.h documents them", ""]
    lines += grid("A fragment, a[i] = A[g + 8·(i % 2)][t + 4·(i / 2)]", TILE_M, TILE_K,
                  a_place, "a")
    lines += [""] + grid("B fragment, b[i] = B[t + 4·i][g] (rows k, columns n)", TILE_K, TILE_N,
                         b_place, "b")
    lines += [""] + grid("accumulator tile, c[i] = C[g + 8·(i / 2)][2t + i % 2]", TILE_M, TILE_N,
                         c_place, "c")
    lines += ["", "ROW=%d COL=%d: A[%d][%d] in lane %s, a[%s]; B[%d][%d] in lane %s, b[%s]; C[%d][%d] in lane %s, c[%s]"
              % tuple([s.row, s.col] + [s.row, s.col] + [_fmt(q, n, s) for n in ("a_lane", "a_register")]
                      + [s.row, s.col] + [_fmt(q, n, s) for n in ("b_lane", "b_register")]
                      + [s.row, s.col] + [_fmt(q, n, s) for n in ("c_lane", "c_register")]),
              "ldmatrix_x4: lane l gives row l %% 16, columns 4·(l / 16) .. +3 of the fragment: %d bytes, 8 rows of 16 "
              "bytes per phase" % q["ldmatrix_bytes"].compute(s), "",
              "the swizzle, chunk c (4 floats) of row m -> chunk of the row it is stored at:",
              "  As (rows of 8 chunks):  c ^ (m % 8)      Bs (rows of 32 chunks): c ^ 2·(k % 4)",
              "  row  " + "".join("%4s" % ("c%d" % c) for c in range(8)) + "     Bs row " + "".join(
                  "%4s" % ("c%d" % c) for c in range(8))]
    for m in range(8):
        lines.append("  %-4d " % m + "".join("%4d" % a_chunk(m, c) for c in range(8)) + "     %-6d " % m +
                     "".join("%4d" % b_chunk(m, c) for c in range(8)))
    lines += ["ROW=%d COL=%d: chunk %d of row %d goes to chunk %s of As, to chunk %s of Bs" % (
        s.row, s.col, s.col // CHUNK, s.row, _fmt(q, "a_swizzled_chunk", s), _fmt(q, "b_swizzled_chunk", s)), "",
        "wavefronts (the emulator's count; a 16-byte access is served 8 lanes, one ldmatrix phase, at a time):",
        "  %-44s %3d without the swizzle, %d with it" % ("one ldmatrix_x4 of an A fragment",
                                                          ldmatrix_wavefronts(False), ldmatrix_wavefronts(True)),
        "  %-44s %3d without the swizzle, %d with it" % ("one 32-bit load of a B fragment (b[0])",
                                                          b_load_wavefronts(False), b_load_wavefronts(True))]
    return "\n".join(lines)


def _fmt(q, name, s):
    try:
        return "%d" % q[name].compute(s)
    except ValueError:
        return "-"
