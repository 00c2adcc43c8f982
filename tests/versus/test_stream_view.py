"""What the stream shows of a versus match (rules/versus/view.py): the seat summaries, records and notes,
the compact events, and the tables published for clients — checked over long bot matches."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from protocol.delta import apply, encode
from rules.ruleset import seat_seed
from rules.versus.bots import make_bot
from rules.versus.events import record_plain
from rules.versus.match import VersusMatch, versus_config
from rules.versus.view import (
    BLOCK_KEY,
    BOARD_NOTE,
    LANDED_NOTE,
    OFFSET_NOTE,
    SUMMARY_FIELDS,
    TABLES,
    seat_summary,
)
from rules.versus.wire import ENEMY_FIELDS, EVENT_KINDS, WORD_FIELDS, WORDS, records_wire

README = Path(__file__).resolve().parents[2] / "protocol" / "README.md"
FIELD = {name: index for index, name in enumerate(SUMMARY_FIELDS)}


@cache
def played(seed: int, bots: tuple[str, ...], frames: int) -> list[tuple[list[Any], list[Any], list[Any]]]:
    """Each frame of a bot match: its records, its wire events, and what every seat shows after it."""
    match = VersusMatch(seed=seed, seats=len(bots))
    players = [make_bot(name, seat_seed(seed, seat)) for seat, name in enumerate(bots)]
    out = []
    while match.result is None and match.frame < frames:
        inputs = [bot.decide(match.seat_view(seat), match.frame) for seat, bot in enumerate(players)]
        records = match.step(inputs)
        out.append((records, records_wire(records), match.actors()))
    return out


MATCHES = ((7, ("competent", "competent"), 5400), (5, ("competent", "lazy", "competent", "lazy"), 3600))


def test_the_readme_prints_the_tables_exactly() -> None:
    """protocol/README.md's copy of the stream tables is `TABLES`, field for field."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"### Stream tables.*?```text\n(.*?)\n```", text, flags=re.DOTALL)
    assert block is not None
    assert json.loads(block.group(1)) == json.loads(json.dumps(TABLES))


def word(value: Any) -> Any:
    """A word code's word (anything else as it is: an enemy id in `by`, None)."""
    return WORDS[value] if isinstance(value, int) and not isinstance(value, bool) else value


def decode(values: list[Any]) -> dict[str, Any]:
    """A wire event back to the canonical plain map (a client's reading, with the tables)."""
    kind, fields = EVENT_KINDS[values[0]]
    plain: dict[str, Any] = {"kind": kind}
    for name, value in zip(fields, values[1:], strict=True):
        if name in WORD_FIELDS:
            value = [word(v) for v in value] if isinstance(value, list) else word(value)
        if name in ENEMY_FIELDS:
            value = [f"sno-bee-{v}" for v in value] if isinstance(value, list) else f"sno-bee-{value}"
        plain[name] = value
    return plain


def test_wire_events_read_back_as_the_log() -> None:
    """Every compact event, read with the published tables, is its canonical log record."""
    for seed, bots, frames in MATCHES:
        for records, wire, _ in played(seed, bots, frames):
            for record, values in zip(records, wire, strict=True):
                assert json.loads(json.dumps(decode(values))) == json.loads(json.dumps(record_plain(record)))


def test_deltas_rebuild_every_frame() -> None:
    """Applying each frame's delta to the frame before gives exactly what the seats show, for the
    reference encoder and for the match's own `changes`, through restores (rollbacks) too."""
    for seed, bots, frames in MATCHES:
        shown = VersusMatch(seed=seed, seats=len(bots)).actors()
        for _, _, actors in played(seed, bots, frames):
            rebuilt = apply(shown, encode(shown, actors))
            for seat, truth in zip(rebuilt, actors, strict=True):
                assert seat[0] == list(truth[0]) and sorted(seat[1]) == sorted(truth[1])
                assert seat[2] == list(truth[2])
            shown = actors
        changes_rebuild(VersusMatch(seed=seed, seats=len(bots)), seed, bots, frames)


def test_deltas_rebuild_every_frame_in_version_2() -> None:
    """The same for pengo-versus 2, whose landed eggs open enemy slots in the middle of a round."""
    for seed, bots, frames in MATCHES:
        changes_rebuild(VersusMatch(versus_config(2), seed=seed, seats=len(bots)), seed, bots, frames)


def changes_rebuild(match: VersusMatch, seed: int, bots: tuple[str, ...], frames: int) -> None:
    """Play `match` with bots, restoring an earlier snapshot half-way: every frame, the match's own
    `changes` applied to what the seats showed before give exactly what they show now."""
    players = [make_bot(name, seat_seed(seed, seat)) for seat, name in enumerate(bots)]
    before = match.actors()
    snapshot, rewound = match.snapshot(), False
    while match.result is None and match.frame < frames:
        if match.frame == frames // 2 and not rewound:
            match.restore(snapshot)  # the changes after a restore start from the restored state
            before, rewound = match.actors(), True
        inputs = [bot.decide(match.seat_view(seat), match.frame) for seat, bot in enumerate(players)]
        match.step(inputs)
        rebuilt = apply(before, match.changes())
        before = match.actors()
        for seat, truth in zip(rebuilt, before, strict=True):
            assert seat[0] == list(truth[0]) and sorted(seat[1]) == sorted(truth[1]), match.frame
            assert seat[2] == list(truth[2])
        if match.frame == frames // 4:
            snapshot = match.snapshot()


