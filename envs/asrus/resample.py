"""Asrus states one seat cannot tell apart from the true one (for search).

What seat ``p`` knows and the resampler keeps: its own hand, specials, points
and its own face-down commitment this turn; everything public (destination,
deposit, points, how many specials each seat holds, hand sizes, the numbers
revealed this round, the last turn and lottery, who has committed).

What it redraws, uniformly among what ``p`` cannot tell apart:

* the other seats' number cards, from the numbers ``p`` has not seen: the other
  hands together with the undealt part of the pile. Copies revealed this round
  that went back to the pile stay there (per number, ``min(revealed, pile)``;
  after a win this round one copy of the round's first destination may be
  counted among them, a one-card approximation);
* the other seats' specials, from the other seats' specials and the special
  pile together (played specials are public, but the observation shows only the
  last turn's, so the resampler does not use older ones);
* the face-down commitments of seats that moved before ``p`` this turn: each a
  uniformly random legal play from its new hand (no model of the player);
* the generator behind every future draw (next rounds' deals, lotteries).

Knowledge not used: what a seat's earlier plays say about its remaining cards
beyond the counts above (no inference from play).

The search calls this once per simulation, so by default the state is copied
and installed through the engines' plain fields, without the loader's checks
(``checked=True`` goes through the checked loader twice, as saved games do;
both draw the same state from the same generator).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.resample import deal_counts, fresh_generator, install, python_copy, working_game
from .native import NativeAsrusGame
from .rules import AsrusGame, Play


def resample(env: Any, seat: int, rng: np.random.Generator, checked: bool = False) -> Any:
    """Redraw ``env``'s hidden information as seen from ``seat`` (see the module
    docstring); returns ``env`` holding a new engine. ``env`` is a raw Asrus env;
    ``checked`` loads the copy and the result through the checked loader."""
    game = working_game(env) if checked else python_copy(env, NativeAsrusGame)
    if not isinstance(game, AsrusGame):  # the compiled engine: redrawn in a Python copy
        game = game.to_python()
    others = [s for s in range(game.config.num_players) if s != seat]
    if not game.over:
        _redeal_numbers(game, others, rng)
        _redeal_specials(game, others, rng)
        _redraw_commitments(env, game, others, rng, checked)
    game.rng = fresh_generator(rng)
    return install(env, game, check=checked)


def _redeal_numbers(game: AsrusGame, others: list[int], rng: np.random.Generator) -> None:
    """The other hands and the unseen part of the pile, dealt again."""
    keep = [min(r, p) for r, p in zip(game.revealed, game.number_pile, strict=True)]
    pool = [
        sum(game.hands[s][k] for s in others) + game.number_pile[k] - keep[k]
        for k in range(len(keep))
    ]
    parts, rest = deal_counts(pool, [sum(game.hands[s]) for s in others], rng)
    for s, part in zip(others, parts, strict=True):
        game.hands[s] = part
    game.number_pile = [r + k for r, k in zip(rest, keep, strict=True)]


def _redeal_specials(game: AsrusGame, others: list[int], rng: np.random.Generator) -> None:
    """The other seats' specials and the special pile, dealt again (counts kept)."""
    kinds = len(game.special_pile)
    pool = [sum(game.specials[s][k] for s in others) + game.special_pile[k] for k in range(kinds)]
    parts, rest = deal_counts(pool, [sum(game.specials[s]) for s in others], rng)
    for s, part in zip(others, parts, strict=True):
        game.specials[s] = part
    game.special_pile = rest


def _redraw_commitments(
    env: Any, game: AsrusGame, others: list[int], rng: np.random.Generator, checked: bool
) -> None:
    """Each hidden commitment of this turn: a uniformly random legal play of the
    seat's new hand. Checked: the masks of a loaded copy with no commitments
    (which the loader accepts whatever the new hands hold). Unchecked: the
    masks of ``game`` itself, a copy :func:`python_copy` built with no mask
    table, so the table is built here from the new hands (the same table)."""
    hidden = [s for s in others if game.pending[s] is not None]
    if not hidden:
        return
    pending = list(game.pending)
    game.pending = [None] * game.config.num_players
    masks = env._game_from_dict(game.to_dict()).legal_masks() if checked else game.legal_masks()
    for s in hidden:
        pending[s] = Play.from_action(int(rng.choice(np.flatnonzero(masks[s]))))
    game.pending = pending
