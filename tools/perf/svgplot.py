"""svgplot — the two pictures of `make bench`, as standalone SVG text (no plotting library needed).

    throughput_chart(series, ...)   GFLOP/s against matrix size, one line per kernel, cuBLAS drawn dashed
    roofline_chart(roof, points)    the device's roofline with one dot per kernel (intensity, measured GFLOP/s)
"""
import math
from xml.sax.saxutils import escape

WIDTH, HEIGHT = 860, 460
LEFT, RIGHT, TOP, BOTTOM = 80, 260, 40, 60  # margins: the legend sits on the right
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]
REFERENCE_COLOUR = "#000000"


class Axis:
    """Maps data to pixels on a log scale (both charts span orders of magnitude)."""

    def __init__(self, lo, hi, pixel_lo, pixel_hi):
        if lo <= 0 or hi <= lo:
            raise ValueError("a log axis needs 0 < lo < hi, got %r..%r" % (lo, hi))
        self.lo, self.hi, self.p0, self.p1 = math.log10(lo), math.log10(hi), pixel_lo, pixel_hi

    def __call__(self, v):
        return self.p0 + (math.log10(v) - self.lo) / (self.hi - self.lo) * (self.p1 - self.p0)


def decade_ticks(lo, hi):
    ticks, e = [], math.floor(math.log10(lo))
    while 10 ** e <= hi:
        for m in (1, 2, 5):
            if lo <= m * 10 ** e <= hi:
                ticks.append(m * 10 ** e)
        e += 1
    return ticks


def tick_label(v):
    if v >= 1000:
        return "{:,}".format(int(v))
    return ("%g" % v)


def frame(title, x_label, y_label):
    w, h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    return [
        '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="sans-serif" font-size="12">' % (WIDTH, HEIGHT, WIDTH, HEIGHT),
        '<rect width="100%" height="100%" fill="#ffffff"/>',
        '<text x="%d" y="24" font-size="15" font-weight="bold">%s</text>' % (LEFT, escape(title)),
        '<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#444444"/>' % (LEFT, TOP, w, h),
        '<text x="%d" y="%d" text-anchor="middle">%s</text>' % (LEFT + w / 2, HEIGHT - 15, escape(x_label)),
        '<text transform="translate(18,%d) rotate(-90)" text-anchor="middle">%s</text>' % (TOP + h / 2, escape(y_label)),
    ]


def grid(parts, xs, ys, x_ticks, y_ticks):
    for t in x_ticks:
        parts.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#dddddd"/>' % (xs(t), TOP, xs(t), HEIGHT - BOTTOM))
        parts.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (xs(t), HEIGHT - BOTTOM + 16, tick_label(t)))
    for t in y_ticks:
        parts.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#dddddd"/>' % (LEFT, ys(t), WIDTH - RIGHT, ys(t)))
        parts.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (LEFT - 6, ys(t) + 4, tick_label(t)))


def legend(parts, entries):
    """entries: (label, colour, dashed)"""
    x, y = WIDTH - RIGHT + 16, TOP + 10
    for i, (label, colour, dashed) in enumerate(entries):
        yy = y + 20 * i
        parts.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"%s/>'
                     % (x, yy, x + 24, yy, colour, ' stroke-dasharray="6,4"' if dashed else ""))
        parts.append('<text x="%d" y="%d">%s</text>' % (x + 30, yy + 4, escape(label)))