def summaries(seed: int, bots: tuple[str, ...], frames: int, seat: int) -> list[list[Any]]:
    """One seat's summary after every frame."""
    return [actors[seat][0] for _, _, actors in played(seed, bots, frames)]


def test_each_status_ends_on_the_frame_it_announced() -> None:
    """A status with an end frame changes on exactly that frame; lives drop when the death ends."""
    checked = 0
    for seed, bots, frames in MATCHES:
        for seat in range(len(bots)):
            rows = summaries(seed, bots, frames, seat)
            for frame in range(1, len(rows)):
                before, after = rows[frame - 1], rows[frame]
                end = before[FIELD["status_end"]]
                if before[FIELD["out"]] or end < 0:
                    continue
                changed = after[FIELD["status"]] != before[FIELD["status"]]
                assert changed == (frame == end), (seed, seat, frame, end)
                checked += changed
                if before[FIELD["status"]] == WORDS.index("dying") and changed:
                    assert after[FIELD["lives"]] == before[FIELD["lives"]] - 1
    assert checked > 20


def test_a_board_note_starts_every_level_and_life() -> None:
    """Every level start and every life after a death brings the whole board (the respawn's cleared ice);
    the first level's board is keyframe 0's."""
    starts_seen = 0
    for seed, bots, frames in MATCHES:
        for records, _, actors in played(seed, bots, frames)[1:]:
            starts = {r.seat for r in records if record_plain(r)["kind"] == "level-start"}
            for seat in starts:
                notes = actors[seat][2]
                assert any(note[0] == BOARD_NOTE for note in notes), (seed, seat)
                starts_seen += 1
        rows = played(seed, bots, frames)
        for frame in range(1, len(rows)):
            for seat, (summary, _, notes) in enumerate(rows[frame][2]):
                before = rows[frame - 1][2][seat][0][FIELD["status"]]
                if before == WORDS.index("dying") and summary[FIELD["status"]] == WORDS.index("ready"):
                    assert any(note[0] == BOARD_NOTE for note in notes), (seed, seat, frame)
                    starts_seen += 1
    assert starts_seen > 4


def test_landing_and_offset_notes_name_blocks_and_packets() -> None:
    """A landing's note names its new blocks (one per cell) and the packets it took; an offset's, its
    packets."""
    landings = offsets = 0
    for seed, bots, frames in MATCHES:
        for records, _, actors in played(seed, bots, frames):
            for record in records:
                plain = record_plain(record)
                if plain["kind"] == "landing":
                    note = next(n for n in actors[plain["seat"]][2] if n[0] == LANDED_NOTE)
                    assert len(note[2]) == len(plain["blocks"]) + len(plain["gems"]) and note[1]
                    landings += 1
                elif plain["kind"] == "offset":
                    assert any(n[0] == OFFSET_NOTE and n[1] for n in actors[plain["seat"]][2])
                    offsets += 1
    assert landings > 3 and offsets > 0


def test_sliding_blocks_are_records_and_eggs_show_while_they_flash() -> None:
    """A sliding block is a record keyed past BLOCK_KEY; egg blocks are listed only inside the flash
    window."""
    slid = flashed = 0
    for seed, bots, frames in MATCHES:
        for _, _, actors in played(seed, bots, frames):
            for summary, records, _ in actors:
                slid += any(record[0] >= BLOCK_KEY for record in records)
                eggs = summary[FIELD["egg_blocks"]]
                assert bool(eggs) <= (summary[FIELD["flash_end"]] >= 0)
                flashed += bool(eggs)
    assert slid > 100 and flashed > 100


def test_a_summary_shown_again_is_the_summary_built_afresh() -> None:
    """The summary a seat shows on every frame (reused while nothing could have changed it) equals the one
    built from the board at that frame, through rollbacks (restore) as well."""
    for seed, bots, frames in MATCHES:
        match = VersusMatch(seed=seed, seats=len(bots))
        players = [make_bot(name, seat_seed(seed, seat)) for seat, name in enumerate(bots)]
        snapshots: dict[int, Any] = {}
        rewound: set[int] = set()
        while match.result is None and match.frame < frames:
            if match.frame % 97 == 0:
                snapshots[match.frame] = match.snapshot()
            if match.frame % 389 == 0 and snapshots and match.frame not in rewound:
                rewound.add(match.frame)
                match.restore(snapshots[max(snapshots)])  # go back and play the same frames again
                match.actors()
            inputs = [bot.decide(match.seat_view(seat), match.frame) for seat, bot in enumerate(players)]
            match.step(inputs)
            shown = match.actors()
            for seat, (summary, _, _) in zip(match.seat_states, shown, strict=True):
                assert summary == seat_summary(seat, match.frame), (seed, seat.index, match.frame)
