"""Soak every registered env: random legal play at every player count and option
sample, checking masks, observation bounds, finite rewards, the games' own
accounting and identical continuation after a JSON round trip at every step.

    python benchmarks/soak.py [--steps 1000000] [--env asrus_v0 ...] [--seed 0]

Prints, per env, the steps, games, truncated games, round trips, illegal-action
probes, configurations played and violations found; exits non-zero on any
violation. The checks are those of ``flockgym.envs.core.soak``.
"""

from __future__ import annotations

from flockgym.envs.core.soak import main

if __name__ == "__main__":
    raise SystemExit(main())
