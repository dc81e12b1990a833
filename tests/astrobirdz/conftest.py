"""Fixtures of the Astrobirdz tests."""

from __future__ import annotations

import astrobirdz_helpers
import pytest

from flockgym.envs.astrobirdz.native import ENGINES


@pytest.fixture(params=ENGINES)
def either_engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each engine in turn for the scenario helpers' tables (the rule tests
    hold on both: the Python reference and the compiled default)."""
    monkeypatch.setattr(astrobirdz_helpers, "ENGINE", request.param)
    return request.param
