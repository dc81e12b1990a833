"""Each game's table talk is its own: which moves are made in the open (its
``actions.py``), what a seat is told happened (its ``observer.py``) and what the
special cards do (its ``data.py``), exported by its ``<game>_v0`` module; play
asks the game, and a game that says nothing gets play's defaults."""

from __future__ import annotations

from typing import Any

import pytest

from flockgym.envs import ENVS, env_module, list_envs, make
from flockgym.play import cards_help, disclosure, narration
from flockgym.play.cards_help import special_cards_help
from flockgym.play.disclosure import is_public
from flockgym.play.narration import Narrator

HOOKS = {
    "is_public_move": "actions",
    "narrate_changes": "observer",
    "special_cards_help": "data",
}
"""Each hook and the module of the game's folder that defines it."""

HIDDEN_PREFIX = {
    "asrus_v0": "",
    "astrobirdz_v0": "choose ",
    "skybirds_v0": "give ",
    "arena_v0": "wish ",
}
"""The moves each game makes face down, by the start of their string (``""``:
all; None: none): the rule play applied by string before the games said it by
action segment."""


def game_of(env_id: str) -> str:
    return env_id.rsplit("_", 1)[0]


def started(env_id: str, players: int | None = None) -> Any:
    options = {} if players is None else {"num_players": players}
    raw = make(env_id, **options).unwrapped
    raw.reset(seed=0)
    return raw


@pytest.mark.parametrize("env_id", list_envs())
def test_every_game_exports_its_table_talk_from_its_own_files(env_id: str) -> None:
    module = env_module(env_id)
    for hook, home in HOOKS.items():
        assert getattr(module, hook).__module__ == f"flockgym.envs.{game_of(env_id)}.{home}"
        assert hook in module.__all__


@pytest.mark.parametrize("env_id", list_envs())
def test_the_public_move_rule_is_the_games_by_segment(env_id: str) -> None:
    """Every action id of the smallest and largest table is public exactly where
    its string does not start with the game's hidden prefix."""
    hidden = HIDDEN_PREFIX[env_id]
    counts = ENVS[env_id].player_counts
    for players in (min(counts), max(counts)):
        raw = started(env_id, players)
        shown = [is_public(raw, a) for a in range(raw.action_space("player_0").n)]
        strings = [raw.action_to_string("player_0", a) for a in range(len(shown))]
        expected = [hidden is None or not s.startswith(hidden) for s in strings]
        assert shown == expected
        assert (
            shown.count(False)
            == {
                "asrus_v0": len(strings),
                "astrobirdz_v0": 54,  # the choose segment: one id per card
                "skybirds_v0": 11,  # the give segment: G and 1..10
                "arena_v0": 18,  # the wish segment: one id per character
            }[env_id]
        )


@pytest.mark.parametrize("env_id", list_envs())
def test_play_asks_the_game_module(env_id: str, monkeypatch) -> None:
    module = env_module(env_id)
    monkeypatch.setattr(module, "is_public_move", lambda layout, action: action == 3)
    monkeypatch.setattr(module, "special_cards_help", lambda: [("card", "does this")])
    seen: list[tuple[Any, ...]] = []

    def said(old: Any, new: Any, who: Any, last_move: Any) -> list[str]:
        seen.append((who("player_1"), last_move))
        return ["something happened"]

    monkeypatch.setattr(module, "narrate_changes", said)
    monkeypatch.setattr(module, "MOVE_WORDS", {}, raising=False)
    raw = started(env_id)
    assert (is_public(raw, 3), is_public(raw, 2)) == (True, False)
    assert special_cards_help(env_id) == [("card", "does this")]
    assert cards_help.help_text(env_id) == "  card: does this"
    agent = raw.agent_selection
    action = raw.legal_actions(agent)[0]
    narrator = Narrator(raw, "player_1", {"player_1": "me"})
    assert narrator.catch_up() == []  # the first look has nothing to compare
    text = raw.action_to_string(agent, action)
    line = (
        f"{narrator.who(agent)}: {text}"
        if agent == "player_1" or action == 3
        else (f"{narrator.who(agent)} has moved")
    )
    assert narrator.move(agent, action) == ["something happened", line]
    assert narrator.catch_up() == ["something happened"]
    assert seen == [("you (player_1)", None), ("you (player_1)", (agent, text))]


@pytest.mark.parametrize("env_id", list_envs())
def test_a_game_that_says_nothing_gets_the_defaults(env_id: str, monkeypatch) -> None:
    module = env_module(env_id)
    for hook in (*HOOKS, "MOVE_WORDS"):
        monkeypatch.delattr(module, hook, raising=False)
    raw = started(env_id)
    assert not any(is_public(raw, a) for a in range(raw.action_space("player_0").n))
    game = game_of(env_id)
    assert special_cards_help(env_id) == [
        ("rules", f"see docs/rules/{game}.md and the env's docstring")
    ]
    agent = raw.agent_selection
    action = raw.legal_actions(agent)[0]
    other = next(a for a in raw.possible_agents if a != agent)
    narrator = Narrator(raw, other, {})
    assert narrator.move(agent, action) == [f"{agent} has moved"]
    raw.step(action)
    assert narrator.catch_up() == []
    mine = Narrator(raw, raw.agent_selection, {})
    move = raw.legal_actions(raw.agent_selection)[0]
    text = raw.action_to_string(raw.agent_selection, move)
    assert mine.move(raw.agent_selection, move) == [f"you ({raw.agent_selection}): {text}"]


def test_an_unregistered_env_gets_the_defaults() -> None:
    assert disclosure.game_hook("nogame_v0", "is_public_move") is None
    assert special_cards_help("nogame_v0") == [
        ("rules", "see docs/rules/nogame.md and the env's docstring")
    ]
    assert narration.no_changes({}, {}, str, None) == []


def test_move_words_come_from_the_game() -> None:
    """Astrobirdz puts words before a move naming a player (its ``MOVE_WORDS``):
    from another seat, Surfette's choice of partner reads as a sentence."""
    raw = started("astrobirdz_v0", 3)
    assert raw.view("player_0")["phase"] == "surfette_partner"
    agent = raw.agent_selection
    action = raw.legal_actions(agent)[0]
    text = raw.action_to_string(agent, action)
    assert text.startswith("player_")
    seat = next(a for a in raw.possible_agents if a not in (agent, text))
    assert Narrator(raw, seat, {}).move(agent, action) == [f"{agent}: trades with {text}"]
