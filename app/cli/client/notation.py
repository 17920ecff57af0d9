"""A short notation for one deal, parsed into the API's deal body (docs/api.md, posting a deal).

Words are separated by spaces; seats are numbers 0..n-1; case does not matter.

    7H 1 w2 p0 1:6 2:3 0:1    contract 7♥ by seat 1; seat 2 whists, seat 0 passes; tricks
    6S 0 w1 w2 0:6 1:2 2:2    both whist
    8NT 2 p0 p1               both pass: not played, no tricks
    7D 1 p2 h0                a half-whist (h) by the second defender
    mis 0 0:1                 misère by seat 0, who took 1 trick (or all three counts)
    rem 2 8S                  remise ("without three"): seat 2 concedes 8♠
    pass 0:2 1:5 2:3          all-pass with each player's tricks

Contracts are a level 6-10 and a strain S C D H NT, or as the client writes them back: a suit
symbol ♠ ♣ ♦ ♥, or БК for no trumps (7♥, 10БК). Defenders: ``w`` whist, ``p`` pass,
``h`` half-whist, followed by the seat. Tricks: ``seat:count``.

Optional words, anywhere after the first: ``dealer=N`` (checked by the service),
``writeoff=S[,S]`` and ``help=S`` (choices), ``talon=ace|marriage|ace_king|two_aces``,
``discarded`` and ``returned`` (talon), ``over_misere``, and ``note=...`` (the rest of the
line is the note).
"""

from __future__ import annotations

import re
from typing import Any

from app.kit.i18n import N_, Lang
from app.kit.i18n.game_words import SUIT_SYMBOLS
from app.kit.i18n.game_words import contract as written_contract
from app.rules.vocabulary import CONTRACT_PATTERN, DealType, DefenderAnswer, Strain
from app.rules.vocabulary import TALON_BONUSES as _BONUS_VALUES

CONTRACT = re.compile(CONTRACT_PATTERN, re.IGNORECASE)
TRICKS = re.compile(r"^(\d+):(\d+)$")
DEFENDER = re.compile(r"^([wph])(\d+)$", re.IGNORECASE)
DEFENDER_WORDS = {
    "w": DefenderAnswer.WHIST.value,
    "p": DefenderAnswer.PASS.value,
    "h": DefenderAnswer.HALF_WHIST.value,
}
TALON_BONUSES = tuple(_BONUS_VALUES)
ALLPASS = {"pass", "allpass", "распасы"}
MISERE = {"mis", "misere", "мизер"}
REMISE = {"rem", "remise"}


# What the client writes for a strain (app/kit/i18n/game_words.py), read back as the strain.
WRITTEN_STRAINS = {symbol: strain for strain, symbol in SUIT_SYMBOLS.items()} | {
    "БК": Strain.NO_TRUMPS,
    "бк": Strain.NO_TRUMPS,
}


def _read_strain(text: str) -> str:
    for written, strain in WRITTEN_STRAINS.items():
        if text.endswith(written):
            return text[: -len(written)] + strain
    return text


class NotationError(ValueError):
    """The notation cannot be read; the message names the word. It is a msgid of the
    catalogues with its parameters (``in_`` writes it in a language); ``str()`` is English."""

    def __init__(self, msgid: str, **params: object):
        self.msgid = msgid
        self.params = params
        super().__init__(msgid.format(**params))

    def in_(self, lang: Lang) -> str:
        params = {k: lang._(v) if k == "what" and isinstance(v, str) else v for k, v in self.params.items()}
        return lang._(self.msgid, **params)


def _seat(text: str, what: str) -> int:
    if not text.isdigit():
        raise NotationError(N_("{what}: {text} is not a seat number"), what=what, text=repr(text))
    return int(text)


def _contract(text: str) -> str:
    m = CONTRACT.match(_read_strain(text))
    if not m:
        raise NotationError(
            N_("{text} is not a contract (6-10 and S C D H NT, e.g. 7H, 10NT)"), text=repr(text)
        )
    return m.group(1) + m.group(2).upper()


def parse_deal(text: str) -> dict[str, Any]:
    """The deal body for ``text``; NotationError when a word does not fit."""
    note: str | None = None
    if "note=" in text:
        text, _, note = text.partition("note=")
    words = text.split()
    if not words:
        raise NotationError(
            N_("empty deal: e.g. '7H 1 w2 p0 1:6 2:3 0:1', 'mis 0 0:1', 'rem 2 8S', 'pass 0:2 1:5 2:3'")
        )
    body, rest = _deal_head(words)
    tricks: dict[str, int] = {}
    defenders: dict[str, str] = {}
    choices: dict[str, Any] = {}
    talon: dict[str, Any] = {}
    for word in rest:
        _read_word(word, body, tricks, defenders, choices, talon)

    if body["type"] == DealType.CONTRACT.value:
        body["defenders"] = defenders
    if tricks:
        body["tricks"] = tricks
    if choices:
        body["choices"] = choices
    if talon:
        body["talon"] = talon
    if note is not None and note.strip():
        body["note"] = note.strip()
    return body


