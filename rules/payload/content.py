"""Payload's content, as frozen tables: PARTS, BLUEPRINTS, VARIANTS, DIFFICULTIES and the JAMS derived
from them. Every game number of Payload lives here (the board's size in types.py, the caps in
simulate.py).

- A part has a glyph, a name, a badge, a rule and a role; the compendium is rendered from PARTS
  (`compendium`), and a part must sit in some pool (a difficulty round's, or the versus nuisance pool)
  or it is dead content (tests/payload/test_content.py).
- A difficulty is a complete run definition. Easy and Hard share no round: different length, drops,
  starting machine, pools, jams and blueprint cadence, and the deal is salted with the difficulty's
  key. "Easy is Hard truncated" was rejected.
- Jams are declared on a difficulty's round and keyed by name, never by round index (the same jam
  falls on different rounds in different difficulties); JAMS is derived from DIFFICULTIES so the
  compendium cannot drift from what the rules read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .types import (
    BlueprintKey,
    CellIndex,
    DifficultyKey,
    JamKey,
    PartKey,
    Role,
    VariantKey,
    cell_at,
)


@dataclass(frozen=True, slots=True)
class PartSpec:
    """One part: how it shows (glyph, name, badge), what it does (rule), what it is for (role)."""

    key: PartKey
    glyph: str
    name: str
    badge: str
    rule: str
    role: Role


@dataclass(frozen=True, slots=True)
class BlueprintSpec:
    """A run-long upgrade granted after the rounds a difficulty lists."""

    key: BlueprintKey
    name: str
    rule: str


@dataclass(frozen=True, slots=True)
class JamSpec:
    """A round's handicap: honoured where it bites (drops_for_round, simulate_drop)."""

    key: JamKey
    name: str
    rule: str


@dataclass(frozen=True, slots=True)
class VariantSpec:
    """A daily twist over a whole run: quota multiplier (percent), start value, spring fires, offers."""

    key: VariantKey
    name: str
    rule: str
    quota_percent: int = 100
    start_bonus: int = 0
    spring_bonus: int = 0
    offer_bonus: int = 0


@dataclass(frozen=True, slots=True)
class RoundSpec:
    """One round of a difficulty: its quota, its drops, the parts its draft deals from, its jam."""

    quota: int
    drops: int
    pool: tuple[PartKey, ...]
    jam: JamSpec | None = None


@dataclass(frozen=True, slots=True)
class DifficultySpec:
    """A complete run definition."""

    key: DifficultyKey
    name: str
    rounds: tuple[RoundSpec, ...]
    #: The starting machine: (cell, part) pairs on the board before the first draft.
    start: tuple[tuple[CellIndex, PartKey], ...]
    #: Rounds (1-based) after which a blueprint is granted (offered in the next round, after its draft).
    blueprint_after: tuple[int, ...]
    offers: int = 3


@dataclass(frozen=True, slots=True)
class PartNumbers:
    """Every number a part resolves with (simulate.apply_part reads them; the badges and rules below
    are written from them, so the compendium cannot drift from the maths)."""

    peg: int = 1
    bumper: int = 2
    bell: int = 4
    #: What Bell Tower adds to every bell.
    bell_tower: int = 2
    coil: int = 2
    #: Gear: × gear_num / gear_den, rounding down.
    gear_num: int = 3
    gear_den: int = 2
    crucible: int = 3
    #: Cup: the n-th marble it catches in a drop gains n × cup_step.
    cup_step: int = 2
    #: Magnet: per other part in its column.
    magnet: int = 2
    drum: int = 3
    drum_bounced: int = 6
    rust: int = 2
    fork_hum: int = 1
    #: k, the multiple a part beside a fork fires with.
    fork_k: int = 2
    spring_lift: int = 2


#: The parts' numbers.
N = PartNumbers()


def _parts(*specs: PartSpec) -> Mapping[PartKey, PartSpec]:
    return MappingProxyType({spec.key: spec for spec in specs})


