"""A line chart written straight to a PNG file with NumPy and zlib, so that the examples can
draw their loss curves without a plotting library."""
import struct
import zlib

import numpy as np

_MARGIN = 24


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def write_png(path, image: np.ndarray) -> None:
    """Saves an (H, W, 3) uint8 image as an RGB PNG."""
    height, width, _ = image.shape
    rows = b"".join(b"\x00" + image[y].tobytes() for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows, 9))
                + _chunk(b"IEND", b""))


def _line(image, x0, y0, x1, y1, colour):
    steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
    xs = np.linspace(x0, x1, steps).round().astype(int)
    ys = np.linspace(y0, y1, steps).round().astype(int)
    for dy in (0, 1):  # two pixels thick
        image[np.clip(ys + dy, 0, image.shape[0] - 1), xs] = colour


def save_line_plot(path, series: dict, width: int = 480, height: int = 320) -> None:
    """Draws each ``{name: values}`` series as a polyline over the step axis (the series' colours
    in order: blue, orange, green) on white, with the axes in grey, and saves it as a PNG."""
    image = np.full((height, width, 3), 255, np.uint8)
    colours = [(31, 119, 180), (255, 127, 14), (44, 160, 44)]
    left, right, top, bottom = _MARGIN, width - _MARGIN, _MARGIN, height - _MARGIN
    image[bottom, left:right] = image[top:bottom, left] = (150, 150, 150)
    values = [np.asarray(v, dtype=float) for v in series.values()]
    lo = min(v.min() for v in values)
    hi = max(v.max() for v in values)
    span = hi - lo if hi > lo else 1.0
    longest = max(len(v) for v in values)
    for colour, v in zip(colours, values):
        xs = left + (right - left) * np.arange(len(v)) / max(longest - 1, 1)
        ys = bottom - (bottom - top) * (v - lo) / span
        for i in range(len(v) - 1):
            _line(image, xs[i], ys[i], xs[i + 1], ys[i + 1], colour)
    write_png(path, image)
