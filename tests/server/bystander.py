"""The abuse tests' bystander: a match of two server bots that runs while an attack does, whose frame
lateness is printed afterwards (never asserted: the tests must not depend on the machine's speed)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from server.embed import RunningServer
from server.node import Node
from tests.server.helpers import UNIT, until


async def start_bystander(server: RunningServer) -> Node:
    """Start the bystander's match (competent against lazy) on `server`; its node, once it runs."""
    node: Node = server.app.state.node
    node.hub.create_bot_duel("competent", "lazy")
    await until(lambda: node.stats()["running"] == 1, 10 * UNIT, "the bystander's match running")
    return node


def print_lateness(node: Node, what: str = "meanwhile") -> None:
    """The bystander's frame lateness so far, as `/health` reports it (printed, never asserted)."""
    lateness = node.stats()["lateness_ms"]
    print(f"\nbystander's frame lateness {what}: p50 {lateness['p50']} ms, p99 {lateness['p99']} ms, "
          f"max {lateness['max']} ms over {lateness['samples']} wake-ups")


@asynccontextmanager
async def bystander_match(server: RunningServer) -> AsyncIterator[Node]:
    """The bystander's match runs for the block; its lateness is printed at the end."""
    node = await start_bystander(server)
    yield node
    print_lateness(node)
