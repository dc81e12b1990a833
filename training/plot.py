"""``flockgym plot RUN_DIR``: learning curves of a run as a PNG.

Top: the evaluations (the learner against a field of each opponent, on fixed
deals) with their 95% intervals, and the win rate equal players would have.
Bottom: the self-play games' win rate against each opponent of the pool,
smoothed over iterations.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from .files import write_atomic
from .runs import RunError, read_progress


def plot_run(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Write ``learning_curves.png`` (or ``out``) for the run in ``run_dir``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    records = read_progress(run_dir)
    if not records:
        raise RunError(f"{run_dir} has no progress.jsonl records to plot (is it a run folder?)")
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    names = sorted({r["opponent"] for r in records})
    colour = {name: f"C{i}" for i, name in enumerate(names)}  # one colour per opponent
    evals = [r for r in records if r["kind"] == "eval"]
    for opponent, rows in group(evals).items():
        steps = np.array([r["step"] for r in rows])
        rate = np.array([r["win_rate"] for r in rows])
        ci = np.nan_to_num(np.array([r["win_rate_ci"] for r in rows]))
        top.plot(steps, rate, marker="o", color=colour[opponent], label=f"vs {opponent}")
        top.fill_between(steps, rate - ci, rate + ci, color=colour[opponent], alpha=0.2)
    if evals:
        top.axhline(1 / evals[0]["num_players"], color="grey", ls="--", label="equal players")
        top.legend(loc="best")
    top.set_ylabel("evaluation win rate")
    top.set_title(f"{run_dir.name}: learner against a field of each opponent")
    for opponent, rows in group([r for r in records if r["kind"] == "selfplay"]).items():
        steps = np.array([r["step"] for r in rows])
        rate = smooth(np.array([r["win_rate"] for r in rows]))
        bottom.plot(steps, rate, color=colour[opponent], label=opponent)
    bottom.set_xlabel("learner steps")
    bottom.set_ylabel("self-play win rate")
    if bottom.lines:
        bottom.legend(loc="best")
    fig.tight_layout()
    path = Path(out) if out else run_dir / "learning_curves.png"
    image = io.BytesIO()
    fig.savefig(image, format="png", dpi=100)
    plt.close(fig)
    return write_atomic(path, image.getvalue())


def group(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        groups.setdefault(record["opponent"], []).append(record)
    return groups


def smooth(values: np.ndarray, window: int = 10) -> np.ndarray:
    """Trailing mean over ``window`` points (fewer at the start)."""
    sums = np.cumsum(np.insert(values, 0, 0.0))
    idx = np.arange(1, values.size + 1)
    lo = np.maximum(0, idx - window)
    return (sums[idx] - sums[lo]) / (idx - lo)
