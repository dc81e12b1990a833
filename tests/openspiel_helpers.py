"""What the tests of the OpenSpiel bridge share: the options that keep each
game short, and everything a caller can read of a state (to compare two)."""

from __future__ import annotations

from typing import Any

from flockgym.envs import ENVS, make

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


def dice_recording_engine(env_id: str) -> dict[str, str]:
    """The engine option of an env that replays the bridge's games with its
    dice recorded as they are rolled (through ``roll_die``): the Python engine
    where it rolls so (the Arena's, while the bridge plays the compiled one:
    the same decisions and rolls), else the bridge's own engine."""
    from flockgym.openspiel import bridge_engine, env_class

    if any(option.name == "engine" for option in env_class(env_id).option_table()):
        raw = make(env_id, engine="python").unwrapped
        raw.reset(seed=0)
        if callable(getattr(type(raw.game), "roll_die", None)):
            return {"engine": "python"}
    return bridge_engine(env_id)
