"""svgrender — draw an SVG with headless Chromium (Debian `chromium`) and read the PNG back, for tests that check
what a picture shows. Standard library only.

    render_png(svg_path, png_path, width, height)   raises RuntimeError when Chromium is missing or fails
    read_png(png_path) -> (width, height, pixel)    pixel(x, y) -> (r, g, b)
"""
import os
import shutil
import struct
import subprocess
import tempfile
import zlib


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError("no Chromium on the PATH: apt-get install chromium")


def render_png(svg_path, png_path, width, height):
    with tempfile.TemporaryDirectory() as profile:  # a throwaway profile: no state shared between renders
        proc = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                               "--force-device-scale-factor=1", "--user-data-dir=" + profile, "--screenshot=" + os.path.abspath(png_path),
                               "--window-size=%d,%d" % (width, height), "file://" + os.path.abspath(svg_path)],
                              capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not os.path.exists(png_path):
        raise RuntimeError("chromium could not render %s: %s" % (svg_path, proc.stderr.strip()[-500:]))


def read_png(path):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s is not a PNG" % path)
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError("unsupported PNG format in %s" % path)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line

    def pixel(x, y):
        i = x * channels
        return tuple(rows[y][i:i + 3])
    return width, height, pixel
