"""The error rates of the statistics a verdict rests on, by simulation:

* ``flockgym compare --sprt``'s sequential test (evaluation/sprt.py): alpha (H1
  accepted at H0's distribution) and beta (H0 accepted at H1's) over draw rates
  0 to 95%, in both Elo models, nominal 0.05 each, and the same for the old
  rule (any 10 deals, not 10 decisive ones) for comparison;
* the stopping-aware interval ``compare --sprt`` reports after a stop
  (fishtest's analytics): the share of A/A tests (true Elo 0) whose interval
  holds 0, at 0% and 90% drawn deals;
* the benchmark's IQM interval (evaluation/benchmark_stats.py): its coverage at
  grids of 5 and 10 seeds x 4 games, runs' win rates drawn from Beta
  populations of the spread the saved full grid shows.

    python benchmarks/verdict_error_rates.py --json benchmarks/results/verdict_error_rates.json

docs/training.md and docs/benchmark.md state these figures from the saved file
(``--summary FILE`` prints the tables; a test compares them).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from flockgym.evaluation import benchmark_stats as bs
from flockgym.evaluation import sprt as S

DRAW_RATES = (0.0, 0.5, 0.8, 0.9, 0.95)
DESIGNS = (("normalized", 0.0, 30.0), ("logistic", 0.0, 20.0))
POPULATIONS = ((2, 5), (3, 3), (5, 2), (1, 6))
"""Beta(a, b) of each game's run scores: mean win rates 0.29, 0.5, 0.71, 0.14."""


def error_rates(model: str, elo0: float, elo1: float, draws: float, runs: int, old: bool) -> dict:
    make = S.trinomial_with if model == "normalized" else S.logistic_trinomial
    try:
        h0, h1 = make(draws, elo0), make(draws, elo1)
    except ValueError as err:  # a logistic difference the draw rate cannot reach
        return {"draws": draws, "reachable": False, "why": str(err)}
    min_decisive = S.MIN_DECISIVE
    saved = S.decisive_path
    if old:  # the rule before: any 10 deals
        S.decisive_path = lambda s: np.broadcast_to(np.arange(1, s.shape[-1] + 1), s.shape)
    try:
        at0 = S.simulate(*h0, elo0, elo1, 0.05, 0.05, runs, 6000, 1, model, min_decisive)
        at1 = S.simulate(*h1, elo0, elo1, 0.05, 0.05, runs, 6000, 2, model, min_decisive)
    finally:
        S.decisive_path = saved
    return {
        "draws": draws,
        "reachable": True,
        "alpha": at0.accept_h1,
        "beta": at1.accept_h0,
        "undecided": max(at0.undecided, at1.undecided),
        "mean_deals_h0": at0.mean_deals,
        "mean_deals_h1": at1.mean_deals,
    }


def analytics_coverage(draws: float, runs: int) -> float:
    """The share of A/A tests (normalised 0, 30) whose stopping-aware 95%
    interval holds the true Elo difference 0."""
    rng = np.random.default_rng(int(draws * 100) + 5)
    values, probs = S.trinomial_with(draws, 0.0)
    scores = rng.choice(values, size=(runs, 6000), p=probs)
    played, _ = S.first_stop(scores, 0.0, 30.0, S.sprt_bounds(0.05, 0.05))
    held = 0
    for row, n in zip(scores, played, strict=True):
        estimate = S.analytics(row[:n], 0.0, 30.0, 0.05, 0.05)
        held += estimate.low <= 0.0 <= estimate.high
    return held / runs


def coverage(seeds: int, reps: int, sims: int) -> float:
    rng = np.random.default_rng(seeds)
    population = np.stack([rng.beta(a, b, size=20_000) for a, b in POPULATIONS], axis=1)
    return bs.coverage(population, seeds, bs.iqm_rows, reps, sims, seeds)


def measure(runs: int, sims: int) -> dict[str, Any]:
    started = time.process_time()
    sprt = [
        {
            "model": model,
            "elo0": elo0,
            "elo1": elo1,
            "rule": rule,
            "rates": [
                error_rates(model, elo0, elo1, d, runs, rule == "any 10 deals") for d in DRAW_RATES
            ],
        }
        for model, elo0, elo1 in DESIGNS
        for rule in (f"{S.MIN_DECISIVE} decisive deals", "any 10 deals")
    ]
    stopped = [
        {"draws": d, "runs": runs // 4, "coverage": analytics_coverage(d, runs // 4)}
        for d in (0.0, 0.9)
    ]
    cover = [
        {"seeds": n, "games": len(POPULATIONS), "coverage": coverage(n, 2000, sims)}
        for n in (5, 10)
    ]
    return {
        "runs_per_rate": runs,
        "coverage_sims": sims,
        "sprt": sprt,
        "iqm_coverage": cover,
        "stopping_aware_coverage": stopped,
        "cpu_seconds": round(time.process_time() - started, 1),
        "command": " ".join(["python", "benchmarks/verdict_error_rates.py", *sys.argv[1:]]),
    }


def summary(result: dict[str, Any]) -> str:
    """The docs' tables of a saved run."""
    lines = [
        "| Elo model, H0, H1 | rule | " + " | ".join(f"{d:.0%} drawn" for d in DRAW_RATES) + " |",
        "| --- | --- | " + " | ".join("---:" for _ in DRAW_RATES) + " |",
    ]
    for design in result["sprt"]:
        cells = [
            f"{r['alpha']:.3f} / {r['beta']:.3f}" if r["reachable"] else "unreachable"
            for r in design["rates"]
        ]
        label = f"{design['model']}, {design['elo0']:g}, {design['elo1']:g}"
        lines.append(f"| {label} | {design['rule']} | " + " | ".join(cells) + " |")
    lines.append("")
    lines += [
        f"Stopping-aware 95% interval after an A/A test (normalized, 0, 30) at "
        f"{c['draws']:.0%} drawn deals, holding the true 0: {c['coverage']:.1%} of "
        f"{c['runs']} tests"
        for c in result.get("stopping_aware_coverage", [])
    ]
    lines += [
        f"IQM interval coverage at {c['seeds']} seeds x {c['games']} games: {c['coverage']:.1%}"
        for c in result["iqm_coverage"]
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2000, help="simulated tests per draw rate")
    parser.add_argument("--sims", type=int, default=400, help="simulated grids per coverage")
    parser.add_argument("--json", type=Path, help="save the result here")
    parser.add_argument("--summary", type=Path, help="print the tables of a saved result")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(json.loads(args.summary.read_text())))
        return 0
    result = measure(args.runs, args.sims)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(summary(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
