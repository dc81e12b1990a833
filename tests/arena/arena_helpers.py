"""Scenario helpers for the Arena tests: set up a game by names (characters,
cards, gyms), act by action strings (checking they are legal), and read the
engine in words."""

from __future__ import annotations

from typing import Any

from flockgym.envs.arena.data import FORMS, MEDALS, default_box
from flockgym.envs.arena.rules import ArenaConfig, ArenaGame, Phase, Scenario, new_game

BOX = default_box()

QUIET = ["Skyboardzerka", "Sandboardzerka", "Hoverboardzerka", "Magboardzerka",
         "Jetboardzerka", "Wakeboardzerka"]  # fmt: skip
"""Default characters: their bonuses (medal, gym trophy, movement, world...)
do not touch the board maneuver challenges most tests roll."""
GYMS = ["Zoominium Refinery", "Halfpipe Hall", "Fortress Dome", "Speed Ring"]
"""Default gyms on the four corners (spaces 0, 8, 16, 24)."""


def card_id(name: str) -> int:
    return BOX.card_named[name.lower()]


def gym_id(name: str) -> int:
    return BOX.gym_named[name.lower()]


def char_id(name: str) -> int:
    return BOX.character_named[name.lower()]


def medal_card_id(name: str) -> int:
    return BOX.medal_card_named[name.lower()]


def game(
    players: int = 2,
    *,
    characters: list[str] | None = None,
    forms: dict[int, str] | None = None,
    positions: dict[int, int] | None = None,
    trophies: dict[int, int] | None = None,
    cards: dict[int, list[str]] | None = None,
    medals: dict[int, list[str]] | None = None,
    board: dict[int, str] | None = None,
    gyms: list[str] | None = None,
    gym_powers: dict[int, list[str]] | None = None,
    medal_cards: dict[int, list[str]] | None = None,
    dice: list[int] | None = None,
    first_player: int | None = 0,
    turn: int = 2,
    seed: int = 0,
    wait: bool = True,
    **config: Any,
) -> ArenaGame:
    """An engine set up by names: everyone on the spaces given (else space 0,
    corner 1), a later turn (no first-turn rule), player_0 first, no trophies
    unless given. With ``wait``, player_1 (and player_2) hold a Zoominium
    Refinery gym power card, so that an Astrobirdz among them stops before its
    movement roll (use it or roll): a test sees player_0's turn end without the
    next player's turn running on by itself."""
    names = characters or QUIET[:players]
    if wait:
        gym_powers = {s: list(v) for s, v in (gym_powers or {}).items()}
        for seat in range(1, min(players, 3)):
            gym_powers.setdefault(seat, []).append("Zoominium Refinery")
    given_trophies = {s: 0 for s in range(players)}
    given_trophies.update(trophies or {})
    scenario = Scenario(
        characters={s: char_id(n) for s, n in enumerate(names)},
        forms={s: FORMS.index(f) for s, f in (forms or {}).items()},
        positions={s: (positions or {}).get(s, 0) for s in range(players)},
        trophies=given_trophies,
        cards={s: [card_id(c) for c in cs] for s, cs in (cards or {}).items()},
        medals={s: [MEDALS.index(m) for m in ms] for s, ms in (medals or {}).items()},
        board={space: card_id(c) for space, c in (board or {}).items()},
        gyms=[gym_id(g) for g in (gyms or GYMS)],
        gym_powers={s: [gym_id(g) for g in gs] for s, gs in (gym_powers or {}).items()},
        medal_cards={s: [medal_card_id(m) for m in ms] for s, ms in (medal_cards or {}).items()},
        first_player=first_player,
        turn=turn,
        dice=list(dice or []),
    )
    return new_game(ArenaConfig(num_players=players, **config), seed=seed, **scenario.__dict__)


def legal(g: ArenaGame) -> list[str]:
    return [g.action_to_string(g.actor, a) for a in g.legal_actions()]


def act(g: ArenaGame, text: str, seat: int | None = None) -> None:
    """Apply an action by its string; it must be legal (and, if ``seat`` is
    given, that seat must be the one to act)."""
    if seat is not None:
        assert g.actor == seat, f"player_{g.actor} is to act, not player_{seat}"
    action = g.string_to_action(g.actor, text)
    assert action in g.legal_actions(), f"{text!r} is not legal; legal: {legal(g)}"
    g.apply_action(action)


def acts(g: ArenaGame, *texts: str) -> None:
    for text in texts:
        act(g, text)


def phase(g: ArenaGame) -> str:
    return Phase(g.phase).name.lower()


def held(g: ArenaGame, seat: int) -> list[str]:
    """Names of the maneuver and world cards a seat holds, sorted."""
    return sorted(BOX.cards[c].name for c in g.maneuvers_of[seat] + g.worlds_of[seat])


def on_space(g: ArenaGame, space: int) -> str | None:
    item = g.space_item[space]
    if item < 0:
        return None
    if item < BOX.num_cards:
        return BOX.cards[item].name
    return "medal " + BOX.medal_cards[item - BOX.num_cards].name


def place_card(g: ArenaGame, name: str, space: int) -> None:
    """Put a card on a board space (swapping with whatever card lies there)."""
    from flockgym.envs.arena.rules import BOARD
    from flockgym.envs.arena.rules import BOX as IN_BOX

    card = card_id(name)
    old = g.space_item[space]
    if 0 <= old < BOX.num_cards and old != card:
        g._set_card(old, IN_BOX)
    g._set_card(card, BOARD, space)
    g._legal = g._mask = None


def rolls(g: ArenaGame) -> list[tuple[str, int]]:
    """Every roll logged so far: (purpose, result)."""
    return [(r[1], r[3]) for r in g.roll_log]


def board_space_of(g: ArenaGame, name: str) -> int:
    return g.card_space[card_id(name)]
