"""simulate_drop: a board, a column and the Rules → the total banked and the ordered DropEvent log.

Pure: no timers, no animation, no randomness (the same machine and the same column always pay the
same; all randomness lives in the draft). The view replays the log at any speed; the breakdown reads
it. A marble falls row by row down its column; each part it meets fires once per pass
(`apply_part`). The caller owns position: a Spring's lift, a Prism's copies and a Crucible's stop are
effects `apply_part` returns and `simulate_drop` carries out.

Order along the path is the whole strategy: adds before a Prism are duplicated, a Coil after many
adds multiplies them all. Resolution is never reordered.

Tuning Forks: a part beside a fork (left, right, above, below) fires with k = 2, which doubles its
effect (an add twice, a multiplier squared, two copies from a prism, a lift twice as high). Doubling
does not stack (two forks beside a part still give k = 2) and forks never double each other.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import assert_never

from .content import N
from .types import (
    CELLS,
    COLS,
    ROWS,
    Bank,
    Board,
    Capped,
    CellIndex,
    Column,
    DropEvent,
    Enter,
    PartKey,
    Rules,
    Spawn,
    Trigger,
    cell_at,
    col_of,
    row_of,
)

#: The most marbles one drop may hold, the first included: a prism's copy past it is refused (Capped).
MARBLE_CAP = 16
#: How many rows a Spring lifts a marble (k times under a fork).
SPRING_LIFT = N.spring_lift
#: The most a marble can be worth: JavaScript's largest exact integer (the browser shows the log), so a
#: value never loses a digit on the way to a view. No board a run can build comes near it.
VALUE_CAP = 2**53 - 1


@dataclass(slots=True)
class Marble:
    """A marble in flight (simulate_drop's own, never handed out)."""

    ident: int
    value: int
    col: int
    row: int
    bounced: bool = False
    last_change: int = 0
    springs: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Effect:
    """What a part does to a marble: its new value, a column shift, a lift, copies, a stop, the label."""

    value: int
    label: str
    shift: int = 0
    lift: int = 0
    copies: int = 0
    stop: bool = False


def is_forked(board: Board, cell: CellIndex, rules: Rules) -> bool:
    """Is a Tuning Fork beside this cell (left, right, above, below)? Never for a fork itself."""
    if not rules.forks or board[cell] == "fork":
        return False
    row, col = row_of(cell), col_of(cell)
    for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
        if 0 <= r < ROWS and 0 <= c < COLS and board[cell_at(r, c)] == "fork":
            return True
    return False


def _count_row(board: Board, cell: CellIndex) -> int:
    row = row_of(cell)
    return sum(1 for c in range(COLS) if board[cell_at(row, c)] is not None)


def _count_column_others(board: Board, cell: CellIndex) -> int:
    col = col_of(cell)
    return sum(1 for r in range(ROWS) if board[cell_at(r, col)] is not None) - 1


def _fold(label: str, k: int) -> str:
    return label if k == 1 else f"{label} (fork ×{k})"


def apply_part(
    kind: PartKey, marble: Marble, board: Board, cell: CellIndex, rules: Rules, k: int, caught: int
) -> Effect:
    """What part `kind` at `cell` does to `marble` (k = 2 when forked; `caught` = marbles this part has
    caught before in this drop). Exhaustive over PartKey: an unhandled kind fails mypy and, at run
    time, assert_never."""
    value = marble.value
    match kind:
        case "peg":
            return Effect(value + N.peg * k, _fold(f"+{N.peg}", k))
        case "bumper":
            return Effect(value + N.bumper * k, _fold(f"+{N.bumper}", k))
        case "bell":
            if not rules.bells:
                return Effect(value, "bell silent (noBells)")
            add = N.bell + rules.bell_bonus
            return Effect(value + add * k, _fold(f"ding +{add}", k))
        case "lantern":
            add = _count_row(board, cell)
            return Effect(value + add * k, _fold(f"+{add} (row)", k))
        case "coil":
            return Effect(value * N.coil**k, _fold(f"×{N.coil}", k))
        case "gear":
            out = value
            for _ in range(k):
                out = out * N.gear_num // N.gear_den
            return Effect(out, _fold(f"×{N.gear_num}/{N.gear_den}", k))
        case "crucible":
            return Effect(value * N.crucible**k, _fold(f"×{N.crucible}, banked", k), stop=True)
        case "prism":
            return Effect(value, _fold("split", k), copies=k)
        case "spring":
            if not rules.springs:
                return Effect(value, "spring dead (deadSprings)")
            if marble.springs.get(cell, 0) >= rules.spring_fires:
                return Effect(value, "spring spent")
            return Effect(value, _fold(f"↑{SPRING_LIFT}", k), lift=SPRING_LIFT * k)
        case "ramp_left":
            return Effect(value, _fold("←", k), shift=-k)
        case "ramp_right":
            return Effect(value, _fold("→", k), shift=k)
        case "fork":
            return Effect(value + N.fork_hum, f"hum +{N.fork_hum}")
        case "cup":
            add = N.cup_step * (caught + 1)
            return Effect(value + add * k, _fold(f"catch +{add}", k))
        case "magnet":
            add = N.magnet * _count_column_others(board, cell)
            return Effect(value + add * k, _fold(f"+{add} (column)", k))
        case "echo":
            add = marble.last_change
            return Effect(value + add * k, _fold(f"echo {add:+d}", k))
        case "drum":
            add = N.drum_bounced if marble.bounced else N.drum
            return Effect(value + add * k, _fold(f"boom +{add}", k))
        case "rust":
            return Effect(max(0, value - N.rust * k), _fold(f"rust −{N.rust}", k))
        case "snag":
            out = value
            for _ in range(k):
                out //= 2
            return Effect(out, _fold("snag ½", k))
        case _:
            assert_never(kind)


def check_drop(board: Board, column: int) -> None:
    """ValueError unless the board has CELLS slots and the column is on it."""
    if len(board) != CELLS:
        raise ValueError(f"board: expected {CELLS} cells, got {len(board)}")
    if isinstance(column, bool) or not isinstance(column, int) or not 0 <= column < COLS:
        raise ValueError(f"column: must be an integer from 0 to {COLS - 1}, got {column!r}")


def simulate_drop(board: Board, column: Column, rules: Rules) -> tuple[int, tuple[DropEvent, ...]]:
    """Drop one marble down `column`: the total banked by every marble of the drop, and the log."""
    check_drop(board, column)
    events: list[DropEvent] = []
    start = (column + 1) % COLS if rules.slippery else column
    label = f"slid to column {start + 1} (slippery)" if rules.slippery else "drop"
    first = Marble(0, rules.start_value, start, 0)
    events.append(Enter(0, cell_at(0, start), first.value, label))
    queue = deque([first])
    spawned = 1
    caught: dict[int, int] = {}
    total = 0
    while queue:
        marble = queue.popleft()
        while marble.row < ROWS:
            cell = cell_at(marble.row, marble.col)
            kind = board[cell]
            if kind is None:
                marble.row += 1
                continue
            k = N.fork_k if is_forked(board, cell, rules) else 1
            effect = apply_part(kind, marble, board, cell, rules, k, caught.get(cell, 0))
            before = marble.value
            if kind == "cup":
                caught[cell] = caught.get(cell, 0) + 1
            marble.value = min(effect.value, VALUE_CAP)
            if marble.value != before:
                marble.last_change = marble.value - before
            events.append(Trigger(marble.ident, cell, kind, before, marble.value, effect.label))
            for copy in range(effect.copies):
                if spawned >= MARBLE_CAP:
                    events.append(Capped(marble.ident, cell, f"cap: {MARBLE_CAP} marbles"))
                    continue
                side = _side(marble.col, copy)
                twin = Marble(spawned, marble.value, side, marble.row + 1, marble.bounced, marble.last_change)
                events.append(Spawn(twin.ident, marble.ident, cell, Column(side), twin.value, "copy"))
                queue.append(twin)
                spawned += 1
            if effect.stop:
                break
            if effect.lift:
                marble.springs[cell] = marble.springs.get(cell, 0) + 1
                marble.bounced = True
                marble.row = max(0, marble.row - effect.lift)
                continue
            marble.col = min(COLS - 1, max(0, marble.col + effect.shift))
            marble.row += 1
        last = cell_at(min(marble.row, ROWS - 1), marble.col)
        events.append(Bank(marble.ident, last, marble.value))
        total += marble.value
    return total, tuple(events)


def _side(col: int, copy: int) -> int:
    """The column a prism's copy leaves by: right first (left at the right edge), the second copy the
    other way (or the same way at an edge)."""
    right = col + 1 if col + 1 < COLS else col - 1
    if copy == 0:
        return right
    left = col - 1 if col - 1 >= 0 else col + 1
    return left if right != left else right
