"""What changed since the frame before: the stream's per-frame actors, delta-coded against the last frame.

A ruleset's `Match.actors()` shows, per seat, `[summary, records, notes]` (rules/ruleset.py): a list
of values compared by index, one integer record `[key, px, py, …]` per thing that moves, and the
step's notes. The stream sends per seat only the difference from the frame before it (in the
stream's own order: after a `rewind`, from the frame before the rewound one, which the client
keeps), as an array whose trailing empty parts are left out:

    [summary changes, moves, records, gone, notes]

- `summary changes`: flat `[index, value, index, value, …]` for every summary value that changed;
- `moves`: flat `[key, step, key, step, …]` for each record whose only change is a small move:
  `step = (dx + 4) × 9 + (dy + 4)` with −4 ≤ dx, dy ≤ 4 pixels (0 … 80, one msgpack byte);
- `records`: every record that is new or changed otherwise, whole;
- `gone`: the keys of the records that are no longer shown;
- `notes`: the step's notes, as the rules wrote them.

A seat with nothing new is `[]`. `apply` rebuilds a seat's `[summary, records]` from the one before,
so every record's pixel position on every frame is the client's to know exactly.
"""

from __future__ import annotations

from typing import Any

from rules.changes import MAX_STEP, STEP_SPAN, seat_change


def _by_key(old_records: list[Any], records: list[Any]) -> tuple[list[int], list[Any], list[int]]:
    """Moves, whole records and gone keys, matching records by key (a record appeared or went)."""
    old = {record[0]: record for record in old_records}
    moves: list[int] = []
    whole: list[Any] = []
    for record in records:
        previous = old.pop(record[0], None)
        if previous is None:
            whole.append(record)
        elif previous != record:
            dx, dy = record[1] - previous[1], record[2] - previous[2]
            if -MAX_STEP <= dx <= MAX_STEP and -MAX_STEP <= dy <= MAX_STEP and previous[3:] == record[3:]:
                moves += (record[0], (dx + MAX_STEP) * STEP_SPAN + dy + MAX_STEP)
            else:
                whole.append(record)
    return moves, whole, list(old)


def encode(before: list[Any], after: list[Any]) -> list[Any]:
    """Every seat's change from `before` to `after` (each seat `[summary, records, notes]`), in seat order.

    One function on purpose: it runs for every frame of every match, and the usual frame (the
    summary the very list it was, the same records in the same order, a few of them a pixel on) takes
    one pass over each seat's records with no call.
    """
    out: list[Any] = []
    for old_seat, seat in zip(before, after):  # noqa: B905 - one entry per seat on both sides
        old_summary, old_records = old_seat[0], old_seat[1]
        summary, records, notes = seat[0], seat[1], seat[2]
        changes: list[Any] = []
        if summary is not old_summary and summary != old_summary:
            for index, value in enumerate(summary):
                if index >= len(old_summary) or old_summary[index] != value:
                    changes += (index, value)
        moves: list[int] = []
        whole: list[Any] = []
        gone: list[int] = []
        if records is not old_records and records != old_records:
            if len(records) == len(old_records):
                for previous, record in zip(old_records, records):  # noqa: B905 - equal lengths
                    if previous == record:
                        continue
                    if previous[0] != record[0]:
                        moves, whole, gone = _by_key(old_records, records)
                        break
                    px, py = record[1], record[2]
                    dx, dy = px - previous[1], py - previous[2]
                    if -MAX_STEP <= dx <= MAX_STEP and -MAX_STEP <= dy <= MAX_STEP:
                        # Only the position moved? Compare with the position put back (cheaper than
                        # slicing both tails), then restore it.
                        record[1], record[2] = previous[1], previous[2]
                        moved_only = record == previous
                        record[1], record[2] = px, py
                        if moved_only:
                            moves.append(record[0])
                            moves.append((dx + MAX_STEP) * STEP_SPAN + dy + MAX_STEP)
                            continue
                    whole.append(record)
            else:
                moves, whole, gone = _by_key(old_records, records)
        out.append(seat_change(changes, moves, whole, gone, notes))
    return out


def encode_seat(before: list[Any], after: list[Any]) -> list[Any]:
    """One seat's change from `before` to `after` (both `[summary, records, notes]`)."""
    changes: list[Any] = encode([before], [after])[0]
    return changes


def apply_seat(before: list[Any], change: list[Any]) -> list[Any]:
    """A seat's `[summary, records, notes]` after `change`, from its `[summary, records, …]` before."""
    summary = list(before[0])
    records = {record[0]: list(record) for record in before[1]}
    parts = [*change, *([[]] * (5 - len(change)))]
    changes, moves, whole, gone, notes = parts
    for i in range(0, len(changes), 2):
        index = changes[i]
        summary += [None] * (index + 1 - len(summary))
        summary[index] = changes[i + 1]
    for i in range(0, len(moves), 2):
        record = records[moves[i]]
        step = moves[i + 1]
        record[1] += step // STEP_SPAN - MAX_STEP
        record[2] += step % STEP_SPAN - MAX_STEP
    for record in whole:
        records[record[0]] = list(record)
    for key in gone:
        records.pop(key, None)
    return [summary, list(records.values()), list(notes)]


def apply(before: list[Any], changes: list[Any]) -> list[Any]:
    """Every seat after `changes`."""
    return [apply_seat(old, change) for old, change in zip(before, changes, strict=True)]
