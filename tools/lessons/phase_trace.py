"""`make trace`: the boundary-safe tiled algorithm simulated phase by phase, printed for block (0, 0).

The inputs are small whole numbers, so every value can be checked by hand: A and B hold 1, 2, 3, ... in row-major
order, as in lesson 2's example and the labs' "values 1..16" test. The simulation runs every block, so its count of
global loads is the whole problem's, and it is compared with the calculator's.
"""
from calculator import FLOAT_BYTES, format_number, grid_x, grid_y, naive_read_bytes, phases, value

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


def report(s):
    T = s.TILE
    A, B = counting_matrix(s.M, s.K), counting_matrix(s.K, s.N)
    blocks, loads, C = simulate_tiled(s, A, B)
    last = min(T, s.M) - 1, min(T, s.N) - 1
    lines = ["Tiled C = A·B, %s with TILE=%d, traced for block (0, 0), which computes C[0..%d][0..%d]."
             % (s.name(), T, last[0], last[1]),
             "A and B hold 1, 2, 3, ... in row-major order: A[r][k] = r·K + k + 1, B[k][c] = k·N + c + 1.",
             "A =", *matrix_lines(A), "B =", *matrix_lines(B),
             "grid %d × %d blocks of %d×%d threads; %d phases = ceil(K/TILE). Entries outside A or B are zero-filled"
             % (grid_x(s), grid_y(s), T, T, phases(s)),
             "(shown as 0: every real value is at least 1).", ""]
    running = 0
    for tile, phase in enumerate(blocks[(0, 0)]):
        k0 = tile * T
        lines.append("phase %d: k = %d..%d" % (tile, k0, k0 + T - 1))
        a_title = "As = A[0..%d][%d..%d]" % (T - 1, k0, k0 + T - 1)
        b_title = "Bs = B[%d..%d][0..%d]" % (k0, k0 + T - 1, T - 1)
        lines += side_by_side(["  " + a_title] + matrix_lines(phase.As), ["  " + b_title] + matrix_lines(phase.Bs))
        terms = ["%d·%d" % (phase.As[0][k], phase.Bs[k][0]) for k in range(T)]
        added = sum(phase.As[0][k] * phase.Bs[k][0] for k in range(T))
        running += added
        lines.append("  the block's partial sums after this phase:")
        lines += matrix_lines(phase.sums)
        lines.append("  C[0][0] += %s = %d, so far %d" % (" + ".join(terms), added, running))
        lines.append("")
    direct = sum(A[0][k] * B[k][0] for k in range(s.K))
    lines.append("C[0][0] = %d; row 0 of A times column 0 of B, summed directly: %d" % (C[0][0], direct))
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
