"""The ``ages`` option's bounds: an int too large for a float is an OptionError
naming the option, the seat and the allowed range (it raised a bare
``OverflowError`` from ``math.isfinite``), and the largest float still passes."""

from __future__ import annotations

import re
import sys

import pytest

from flockgym.envs import astrobirdz_v0
from flockgym.envs.core.errors import OptionError

ALLOWED = (
    "allowed: None or a list of one finite age (a number >= 0) per seat, each at most 1.798e+308"
)


@pytest.mark.parametrize(
    ("ages", "message"),
    [
        ([12, 2**4000, 30], "option ages: the age of player_1 is an integer of 4001 bits"),
        (
            [-(2**4000), 12, 30],
            "option ages: the age of player_0 is a negative integer of 4001 bits",
        ),
        ([12, 30, 10**5000], "option ages: the age of player_2 is an integer of 16610 bits"),
        ([12, 30, int(sys.float_info.max) + 1], "the age of player_2 is an integer of 1024 bits"),
    ],
)
def test_an_age_beyond_the_largest_float_is_an_option_error(ages: list[int], message: str) -> None:
    with pytest.raises(OptionError, match=re.escape(f"{message}, out of range; {ALLOWED}")):
        astrobirdz_v0.env(num_players=3, ages=ages)


def test_the_largest_float_age_is_allowed_and_decides_the_oldest() -> None:
    env = astrobirdz_v0.env(num_players=3, ages=[12, int(sys.float_info.max), 30])
    env.reset(seed=0)
    config = env.unwrapped.game.config
    assert config.ages == (12, int(sys.float_info.max), 30)
    assert config.youngest == 0
    assert config.oldest == 1


def test_ordinary_bad_ages_keep_their_message() -> None:
    with pytest.raises(
        OptionError, match=re.escape(f"option ages=[8, -1, 30] is not allowed; {ALLOWED}")
    ):
        astrobirdz_v0.env(num_players=3, ages=[8, -1, 30])
