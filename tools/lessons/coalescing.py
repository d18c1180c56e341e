"""`make coalescing`: which lanes of a warp share a 32-byte sector or a shared-memory bank, for one request of each
access line.

The emulator groups a warp's accesses into requests (docs/emulator.md) and keeps, for every source line, its first
request lane by lane. This draws each as text. A global load or store: a row per sector the request touched, with
the lanes that fell in it and the elements of the matrix they read or wrote; a coalesced load fills few rows with
many lanes each, an uncoalesced one takes a row per lane. A shared-memory load or store: a row per bank that holds
more than one word among the lanes served together (a bank conflict), with those lanes and the words, counted in
floats from the request's first; none when every bank serves one word. An ldmatrix line (lab 8) is named as such:
the emulator counts it as a 16-byte shared load per lane, each lane's row, 8 rows (one phase) at a time.
"""
import os

from course import labs

from . import heatmap
from .banks import BANKS, WARP_SIZE, WORD_BYTES, ideal, wavefronts

SECTOR = 32
MAX_BANK_ROWS = 8  # a 32-way conflict would take 32 rows: the first few show the pattern
DEFAULT_SHAPE = (40, 24, 36)  # M, K, N: partial tiles of 16 in every direction


def default_shape(lab):
    """DEFAULT_SHAPE, or for a lab whose sizes are multiples of its tile (lab 2), heatmap's shape of multiples."""
    multiple = labs.find(lab).size_multiple
    return heatmap.multiples_shape(multiple) if multiple > 1 else DEFAULT_SHAPE


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


def over_launch(line, unit):
    """'over the launch: 1,024 requests, 4.0 wavefronts per request (1.0 would do)'."""
    n = line["requests"]
    return "over the launch: {:,} request{}, {:.1f} {} per request ({:.1f} would do)".format(
        n, "" if n == 1 else "s", line["units"] / n, unit, line["ideal"] / n)


def picture(line, M, K, N):
    """The lines of text for one global source line's first request (a dict from measure --requests)."""
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
    out = ["%s:%d  %s: its first warp request, %d lanes of %d bytes: %d sector%s of 32 bytes (%d would do); %s"
           % (os.path.basename(line["file"]), line["line"], what, len(active), size, len(by_sector),
              "" if len(by_sector) == 1 else "s", ideal, over_launch(line, "sectors"))]
    for sector in sorted(by_sector):
        members = sorted({lane for lane, _ in by_sector[sector]})
        first = min(off for _, off in by_sector[sector])
        last = max(off for _, off in by_sector[sector])
        span = element(line["allocation"], first, M, K, N)
        if last != first:
            span += " .. " + element(line["allocation"], last, M, K, N)
        out.append("    sector %-6d lanes %-24s %s" % (sector, lane_ranges(members), span))
    return out


def source_text(path, number):
    """Line `number` of the source file `path`, or '' when it cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for i, text in enumerate(f, 1):
                if i == number:
                    return text
    except OSError:
        pass
    return ""


def shared_picture(line):
    """The lines of text for one shared-memory source line's first request: its banks that hold more than one word
    among the lanes served together (the warp; a half-warp for 8-byte accesses, a quarter-warp for 16-byte ones)."""
    offsets = line["first_request"]
    size = line["access_bytes"] or 4
    active = [(lane, off) for lane, off in enumerate(offsets) if off >= 0]
    first_word = min(off for _, off in active) // WORD_BYTES
    phase = WARP_SIZE // max(1, size // WORD_BYTES)
    rows = []
    for start in range(0, WARP_SIZE, phase):
        by_bank = {}
        for lane, off in active:
            if start <= lane < start + phase:
                for word in range(off // WORD_BYTES, (off + size - 1) // WORD_BYTES + 1):
                    by_bank.setdefault(word % BANKS, {}).setdefault(word, set()).add(lane)
        for bank in sorted(by_bank):
            words = by_bank[bank]
            if len(words) > 1:
                lanes = sorted(set().union(*words.values()))
                rows.append("    bank %-4d lanes %-32s %d words: %s" % (
                    bank, lane_ranges(lanes), len(words), " ".join("+%d" % (w - first_word) for w in sorted(words))))
    served = {WARP_SIZE: "the warp at once", 16: "a half-warp at a time", 8: "a quarter-warp at a time"}[phase]
    what = "stores to" if line["store"] else "loads from"
    if "ldmatrix" in source_text(line["file"], line["line"]):
        what, served = "ldmatrix loads from", "8 rows (one phase) at a time"
    lanes = [off if off >= 0 else None for off in offsets]
    units = wavefronts(lanes, size)
    out = ["%s:%d  %s shared memory: its first warp request, %d lanes of %d bytes, served %s: %d wavefront%s "
           "(%d would do); %s" % (os.path.basename(line["file"]), line["line"], what, len(active), size, served, units,
                                  "" if units == 1 else "s", ideal(lanes, size), over_launch(line, "wavefronts"))]
    if not rows:
        out.append("    no bank holds two different words (lanes on one word share it)")
    out += rows[:MAX_BANK_ROWS]
    if len(rows) > MAX_BANK_ROWS:
        out.append("    ... and %d more banks like these" % (len(rows) - MAX_BANK_ROWS))
    return out


def report(result, kernel, M, K, N):
    out = ["make coalescing: %s on %d×%d·%d×%d, the first warp request of each load and store line" % (
        kernel, M, K, K, N)]
    for launch in result["launches"]:
        if not launch["lines"]:
            continue
        out.append("kernel %s:" % launch["kernel"])
        for line in launch["lines"]:
            out += ["  " + text for text in (shared_picture(line) if line["shared"] else picture(line, M, K, N))]
    return "\n".join(out)
