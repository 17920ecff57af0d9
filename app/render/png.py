"""The picture as PNG, for messengers and bots that do not show SVG: the same SVG rasterised
by resvg (through resvg-py, a self-contained build: no system graphics library needed),
with the DejaVu fonts the SVG names.

The cost is bounded: the raster is at most ``max_pixels`` (``MAX_PIXELS`` unless the caller
gives another bound: a twice-sharp image for phones, scaled down for a very long game's
sheet), whatever the sheet's length.
"""

from __future__ import annotations

import math
from pathlib import Path

import resvg_py

# Debian's fonts-dejavu-core (scripts/install-system-packages; the image installs it too).
FONT_DIRS = ("/usr/share/fonts/truetype/dejavu",)
ZOOM = 2.0
MAX_PIXELS = 12_000_000


def zoom_for(width: float, height: float, max_pixels: int = MAX_PIXELS) -> float:
    """Twice the picture's size, or less so that it stays within ``max_pixels``."""
    return min(ZOOM, math.sqrt(max_pixels / max(width * height, 1.0)))


def svg_to_png(svg: str, width: float, height: float, max_pixels: int = MAX_PIXELS) -> bytes:
    """The SVG rasterised; ``width`` and ``height`` are its size, as the renderer drew it
    (``Drawn``)."""
    dirs = [d for d in FONT_DIRS if Path(d).is_dir()]
    png = resvg_py.svg_to_bytes(
        svg_string=svg,
        zoom=zoom_for(width, height, max_pixels),
        font_dirs=dirs,
        skip_system_fonts=bool(dirs),  # DejaVu is all the picture uses; the system's are a fallback
        monospace_family="DejaVu Sans Mono",
    )
    return bytes(png)
