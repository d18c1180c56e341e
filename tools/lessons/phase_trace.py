"""`make trace`: the boundary-safe tiled algorithm simulated phase by phase, printed for one block (default (0, 0)).

The inputs are small whole numbers, so every value can be checked by hand: A and B hold 1, 2, 3, ... in row-major
order, as in lesson 2's example and the labs' "values 1..16" test. The simulation runs every block, so its count of
global loads is the whole problem's, and it is compared with the calculator's.
"""
from .calculator import FLOAT_BYTES, format_number, grid_x, grid_y, naive_read_bytes, phases, value

MAX_SIZE = 12  # every tile is printed; larger shapes belong to `make traffic`


def counting_matrix(rows, cols):
    return [[r * cols + c + 1 for c in range(cols)] for r in range(rows)]


class Phase:
    def __init__(self, As, Bs, sums):
        self.As, self.Bs, self.sums = As, Bs, sums  # TILE×TILE each; sums: the block's sums after this phase


def simulate_tiled(s, A, B):
    """Runs the lab 3 algorithm on every block. Returns ({(bx, by): [Phase, ...]}, global floats loaded, C)."""
    T = s.TILE
    blocks, loads = {}, 0
    C = [[None] * s.N for _ in range(s.M)]
    for by in range(grid_y(s)):
        for bx in range(grid_x(s)):
            sums = [[0] * T for _ in range(T)]
            trail = []
            for tile in range(phases(s)):
                As = [[0] * T for _ in range(T)]
                Bs = [[0] * T for _ in range(T)]
                for ty in range(T):
                    for tx in range(T):
                        row, col = by * T + ty, bx * T + tx
                        a_col, b_row = tile * T + tx, tile * T + ty
                        if row < s.M and a_col < s.K:  # a guarded load outside A reads nothing: zero fill
                            As[ty][tx] = A[row][a_col]
                            loads += 1
                        if b_row < s.K and col < s.N:
                            Bs[ty][tx] = B[b_row][col]
                            loads += 1
                sums = [[sums[ty][tx] + sum(As[ty][k] * Bs[k][tx] for k in range(T)) for tx in range(T)]
                        for ty in range(T)]
                trail.append(Phase(As, Bs, sums))
            blocks[(bx, by)] = trail
            for ty in range(T):
                for tx in range(T):
                    if by * T + ty < s.M and bx * T + tx < s.N:
                        C[by * T + ty][bx * T + tx] = sums[ty][tx]
    return blocks, loads, C


def matrix_lines(m, indent="    "):
    width = max(len(str(x)) for r in m for x in r)
    return [indent + " ".join(str(x).rjust(width) for x in r) for r in m]


def side_by_side(left, right, gap=6):
    width = max(len(x) for x in left)
    return [a.ljust(width + gap) + b for a, b in zip(left, right)]


def report(s, block=(0, 0)):
    """The trace of block (bx, by): blockIdx.x along the columns of C, blockIdx.y along its rows."""
    T = s.TILE
    bx, by = block
    A, B = counting_matrix(s.M, s.K), counting_matrix(s.K, s.N)
    blocks, loads, C = simulate_tiled(s, A, B)
    r0, c0 = by * T, bx * T  # the block's first row and column of C
    last = min(r0 + T, s.M) - 1, min(c0 + T, s.N) - 1
    lines = ["Tiled C = A·B, %s with TILE=%d, traced for block (%d, %d), which computes C[%d..%d][%d..%d]."
             % (s.name(), T, bx, by, r0, last[0], c0, last[1]),
             "A and B hold 1, 2, 3, ... in row-major order: A[r][k] = r·K + k + 1, B[k][c] = k·N + c + 1.",
             "A =", *matrix_lines(A), "B =", *matrix_lines(B),
             "grid %d × %d blocks of %d×%d threads; %d phases = ceil(K/TILE). Entries outside A or B are zero-filled"
             % (grid_x(s), grid_y(s), T, T, phases(s)),
             "(shown as 0: every real value is at least 1).", ""]
    running = 0
    for tile, phase in enumerate(blocks[block]):
        k0 = tile * T
        lines.append("phase %d: k = %d..%d" % (tile, k0, k0 + T - 1))
        a_title = "As = A[%d..%d][%d..%d]" % (r0, r0 + T - 1, k0, k0 + T - 1)
        b_title = "Bs = B[%d..%d][%d..%d]" % (k0, k0 + T - 1, c0, c0 + T - 1)
        lines += side_by_side(["  " + a_title] + matrix_lines(phase.As), ["  " + b_title] + matrix_lines(phase.Bs))
        terms = ["%d·%d" % (phase.As[0][k], phase.Bs[k][0]) for k in range(T)]
        added = sum(phase.As[0][k] * phase.Bs[k][0] for k in range(T))
        running += added
        lines.append("  the block's partial sums after this phase:")
        lines += matrix_lines(phase.sums)
        lines.append("  C[%d][%d] += %s = %d, so far %d" % (r0, c0, " + ".join(terms), added, running))
        lines.append("")
    direct = sum(A[r0][k] * B[k][c0] for k in range(s.K))
    lines.append("C[%d][%d] = %d; row %d of A times column %d of B, summed directly: %d"
                 % (r0, c0, C[r0][c0], r0, c0, direct))
    naive = naive_read_bytes(s)
    lines += ["",
              "global reads, whole problem (every block):",
              "  naive kernel: %s floats = %s bytes (each of the %d elements of C reads 2·K = %d)"
              % (format_number(naive // FLOAT_BYTES), format_number(naive), s.M * s.N, 2 * s.K),
              "  tiled kernel: %s floats = %s bytes (the loads this simulation made inside A and B)"
              % (format_number(loads), format_number(loads * FLOAT_BYTES)),
              "  savings: %s× fewer bytes" % format_number(naive / (loads * FLOAT_BYTES), 2)]
    assert loads * FLOAT_BYTES == value("tiled_read_bytes", s), "the simulation and the calculator disagree"
    return "\n".join(lines)
