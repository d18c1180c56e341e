"""`make coalescing`: which lanes of a warp share a 32-byte sector, for one request of each global access line.

The emulator groups a warp's accesses into requests (docs/emulator.md) and keeps, for every source line, its first
request lane by lane. This draws each as text: a row per sector the request touched, with the lanes that fell in
it and the elements of the matrix they read or wrote. A coalesced load fills few rows with many lanes each; an
uncoalesced one takes a row per lane.
"""
import os

SECTOR = 32
DEFAULT_SHAPE = (40, 24, 36)  # M, K, N: partial tiles of 16 in every direction
LAB2_SHAPE = (48, 32, 32)


def default_shape(lab):
    return LAB2_SHAPE if lab.startswith("lab2") else DEFAULT_SHAPE


def lane_ranges(lanes):
    """[0, 1, 2, 5, 7, 8] -> '0-2, 5, 7-8'."""
    out, start = [], None
    for i, lane in enumerate(lanes):
        if start is None:
            start = lane
        if i + 1 == len(lanes) or lanes[i + 1] != lane + 1:
            out.append(str(start) if start == lane else "%d-%d" % (start, lane))
            start = None
    return ", ".join(out)


def element(matrix, offset, M, K, N):
    """The element at byte `offset` of A (M×K), B (K×N) or C (M×N), as 'A[row][col]'."""
    cols = {"A": K, "B": N, "C": N}.get(matrix)
    index = offset // 4
    return "%s[%d][%d]" % (matrix, index // cols, index % cols) if cols else "byte %d" % offset


def picture(line, M, K, N):
    """The lines of text for one source line's first request (a dict from measure --requests)."""
    offsets = line["first_request"]
    active = [(lane, off) for lane, off in enumerate(offsets) if off >= 0]
    size = line["access_bytes"] or 4
    by_sector = {}
    for lane, off in active:
        for sector in range(off // SECTOR, (off + size - 1) // SECTOR + 1):
            by_sector.setdefault(sector, []).append((lane, off))
    distinct = len({off for _, off in active})
    ideal = -(-distinct * size // SECTOR)
    what = "%s %s" % ("stores to" if line["store"] else "loads from", line["allocation"])
    out = ["%s:%d  %s: its first warp request, %d lanes of %d bytes: %d sector%s of 32 bytes (%d would do); "
           "%.1f per request over the launch" % (os.path.basename(line["file"]), line["line"], what, len(active), size,
                                                 len(by_sector), "" if len(by_sector) == 1 else "s", ideal,
                                                 line["units"] / line["requests"])]
    for sector in sorted(by_sector):
        members = sorted({lane for lane, _ in by_sector[sector]})
        first = min(off for _, off in by_sector[sector])
        last = max(off for _, off in by_sector[sector])
        span = element(line["allocation"], first, M, K, N)
        if last != first:
            span += " .. " + element(line["allocation"], last, M, K, N)
        out.append("    sector %-6d lanes %-24s %s" % (sector, lane_ranges(members), span))
    return out


def report(result, kernel, M, K, N):
    out = ["make coalescing: %s on %d×%d·%d×%d, global loads and stores, one warp request each" % (kernel, M, K, K, N)]
    for launch in result["launches"]:
        lines = [line for line in launch["lines"] if not line["shared"]]
        if not lines:
            continue
        out.append("kernel %s:" % launch["kernel"])
        for line in lines:
            out += ["  " + text for text in picture(line, M, K, N)]
    return "\n".join(out)
