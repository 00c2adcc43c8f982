"""Every number of the versus rules in one table; the rules and `floe rules` read it from here.

Frames are 1/60 s (13 of the arcade's main-loop passes). `AttackTable` and `VersusRules` are a
match's config (every field is written into each replay); the module constants below them are fixed
for the ruleset version, so changing one alters outcomes and bumps RULESET_VERSION.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Versus frames per second: one frame is 13 of the arcade's 780 main-loop passes per second.
FRAME_HZ = 60


@dataclass(frozen=True)
class AttackTable:
    """Attack units, the queue and the landings (see ../shared/DESIGN.md, "Versus")."""

    #: Units for crushing 1, 2, 3, 4+ Sno-Bees with one slide.
    crush: tuple[int, ...] = (3, 6, 9, 12)
    #: A diamond line, and a line against the wall.
    line: int = 12
    line_wall: int = 8
    #: A stunned Sno-Bee eaten, an egg broken.
    eat: int = 3
    egg: int = 3
    #: A round clear, plus a tier per time bonus (bonus points, extra units), best first.
    round_clear: int = 8
    round_clear_tiers: tuple[tuple[int, int], ...] = ((5000, 4), (2000, 3), (1000, 2), (500, 1))
    #: An attack within this many frames of the sender's previous one adds `chain_bonus`.
    chain_frames: int = 90
    chain_bonus: int = 1
    #: Pending attacks land this many frames after they are sent (the telegraph).
    fuse_frames: int = 150
    #: At most this many units land in one landing; the rest waits for the next frame.
    landing_cap: int = 8
    #: Landing kinds by the units of one landing: garbage up to here, nuisance up to here, else gems.
    garbage_max: int = 3
    nuisance_max: int = 5
    #: Garbage lands at least this many cells (Chebyshev) from the receiver's player.
    garbage_min_distance: int = 2
    #: Counter gems: units − gem_offset gems, each counting down from gem_count, one step per gem_step_frames.
    gem_offset: int = 3
    gem_count: int = 5
    gem_step_frames: int = 120
    #: Margin time: from this frame on, units × margin_num / margin_den (rounded down, at least 1).
    margin_from_frame: int = 2 * 60 * FRAME_HZ
    margin_num: int = 3
    margin_den: int = 2


@dataclass(frozen=True)
class VersusRules:
    """A versus ruleset: the attack table plus match-level settings."""

    attack: AttackTable = field(default_factory=AttackTable)
    #: The time limit in frames (default 3 minutes); at it the highest score wins.
    time_limit_frames: int = 3 * 60 * FRAME_HZ
    #: Lives per seat.
    lives: int = 3
    #: Pengo's skill DIP for every board.
    skill: int = 1


#: Seats in a match: DESIGN.md's 2 (ranked is 1 v 1) to 4, the boards a screen shows side by side.
MIN_SEATS = 2
MAX_SEATS = 4
#: The salt of every seat's garbage stream seed, mix_seed(match seed, salt): the levels are dealt
#: with salts 1, 2, … (rules/kick/deal.py), so 0 keeps the garbage draws apart from every deal.
GARBAGE_SALT = 0
#: Eggs a nuisance landing hides per unit over garbage_max: one, so every unit adds one thing to the
#: landing (4 units: 3 blocks and 1 egg; 5: 3 and 2), and each egg adds a Sno-Bee to the receiver's
#: round, which is what slows an attacked board's clears (bench/BALANCE.md).
NUISANCE_EGGS_PER_UNIT = 1

#: The default ruleset.
VERSUS_RULES = VersusRules()
#: The name pinned in replays.
RULESET_NAME = "pengo-versus"
#: The version pinned in replays: a rule change that alters outcomes bumps it.
RULESET_VERSION = 1