PARTS: Mapping[PartKey, PartSpec] = _parts(
    PartSpec("peg", "•", "Peg", f"+{N.peg}", f"Adds {N.peg}.", "adder"),
    PartSpec("bumper", "◉", "Bumper", f"+{N.bumper}", f"Adds {N.bumper}.", "adder"),
    PartSpec("bell", "♪", "Bell", f"+{N.bell}",
             f"Adds {N.bell} (Bell Tower: {N.bell + N.bell_tower}). Silent under noBells.", "adder"),
    PartSpec("lantern", "☼", "Lantern", "+row", "Adds 1 for every part in its row, itself included.",
             "adder"),
    PartSpec("coil", "§", "Coil", f"×{N.coil}", f"Multiplies the marble's value by {N.coil}.", "scaler"),
    PartSpec("gear", "⚙", "Gear", f"×{N.gear_num}/{N.gear_den}",
             f"Multiplies the value by {N.gear_num}/{N.gear_den}, rounding down.", "scaler"),
    PartSpec("crucible", "♨", "Crucible", f"×{N.crucible} ⤓",
             f"Multiplies the value by {N.crucible}, then the marble banks at once.", "scaler"),
    PartSpec("prism", "◇", "Prism", "split",
             "Splits off a copy with the value so far; the copy starts at the prism and leaves it sideways "
             "(right, or left at the right edge).", "splitter"),
    PartSpec("spring", "↥", "Spring", f"↑{N.spring_lift}",
             f"Launches the marble {N.spring_lift} rows back up, once per marble (Oiled Springs: twice). "
             "Dead under deadSprings.", "mover"),
    PartSpec("ramp_left", "↙", "Left Ramp", "←", "Moves the marble one column left.", "mover"),
    PartSpec("ramp_right", "↘", "Right Ramp", "→", "Moves the marble one column right.", "mover"),
    PartSpec("fork", "Ψ", "Tuning Fork", f"×{N.fork_k} adj",
             f"Adds {N.fork_hum}. Parts beside it (left, right, above, below) fire {N.fork_k} times as "
             "strong; that does not stack, and forks never strengthen each other. Dull under dullForks.",
             "support"),
    PartSpec("cup", "∪", "Cup", f"+{N.cup_step}n",
             f"Adds {N.cup_step} for the first marble it catches in a drop, {2 * N.cup_step} for the second, "
             f"{3 * N.cup_step} for the third…", "adder"),
    PartSpec("magnet", "⊓", "Magnet", f"+{N.magnet}/col", f"Adds {N.magnet} for every other part in its "
             "column.", "adder"),
    PartSpec("echo", "≋", "Echo", "again", "Adds the marble's last change again (nothing if it had none).",
             "adder"),
    PartSpec("drum", "◎", "Drum", f"+{N.drum}/+{N.drum_bounced}",
             f"Adds {N.drum}, or {N.drum_bounced} to a marble a spring has launched.", "adder"),
    PartSpec("rust", "▒", "Rust Plate", f"−{N.rust}",
             f"Takes {N.rust} off (never below 0). Sent by a versus opponent.", "nuisance"),
    PartSpec("snag", "✂", "Snag", "½", "Halves the value, rounding down. Sent by a versus opponent.",
             "nuisance"),
)

#: The parts that multiply: every draft offers at least one (the player is never multiplier-starved).
SCALER_KEYS: tuple[PartKey, ...] = tuple(key for key, spec in PARTS.items() if spec.role == "scaler")
#: The parts a versus opponent's surplus places on the receiver's board.
NUISANCE_POOL: tuple[PartKey, ...] = ("rust", "snag")

BLUEPRINTS: Mapping[BlueprintKey, BlueprintSpec] = MappingProxyType({
    spec.key: spec for spec in (
        BlueprintSpec("loose_screws", "Loose Screws",
                      "Once per draft, shake the machine: the offers are dealt again."),
        BlueprintSpec("heavy_marbles", "Heavy Marbles", "Every marble starts worth 1 more."),
        BlueprintSpec("extra_hopper", "Extra Hopper", "One more drop every round."),
        BlueprintSpec("oiled_springs", "Oiled Springs", "Each spring launches a marble twice."),
        BlueprintSpec("wide_draft", "Wide Draft", "Every draft offers one more part."),
        BlueprintSpec("bell_tower", "Bell Tower", f"Bells add {N.bell_tower} more."),
    )
})

VARIANTS: Mapping[VariantKey, VariantSpec] = MappingProxyType({
    spec.key: spec for spec in (
        VariantSpec("standard", "Standard", "The difficulty as written."),
        VariantSpec("tight", "Tight", "Quotas are 20 % higher.", quota_percent=120),
        VariantSpec("heavy", "Heavy", "Marbles start worth 1 more; quotas are 25 % higher.",
                    quota_percent=125, start_bonus=1),
        VariantSpec("bouncy", "Bouncy", "Springs launch once more; quotas are 10 % higher.",
                    quota_percent=110, spring_bonus=1),
        VariantSpec("lean", "Lean", "Drafts offer one part fewer; quotas are 10 % lower.",
                    quota_percent=90, offer_bonus=-1),
    )
})

SHORT_SHIFT = JamSpec("shortShift", "Short Shift", "One drop fewer this round.")
NO_BELLS = JamSpec("noBells", "No Bells", "Bells are silent this round.")
SLIPPERY = JamSpec("slippery", "Slippery", "Every marble slides one column right as it enters (the last "
                   "column to the first).")
DEAD_SPRINGS = JamSpec("deadSprings", "Dead Springs", "Springs do not launch this round.")
DULL_FORKS = JamSpec("dullForks", "Dull Forks", "Tuning forks double nothing this round.")

