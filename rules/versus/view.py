"""What a seat shows: the read-only view a bot plays from, and what the stream draws each frame.

The arcade's state codes (rules/kick/actors.py) are decoded here and nowhere else: an enemy's slot
state becomes its visible phase (`PHASE_OF_STATE`, plus whether a stunned Sno-Bee blinks), Pengo's
state becomes an action (walk, push, break, shake, dying).

- `SeatView` is what a player sees of one board, as immutable values built when read: the status,
  the level, Pengo, the enemies on the board, the resting and moving blocks, and which blocks hold an
  egg *while the eggs flash* (the only time they are on screen). Bots (rules/versus/bots/) read
  this, never the live `KickGame`: nothing a bot does can change a match, and it cannot see the
  random stream, a slot's mode or timers, or hidden eggs.
- `frame_actors` and `keyframe_view` are what the stream shows, in arcade pixels (16 to a cell): per
  seat and frame a summary (status and the frame it ends, lives, level, act, score, eggs and enemies
  left, the egg flash, the respawn cell, the pending attacks, the counter gems), one integer record
  per thing that moves, and the step's notes (a new board, a landing's block ids and packets, an
  offset's packets); `TABLES` names every field and word. protocol/README.md documents the layouts.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from rules.changes import MAX_STEP, STEP_SPAN, seat_change
from rules.kick.actors import (
    BLINKING,
    GONE,
    HATCH_NEXT,
    MODE_FLEE,
    MOVING,
    NEVER,
    P_DYING,
    P_WALK,
    PHASE_OF_STATE,
    PLAYER_ACTION,
    STUNNED,
)
from rules.kick.board import Block, KickBoard
from rules.kick.game import KickGame
from rules.kick.geometry import DIRECTIONS, Direction
from rules.kick.status import KickStatus
from rules.kick.tables import PASSES_PER_FRAME

from .wire import CODE, ENEMY_FIELDS, EVENT_KINDS, STATUSES, WORD_FIELDS, WORDS, enemy_number, word

if TYPE_CHECKING:
    from .match import VersusMatch
    from .seat import SeatState

#: Slot states with nothing on the board to show.
_HIDDEN = (GONE, HATCH_NEXT)


class PlayerView(NamedTuple):
    """Pengo as seen: where, facing, whether he can walk now (in play, not pushing, breaking,
    shaking or dying), whether he is between cells, and whether he is dead."""

    px: int
    py: int
    facing: Direction
    walking: bool
    moving: bool
    dead: bool


class EnemyView(NamedTuple):
    """An enemy on the board: its id, position, visible phase (rules.kick.actors.PHASE_OF_STATE's
    names: pause, moving, stunned, hatching, …), whether it blinks (a stun about to end) and facing."""

    id: str
    px: int
    py: int
    phase: str
    blinking: bool
    facing: Direction


class BlockView(NamedTuple):
    """A block as seen: id, cell, pixel position, material, whether its material slides when kicked,
    whether it is shattering, and whether it is sliding."""

    id: int
    cx: int
    cy: int
    px: int
    py: int
    material: str
    slides: bool
    breaking: bool
    moving: bool


class BoardView:
    """The blocks of one board, read-only: every read builds immutable values from the live board (the
    board of the level in play: a new level brings a new board)."""

    __slots__ = ("_game",)

    def __init__(self, game: KickGame) -> None:
        self._game = game

    @property
    def _board(self) -> KickBoard:
        return self._game.board

    @property
    def cols(self) -> int:
        """Columns."""
        return self._board.cols

    @property
    def rows(self) -> int:
        """Rows."""
        return self._board.rows

    def inside(self, x: int, y: int) -> bool:
        """Is the cell on the board?"""
        return self._board.inside(x, y)

    def tile_free(self, x: int, y: int) -> bool:
        """Is the cell on the board and free of blocks?"""
        return self._board.tile_free(x, y)

    def occupancy(self) -> tuple[int, ...]:
        """Row by row, the id of the block in each cell (0 for a free cell)."""
        return tuple(self._board.grid)

    def _view(self, block: Block) -> BlockView:
        return BlockView(
            block.id,
            block.cx,
            block.cy,
            block.px,
            block.py,
            block.material,
            self._game.materials[block.material].slides,
            block.breaking is not None,
            block.motion is not None,
        )

    def block_at(self, x: int, y: int) -> BlockView | None:
        """The block in a cell, or None."""
        block = self._board.block_at(x, y)
        return None if block is None else self._view(block)

    def block(self, block_id: int) -> BlockView | None:
        """A block by id, or None once it is gone."""
        block = self._board.blocks.get(block_id)
        return None if block is None else self._view(block)

    def blocks(self) -> tuple[BlockView, ...]:
        """Every block, in the board's order."""
        view = self._view
        return tuple(view(block) for block in self._board.blocks.values())


