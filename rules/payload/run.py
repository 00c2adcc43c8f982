"""The run reducer over an immutable RunState, and the helpers that read config through it.

    state, events = start_run("easy", seed=7)
    state, events = select_offer(state, 0)
    state, events = place_selected(state, CellIndex(12))       # or skip_draft(state)
    state, events = take_blueprint(state, 1)                   # when a blueprint is granted
    state, events = apply_drop(state, Column(2))               # … until state.phase is RunOver

Every reducer returns the new state and the run events it made; a move the phase does not allow
raises IllegalMoveError (an IllegalInputError) and, the state being immutable, changes nothing.

Read config through the helpers, never the raw tables: `quota_for`, `drops_for_round`, `jam_for`,
`rules_for` fold in the difficulty, the variant, the blueprints and the jams received (versus)
together. Reading a difficulty's quotas directly skips the variant's multiplier and desyncs the HUD
from the win check.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.errors import IllegalInputError

from .content import BLUEPRINTS, DIFFICULTIES, JAMS, SCALER_KEYS, VARIANTS, JamSpec, N, RoundSpec
from .events import (
    BlueprintDeclined,
    BlueprintsOffered,
    BlueprintTaken,
    Dropped,
    OffersDealt,
    Placed,
    Rerolled,
    RoundCleared,
    RoundMissed,
    RunEnded,
    RunEvent,
    Selected,
    Skipped,
)
from .rng import deal_seed, shuffle
from .simulate import simulate_drop
from .types import (
    CELLS,
    COLS,
    BlueprintKey,
    Blueprints,
    Board,
    CellIndex,
    Column,
    DifficultyKey,
    Draft,
    Dropping,
    JamKey,
    PartKey,
    Phase,
    Rules,
    RunOver,
    VariantKey,
)

#: How many blueprints a grant offers.
BLUEPRINT_CHOICES = 3
#: Rerolls a draft allows with Loose Screws.
LOOSE_SCREWS_REROLLS = 1
#: The fewest offers a draft deals, whatever the variant.
MIN_OFFERS = 2


class IllegalMoveError(IllegalInputError):
    """A move the run's phase does not allow (or out of range); nothing changed."""


@dataclass(frozen=True, slots=True)
class RunState:
    """One run, immutable. `deal` is the seed every draw is keyed from (the run seed salted with the
    difficulty); `received` are the jams a versus opponent landed on this round."""

    difficulty: DifficultyKey
    variant: VariantKey
    seed: int
    deal: int
    round: int
    board: Board
    phase: Phase
    round_score: int = 0
    total_score: int = 0
    rounds_cleared: int = 0
    blueprints: tuple[BlueprintKey, ...] = ()
    received: tuple[JamKey, ...] = ()

    @property
    def over(self) -> bool:
        """Has the run ended?"""
        return isinstance(self.phase, RunOver)

    @property
    def won(self) -> bool:
        """Did the run meet every quota?"""
        return isinstance(self.phase, RunOver) and self.phase.won


Step = tuple[RunState, tuple[RunEvent, ...]]


# -- the helpers ---------------------------------------------------------------------------------


def round_spec(state: RunState, round_index: int | None = None) -> RoundSpec:
    """The difficulty's round (the current one by default)."""
    rounds = DIFFICULTIES[state.difficulty].rounds
    index = state.round if round_index is None else round_index
    return rounds[min(index, len(rounds) - 1)]


def rounds_in(state: RunState) -> int:
    """How many rounds the run has."""
    return len(DIFFICULTIES[state.difficulty].rounds)


def quota_for(state: RunState, round_index: int | None = None) -> int:
    """The round's quota with the variant's multiplier (rounded up)."""
    percent = VARIANTS[state.variant].quota_percent
    return (round_spec(state, round_index).quota * percent + 99) // 100


def jam_for(state: RunState) -> tuple[JamKey, ...]:
    """The jams biting this round: the difficulty's, then the ones a versus opponent landed."""
    spec = round_spec(state).jam
    declared: tuple[JamKey, ...] = () if spec is None else (spec.key,)
    return declared + tuple(key for key in state.received if key not in declared)


def jam_specs(state: RunState) -> tuple[JamSpec, ...]:
    """jam_for's jams with their names and rules."""
    return tuple(JAMS[key] for key in jam_for(state))


