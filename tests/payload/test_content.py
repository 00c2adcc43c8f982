"""Payload's content tables: every part complete and pooled, the difficulties as the seed states them,
the jams derived, the compendium rendered from PARTS."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from rules.payload.content import (
    BLUEPRINTS,
    DIFFICULTIES,
    JAMS,
    PARTS,
    SCALER_KEYS,
    VARIANTS,
    DifficultySpec,
    PartSpec,
    RoundSpec,
    compendium,
    content_problems,
    pools_of,
)
from rules.payload.run import start_board
from rules.payload.types import DifficultyKey, PartKey


def test_parts_are_complete_and_pooled() -> None:
    """At least 16 parts, each with glyph, name, badge, rule and role, each dealt from some pool."""
    assert len(PARTS) >= 16
    assert content_problems() == []
    assert all(pools_of(key) for key in PARTS)
    names = {spec.name for spec in PARTS.values()}
    assert {"Prism", "Spring", "Coil", "Tuning Fork"} <= names


def test_a_part_missing_a_field_or_out_of_every_pool_fails() -> None:
    """The content check names a part with an empty field and a part no pool deals."""
    broken = dict(PARTS)
    broken["peg"] = replace(PARTS["peg"], glyph="")
    assert "part 'peg': missing glyph" in content_problems(MappingProxyType(broken))
    tables: dict[DifficultyKey, DifficultySpec] = {
        key: replace(spec, rounds=tuple(replace(r, pool=tuple(p for p in r.pool if p != "lantern"))
                                        for r in spec.rounds))
        for key, spec in DIFFICULTIES.items()
    }
    assert content_problems(PARTS, tables) == ["part 'lantern': in no pool (dead content)"]


def test_a_pool_without_a_scaler_fails() -> None:
    """Every pool must hold a scaler (the draft forces one from it)."""
    easy = DIFFICULTIES["easy"]
    rounds = (RoundSpec(12, 4, ("peg", "bumper")), *easy.rounds[1:])
    tables: dict[DifficultyKey, DifficultySpec] = {**DIFFICULTIES, "easy": replace(easy, rounds=rounds)}
    assert "easy round 1: the pool offers no scaler" in content_problems(PARTS, tables)


def test_compendium_is_rendered_from_parts() -> None:
    """The compendium's rows are PARTS' fields, in table order, and change with the table."""
    rows = compendium()
    assert [row["key"] for row in rows] == list(PARTS)
    for row in rows:
        spec = PARTS[row["key"]]  # type: ignore[index]
        assert (row["glyph"], row["name"], row["badge"], row["rule"], row["role"]) == (
            spec.glyph, spec.name, spec.badge, spec.rule, spec.role)


def test_difficulties_are_as_the_seed_states() -> None:
    """Easy: 4 rounds of 4 drops, 12/30/68/145; Hard: 8 rounds of 3 drops, 10/22/…/1000."""
    easy, hard = DIFFICULTIES["easy"], DIFFICULTIES["hard"]
    assert [spec.quota for spec in easy.rounds] == [12, 30, 68, 145]
    assert {spec.drops for spec in easy.rounds} == {4}
    assert [spec.quota for spec in hard.rounds] == [10, 22, 48, 95, 190, 340, 600, 1000]
    assert {spec.drops for spec in hard.rounds} == {3}


def _round_key(spec: RoundSpec) -> tuple[object, ...]:
    return (spec.quota, spec.drops, spec.pool, spec.jam)


def test_easy_and_hard_share_no_round() -> None:
    """Different length, drops, starting machine, pools, jams and blueprint cadence: no round of one is
    a round of the other, and Easy is not Hard truncated."""
    easy, hard = DIFFICULTIES["easy"], DIFFICULTIES["hard"]
    assert len(easy.rounds) != len(hard.rounds)
    assert start_board("easy") != start_board("hard")
    assert easy.blueprint_after != hard.blueprint_after
    for a in easy.rounds:
        for b in hard.rounds:
            assert a.pool != b.pool and a.quota != b.quota and a.drops != b.drops
    assert [spec.jam for spec in easy.rounds] != [spec.jam for spec in hard.rounds[: len(easy.rounds)]]


def test_jams_are_derived_from_the_difficulties() -> None:
    """JAMS holds exactly the jams the difficulties declare, keyed by name, shortShift, noBells and
    slippery among them; the same jam falls on different rounds in different difficulties."""
    declared = {spec.jam.key for d in DIFFICULTIES.values() for spec in d.rounds if spec.jam is not None}
    assert set(JAMS) == declared
    assert {"shortShift", "noBells", "slippery"} <= set(JAMS)
    assert len(JAMS) >= 5
    rounds = {d.key: [i for i, spec in enumerate(d.rounds) if spec.jam and spec.jam.key == "noBells"]
              for d in DIFFICULTIES.values()}
    assert rounds["easy"] != rounds["hard"]


def test_blueprints_and_variants() -> None:
    """At least 6 blueprints, Loose Screws among them; the standard variant changes nothing."""
    assert len(BLUEPRINTS) >= 6
    assert BLUEPRINTS["loose_screws"].name == "Loose Screws"
    standard = VARIANTS["standard"]
    assert (standard.quota_percent, standard.start_bonus, standard.offer_bonus) == (100, 0, 0)
    assert len(VARIANTS) >= 3


def test_scalers_are_the_scaler_role() -> None:
    """SCALER_KEYS is every part whose role is scaler (Coil among them)."""
    assert "coil" in SCALER_KEYS
    assert set(SCALER_KEYS) == {key for key, spec in PARTS.items() if spec.role == "scaler"}


def test_difficulty_spec_is_frozen() -> None:
    """The tables cannot be changed in place."""
    spec: DifficultySpec = DIFFICULTIES["easy"]
    part: PartSpec = PARTS["peg"]
    key: PartKey = "peg"
    for value, field in ((spec, "name"), (part, "glyph")):
        try:
            setattr(value, field, "x")
        except AttributeError:
            continue
        raise AssertionError(f"{type(value).__name__}.{field} could be set")
    try:
        PARTS[key] = part  # type: ignore[index]
    except TypeError:
        return
    raise AssertionError("PARTS could be changed")