def throughput_chart(series, title="GFLOP/s against matrix size", x_label="n (n×n · n×n)",
                     reference=("cuBLAS FP32",)):
    """series: {label: [(n, gflops), ...]}. Labels in `reference` are drawn black and dashed."""
    points = [p for pts in series.values() for p in pts if p[1] > 0]
    if not points:
        raise ValueError("nothing to plot")
    xs = Axis(min(p[0] for p in points) / 1.3, max(p[0] for p in points) * 1.3, LEFT, WIDTH - RIGHT)
    y_lo, y_hi = min(p[1] for p in points) / 1.5, max(p[1] for p in points) * 1.5
    ys = Axis(y_lo, y_hi, HEIGHT - BOTTOM, TOP)
    parts = frame(title, x_label, "GFLOP/s (log scale)")
    grid(parts, xs, ys, sorted({p[0] for p in points}), decade_ticks(y_lo, y_hi))
    entries, colour_index = [], 0
    for label, pts in series.items():
        pts = sorted(p for p in pts if p[1] > 0)
        is_ref = label in reference
        colour = REFERENCE_COLOUR if is_ref else COLOURS[colour_index % len(COLOURS)]
        colour_index += 0 if is_ref else 1
        path = " ".join("%s%.1f,%.1f" % ("M" if i == 0 else "L", xs(n), ys(g)) for i, (n, g) in enumerate(pts))
        parts.append('<path d="%s" fill="none" stroke="%s" stroke-width="2.5"%s/>'
                     % (path, colour, ' stroke-dasharray="6,4"' if is_ref else ""))
        for n, g in pts:
            parts.append('<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"><title>%s: n=%d, %.0f GFLOP/s</title></circle>'
                         % (xs(n), ys(g), colour, escape(label), n, g))
        entries.append((label, colour, is_ref))
    legend(parts, entries)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def roofline_chart(roof, points, title=None):
    """roof: perfdata.Roofline. points: [(label, FLOP per byte, GFLOP/s)]."""
    peak = roof.peak_flops / 1e9
    ais = [p[1] for p in points] + [roof.ridge]
    x_lo, x_hi = min(ais) / 4, max(ais) * 4
    y_lo = min([p[2] for p in points] + [x_lo * roof.bandwidth / 1e9]) / 2
    xs = Axis(x_lo, x_hi, LEFT, WIDTH - RIGHT)
    ys = Axis(y_lo, peak * 2, HEIGHT - BOTTOM, TOP)
    parts = frame(title or "Roofline: %s" % roof.name, "FLOP per byte of global loads and stores (the emulator's count; log)",
                  "GFLOP/s (log scale)")
    grid(parts, xs, ys, decade_ticks(x_lo, x_hi), decade_ticks(y_lo, peak * 2))
    # the roof: bandwidth-bound slope up to the ridge, then the flat compute peak
    parts.append('<path d="M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f" fill="none" stroke="%s" stroke-width="3"/>'
                 % (xs(x_lo), ys(x_lo * roof.bandwidth / 1e9), xs(roof.ridge), ys(peak), xs(x_hi), ys(peak),
                    REFERENCE_COLOUR))
    parts.append('<text x="%.1f" y="%.1f">peak FP32 %s GFLOP/s</text>' % (xs(roof.ridge) + 8, ys(peak) - 6,
                                                                          "{:,}".format(int(peak))))
    parts.append('<text x="%.1f" y="%.1f" transform="rotate(-%.1f %.1f %.1f)">DRAM %s GB/s</text>'
                 % (xs(x_lo) + 10, ys(x_lo * roof.bandwidth / 1e9) - 8, slope_degrees(xs, ys, x_lo, roof),
                    xs(x_lo) + 10, ys(x_lo * roof.bandwidth / 1e9) - 8, "{:,}".format(int(roof.bandwidth / 1e9))))
    entries = []
    for i, (label, ai, gflops) in enumerate(points):
        colour = COLOURS[i % len(COLOURS)]
        parts.append('<circle cx="%.1f" cy="%.1f" r="6" fill="%s"><title>%s: %.2f FLOP/B, %.0f GFLOP/s</title></circle>'
                     % (xs(ai), ys(gflops), colour, escape(label), ai, gflops))
        entries.append((label, colour, False))
    legend(parts, entries)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def slope_degrees(xs, ys, x_lo, roof):
    x2 = x_lo * 10
    dx = xs(x2) - xs(x_lo)
    dy = ys(x_lo * roof.bandwidth / 1e9) - ys(x2 * roof.bandwidth / 1e9)
    return math.degrees(math.atan2(dy, dx))