class IncomingView(NamedTuple):
    """An attack on its way to the seat, as the telegraph shows it: its units and the frame it lands on."""

    units: int
    lands_at: int


class SeatView:
    """What the player of one seat sees of its board (see the module docstring); with the seat (in a
    match) also the telegraph of the attacks on their way to it and whether a landing's hurry lasts."""

    __slots__ = ("_game", "_seat", "board")

    def __init__(self, game: KickGame, seat: SeatState | None = None) -> None:
        self._game = game
        self._seat = seat
        self.board = BoardView(game)

    @property
    def incoming(self) -> tuple[IncomingView, ...]:
        """The attacks pending against the seat, oldest first (none for a lone board)."""
        seat = self._seat
        if seat is None:
            return ()
        return tuple(IncomingView(packet.units, packet.lands_at) for packet in seat.pending)

    @property
    def hurried(self) -> bool:
        """Does a landing's hurry speed the seat's Sno-Bees up now?"""
        seat = self._seat
        return seat is not None and seat.hurry_until >= 0

    @property
    def status(self) -> str:
        """The board's status: ready, playing, dying, clear, bonus, lost, …"""
        return self._game.status

    @property
    def level(self) -> int:
        """The level (round) being played, from 1."""
        return self._game.level

    @property
    def eggs_flashing(self) -> bool:
        """Do the egg blocks show their eggs now (the flash at a round's start and its last enemies)?"""
        game = self._game
        return game.clock < game.flash_until

    def egg_blocks(self) -> tuple[int, ...]:
        """The ids of the blocks that show an egg: every egg block while the eggs flash, else none."""
        if not self.eggs_flashing:
            return ()
        return tuple(block.id for block in self._game.board.blocks.values() if block.egg is not None)

    @property
    def player(self) -> PlayerView:
        """Pengo."""
        game = self._game
        player = game.player
        walking = game.status == "playing" and not player.dead and player.state == P_WALK
        return PlayerView(player.px, player.py, player.facing, walking, player.moving, player.dead)

    def enemies(self) -> tuple[EnemyView, ...]:
        """The enemies on the board, in slot order."""
        return tuple(
            EnemyView(enemy.id, enemy.px, enemy.py, PHASE_OF_STATE[enemy.state], enemy.state == BLINKING,
                      enemy.dir)
            for enemy in self._game.slots
            if enemy.state not in _HIDDEN
        )


# ---- the stream ------------------------------------------------------------------------------------------
#
# Per frame, each seat shows `[summary, records, notes]` (the seam's `Match.actors`, which the stream
# delta-codes: protocol/delta.py): the summary's values by index (SUMMARY_FIELDS), one record per thing
# that moves (`[key, px, py, …]`, keys below), and the notes of the step just made (NOTE_KINDS). Words
# are rules/versus/wire.py's codes; frames are match frames (the frame on which a thing ends).

