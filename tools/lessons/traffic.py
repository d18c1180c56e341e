"""`make traffic`: the calculator's numbers for one shape and tile, laid out for reading."""
from calculator import (blocks, flops_launched, flops_owned, format_number, grid_x, grid_y, naive_read_bytes,
                        phases, threads, tiled_read_bytes, value, written_bytes)


def report(s):
    n = format_number
    last_phase_start = (phases(s) - 1) * s.TILE
    rows = [
        ("global bytes read from A and B", None, None),
        ("  naive kernel", naive_read_bytes(s), "2·M·N·K floats"),
        ("  tiled kernel, guarded loads", tiled_read_bytes(s),
         "(M·K·ceil(N/TILE) + K·N·ceil(M/TILE)) floats: %s× fewer" % n(value("savings", s), 2)),
        ("global bytes written to C", written_bytes(s), "M·N floats, each element once"),
        ("FLOPs", None, None),
        ("  threads that own an element of C", flops_owned(s), "2·M·N·K"),
        ("  every launched thread", flops_launched(s), "2 · threads · phases · TILE, zero fill included"),
        ("arithmetic intensity, FLOPs (2·M·N·K) per byte read", None, None),
        ("  naive kernel", n(value("naive_intensity", s), 2), None),
        ("  tiled kernel", n(value("tiled_intensity", s), 2), None),
    ]
    lines = [
        "C = A·B, %s (M=%d, K=%d, N=%d), TILE=%d" % (s.name(), s.M, s.K, s.N, s.TILE),
        "grid:     %d × %d = %s blocks of %d×%d threads (x: ceil(N/TILE), y: ceil(M/TILE))"
        % (grid_x(s), grid_y(s), n(blocks(s)), s.TILE, s.TILE),
        "threads:  %s launched for %s elements of C; %s own none"
        % (n(threads(s)), n(s.M * s.N), n(threads(s) - s.M * s.N)),
        "phases:   %d = ceil(K/TILE); the last covers k = %d..%d, of which %d exist"
        % (phases(s), last_phase_start, last_phase_start + s.TILE - 1, s.K - last_phase_start),
    ]
    for label, number, note in rows:
        if number is None:
            lines.append(label)
        else:
            shown = number if isinstance(number, str) else n(number)
            lines.append(("%-40s %15s" % (label, shown)) + ("   " + note if note else ""))
    return "\n".join(lines)
