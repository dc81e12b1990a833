"""A power is usable "at any time during the game": at a Nebula Slide end an
Astrobirdz holding a transform power may use it before the slide roll, so the
roll is a d8 and results 7 and 8 can come up. No other power changes a roll it
cannot reach (the test below lists where each kind is offered)."""

from __future__ import annotations

import pytest
from arena_helpers import BOX, act, game, legal, phase

from flockgym.envs.arena import movement
from flockgym.envs.arena.data import BERZERKERBIRDZ

REFINERY = BOX.gym_named["zoominium refinery"]


def at_slide_end(**kw):
    """player_0 (an Astrobirdz) holding a Zoominium Refinery card rolls 2 from
    space 10 onto the east slide end; it rolled its movement without using the
    card (it keeps it for the slide)."""
    g = game(positions={0: 10, 1: 0}, gym_powers={0: ["Zoominium Refinery"]}, **kw)
    act(g, "roll")
    assert g.positions[0] == 12
    return g


def test_transform_before_the_slide_roll_makes_it_a_d8_and_7_reachable():
    g = at_slide_end(dice=[2, 7])
    assert legal(g) == ["slide", "stay", "use Zoominium Refinery"]
    act(g, "use Zoominium Refinery")
    assert g.forms[0] == BERZERKERBIRDZ and g.powers[0][REFINERY] == 0
    assert g.gym_cards[REFINERY] == 1 and phase(g) == "move"
    assert legal(g) == ["slide", "stay"]
    act(g, "slide")
    assert g.roll_log[-1][1:] == ["nebula slide", 8, 7] and g.last_encounter == [0, 7]
    assert g.medals[0] == [0, 0, 1]


def test_transform_before_the_slide_roll_8_goes_to_a_gym():
    g = at_slide_end(dice=[2, 8])
    act(g, "use Zoominium Refinery")
    act(g, "slide")
    assert g.last_encounter == [0, 8] and legal(g) == ["to 0", "to 8", "to 16", "to 24"]


def test_without_transforming_the_slide_roll_stays_a_d6():
    g = at_slide_end(dice=[2, 7])
    with pytest.raises(ValueError, match=r"is a d6, which cannot show the forced result 7"):
        act(g, "slide")


def test_passing_a_slide_end_with_steps_left_also_offers_the_power():
    gyms = ["Zoominium Refinery", "Zoominium Juice Bar", "Fortress Dome", "Speed Ring"]
    g = game(dice=[3, 8], positions={0: 10, 1: 0}, gyms=gyms,
             gym_powers={0: ["Zoominium Juice Bar"]})  # fmt: skip
    act(g, "roll")
    assert legal(g) == ["to 13", "slide", "use Zoominium Juice Bar"]
    act(g, "use Zoominium Juice Bar")
    assert legal(g) == ["to 13", "slide"]
    act(g, "slide")
    assert g.last_encounter == [0, 8]


def test_no_slide_power_for_berzerkerbirdz_invazorz_or_other_powers():
    g = game(dice=[2], positions={0: 10, 1: 0}, forms={0: "berzerkerbirdz"},
             gym_powers={0: ["Zoominium Refinery"]})  # fmt: skip
    assert g.positions[0] == 12 and legal(g) == ["slide", "stay"]  # rolled by itself
    g = game(dice=[2], positions={0: 10, 1: 0}, characters=["Mecha-Invazorz Gearlord Kranx",
             "Skyboardzerka"], gym_powers={0: ["Zoominium Refinery"]})  # fmt: skip
    assert g.positions[0] == 12 and legal(g) == ["slide", "stay"]
    gyms = ["Halfpipe Hall", "Speed Ring", "Trophy Vault", "Gravity Dojo"]
    g = game(positions={0: 10, 1: 0}, gyms=gyms, wait=False, gym_powers={0: gyms})
    assert movement.slide_powers(g, 0) == []


def test_every_power_kind_is_offered_before_each_roll_it_changes():
    # transform: movement, challenge and defence rolls (the die) and the slide roll;
    # the rest as the box says (a bonus to its roll; gold reading and an extra die
    # to a challenge or defence roll; trophies whenever the supply has any)
    usable = movement._power_usable
    g = game(gym_powers={0: ["Zoominium Refinery"]})
    kinds = {BOX.gyms[gym].power.kind: gym for gym in range(len(BOX.gyms))}
    assert [usable(g, 0, kinds["transform"], c) for c in ("pre", "post", "challenge", "defence")
            ] == [True, False, True, True]  # fmt: skip
    assert [usable(g, 0, kinds["gold_reading"], c) for c in ("pre", "post", "challenge",
            "defence")] == [False, False, True, True]  # fmt: skip
    assert [usable(g, 0, kinds["extra_die"], c) for c in ("pre", "post", "challenge",
            "defence")] == [False, False, True, False]  # fmt: skip
