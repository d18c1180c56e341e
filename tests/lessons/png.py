"""A PNG reader for the tests, in the standard library only: 8-bit RGB or RGBA, not interlaced."""
import struct
import zlib


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


class Image:
    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            raise ValueError("%s is not a PNG" % path)
        pos, idat = 8, b""
        while pos < len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            if kind == b"IHDR":
                self.width, self.height, depth, colour_type, _, _, interlace = struct.unpack(">IIBBBBB", body)
                if depth != 8 or colour_type not in (2, 6) or interlace:
                    raise ValueError("%s: only 8-bit RGB or RGBA without interlacing is read here" % path)
                self.channels = 3 if colour_type == 2 else 4
            elif kind == b"IDAT":
                idat += body
            pos += 12 + length
        self.rows = self.unfilter(zlib.decompress(idat))

    def unfilter(self, raw):
        stride, bpp = self.width * self.channels, self.channels
        rows, previous, pos = [], bytearray(stride), 0
        for _ in range(self.height):
            kind, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
            pos += 1 + stride
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                up, up_left = previous[i], previous[i - bpp] if i >= bpp else 0
                predictor = [0, left, up, (left + up) // 2, paeth(left, up, up_left)][kind]
                line[i] = (line[i] + predictor) & 0xFF
            rows.append(line)
            previous = line
        return rows

    def pixel(self, x, y):
        """(r, g, b) at column x, row y."""
        i = x * self.channels
        return tuple(self.rows[y][i:i + 3])
