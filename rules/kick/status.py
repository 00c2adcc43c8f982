"""A session's status: the closed vocabulary of where a round is (the seed API's status strings).

`KickStatus` is a `StrEnum`, so a member equals its string (`game.status == "playing"` holds) and
events, states and views carry the seed's strings; snapshots hold the `.value` (marshal and the
canonical checksum take plain strings only).
"""

from __future__ import annotations

import enum


class KickStatus(enum.StrEnum):
    """Where the session is in a round."""

    DRAWING = "drawing"
    """The act's maze is being carved (the intro); nothing moves."""

    READY = "ready"
    """READY is shown before a life starts; the round clock runs, nothing moves."""

    PLAYING = "playing"
    """A life in play: the player, the enemies and the blocks move."""

    BONUS = "bonus"
    """The diamond line's payout: play stops while the bonus is counted."""

    DYING = "dying"
    """The player was caught: the death animation, then a new life or the end."""

    CLEAR = "clear"
    """The round was cleared: the time bonus, then the next level."""

    LOST = "lost"
    """The last life was lost: the game is over."""

    COMPLETE = "complete"
    """The last level of a game that does not loop was cleared."""


#: Every status's string, in the vocabulary's order.
STATUSES: tuple[str, ...] = tuple(status.value for status in KickStatus)
