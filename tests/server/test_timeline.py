"""A seat's input timeline: told bytes, held directions with the kick dropped, pruning."""

from __future__ import annotations

from rules.versus.inputs import INPUTS
from server.netcode.timeline import InputTimeline

LEFT, LEFT_KICK, UP = 0x03, 0x0B, 0x01


def test_prediction_holds_the_direction_and_drops_the_kick() -> None:
    """After a told byte the direction is held and the kick is not repeated; before any, nothing is held."""
    timeline = InputTimeline(INPUTS)
    assert timeline.byte_at(0) == 0
    timeline.tell(2, LEFT_KICK)
    assert [timeline.byte_at(f) for f in range(5)] == [0, 0, LEFT_KICK, LEFT, LEFT]
    assert timeline.known_until == 3


def test_telling_the_held_byte_stores_nothing_but_advances_what_is_known() -> None:
    """A told byte equal to the held one adds no entry; known_until still moves on."""
    timeline = InputTimeline(INPUTS)
    timeline.tell(0, LEFT)
    for frame in range(1, 50):
        assert timeline.tell(frame, LEFT) == LEFT
    assert len(timeline) == 1 and timeline.known_until == 50


def test_prune_keeps_what_later_frames_read() -> None:
    """Pruning below a frame keeps every later frame's byte, the held one included."""
    timeline = InputTimeline(INPUTS)
    for frame, value in ((0, LEFT), (3, UP | 0x08), (6, LEFT_KICK)):
        timeline.tell(frame, value)
    before = [timeline.byte_at(f) for f in range(4, 10)]
    timeline.prune(5)
    assert [timeline.byte_at(f) for f in range(4, 10)][1:] == before[1:]
    assert timeline.byte_at(5) == UP and len(timeline) == 1


def test_close_refuses_everything_after() -> None:
    """A closed timeline is known forever and keeps holding its last byte."""
    timeline = InputTimeline(INPUTS)
    timeline.tell(4, 0x80)
    timeline.close()
    assert timeline.closed and timeline.byte_at(10_000) == 0x80
