"""``make_rules``: a table's convention, seat count, pool target and options checked and made into
its effective rules (docs/rules.md §4 and §5); and the way back, from rules to the options that
make them.

A table chooses a preset (app/rules/presets.py) and may override any field (app/rules/specs.py)
under ``options``. Each override is checked against the field's type and values, then the whole
combination is checked (app/rules/contradictions.py), and a contradictory one is refused naming the
field. The option names of the first rule table (``gentlemen_whist``, ``dealer_clean``) stay accepted
as aliases of the fields they became.
"""

from __future__ import annotations

from typing import Any

from app.rules.contradictions import contradictions
from app.rules.errors import FieldError, InvalidTable
from app.rules.fields import (
    FIELD_NAMES,
    RULES_VERSION,
    FixedDealerScope,
    MadeGameWriteoff,
    Rules,
    read_options_with,
    to_json,
)
from app.rules.presets import ALIASES, CONVENTION_NAMES, PRESETS, Alias, Preset
from app.rules.sentences import Sentence, said
from app.rules.specs import ARITHMETIC_MAX, FIELDS, SPECS, FieldSpec

__all__ = [  # the presets and field specs are read here too, as before they had modules of their own
    "ALIASES",
    "ARITHMETIC_MAX",
    "CONVENTION_NAMES",
    "FIELDS",
    "PRESETS",
    "SPECS",
    "Alias",
    "FieldSpec",
    "Preset",
    "base_values",
    "conventions_catalog",
    "legacy_overrides",
    "make_rules",
    "options_of",
]

# --------------------------------------------------------------------------
# Earlier rules versions


def legacy_overrides(convention: str, rules_version: int) -> dict[str, Any]:
    """The fields (JSON-ready) on which a table made under ``rules_version`` reads its preset
    otherwise: the readings that version took where a later one put a seed right
    (docs/rules.md §12). Empty for the current version. The table's own options still win."""
    preset = PRESETS[convention]
    if rules_version >= RULES_VERSION:
        return {}
    old: dict[str, Any] = {
        # §11 reading 3: a half-whist ended a streak in every convention
        "half_whist_exit": True,
        # §11 reading 1: with sliding off only an all-pass deal kept the dealer
        "fixed_dealer_scope": FixedDealerScope.ALLPASS_DEALS,
    }
    if preset.values["made_game_writeoff"] is MadeGameWriteoff.CLOSED_POOL:
        # §11 reading 4: VMK wrote off the part beyond the target, pool open or not
        old["made_game_writeoff"] = MadeGameWriteoff.BEYOND_TARGET
    return {name: to_json(value) for name, value in old.items() if preset.values[name] != value}


def base_values(preset: Preset, rules_version: int) -> dict[str, Any]:
    """Every field's value before the table's options: the preset read by its rules version."""
    values = dict(preset.values)
    for name, value in legacy_overrides(preset.name, rules_version).items():
        values[name] = SPECS[name].parse(value)
    return values


# --------------------------------------------------------------------------

# --------------------------------------------------------------------------
# make_rules


def make_rules(
    convention: str,
    players: int,
    pool_target: int | None = None,
    options: dict[str, Any] | None = None,
    *,
    rules_version: int = RULES_VERSION,
) -> Rules:
    """Check a table's settings and return its effective rules, or raise InvalidTable.

    ``rules_version`` is the version the table was made under (stored with it): a table made
    under an earlier one keeps that version's readings (``legacy_overrides``) and so scores,
    and keeps its stored state, exactly as when it was made."""
    preset = _preset_named(convention)
    _check_rules_version(rules_version)
    errors = _seat_and_target_errors(preset, players, pool_target)
    if pool_target is None:
        pool_target = preset.default_pool_target
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InvalidTable(
            errors + [FieldError("options", Sentence("must be an object of field names and values"))]
        )
    values = base_values(preset, rules_version)
    given = _read_fields(options, values, errors)
    _read_aliases(preset, options, values, given, errors)
    if not errors:
        for names, reason in contradictions(values):
            named = next((n for n in names if n in given), names[0])
            errors.append(FieldError(f"options.{named}", reason))
    if errors:
        raise InvalidTable(errors)
    return Rules(
        preset=preset.name, players=players, pool_target=pool_target, rules_version=rules_version, **values
    )