def _deal_head(words: list[str]) -> tuple[dict[str, Any], list[str]]:
    """The body's kind, declarer and contract from the first words; the words left after them."""
    head, rest = words[0].lower(), words[1:]
    body: dict[str, Any]
    if head in ALLPASS:
        body = {"type": DealType.ALLPASS.value}
    elif head in MISERE:
        if not rest:
            raise NotationError(N_("misère: the declarer's seat is missing (e.g. 'mis 0 0:1')"))
        body = {"type": DealType.MISERE.value, "declarer": _seat(rest.pop(0), N_("declarer"))}
    elif head in REMISE:
        if len(rest) < 2:
            raise NotationError(N_("remise: write the declarer and the contract (e.g. 'rem 2 8S')"))
        declarer = _seat(rest.pop(0), N_("declarer"))
        body = {"type": DealType.REMISE.value, "declarer": declarer, "contract": _contract(rest.pop(0))}
    elif CONTRACT.match(_read_strain(head)):
        if not rest:
            raise NotationError(N_("contract: the declarer's seat is missing (e.g. '7H 1 w2 p0 ...')"))
        body = {
            "type": DealType.CONTRACT.value,
            "declarer": _seat(rest.pop(0), N_("declarer")),
            "contract": _contract(head),
        }
    else:
        raise NotationError(
            N_("{word}: a deal starts with a contract (7H), 'mis', 'rem' or 'pass'"), word=repr(words[0])
        )
    return body, rest


def _read_word(
    word: str,
    body: dict[str, Any],
    tricks: dict[str, int],
    defenders: dict[str, str],
    choices: dict[str, Any],
    talon: dict[str, Any],
) -> None:
    """One word after the head: a seat's tricks, a defender's call, an option or a flag."""
    low = word.lower()
    if m := TRICKS.match(word):
        seat = m.group(1)
        if str(int(seat)) in tricks:
            raise NotationError(
                N_("{word}: tricks of seat {seat} given twice"), word=repr(word), seat=int(seat)
            )
        tricks[str(int(seat))] = int(m.group(2))
    elif (m := DEFENDER.match(word)) and body["type"] == DealType.CONTRACT.value:
        seat = str(int(m.group(2)))
        if seat in defenders:
            raise NotationError(N_("{word}: seat {seat} is already a defender"), word=repr(word), seat=seat)
        defenders[seat] = DEFENDER_WORDS[m.group(1).lower()]
    elif "=" in word:
        _read_option(word, body, choices, talon)
    elif low == "discarded":
        talon["discarded"] = True
    elif low == "returned":
        talon["returned"] = True
    elif low in ("over_misere", "overmisere"):
        body["over_misere"] = True
    else:
        raise NotationError(
            N_("{word} is not a defender (w2, p0, h1), tricks (1:6) or option"), word=repr(word)
        )


def _read_option(word: str, body: dict[str, Any], choices: dict[str, Any], talon: dict[str, Any]) -> None:
    """A ``key=value`` word: the dealer, a choice or the talon's bonus."""
    key, _, value = word.partition("=")
    key = key.lower()
    if key == "dealer":
        body["dealer"] = _seat(value, "dealer")
    elif key == "writeoff":
        choices["writeoff"] = [_seat(v, "writeoff") for v in value.split(",") if v]
    elif key == "help":
        choices["help"] = _seat(value, "help")
    elif key == "talon":
        if value.lower() not in TALON_BONUSES:
            raise NotationError(
                N_("{word}: talon is one of {values}"),
                word=repr(word),
                values=", ".join(TALON_BONUSES),
            )
        talon["bonus"] = value.lower()
    else:
        raise NotationError(
            N_("{word}: unknown option (dealer=, writeoff=, help=, talon=, note=)"), word=repr(word)
        )


def format_deal(body: dict[str, Any], lang: Lang | None = None) -> str:
    """The notation of a deal body (the inverse of parse_deal for bodies it can write); with
    ``lang``, contracts as that language writes them (7♥, 10БК)."""
    kind = body["type"]
    if (
        kind == DealType.PENALTY.value
    ):  # written only: a judge's penalty is posted as JSON (docs/rules.md §15)
        words = ["penalty", str(body["offender"])]
        words += [
            f"{k}={body[k]}"
            for k in ("amount", "destination", "violation", "clause")
            if body.get(k) is not None
        ]
        return " ".join(words)
    if kind == DealType.ALLPASS.value:
        words = ["pass"]
    elif kind == DealType.MISERE.value:
        words = ["mis", str(body["declarer"])]
    elif kind == DealType.REMISE.value:
        words = ["rem", str(body["declarer"]), _written(body["contract"], lang)]
    else:
        words = [_written(body["contract"], lang), str(body["declarer"])]
        short = {v: k for k, v in DEFENDER_WORDS.items()}
        words += [f"{short[v]}{s}" for s, v in body.get("defenders", {}).items()]
    words += [f"{s}:{t}" for s, t in body.get("tricks", {}).items()]
    if "dealer" in body:
        words.append(f"dealer={body['dealer']}")
    choices = body.get("choices") or {}
    if "writeoff" in choices:
        words.append("writeoff=" + ",".join(str(s) for s in choices["writeoff"]))
    if "help" in choices:
        words.append(f"help={choices['help']}")
    talon = body.get("talon") or {}
    if "bonus" in talon:
        words.append(f"talon={talon['bonus']}")
    words += [w for w in ("discarded", "returned") if talon.get(w)]
    if body.get("over_misere"):
        words.append("over_misere")
    if body.get("note"):
        words.append("note=" + body["note"])
    return " ".join(words)


def _written(contract: str, lang: Lang | None) -> str:
    return written_contract(lang, contract) if lang is not None else contract
