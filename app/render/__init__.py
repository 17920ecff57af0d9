"""Pictures of a table: the paper sheet ("пулька") as SVG and PNG. Pure: JSON in, text out."""

from app.render.measure import char_em, text_width, wrap
from app.render.sequences import SEPARATOR, Sequences, fmt_amount, fold, reconcile, sequence_text, to_fraction, written
from app.render.svg import DEFAULT_LAYOUT, LAYOUTS, WIDTH, initials, render_sheet

__all__ = [
    "DEFAULT_LAYOUT",
    "LAYOUTS",
    "SEPARATOR",
    "WIDTH",
    "Sequences",
    "char_em",
    "fmt_amount",
    "fold",
    "initials",
    "reconcile",
    "render_sheet",
    "sequence_text",
    "text_width",
    "to_fraction",
    "wrap",
    "written",
]