#: The seat summary's fields, in order.
SUMMARY_FIELDS: tuple[str, ...] = (
    "status", "status_end", "lives", "level", "act", "score", "eggs", "enemies", "flash_end",
    "egg_blocks", "out", "respawn", "pending", "gems",
)
#: `out`: still in the match, out of lives, forfeited.
IN_PLAY, OUT_OF_LIVES, FORFEITED = 0, 1, 2
#: Record keys: Pengo is 0, the enemy in slot s is ENEMY_KEY + s, a sliding block b is BLOCK_KEY + b.
PLAYER_KEY, ENEMY_KEY, BLOCK_KEY = 0, 1, 16
#: Each record's fields, in order.
RECORD_FIELDS: dict[str, tuple[str, ...]] = {
    "player": ("key", "px", "py", "facing", "action"),
    "enemy": ("key", "px", "py", "id", "kind", "phase", "facing", "until"),
    "block": ("key", "px", "py"),
}
#: Each note's code (its index) and fields: a note is `[code, value, …]`.
NOTE_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("board", ("cols", "rows", "blocks", "carve")),
    ("landed", ("packets", "blocks")),
    ("offset", ("packets",)),
)
BOARD_NOTE, LANDED_NOTE, OFFSET_NOTE = 0, 1, 2
#: A board's blocks, flat: these fields per block, one after another (state: damage × 2 for a whole
#: block, its cracks; 1 while it shatters).
BLOCK_FIELDS: tuple[str, ...] = ("id", "x", "y", "material", "state")

_W = CODE
_STATUS = {status: _W[status] for status in STATUSES}
_FACING = {direction: _W[direction] for direction in DIRECTIONS}
_DYING = _W["dying"]
_ACTION = {state: _W[action] for state, action in PLAYER_ACTION.items()}
_PHASE = {state: _W[phase] for state, phase in PHASE_OF_STATE.items() if phase != "gone"}
_PHASE[BLINKING] = _W["blinking"]
_MOVING_CODE, _CHEWING, _FLEEING = _W["moving"], _W["chewing"], _W["fleeing"]
_TIMED = (STUNNED, BLINKING)


