"""The README's picture (docs/pulka.png) is the project's own render of a fixed log: the
committed SVG is exactly what scripts/draw-readme-pulka draws now (so a change of the
renderer shows up here until the script is run again), and the PNG is a valid raster of it.
The PNG's bytes are not compared: they depend on the rasteriser's version and the fonts of
the machine, the SVG does not."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script():
    loader = importlib.machinery.SourceFileLoader(
        "draw_readme_pulka", str(ROOT / "scripts" / "draw-readme-pulka")
    )
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_the_committed_picture_is_what_the_script_draws_now():
    script = _script()
    svg = script.draw()
    assert (ROOT / "docs" / "pulka.svg").read_text(encoding="utf-8") == svg + "\n", (
        "run scripts/draw-readme-pulka"
    )
    words = [t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]
    assert "Final settlement" in words and any("game over" in w for w in words)  # a finished pulka

    png = (ROOT / "docs" / "pulka.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    _, _, w, h = (float(v) for v in ET.fromstring(svg).get("viewBox").split())
    assert (width, height) == (round(2 * w), round(2 * h))  # twice the picture's size


def test_the_readme_shows_it():
    assert "](docs/pulka.png)" in (ROOT / "README.md").read_text(encoding="utf-8")
