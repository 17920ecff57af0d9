"""Pictures of a table: the paper sheet ("пулька") as SVG. Pure: JSON in, text out."""

from .sequences import Sequences, fmt_amount, fold, reconcile, sequence_text, to_fraction
from .svg import WIDTH, char_em, render_sheet, text_width, wrap

__all__ = [
    "WIDTH",
    "Sequences",
    "char_em",
    "fmt_amount",
    "fold",
    "reconcile",
    "render_sheet",
    "sequence_text",
    "text_width",
    "to_fraction",
    "wrap",
]
