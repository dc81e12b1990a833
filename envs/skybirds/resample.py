"""Skybirds states one seat cannot tell apart from the true one (for search).

What seat ``p`` knows and the resampler keeps: its own hand; everything public
(the table, the cards played this Campaign, hand sizes, tokens, VP, the
finishing order, phase and step). Roland Garros stays where it is (while it is
due its holder leads, in the open); a seat in the middle of building a move
(tokens or Aces chosen) keeps its whole hand, since the move it is building
must stay legal (a leak while another seat is mid-move: a searching seat is
never asked then, as it searches on its own turn).

What it redraws, uniformly among what ``p`` cannot tell apart: the other hands
and the cards dealt into the box unseen, all from one pool of the cards ``p``
has not seen (each hand keeps its size, the box its size), and the generator
behind every future deal.

Knowledge not used: cards ``p`` gave or received in a Pre-Campaign swap or a
trade (they are redrawn like any other card), and what passes and plays say
about a hand (no inference from play).

The search calls this once per simulation, so by default the state is copied
and installed through the engines' plain fields, without the loader's checks
(``checked=True`` goes through the checked loader twice, as saved games do;
both draw the same state from the same generator).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.resample import deal_counts, fresh_generator, install, python_copy, working_game
from .native import NativeSkybirdsGame
from .rules import GARROS, SkybirdsGame, Step


def resample(env: Any, seat: int, rng: np.random.Generator, checked: bool = False) -> Any:
    """Redraw ``env``'s hidden information as seen from ``seat`` (see the module
    docstring); returns ``env`` holding a new engine. ``env`` is a raw Skybirds
    env; ``checked`` loads the copy and the result through the checked loader."""
    game = working_game(env) if checked else python_copy(env, NativeSkybirdsGame)
    if not isinstance(game, SkybirdsGame):  # the compiled engine: redeal a Python copy
        game = game.to_python()
    if not game.over:
        _redeal(game, seat, rng)
    game.rng = fresh_generator(rng)
    return install(env, game, check=checked)


def _redeal(game: SkybirdsGame, seat: int, rng: np.random.Generator) -> None:
    """The other hands (less any Aces of a move being built) and the box, dealt again."""
    kinds = len(game.box)
    others = [s for s in range(game.config.num_players) if s != seat]
    fixed = {s: [0] * kinds for s in others}
    holder = game.garros_holder()
    if holder in fixed:
        fixed[holder][GARROS] = game.hands[holder][GARROS]
    if game.actor in fixed and game.step != Step.START:
        fixed[game.actor] = list(game.hands[game.actor])
    free = {s: [h - f for h, f in zip(game.hands[s], fixed[s], strict=True)] for s in others}
    pool = [sum(free[s][k] for s in others) + game.box[k] for k in range(kinds)]
    box_garros = game.box[GARROS]
    pool[GARROS] -= box_garros
    parts, rest = deal_counts(pool, [sum(free[s]) for s in others], rng)
    for s, part in zip(others, parts, strict=True):
        game.hands[s] = [a + b for a, b in zip(part, fixed[s], strict=True)]
    rest[GARROS] += box_garros
    game.box = rest
