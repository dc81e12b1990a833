"""What the tests of the OpenSpiel bridge share: the options that keep each
game short, and everything a caller can read of a state (to compare two)."""

from __future__ import annotations

from typing import Any

from flockgym.envs import ENVS

ENV_IDS = sorted(ENVS)

SHORT: dict[str, dict[str, Any]] = {
    "arena_v0": {"max_rounds": 1},
    "asrus_v0": {},
    "astrobirdz_v0": {},
    "skybirds_v0": {"max_campaigns": 1},
}
"""Options that keep a game short (every registered env must be listed)."""


def readable(state: Any, *more: Any) -> tuple[Any, ...]:
    """All a caller can read of a pyspiel state, for every seat (text, history,
    returns, legal actions, information states and observations as strings and
    tensors), with ``more`` reads of the caller's choosing."""
    seats = range(state.num_players())
    return (
        str(state),
        state.history(),
        *more,
        state.returns(),
        state.legal_actions(),
        [state.information_state_string(p) for p in seats],
        [state.information_state_tensor(p) for p in seats],
        [state.observation_string(p) for p in seats],
        [state.observation_tensor(p) for p in seats],
    )
