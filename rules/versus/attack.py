"""Sending an attack, as pure functions of plain values and the `AttackTable`.

A frame's board events are worth units (`attack_units`); an attack soon after the sender's previous
one adds the chain bonus (`chain`), late in a match units are multiplied (`margin`), the bonus first
(`boost` is the two in that order); the result first
cancels the sender's own pending packets, oldest first (`offset`), and what is left is sent as one
`Packet` to the live opponent with the highest score (`target`). `VersusMatch.step` composes them
and writes the records; none of these functions sees a match.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from rules.kick.events import Crush, Eat, EggBroken, KickEvent, Line, RoundClear

from .tables import AttackTable


class Packet(NamedTuple):
    """Pending units on their way to a seat (telegraphed): plain as [id, source, units, lands_at]."""

    id: int
    """The packet's number in its match (1, 2, …), as the Queued record names it."""
    source: int
    """The seat that sent it."""
    units: int
    """The units still in it (an offset or a capped landing takes some)."""
    lands_at: int
    """The frame from which it may land."""


def attack_units(events: Sequence[KickEvent], table: AttackTable) -> tuple[int, tuple[str, ...]]:
    """The units one board's events of a frame are worth, and the reason of each event that paid.

    Crushes pay by the Sno-Bees in one slide (4 and more pay the last entry), diamond lines less
    against the wall, eaten Sno-Bees and broken eggs a fixed amount, round clears a base plus the
    first time-bonus tier the bonus reaches. Other events pay nothing.
    """
    units = 0
    reasons: list[str] = []
    for event in events:
        if isinstance(event, Crush):
            count = len(event.ids)
            units += table.crush[min(count, len(table.crush)) - 1]
            reasons.append(f"crush{count}")
        elif isinstance(event, Line):
            units += table.line_wall if event.along_wall else table.line
            reasons.append("line")
        elif isinstance(event, Eat):
            units += table.eat
            reasons.append("eat")
        elif isinstance(event, EggBroken):
            units += table.egg
            reasons.append("egg")
        elif isinstance(event, RoundClear):
            units += table.round_clear + next(
                (extra for points, extra in table.round_clear_tiers if event.bonus >= points), 0
            )
            reasons.append("round-clear")
    return units, tuple(reasons)


def chain(units: int, last_attack: int | None, frame: int, table: AttackTable) -> tuple[int, bool]:
    """(units plus the chain bonus, True) when the sender's previous attack was at most
    `chain_frames` before `frame`, else (units, False)."""
    if last_attack is not None and frame - last_attack <= table.chain_frames:
        return units + table.chain_bonus, True
    return units, False


def margin(units: int, frame: int, table: AttackTable) -> tuple[int, bool]:
    """(units × margin_num / margin_den rounded down, at least 1; True) from `margin_from_frame` on,
    else (units, False)."""
    if frame >= table.margin_from_frame:
        return max(1, units * table.margin_num // table.margin_den), True
    return units, False


class Boosted(NamedTuple):
    """An attack's units after the chain bonus and the margin multiplier, and which of them applied."""

    units: int
    """The units sent (before the offset)."""
    chain: bool
    """The chain bonus was added."""
    margin: bool
    """Margin time multiplied the units."""


def boost(units: int, last_attack: int | None, frame: int, table: AttackTable) -> Boosted:
    """Units earned on `frame` as sent: the chain bonus is added first, then margin time multiplies."""
    units, chained = chain(units, last_attack, frame, table)
    units, in_margin = margin(units, frame, table)
    return Boosted(units, chained, in_margin)


def offset(units: int, pending: tuple[Packet, ...]) -> tuple[int, tuple[Packet, ...]]:
    """Outgoing `units` cancel the sender's own pending packets, oldest first.

    Returns the units cancelled (never more than `units` nor than are pending) and the packets left:
    the ones cancelled whole are gone, a partly cancelled one keeps the rest of its units.
    """
    cancelled = 0
    index = 0
    while index < len(pending) and cancelled < units:
        packet = pending[index]
        take = min(units - cancelled, packet.units)
        cancelled += take
        if take < packet.units:
            return cancelled, (packet._replace(units=packet.units - take), *pending[index + 1 :])
        index += 1
    return cancelled, pending[index:]


def target(sender: int, alive: Sequence[bool], scores: Sequence[int]) -> int | None:
    """The seat an attack from `sender` goes to: the live opponent with the highest score, ties to the
    first such seat after the sender in seat order (the leader is pressed, deterministically); None
    when no opponent is left."""
    seats = len(alive)
    best: int | None = None
    for step in range(1, seats):
        other = (sender + step) % seats
        if alive[other] and (best is None or scores[other] > scores[best]):
            best = other
    return best
