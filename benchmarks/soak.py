"""Soak every registered env: legal play at every player count and option sample,
at random, heuristic and mixed tables, checking masks, observation bounds, finite
rewards, the games' own accounting, identical continuation after a JSON round
trip at every step, and every seat's observation against a fresh load of the
state at every observed step (each game is observed at every step or only every
few steps, so that an observer that goes stale between calls shows).

    python benchmarks/soak.py [--steps 1000000] [--env asrus_v0 ...] [--seed 0]
                              [--table random|heuristic|mixed ...]

Prints, per env, the steps, games, games ended by the rules and truncated (in
all and at tables with heuristic seats), round trips, observations compared,
illegal-action probes, configurations played and violations found; exits
non-zero on any violation. The checks are those of ``flockgym.envs.core.soak``.
"""

from __future__ import annotations

from flockgym.envs.core.soak import main

if __name__ == "__main__":
    raise SystemExit(main())
