"""Every number of the versus rules in one table; the rules and `floe rules` read it from here.

Frames are 1/60 s (13 of the arcade's main-loop passes). `AttackTable` and `VersusRules` are a
match's config (every field is written into each replay); the module constants below them are fixed
for the ruleset version, so changing one alters outcomes and bumps the ruleset version.

Two versions of pengo-versus run on this one engine and differ only by data: `VERSUS_RULES_V1`
(the dataclasses' defaults: every replay recorded before the bump plays by them) and
`VERSUS_RULES_V2` (landings that endanger the receiver, bench/BALANCE.md), each number with the
reason it has its value. `FIDELITY` is the Sno-Bee decision each version's boards take
(rules/kick/config.py `KickConfig.fidelity`), `SLOT_TIMERS` whether their Sno-Bee slots keep the
bytes the listing leaves stale after a blink or a death (`KickConfig.slot_timers`): version 3 is
version 2's rules with them kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rules.kick.config import Fidelity, SlotTimers

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
    #: ... and at most this many, while the ring has room (0: anywhere on the board, version 1).
    garbage_max_distance: int = 0
    #: Where nuisance eggs go and when they hatch: "hidden" (version 1: in any resting ice of the
    #: receiver's, hatching in the board's order when a slot frees, paying 500 and `egg` units when
    #: broken first) or "hatching" (in the landing's own blocks, hatching at once, paying nothing).
    nuisance_eggs: str = "hidden"
    #: Sno-Bee slots a board may gain in a round so that a landed egg hatches at once (0: none).
    extra_slots: int = 0
    #: A landing hurries the receiver's Sno-Bees for this many frames plus landing_hurry_unit_frames a
    #: unit landed, added to a hurry still running, up to landing_hurry_max_frames ahead (0: never).
    landing_hurry_frames: int = 0
    landing_hurry_unit_frames: int = 0
    landing_hurry_max_frames: int = 0
    #: The hurry a landing brings: the period of a life this many minutes old ($344B: P − 1 − minutes).
    landing_hurry_minutes: int = 1
    #: When a frame's attacks are sent: "in-seat-order" (version 1: each seat's as its board steps, so
    #: a later seat can offset an earlier seat's attack of the same frame) or "simultaneous" (every
    #: seat's units offset against what was pending before the frame, then all are sent).
    exchange: str = "in-seat-order"
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

#: Version 1 (the first port): the dataclasses' defaults above, which every replay recorded under
#: pengo-versus 1 was played by. Its landings help the receiver as often as they hurt: garbage far
#: from Pengo is ammunition, hidden eggs pay 500 and a unit each when broken (bench/BALANCE.md).
VERSUS_RULES_V1 = VersusRules()

#: Version 2: landings that endanger the receiver. The unit values are version 1's (the ×3 table
#: that made attacks matter at all); what changes is what a landing does.
VERSUS_RULES_V2 = VersusRules(
    attack=AttackTable(
        #: 1–4 Sno-Bees in one slide: 3 units a Sno-Bee (version 1's ×3 of DESIGN.md's 1/2/4/6).
        crush=(3, 6, 9, 12),
        #: The diamond line, the arcade's biggest play: a gems landing by itself (12 − 3 = 9 gems).
        line=12,
        #: Against the wall the arcade pays less, and so does the line here.
        line_wall=8,
        #: An eaten stunned Sno-Bee and a broken egg: one crush's worth.
        eat=3,
        egg=3,
        #: A round clear: a gems landing with its tier (8 + 1–4 units).
        round_clear=8,
        round_clear_tiers=((5000, 4), (2000, 3), (1000, 2), (500, 1)),
        #: A second attack within 1.5 s adds a unit (rewards a run of crushes, as version 1).
        chain_frames=90,
        chain_bonus=1,
        #: 2.5 s of telegraph: long enough to counter with one crush, short enough to bite.
        fuse_frames=150,
        #: 8 units a landing at most: one landing never buries a board.
        landing_cap=8,
        garbage_max=3,
        nuisance_max=5,
        #: Never on Pengo (not his cell, nor the one he is stepping into) ...
        garbage_min_distance=1,
        #: ... but next to him or one further: the blocks close his ways out (a block right beside
        #: him must be kicked or broken before he can go that way), not ammunition across the board.
        garbage_max_distance=2,
        #: A landed egg is a Sno-Bee at once, beside Pengo (it hatches from the landing's block),
        #: and pays the receiver nothing: version 1's hidden eggs were farmed for 500 and a unit each.
        nuisance_eggs="hatching",
        #: Up to 2 Sno-Bees more than the act's slots, so that a landed egg never waits for a
        #: Sno-Bee to die (acts 1–4 have 3 slots: at most 5 at once, the arcade's act-5+ pressure).
        extra_slots=2,
        #: Every landing hurries the receiver's Sno-Bees for 5 s: the landing is a moment of danger.
        landing_hurry_frames=5 * FRAME_HZ,
        landing_hurry_unit_frames=0,
        landing_hurry_max_frames=5 * FRAME_HZ,
        #: As a life's first hurried minute ($344B: two periods faster than the level's base).
        landing_hurry_minutes=1,
        #: No seat may cancel an attack sent on the frame it attacks: in seat order seat 1 could
        #: offset seat 0's, never the reverse, a tilt the mirror showed (seat 1 won ≈ 55 %).
        exchange="simultaneous",
        gem_offset=3,
        gem_count=5,
        gem_step_frames=120,
        #: From 2:00, units × 1.5 (version 1's margin time).
        margin_from_frame=2 * 60 * FRAME_HZ,
        margin_num=3,
        margin_den=2,
    ),
    #: Three minutes and the arcade's skill DIP 1, as version 1.
    time_limit_frames=3 * 60 * FRAME_HZ,
    #: Four lives, one more than version 1: with landings this dangerous three lives end a mirror match
    #: after 1:43 on average, often on one unlucky death; with four the seat that sent on more wins
    #: more often (81 % against 80 %, 150-match mirrors) and the seats stay even, while 86 % of the
    #: mirror still ends by elimination before 3:00 (bench/BALANCE.md).
    lives=4,
    skill=1,
)

#: Version 3's rules are version 2's: it differs only by its Sno-Bees' slot timers (SLOT_TIMERS).
VERSUS_RULES_V3 = VERSUS_RULES_V2

#: Each version's rules, the Sno-Bee decision its boards take (KickConfig.fidelity) and their slot
#: timers (KickConfig.slot_timers: the listing's stale bytes after a blink or a death, version 3 on).
RULES_BY_VERSION: dict[int, VersusRules] = {1: VERSUS_RULES_V1, 2: VERSUS_RULES_V2, 3: VERSUS_RULES_V3}
FIDELITY: dict[int, Fidelity] = {1: "first-port", 2: "arcade", 3: "arcade"}
SLOT_TIMERS: dict[int, SlotTimers] = {1: "first-port", 2: "first-port", 3: "arcade"}

#: The name pinned in replays.
RULESET_NAME = "pengo-versus"
#: The version new matches are played under (pinned in their replays): a rule change that alters
#: outcomes adds a version next to the others instead of changing one.
RULESET_VERSION = 3
#: Every version this build plays and verifies.
RULESET_VERSIONS: tuple[int, ...] = (1, 2, 3)
#: The rules of the current version (what new matches, `floe rules` and the benches use).
VERSUS_RULES = RULES_BY_VERSION[RULESET_VERSION]