DIFFICULTIES: Mapping[DifficultyKey, DifficultySpec] = MappingProxyType({
    "easy": DifficultySpec(
        key="easy",
        name="Easy",
        rounds=(
            RoundSpec(12, 4, ("peg", "bumper", "bell", "coil", "lantern", "cup", "ramp_right")),
            RoundSpec(30, 4, ("bumper", "bell", "coil", "gear", "prism", "magnet", "fork", "ramp_left")),
            RoundSpec(68, 4, ("bell", "coil", "gear", "prism", "spring", "fork", "echo", "drum", "cup"),
                      NO_BELLS),
            RoundSpec(145, 4, ("coil", "gear", "crucible", "prism", "spring", "fork", "echo", "lantern",
                               "magnet"), SLIPPERY),
        ),
        start=((cell_at(1, 2), "peg"), (cell_at(4, 2), "bumper")),
        blueprint_after=(1, 2),
    ),
    "hard": DifficultySpec(
        key="hard",
        name="Hard",
        rounds=(
            RoundSpec(10, 3, ("peg", "bumper", "gear", "ramp_left", "magnet")),
            RoundSpec(22, 3, ("peg", "bell", "coil", "cup", "ramp_right", "lantern"), SLIPPERY),
            RoundSpec(48, 3, ("bumper", "coil", "prism", "fork", "drum")),
            RoundSpec(95, 3, ("bell", "gear", "prism", "spring", "echo", "magnet"), NO_BELLS),
            RoundSpec(190, 3, ("coil", "crucible", "fork", "spring", "cup", "lantern"), DEAD_SPRINGS),
            RoundSpec(340, 3, ("gear", "crucible", "prism", "echo", "drum", "bumper"), SHORT_SHIFT),
            RoundSpec(600, 3, ("coil", "crucible", "spring", "fork", "magnet", "bell"), DULL_FORKS),
            RoundSpec(1000, 3, ("gear", "crucible", "prism", "echo", "cup", "drum"), NO_BELLS),
        ),
        start=((cell_at(1, 1), "peg"), (cell_at(3, 1), "peg"), (cell_at(5, 0), "ramp_right")),
        blueprint_after=(2, 4, 6),
    ),
})


def _derive_jams() -> Mapping[JamKey, JamSpec]:
    jams: dict[JamKey, JamSpec] = {}
    for difficulty in DIFFICULTIES.values():
        for spec in difficulty.rounds:
            if spec.jam is None:
                continue
            held = jams.setdefault(spec.jam.key, spec.jam)
            if held != spec.jam:
                raise ValueError(f"jam {spec.jam.key!r} is declared twice, differently")
    return MappingProxyType(jams)


#: Every jam a difficulty declares, by key (derived: the compendium reads what the rules read).
JAMS: Mapping[JamKey, JamSpec] = _derive_jams()


def compendium() -> list[dict[str, str]]:
    """The compendium's rows, straight from PARTS (what a view renders): one per part, in table order."""
    return [
        {"key": spec.key, "glyph": spec.glyph, "name": spec.name, "badge": spec.badge, "rule": spec.rule,
         "role": spec.role}
        for spec in PARTS.values()
    ]


def pools_of(part: PartKey) -> list[str]:
    """Where a part is dealt from: "easy/2" (a difficulty's round, 1-based), "versus/nuisance"."""
    found = [
        f"{difficulty.key}/{index + 1}"
        for difficulty in DIFFICULTIES.values()
        for index, spec in enumerate(difficulty.rounds)
        if part in spec.pool
    ]
    if part in NUISANCE_POOL:
        found.append("versus/nuisance")
    return found


def content_problems(
    parts: Mapping[PartKey, PartSpec] = PARTS,
    difficulties: Mapping[DifficultyKey, DifficultySpec] = DIFFICULTIES,
    nuisance: tuple[PartKey, ...] = NUISANCE_POOL,
) -> list[str]:
    """Everything wrong with a content table (empty when it is sound): a part missing a field, a part
    absent from every pool (dead content), a pool naming an unknown part or offering no scaler."""
    problems: list[str] = []
    for key, spec in parts.items():
        if spec.key != key:
            problems.append(f"part {key!r}: its spec says key {spec.key!r}")
        for name in ("glyph", "name", "badge", "rule", "role"):
            if not getattr(spec, name, ""):
                problems.append(f"part {key!r}: missing {name}")
    pooled: set[str] = set(nuisance)
    scalers = {key for key, spec in parts.items() if spec.role == "scaler"}
    for difficulty in difficulties.values():
        for index, round_spec in enumerate(difficulty.rounds):
            pooled.update(round_spec.pool)
            where = f"{difficulty.key} round {index + 1}"
            problems += [f"{where}: unknown part {part!r}" for part in round_spec.pool if part not in parts]
            if not scalers & set(round_spec.pool):
                problems.append(f"{where}: the pool offers no scaler")
    problems += [f"part {key!r}: in no pool (dead content)" for key in parts if key not in pooled]
    return problems
