"""Pictures of a table: the paper sheet ("пулька") as SVG and PNG. Pure: the engine's objects
(its sheet, the deals' entries, the settlement) and a language in, text out; it imports
nothing of the app but the engine."""

from app.render.geometry import DEFAULT_LAYOUT, LAYOUTS, WIDTH
from app.render.measure import char_em, text_width, wrap
from app.render.sequences import SEPARATOR, Played, Sequences, exact, fold, reconcile, sequence_text, written
from app.render.svg import Drawn, draw_sheet, initials
from app.render.words import Language

__all__ = [
    "DEFAULT_LAYOUT",
    "LAYOUTS",
    "SEPARATOR",
    "WIDTH",
    "Drawn",
    "Language",
    "Played",
    "Sequences",
    "char_em",
    "draw_sheet",
    "exact",
    "fold",
    "initials",
    "reconcile",
    "sequence_text",
    "text_width",
    "wrap",
    "written",
]