def _preset_named(convention: str) -> Preset:
    preset = PRESETS.get(convention) if isinstance(convention, str) else None
    if preset is None:
        raise InvalidTable(
            [
                FieldError(
                    "convention", Sentence("must be one of {choices}", choices=", ".join(CONVENTION_NAMES))
                )
            ]
        )
    return preset


def _check_rules_version(rules_version: int) -> None:
    if (
        isinstance(rules_version, bool)
        or not isinstance(rules_version, int)
        or not 1 <= rules_version <= RULES_VERSION
    ):
        raise InvalidTable(
            [
                FieldError(
                    "rules_version",
                    Sentence("must be an integer from 1 to {rules_version}", rules_version=RULES_VERSION),
                )
            ]
        )


def _seat_and_target_errors(preset: Preset, players: int, pool_target: int | None) -> list[FieldError]:
    errors: list[FieldError] = []
    if players not in preset.seat_counts:
        counts = " or ".join(str(n) for n in preset.seat_counts)
        errors.append(
            FieldError(
                "players", Sentence("{name} is played by {counts} players", name=preset.name, counts=counts)
            )
        )
    if pool_target is not None and (
        isinstance(pool_target, bool) or not isinstance(pool_target, int) or pool_target < 1
    ):
        errors.append(FieldError("pool_target", Sentence("must be a positive integer")))
    return errors


def _read_fields(options: dict[str, Any], values: dict[str, Any], errors: list[FieldError]) -> set[str]:
    """Read the options that name a field into ``values``; return the fields they set."""
    given: set[str] = set()
    for name, value in options.items():
        spec = SPECS.get(name)
        if spec is not None:
            try:
                values[name] = spec.parse(value)
                given.add(name)
            except ValueError as exc:
                errors.append(FieldError(f"options.{name}", said(exc)))
        elif name not in ALIASES:
            errors.append(
                FieldError(
                    f"options.{name}",
                    Sentence("not a field of the rule table (GET /v1/conventions lists them)"),
                )
            )
    return given


def _read_aliases(
    preset: Preset,
    options: dict[str, Any],
    values: dict[str, Any],
    given: set[str],
    errors: list[FieldError],
) -> None:
    """Read the first rule table's bool options into the fields they became, unless the table set
    that field itself to something else."""
    for name, alias in ALIASES.items():
        if name not in options:
            continue
        value = options[name]
        if not isinstance(value, bool):
            errors.append(FieldError(f"options.{name}", Sentence("must be true or false")))
            continue
        meant = alias.to_field(preset, value)
        if alias.target in given and values[alias.target] is not meant:
            errors.append(
                FieldError(f"options.{name}", Sentence("contradicts options.{target}", target=alias.target))
            )
        else:
            values[alias.target] = meant
            given.add(alias.target)


def options_of(rules: Rules) -> dict[str, Any]:
    """The options that make these rules from their preset (JSON-ready): the preset's
    classic options with their values, then every other field that differs from the preset
    as read by the table's rules version (so that make_rules with that version takes it back)."""
    preset = PRESETS[rules.preset]
    base = base_values(preset, rules.rules_version)
    out: dict[str, Any] = {}
    covered: set[str] = set()
    for name in preset.classic:
        alias = ALIASES.get(name)
        if alias is None:
            out[name] = to_json(getattr(rules, name))
            covered.add(name)
        else:
            as_bool = alias.from_field(preset, getattr(rules, alias.target))
            if as_bool is not None:
                out[name] = as_bool
                covered.add(alias.target)
    for name in FIELD_NAMES:
        if name not in covered and getattr(rules, name) != base[name]:
            out[name] = to_json(getattr(rules, name))
    return out


read_options_with(options_of)


def conventions_catalog() -> list[dict[str, Any]]:
    """What GET /v1/conventions serves: each preset with every field, its type, allowed values
    and the preset's value."""
    return [PRESETS[name].describe() for name in CONVENTION_NAMES]