def drops_for_round(state: RunState) -> int:
    """The round's drops: the difficulty's, +1 with Extra Hopper, −1 under shortShift (at least 1)."""
    drops = round_spec(state).drops
    if "extra_hopper" in state.blueprints:
        drops += 1
    if "shortShift" in jam_for(state):
        drops -= 1
    return max(1, drops)


def offers_for(state: RunState) -> int:
    """How many parts the round's draft offers: the difficulty's, the variant's and Wide Draft's."""
    count = DIFFICULTIES[state.difficulty].offers + VARIANTS[state.variant].offer_bonus
    if "wide_draft" in state.blueprints:
        count += 1
    return max(MIN_OFFERS, count)


def rules_for(state: RunState) -> Rules:
    """The Rules this round's drops resolve under (difficulty, variant, blueprints and jams folded in)."""
    jams = jam_for(state)
    variant = VARIANTS[state.variant]
    return Rules(
        start_value=1 + variant.start_bonus + (1 if "heavy_marbles" in state.blueprints else 0),
        bells="noBells" not in jams,
        slippery="slippery" in jams,
        springs="deadSprings" not in jams,
        forks="dullForks" not in jams,
        spring_fires=1 + variant.spring_bonus + (1 if "oiled_springs" in state.blueprints else 0),
        bell_bonus=N.bell_tower if "bell_tower" in state.blueprints else 0,
    )


def roll_offers(deal: int, state: RunState, purpose: str) -> tuple[PartKey, ...]:
    """The draft's offers: the round's pool shuffled (Fisher-Yates, draws keyed by round, slot and
    purpose), the first distinct parts taken; if none is a scaler the last slot is forced to one."""
    spec = round_spec(state)
    count = offers_for(state)
    offers: list[PartKey] = []
    for part in shuffle(spec.pool, deal, state.round, purpose):
        if part not in offers:
            offers.append(part)
        if len(offers) == count:
            break
    if not any(part in SCALER_KEYS for part in offers):
        scalers = [part for part in spec.pool if part in SCALER_KEYS] or list(SCALER_KEYS)
        offers[-1] = shuffle(scalers, deal, state.round, f"{purpose}:scaler")[0]
    return tuple(offers)


def blueprint_choices(state: RunState) -> tuple[BlueprintKey, ...]:
    """A grant's choices: every blueprint shuffled by a draw keyed by the round (so both versus seats
    see the same order), the ones already taken left out, the first BLUEPRINT_CHOICES kept."""
    order = shuffle(tuple(BLUEPRINTS), state.deal, state.round, "blueprint")
    return tuple(key for key in order if key not in state.blueprints)[:BLUEPRINT_CHOICES]


def start_board(difficulty: DifficultyKey) -> Board:
    """The difficulty's starting machine."""
    cells: list[PartKey | None] = [None] * CELLS
    for cell, part in DIFFICULTIES[difficulty].start:
        cells[cell] = part
    return tuple(cells)


# -- the reducer ---------------------------------------------------------------------------------


