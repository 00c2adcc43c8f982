"""The conformance suite's fixtures: the awaiting rulesets registered while each test runs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .rulesets import registered


@pytest.fixture(autouse=True)
def _awaiting_registered() -> Iterator[None]:
    """rules/payload's rulesets registered for the test (see tests/conformance/rulesets.py)."""
    with registered():
        yield
