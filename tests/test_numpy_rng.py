"""numpy_rng.hpp against numpy: the compiled engines draw what numpy draws.

Every draw the games make (``random_raw``, ``integers``, ``random``,
``permutation``, ``shuffle``, ``choice`` with and without replacement or
weights) is compared over thousands of draws from many seeds, interleaved so
that numpy's buffered 32-bit half is exercised, and the generator state is
compared with numpy's after every kind of call (both ways).
"""

from __future__ import annotations

import numpy as np
import pytest

from flockgym.envs.core.rng import make_rng
from tests.compiled_helpers import require_compiled

native = require_compiled("core")

SEEDS = [0, 1, 7, 42, 2**63 - 1, 123456789123456789]
BOUNDS = [
    (0, 1),
    (0, 2),
    (0, 3),
    (0, 6),
    (1, 7),
    (-5, 5),
    (0, 1000),
    (0, 2**31 + 7),
    (0, 2**32 - 1),
    (0, 2**32),
    (0, 2**32 + 1),
    (-(2**40), 2**45),
    (0, 2**62 + 12345),
    (-(2**63), 2**63 - 1),
]


def pair(seed: int) -> tuple[np.random.Generator, object]:
    rng = make_rng(seed)
    return rng, native.NumpyRng(rng.bit_generator.state)


@pytest.mark.parametrize("seed", SEEDS)
def test_raw_and_random_draws_match(seed: int) -> None:
    rng, twin = pair(seed)
    assert [twin.random_raw() for _ in range(500)] == rng.bit_generator.random_raw(500).tolist()
    assert twin.random_many(2000) == rng.random(2000).tolist()
    assert twin.state == rng.bit_generator.state


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("low", "high"), BOUNDS)
def test_bounded_integers_match_one_by_one(seed: int, low: int, high: int) -> None:
    rng, twin = pair(seed)
    ours = twin.integers_many(low, high, 300)
    theirs = [int(rng.integers(low, high)) for _ in range(300)]
    assert ours == theirs
    assert twin.state == rng.bit_generator.state


@pytest.mark.parametrize("seed", SEEDS)
def test_interleaved_draws_keep_the_buffered_half_in_step(seed: int) -> None:
    """32-bit draws leave half an output buffered; a raw draw does not use it
    and ``random`` neither: the mix must stay in step with numpy's."""
    rng, twin = pair(seed)
    mixer = np.random.default_rng(seed + 1)
    for _ in range(3000):
        kind = int(mixer.integers(5))
        if kind == 0:
            assert twin.random_raw() == int(rng.bit_generator.random_raw())
        elif kind == 1:
            assert twin.random() == rng.random()
        elif kind == 2:
            n = int(mixer.integers(1, 60))
            assert twin.integers(0, n) == int(rng.integers(n))
        elif kind == 3:
            n = int(mixer.integers(0, 40))
            assert twin.permutation(n) == rng.permutation(n).tolist()
        else:
            n = int(mixer.integers(1, 30))
            assert twin.integers(0, n) == int(rng.choice(n))
    assert twin.state == rng.bit_generator.state


@pytest.mark.parametrize("seed", SEEDS)
def test_shuffle_of_a_list_and_permutation_match(seed: int) -> None:
    rng, twin = pair(seed)
    for n in range(0, 80):
        items = list(range(100, 100 + n))
        theirs = list(items)
        rng.shuffle(theirs)
        assert twin.shuffle(items) == theirs
        assert twin.permutation(n) == rng.permutation(n).tolist()
    assert twin.state == rng.bit_generator.state


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("pop", "size"),
    [(1, 1), (5, 0), (5, 3), (20, 20), (54, 17), (10001, 600), (20000, 300), (20000, 5)],
)
def test_choice_without_replacement_matches(seed: int, pop: int, size: int) -> None:
    rng, twin = pair(seed)
    for _ in range(3):
        expected = rng.choice(pop, size=size, replace=False).tolist()
        assert twin.choice_without_replacement(pop, size) == expected
    assert twin.state == rng.bit_generator.state


@pytest.mark.parametrize("seed", SEEDS)
def test_weighted_choice_matches(seed: int) -> None:
    rng, twin = pair(seed)
    weights = np.random.default_rng(seed).random((200, 7))
    weights[::5, 2] = 0.0
    for row in weights:
        p = row / row.sum()
        assert twin.choice_weighted(p.tolist()) == int(rng.choice(len(p), p=p))
    assert twin.state == rng.bit_generator.state


def test_state_round_trip_both_ways() -> None:
    """A state written by the compiled generator continues in numpy, buffered
    half included, and back."""
    _, twin = pair(99)
    twin.next_uint32()  # leaves the high half buffered
    back = np.random.Generator(np.random.PCG64())
    back.bit_generator.state = twin.state
    assert twin.state["has_uint32"] == 1
    assert [twin.integers(0, 10) for _ in range(50)] == back.integers(0, 10, 50).tolist()
    again = native.NumpyRng(back.bit_generator.state)
    assert again.state == back.bit_generator.state
    assert again.random_raw() == int(back.bit_generator.random_raw())


def test_a_state_of_another_bit_generator_is_refused() -> None:
    state = np.random.Generator(np.random.MT19937(0)).bit_generator.state
    with pytest.raises(ValueError, match="PCG64"):
        native.NumpyRng(state)