def start_run(difficulty: DifficultyKey = "easy", seed: int = 0, variant: VariantKey = "standard") -> Step:
    """A new run at round 1's draft."""
    if difficulty not in DIFFICULTIES:
        raise ValueError(f"difficulty: expected one of {tuple(DIFFICULTIES)}, got {difficulty!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant: expected one of {tuple(VARIANTS)}, got {variant!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 0xFFFFFFFF:
        raise ValueError(f"seed: must be an integer from 0 to 2**32 - 1, got {seed!r}")
    state = RunState(difficulty, variant, seed, deal_seed(seed, difficulty), 0, start_board(difficulty),
                     Draft(()))
    return _deal(state)


def _deal(state: RunState) -> Step:
    offers = roll_offers(state.deal, state, "offer")
    state = replace(state, phase=Draft(offers))
    return state, (OffersDealt(state.round, offers),)


def _draft(state: RunState, move: str) -> Draft:
    if not isinstance(state.phase, Draft):
        raise IllegalMoveError(f"{move}: the run is not drafting (phase {type(state.phase).__name__})")
    return state.phase


def select_offer(state: RunState, index: int) -> Step:
    """Pick offer `index` of the draft (a pick may be changed until it is placed)."""
    draft = _draft(state, "select_offer")
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(draft.offers):
        raise IllegalMoveError(f"select_offer: offer {index!r} is not one of the {len(draft.offers)} offers")
    return replace(state, phase=replace(draft, selected=index)), (Selected(index, draft.offers[index]),)


def place_selected(state: RunState, cell: CellIndex) -> Step:
    """Place the selected offer on `cell` (replacing what was there), ending the draft."""
    draft = _draft(state, "place_selected")
    if draft.selected is None:
        raise IllegalMoveError("place_selected: no offer is selected")
    if isinstance(cell, bool) or not isinstance(cell, int) or not 0 <= cell < CELLS:
        raise IllegalMoveError(f"place_selected: cell {cell!r} is not on the board (0 to {CELLS - 1})")
    part = draft.offers[draft.selected]
    replaced = state.board[cell]
    board = state.board[:cell] + (part,) + state.board[cell + 1:]
    state, more = _after_draft(replace(state, board=board))
    return state, (Placed(part, CellIndex(cell), replaced), *more)


def skip_draft(state: RunState) -> Step:
    """Take nothing from this draft."""
    _draft(state, "skip_draft")
    state, more = _after_draft(state)
    return state, (Skipped(state.round), *more)


def reroll(state: RunState) -> Step:
    """Deal the draft again (Loose Screws, once per draft); the draws are keyed by the reroll's number."""
    draft = _draft(state, "reroll")
    if "loose_screws" not in state.blueprints:
        raise IllegalMoveError("reroll: needs the Loose Screws blueprint")
    if draft.rerolls >= LOOSE_SCREWS_REROLLS:
        raise IllegalMoveError("reroll: this draft was rerolled already")
    count = draft.rerolls + 1
    offers = roll_offers(state.deal, state, f"reroll{count}")
    return replace(state, phase=Draft(offers, None, count)), (Rerolled(state.round, offers),)


def _after_draft(state: RunState) -> Step:
    granted = state.round in DIFFICULTIES[state.difficulty].blueprint_after
    if granted:
        choices = blueprint_choices(state)
        if choices:
            return replace(state, phase=Blueprints(choices)), (BlueprintsOffered(choices),)
    return replace(state, phase=Dropping(drops_for_round(state))), ()


def take_blueprint(state: RunState, index: int) -> Step:
    """Take blueprint choice `index`; the round's drops begin."""
    if not isinstance(state.phase, Blueprints):
        raise IllegalMoveError("take_blueprint: no blueprint is on offer")
    choices = state.phase.choices
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(choices):
        raise IllegalMoveError(f"take_blueprint: choice {index!r} is not one of the {len(choices)} choices")
    key = choices[index]
    state = replace(state, blueprints=(*state.blueprints, key))
    return replace(state, phase=Dropping(drops_for_round(state))), (BlueprintTaken(key),)


def decline_blueprint(state: RunState) -> Step:
    """Take no blueprint; the round's drops begin."""
    if not isinstance(state.phase, Blueprints):
        raise IllegalMoveError("decline_blueprint: no blueprint is on offer")
    return replace(state, phase=Dropping(drops_for_round(state))), (BlueprintDeclined(),)


def apply_drop(state: RunState, column: Column) -> Step:
    """Drop a marble down `column`; after the round's last drop the quota is checked (every drop of
    a round resolves, even past the quota)."""
    if not isinstance(state.phase, Dropping):
        raise IllegalMoveError(f"apply_drop: the run is not dropping (phase {type(state.phase).__name__})")
    if isinstance(column, bool) or not isinstance(column, int) or not 0 <= column < COLS:
        raise IllegalMoveError(f"apply_drop: column {column!r} is not on the board (0 to {COLS - 1})")
    total, log = simulate_drop(state.board, Column(column), rules_for(state))
    left = state.phase.drops_left - 1
    state = replace(state, round_score=state.round_score + total, total_score=state.total_score + total,
                    phase=Dropping(left))
    events: tuple[RunEvent, ...] = (Dropped(state.round, Column(column), total, log),)
    if left > 0:
        return state, events
    quota = quota_for(state)
    if state.round_score < quota:
        state = replace(state, phase=RunOver(False))
        return state, (*events, RoundMissed(state.round, state.round_score, quota),
                       RunEnded(False, state.total_score, state.rounds_cleared))
    cleared = RoundCleared(state.round, state.round_score, quota)
    state = replace(state, rounds_cleared=state.rounds_cleared + 1)
    if state.round + 1 >= rounds_in(state):
        state = replace(state, phase=RunOver(True))
        return state, (*events, cleared, RunEnded(True, state.total_score, state.rounds_cleared))
    state = replace(state, round=state.round + 1, round_score=0, received=())
    state, dealt = _deal(state)
    return state, (*events, cleared, *dealt)