def _frame_of(frame: int, due: int, now: int) -> int:
    """The match frame on which pass `due` of a seat's clock falls (the clock at `now` after frame − 1)."""
    return frame + -(-(due - now) // PASSES_PER_FRAME) - 1


#: An enemy's number and kind code by its id ("sno-bee-7" → (7, the code of "sno-bee"); an id names its
#: kind), each id parsed once: a pure memo, ids are few and repeat.
_TAGS: dict[str, tuple[int, int | str]] = {}
#: Ids the memo holds at most before it starts again.
_TAGS_BOUND = 4096


def _tag(enemy_id: str, kind: str) -> tuple[int, int | str]:
    if len(_TAGS) >= _TAGS_BOUND:
        _TAGS.clear()
    tag = _TAGS[enemy_id] = (enemy_number(enemy_id), _W.get(kind, kind))
    return tag


def seat_records(game: KickGame, frame: int, running: bool = True) -> list[list[Any]]:
    """One seat's moving things, whole: Pengo, the enemies on the board, the sliding blocks. `running`:
    the board is in play (its clock runs); when it is not, nothing moves and no stun counts down, so
    every `until` is 0."""
    now = game.now
    records: list[list[Any]] = [_player_record(game)]
    records += [
        _enemy_record(enemy, frame, now, running) for enemy in game.slots if enemy.state not in _HIDDEN
    ]
    records += [[BLOCK_KEY + block.id, block.px, block.py] for block in game.board.sliding_blocks]
    return records


def seat_summary(seat: SeatState, frame: int) -> list[Any]:
    """One seat's figures (SUMMARY_FIELDS): what changes rarely, compared frame to frame by the stream."""
    game = seat.game
    clock = game.clock
    due = game.status_due
    flashing = clock < game.flash_until
    eggs = list(game.egg_table) if flashing else []  # the eggs not hatched nor broken, in hatch order
    # A seat out of the match steps no more: nothing of its board ends.
    ends = seat.alive and due != NEVER
    return [
        _STATUS[game.status],
        _frame_of(frame, due, clock) if ends else -1,
        game.lives,
        game.level,
        game.act_of(game.level),
        game.score,
        game.eggs_left,
        game.remaining_count - game.eggs_left,
        _frame_of(frame, game.flash_until, clock) if flashing and seat.alive else -1,
        eggs,
        IN_PLAY if seat.alive else FORFEITED if seat.forfeited else OUT_OF_LIVES,
        game.start_cell,
        seat.pending,
        seat.gems,
    ]


def board_blocks(game: KickGame) -> list[Any]:
    """A board's blocks, flat (BLOCK_FIELDS per block)."""
    flat: list[Any] = []
    for block in game.board.blocks.values():
        flat += (block.id, block.cx, block.cy, word(block.material),
                 1 if block.breaking is not None else block.damage * 2)
    return flat


def board_note(game: KickGame) -> list[Any]:
    """The whole board (at a level's start and when a life starts: the respawn clears ice without an event),
    with the maze's carve order while the intro draws it."""
    carve: list[int] = []
    if game.status == "drawing":
        for cell in game.carve:
            carve += (cell.x, cell.y)
    return [BOARD_NOTE, game.board.cols, game.board.rows, board_blocks(game), carve]


class Shows(Protocol):
    """What `frame_actors` reads of a match (a versus match, a solo run): its seats, the frame, and the
    step's notes and summary memo (not state)."""

    frame: int
    notes: list[Any]
    summaries: list[tuple[tuple[bool, int, int], list[Any]] | None]
    summary_stale: list[bool]
    shown_actors: list[SeatShown]
    shown_summaries: list[list[Any]]

    @property
    def seat_states(self) -> Sequence[SeatState]:
        """The seats, in seat order."""
        ...


def frame_actors(match: Shows) -> list[Any]:
    """Every seat's `[summary, records, notes]` after the frame just stepped, in seat order (whole: a
    base for `protocol.delta`, tests, a toy client; the stream sends `frame_changes`)."""
    frame = match.frame
    summaries = frame_summaries(match)
    return [
        [summaries[seat.index], seat_records(seat.game, frame, seat.alive and seat.game.status == "playing"),
         match.notes[seat.index]]
        for seat in match.seat_states
    ]


_AT = attrgetter("px", "py")


#: Pengo's fields before anything was shown: no look equals it, so the first comparison sends him whole.
_NOTHING_SHOWN = (0, 0, None, None, None)


def _player_record(game: KickGame) -> list[Any]:
    player = game.player
    action = _DYING if player.dead or player.state == P_DYING else _ACTION[player.state]
    return [PLAYER_KEY, player.px, player.py, _FACING[player.facing], action]


def _enemy_record(enemy: Any, frame: int, now: int, running: bool) -> list[Any]:
    state = enemy.state
    until = 0
    if state == MOVING:
        phase = _FLEEING if enemy.mode >= MODE_FLEE and enemy.brain == "sno-bee" else (
            _CHEWING if enemy.chewing else _MOVING_CODE)
    else:
        phase = _PHASE[state]
        if running and state in _TIMED and enemy.due != NEVER:
            until = _frame_of(frame, enemy.due, now)
    tag = _TAGS.get(enemy.id) or _tag(enemy.id, enemy.kind)
    return [ENEMY_KEY + enemy.slot, enemy.px, enemy.py, tag[0], tag[1], phase, _FACING[enemy.dir], until]


class SeatShown:
    """What one seat showed after the last frame, as the raw fields its records come from (not state:
    `frame_changes` compares the next frame's with it): Pengo's and each slot's fields as the tuples
    `_seat_changes` reads (hidden slots included), and the sliding blocks' positions. It is filled by
    one run of `_seat_changes` from nothing shown, so the fields are read in one place only.

    `still` is the board's pass counter, status and status start after the last frame. While they stay
    the same no main-loop pass has run and no status has begun (a status other than play only counts
    its frames down, KickGame.advance), and nothing outside a pass moves or changes an actor, so the
    seat's actors are as they were (None: not read yet)."""

    __slots__ = ("running", "still", "player", "enemies", "blocks")

    def __init__(self, game: KickGame, running: bool) -> None:
        self.running = running
        self.still: tuple[int, str, int] | None = None
        self.player: tuple[Any, ...] = _NOTHING_SHOWN
        self.enemies: list[tuple[Any, ...] | None] = []
        self.blocks: dict[int, tuple[Any, Any]] = {}
        _seat_changes(game, self, 0, running)  # takes what the seat shows now; the change is not needed


def _seat_changes(
    game: KickGame, shown: SeatShown, frame: int, running: bool
) -> tuple[list[int], list[Any], list[int]]:
    """One seat's moves, whole records and gone keys since `shown` (which it updates). Run for every
    seat on every frame, so written for the common cases: an actor that did not change costs one
    tuple of its fields and one comparison, a move two subtractions more. The fields are read in the
    loop itself: a third of the cost of a call or an `attrgetter`. A slot's index is its `slot`."""
    moves: list[int] = []
    whole: list[Any] = []
    gone: list[int] = []
    same_clock = running == shown.running
    shown.running = running
    player = game.player
    look = (player.px, player.py, player.facing, player.state, player.dead)
    was = shown.player
    if look != was:
        shown.player = look
        dx, dy = look[0] - was[0], look[1] - was[1]
        if look[2:] == was[2:] and -MAX_STEP <= dx <= MAX_STEP and -MAX_STEP <= dy <= MAX_STEP:
            moves += (PLAYER_KEY, (dx + MAX_STEP) * STEP_SPAN + dy + MAX_STEP)
        else:
            whole.append(_player_record(game))
    slots = game.slots
    looks = shown.enemies
    if len(looks) != len(slots):
        # A landed egg opened a slot (version 2), or a new level closed the ones it had opened.
        count = len(slots)
        gone += (ENEMY_KEY + index for index in range(count, len(looks))
                 if (before := looks[index]) is not None and before[2] not in _HIDDEN)
        del looks[count:]
        looks += [None] * (count - len(looks))
    hidden = _HIDDEN
    index = -1
    for e in slots:
        index += 1
        seen: tuple[Any, ...] = (e.px, e.py, e.state, e.dir, e.mode, e.chewing, e.id, e.due, e.kind, e.brain)
        before = looks[index]
        if seen == before and same_clock:
            continue
        looks[index] = seen
        if seen[2] in hidden:
            if before is not None and before[2] not in hidden:
                gone.append(ENEMY_KEY + index)
            continue
        if same_clock and before is not None and seen[2:] == before[2:]:
            dx, dy = seen[0] - before[0], seen[1] - before[1]
            if -MAX_STEP <= dx <= MAX_STEP and -MAX_STEP <= dy <= MAX_STEP:
                moves += (ENEMY_KEY + index, (dx + MAX_STEP) * STEP_SPAN + dy + MAX_STEP)
                continue
        whole.append(_enemy_record(e, frame, game.now, running))
    sliding = game.board.sliding_blocks
    if sliding or shown.blocks:
        old = shown.blocks
        new: dict[int, tuple[Any, Any]] = {}
        for block in sliding:
            at = new[block.id] = _AT(block)
            key = BLOCK_KEY + block.id
            moving: tuple[Any, Any] | None = old.pop(block.id) if block.id in old else None
            if moving == at:
                continue
            if moving is not None:
                was = moving
                dx, dy = at[0] - was[0], at[1] - was[1]
                if -MAX_STEP <= dx <= MAX_STEP and -MAX_STEP <= dy <= MAX_STEP:
                    moves += (key, (dx + MAX_STEP) * STEP_SPAN + dy + MAX_STEP)
                    continue
            whole.append([key, at[0], at[1]])
        gone += (BLOCK_KEY + block_id for block_id in old)
        shown.blocks = new
    return moves, whole, gone


def remember_shown(match: Shows) -> None:
    """Take what every seat shows now as the base of the next `frame_changes` (a new match, a restore)."""
    match.shown_actors = [
        SeatShown(seat.game, seat.alive and seat.game.status == "playing") for seat in match.seat_states
    ]
    match.summaries = [None for _ in match.seat_states]
    match.summary_stale = [True for _ in match.seat_states]
    match.shown_summaries = frame_summaries(match)


def frame_summaries(match: Shows) -> list[list[Any]]:
    """Every seat's summary after the frame just stepped.

    A summary is built again only when the step may have changed it (`match.summary_stale`: the
    seat's status changed, a record named it, its gems were counted) or the egg flash or the count of
    enemies and eggs left changed (which they may do on a frame with no record); otherwise it is the
    very list shown before, and the stream compares it with one identity test. Its frames (a
    status's end) do not move while the clock runs towards them, so an unchanged summary stays exact."""
    frame = match.frame
    shown = match.summaries
    stale = match.summary_stale
    out = []
    for seat in match.seat_states:
        index = seat.index
        game = seat.game
        quick = (game.clock < game.flash_until, game.remaining_count, game.eggs_left)
        memo = shown[index]
        if stale[index] or memo is None or memo[0] != quick:
            summary = seat_summary(seat, frame)
            shown[index] = (quick, summary)
            stale[index] = False
        else:
            summary = memo[1]
        out.append(summary)
    return out


def frame_changes(match: Shows) -> list[Any]:
    """What every seat shows after the frame just stepped, as the change from what it showed after the
    frame before (protocol/delta.py's form, which `protocol.delta.apply` rebuilds): the stream's
    per-frame actors.

    No record is built to be compared: each actor's raw fields are read as one tuple and compared
    with the ones shown before (`SeatShown`), a still seat is skipped whole (`SeatShown.still`); only
    a record whose look changed (a turn, a new phase) is built and sent whole, and a move is two small
    integers. The base is what `remember_shown` took (a new match, a restore) or the last call's frame."""
    frame = match.frame
    before = match.shown_summaries
    summaries = frame_summaries(match)
    match.shown_summaries = summaries
    notes = match.notes
    shown = match.shown_actors
    out: list[Any] = []
    for seat in match.seat_states:
        index = seat.index
        game = seat.game
        changes: list[Any] = []
        summary, previous = summaries[index], before[index]
        if summary is not previous and summary != previous:
            for field, value in enumerate(summary):
                if previous[field] != value:
                    changes += (field, value)
        running = seat.alive and game.status is KickStatus.PLAYING
        seat_shown = shown[index]
        still = (game.now, game.status, game.status_start)  # see SeatShown.still
        if still == seat_shown.still and running == seat_shown.running:
            out.append(seat_change(changes, [], [], [], notes[index]))
            continue
        seat_shown.still = still
        moves, whole, gone = _seat_changes(game, seat_shown, frame, running)
        out.append(seat_change(changes, moves, whole, gone, notes[index]))
    return out


def seat_keyframe(seat: SeatState, name: str, frame: int) -> dict[str, Any]:
    """One seat's board in a keyframe: its name, size, summary, records and blocks (built afresh)."""
    game = seat.game
    return {
        "name": name,
        "cols": game.board.cols,
        "rows": game.board.rows,
        "summary": seat_summary(seat, frame),
        "records": seat_records(game, frame, seat.alive and game.status == "playing"),
        "blocks": board_blocks(game),
    }


def keyframe_view(match: VersusMatch) -> dict[str, Any]:
    """The whole visible state: per seat its name, board size, summary, records and blocks."""
    frame = match.frame
    return {
        "frame": frame,
        "time_left": max(0, match.rules.time_limit_frames - frame),
        "seats": [seat_keyframe(seat, match.names[seat.index], frame) for seat in match.seat_states],
    }


def stream_tables(event_kinds: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, Any]:
    """Everything a client needs to read the stream of a kick ruleset with these event kinds."""
    return {**TABLES, "events": [[kind, list(fields)] for kind, fields in event_kinds]}


#: Everything a client needs to read pengo-versus's stream, as plain data (`joined.tables`).
TABLES: dict[str, Any] = {
    "words": list(WORDS),
    "events": [[kind, list(fields)] for kind, fields in EVENT_KINDS],
    "word_fields": sorted(WORD_FIELDS),
    "enemy_fields": sorted(ENEMY_FIELDS),
    "summary": list(SUMMARY_FIELDS),
    "records": {name: list(fields) for name, fields in RECORD_FIELDS.items()},
    "keys": {"player": PLAYER_KEY, "enemy": ENEMY_KEY, "block": BLOCK_KEY},
    "notes": [[kind, list(fields)] for kind, fields in NOTE_KINDS],
    "block_fields": list(BLOCK_FIELDS),
    "out": ["in", "lives", "forfeited"],
    "pending": ["packet", "source", "units", "lands_at"],
    "gems": ["block", "count", "next_step"],
    "cell_px": 16,
}
