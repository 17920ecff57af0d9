"""Text measure for the pictures: a generous estimate of a monospace font's advance, and
greedy wrapping to a width. Pure; the same estimate lays out every picture, so that what is
laid out never overlaps whichever monospace font the viewer has (DejaVu Sans Mono advances
0.602 em, Menlo and Consolas about 0.6)."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence


def char_em(c: str) -> float:
    """Estimated advance of one character in a monospace font, in em (a little generous)."""
    if unicodedata.combining(c):
        return 0.0
    if unicodedata.east_asian_width(c) in ("W", "F"):
        return 1.2
    return 0.62


def text_width(text: str, size: float) -> float:
    return size * sum(char_em(c) for c in text)


def _break_token(token: str, width: float, size: float) -> list[str]:
    parts, cur = [], ""
    for c in token:
        if cur and text_width(cur + c, size) > width:
            parts.append(cur)
            cur = c
        else:
            cur += c
    return parts + ([cur] if cur else [])


def wrap(tokens: Sequence[str], width: float, size: float) -> list[str]:
    """Greedy wrapping of tokens written one after the other ("2 · " "6 · " "10"); a token
    wider than a line is broken between characters. Widths add up, so each token is
    measured once (a long game's sequence is thousands of tokens)."""
    lines: list[str] = []
    cur, cur_w = "", 0.0  # the line so far, and its width with its trailing spaces
    for token in tokens:
        body = token.rstrip()
        body_w = text_width(body, size)
        if cur_w + body_w <= width:
            cur += token
            cur_w += body_w + text_width(token[len(body) :], size)
            continue
        if cur.strip():
            lines.append(cur.rstrip())
        token = token.lstrip()
        body = token.rstrip()
        if text_width(body, size) > width:
            pieces = _break_token(body, width, size)
            lines.extend(pieces[:-1])
            token = (pieces[-1].lstrip() if pieces else "") + token[len(body) :]
        cur, cur_w = token, text_width(token, size)
    if cur.strip():
        lines.append(cur.rstrip())
    return lines


def wrap_words(text: str, width: float, size: float) -> list[str]:
    words = text.split(" ")
    return wrap([w + " " for w in words[:-1]] + words[-1:], width, size)
