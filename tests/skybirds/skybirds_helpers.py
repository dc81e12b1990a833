"""Scenario helpers for the Skybirds tests: build a rules engine from readable
hands and tokens, play action strings checking whose turn it is, and read the
legal moves as strings."""

from __future__ import annotations

from typing import Any

from flockgym.envs.skybirds import data
from flockgym.envs.skybirds.rules import BACK, FRONT, SkybirdsConfig, SkybirdsGame, new_game


def kinds(text: str) -> list[int]:
    """``"G 4 5 5"`` -> card kinds."""
    return [data.parse_card(part) for part in text.split()]


def engine(
    players: int = 4,
    hands: dict[int, str] | None = None,
    tokens: dict[int, dict[str, str]] | None = None,
    plus_one: dict[int, int] | None = None,
    fractional: dict[int, str] | None = None,
    campaign: int = 1,
    leader: int | None = None,
    seed: int = 0,
    **config: Any,
) -> SkybirdsGame:
    """A rules engine dealt from ``seed`` with a scenario; seats are numbers."""
    cfg = SkybirdsConfig(num_players=players, **config)
    names = cfg.names
    token_states = {
        seat: {names.index(t): FRONT if s == "front" else BACK for t, s in held.items()}
        for seat, held in (tokens or {}).items()
    }
    return new_game(
        cfg,
        seed=seed,
        hands={seat: kinds(text) for seat, text in (hands or {}).items()},
        tokens=token_states,
        plus_one=plus_one or {},
        fractional={s: data.FRACTIONAL.index(f) for s, f in (fractional or {}).items()},
        campaign=campaign,
        leader=leader,
    )


def legal(game: SkybirdsGame) -> list[str]:
    return [game.action_to_string(game.actor, a) for a in game.legal_actions()]


def play(game: SkybirdsGame, seat: int, *texts: str) -> None:
    """Apply ``texts`` as seat ``seat``, which must be to act with each legal."""
    for text in texts:
        assert game.actor == seat, f"expected seat {seat} to act, not {game.actor} ({text})"
        action = game.string_to_action(seat, text)
        assert action in game.legal_actions(), f"{text!r} is not legal for {seat}: {legal(game)}"
        game.apply_action(action)


def moves(game: SkybirdsGame, script: list[tuple[int, str]]) -> None:
    for seat, text in script:
        play(game, seat, text)


def held(game: SkybirdsGame, seat: int) -> dict[str, str]:
    """Tokens held by ``seat``: {name: 'front' | 'back'}."""
    names = game.config.names
    return {
        names[i]: ("front" if st == FRONT else "back")
        for i, st in enumerate(game.tokens[seat])
        if st
    }


def hand(game: SkybirdsGame, seat: int) -> str:
    return " ".join(data.cards_text(game.hands[seat]))
