"""Everything that takes a seat at a table: bot specs (``random``, ``heuristic``,
a checkpoint, ``search:...``) and the participants they make
(:mod:`~flockgym.bots.policies`), checkpoints read as players
(:mod:`~flockgym.bots.checkpoints`), the shipped bots
(:mod:`~flockgym.bots.shipped`), the search bot (:mod:`~flockgym.bots.search`),
advisors (:mod:`~flockgym.bots.advice`) and models trained elsewhere exported as
checkpoints (:mod:`~flockgym.bots.export`).

It may import :mod:`flockgym.envs` and :mod:`flockgym.common`, and, inside the
functions that rebuild a checkpoint's network (torch: the ``train`` extra), the
learner registry :mod:`flockgym.training.learners`; never self-play, a training
run, a tournament or the command line.

>>> from flockgym.bots import load_policy, make_participant
>>> policy = load_policy("asrus/ppo_5p", env_id="asrus_v0")  # doctest: +SKIP
"""

from __future__ import annotations

from flockgym.common.moved import lazy_exports

_LAZY = {
    "BotSpec": "policies",
    "Participant": "policies",
    "Policy": "policies",
    "PolicyBot": "policies",
    "load_policy": "policies",
    "make_participant": "policies",
    "parse_spec": "policies",
    "parse_specs": "policies",
    "export_policy": "export",
    "SearchBot": "search",
}
"""Names imported on first use, so ``import flockgym.bots`` needs no torch."""


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)

__all__ = sorted(_LAZY)
