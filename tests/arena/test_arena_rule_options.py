"""The two passages that read two ways, as options with the ruling as default:
``nova_invazorz`` (Nova Debris Field 1-2 for an Invazorz) and ``fifth_world``
(worlds held now, or won over the game). Forced dice throughout."""

from __future__ import annotations

import pytest
from arena_helpers import BOX, act, game, held, legal, phase

from flockgym.envs import OptionError
from flockgym.envs.arena import challenges
from flockgym.envs.arena.data import BERZERKERBIRDZ, INVAZORZ
from flockgym.envs.arena.env import raw_env
from flockgym.envs.arena.rules import ArenaGame, StateDictError

INVAZORZ_NAME = "Mecha-Invazorz Gearlord Kranx"


def turn_over(g) -> bool:
    return g.actor == 1 and phase(g) == "pre_roll"


def nova_1_2(**kw):
    """player_0, an Invazorz, rolls 2 onto the first AstroPortal: Nova Debris
    Field (d8 2), d6 1; player_1 is a Berzerkerbirdz."""
    g = game(dice=[2, 2, 1], characters=[INVAZORZ_NAME, "Skyboardzerka"],
             forms={1: "berzerkerbirdz"}, **kw)  # fmt: skip
    assert g.last_encounter == [2, 1] and g.positions[0] == 6
    return g


def test_nova_invazorz_default_turn_back():
    g = nova_1_2()
    assert g.config.nova_invazorz == "turn_back"
    assert legal(g) == ["end", "player_1"]
    act(g, "player_1")
    assert g.forms == [INVAZORZ, 0] and g.characters[0] == BOX.character_named[
        INVAZORZ_NAME.lower()]  # fmt: skip


def test_nova_invazorz_become_a_berzerkerbirdz_of_its_choice():
    g = nova_1_2(nova_invazorz="become")
    choices = legal(g)
    # every Astrobirdz character no other player uses (Skyboardzerka is player_1's)
    expected = [f"become {c.name}" for c in BOX.characters
                if not c.invazorz and c.name != "Skyboardzerka"]  # fmt: skip
    assert choices == expected and len(choices) == 9 and "end" not in choices
    act(g, "become Sandboardzerka")
    assert g.characters[0] == BOX.character_named["sandboardzerka"]
    assert g.forms == [BERZERKERBIRDZ, BERZERKERBIRDZ] and g.turn_seat == 1
    assert g.task == "" and g.positions[0] == 6


def test_nova_invazorz_become_does_not_touch_astrobirdz():
    g = game(dice=[2, 2, 1], nova_invazorz="become")
    assert g.forms[0] == BERZERKERBIRDZ and turn_over(g)


WORLDS = [c.name for c in BOX.cards if c.is_world]


def test_fifth_world_held_by_default_and_won_as_an_option():
    for mode, wins in (("held", False), ("won", True)):
        g = game(cards={0: WORLDS[:4]}, fifth_world=mode)
        assert g.worlds_won == [4, 0]
        # player_0 lost a world earlier (held 3, won 4), then gains one from the board
        g._set_card(BOX.card_named[WORLDS[3].lower()], -2)
        fifth = next(c.id for c in BOX.cards if c.is_world and g.card_holder[c.id] == -1)
        challenges.gain_card(g, 0, fifth)
        assert g.worlds_won[0] == 5 and len(g.worlds_of[0]) == 4
        assert g.over is wins
        if wins:
            assert g.winners_ == [0] and g.win_reason == "five worlds"


def test_worlds_won_counts_a_world_challenge_and_survives_a_state_dict():
    four = ["Kickflip Kaboom", "Riptide Roll", "Hydro Helix", "Rocket Rodeo"]
    g = game(dice=[2, 3, 3, 3, 3], positions={0: 42, 1: 0}, board={44: "Hoverion"},
             cards={0: four, 1: WORLDS[5:6]})  # fmt: skip
    act(g, "challenge world Hoverion")
    assert g.worlds_won == [1, 1] and "Hoverion" in held(g, 0)
    assert ArenaGame.from_dict(g.to_dict()).worlds_won == [1, 1]
    d = g.to_dict()
    d["worlds_won"] = [1, 0]
    with pytest.raises(StateDictError, match=r"game.worlds_won\[1\]: fewer worlds won than"):
        ArenaGame.from_dict(d)


@pytest.mark.parametrize(
    ("option", "value", "allowed"),
    [("nova_invazorz", "stay", "turn_back, become"), ("fifth_world", 5, "held, won")],
)
def test_bad_option_values_name_the_option_and_the_allowed_values(option, value, allowed):
    with pytest.raises(OptionError, match=option) as err:
        raw_env(num_players=2, **{option: value})
    for word in allowed.split(", "):
        assert word in str(err.value)


def test_the_view_names_the_options_and_worlds_won():
    e = raw_env(num_players=2, fifth_world="won")
    e.reset(seed=3, options={"characters": {"player_0": "Skyboardzerka",
                                            "player_1": "Sandboardzerka"}})  # fmt: skip
    v = e.view("player_0")
    assert v["options"]["fifth_world"] == "won" and v["options"]["nova_invazorz"] == "turn_back"
    assert v["players"]["player_1"]["worlds_won"] == 0
    assert held(e.arena, 0) == []
