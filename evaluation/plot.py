"""``flockgym plot RUN [RUN ...]``: learning curves of one run, or of several
overlaid, as a PNG.

Six panels over learner steps: the evaluation win rate and mean points
against each opponent (the learner against a field of it, on fixed deals),
the self-play win rate against each opponent of the pool, the policy's
entropy, and the PPO policy and value losses (read from the run's TensorBoard
logs). The noisy curves (self-play, entropy, losses) are a trailing mean over
``smooth_window`` points, and the panels say so.

Runs of one config that differ only in their seed (their resolved
``config.yaml`` equal but for ``seed`` and ``output``) are one curve: the mean
over the seeds, with a band from the lowest to the highest seed. A single run's
evaluation curves carry their own 95% intervals as the band. Different configs
are overlaid in their own colours.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from flockgym.common.errors import RunError
from flockgym.common.files import OutputError, write_atomic
from flockgym.training.runs import read_progress

LOSS_TAGS = {
    "entropy": "train/entropy_loss",  # sb3 logs minus the entropy
    "policy loss": "train/policy_gradient_loss",
    "value loss": "train/value_loss",
}
SEED_FREE_KEYS = ("seed", "output", "progress_bar")
"""Config keys that do not make two runs different experiments."""


@dataclass
class Run:
    """One run folder's curves: series of (steps, values) by name."""

    path: Path
    config: dict[str, Any]
    seed: Any
    records: list[dict[str, Any]]
    scalars: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


def plot_run(run_dir: str | Path, out: str | Path | None = None, smooth_window: int = 10) -> Path:
    """Write ``learning_curves.png`` (or ``out``) for the run in ``run_dir``."""
    return plot_runs([run_dir], out, smooth_window)


def plot_runs(
    run_dirs: list[str | Path] | list[Path],
    out: str | Path | None = None,
    smooth_window: int = 10,
) -> Path:
    """One PNG of every run in ``run_dirs`` (see the module docstring); ``out``
    defaults to ``learning_curves.png`` in a single run's folder."""
    if smooth_window < 1:
        raise RunError(f"smoothing window {smooth_window}: allowed: an integer >= 1")
    if not run_dirs:
        raise RunError("no run folders to plot")
    runs = [read_run(Path(d)) for d in run_dirs]
    if out is None:
        if len(runs) > 1:
            raise RunError("several runs: give --out for the PNG (e.g. --out compare.png)")
        out = runs[0].path / "learning_curves.png"
    out = Path(out)
    if not out.parent.is_dir():
        raise OutputError(f"cannot write {out}: the folder {out.parent} does not exist")
    if out.is_dir():
        raise OutputError(f"cannot write {out}: it is a folder; give the PNG file's path")
    image = draw(group_seeds(runs), smooth_window)
    return write_atomic(out, image)


def read_run(path: Path) -> Run:
    """A run folder's progress records, config and TensorBoard scalars."""
    if not path.exists():
        raise RunError(f"{path}: no such run folder")
    if not path.is_dir():
        raise RunError(f"{path} is a file, not a run folder")
    records = read_progress(path)
    if not records:
        raise RunError(f"{path} has no progress.jsonl records to plot (is it a run folder?)")
    config = read_config(path)
    run = Run(path, config, config.get("seed"), records)
    run.scalars = read_scalars(path)
    return run


def read_config(path: Path) -> dict[str, Any]:
    """The run's resolved config (``{}`` if it has none)."""
    from flockgym.training.config import read_text, read_yaml

    file = path / "config.yaml"
    if not file.is_file():
        return {}
    try:
        data = read_yaml(read_text(file, "run config"))
    except (OSError, ValueError) as err:
        raise RunError(f"{file} cannot be read ({err})") from None
    except Exception as err:  # a YAML error: name the file
        raise RunError(f"{file} is not valid YAML ({err})") from None
    return data if isinstance(data, dict) else {}


def read_scalars(path: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The loss and entropy scalars of the run's TensorBoard logs, by panel name."""
    if not (path / "tb").is_dir():
        return {}
    from tensorboard.backend.event_processing.event_accumulator import (
        SCALARS,
        EventAccumulator,
    )

    events = EventAccumulator(str(path / "tb"), {SCALARS: 0})
    events.Reload()
    tags = set(events.Tags().get("scalars", []))
    found = {}
    for name, tag in LOSS_TAGS.items():
        if tag in tags:
            rows = events.Scalars(tag)
            steps = np.array([r.step for r in rows], dtype=float)
            values = np.array([r.value for r in rows], dtype=float)
            found[name] = (steps, -values if name == "entropy" else values)
    return found


def experiment_key(config: dict[str, Any]) -> str:
    """What makes two runs one experiment: the config but for seed and output."""
    import json

    return json.dumps({k: v for k, v in config.items() if k not in SEED_FREE_KEYS}, sort_keys=True)


def group_seeds(runs: list[Run]) -> list[list[Run]]:
    """Runs grouped by experiment, in the order given; a group with one run is a run."""
    groups: dict[str, list[Run]] = {}
    for run in runs:
        key = experiment_key(run.config) if run.config else str(run.path)
        groups.setdefault(key, []).append(run)
    return list(groups.values())


def group_label(group: list[Run]) -> str:
    if len(group) == 1:
        return group[0].path.name
    seeds = ", ".join(str(r.seed) for r in group)
    return f"{group[0].path.name} and {len(group) - 1} more (seeds {seeds})"


# ---- series ------------------------------------------------------------------------


def eval_series(run: Run, opponent: str, key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows = [r for r in run.records if r["kind"] == "eval" and r["opponent"] == opponent]
    steps = np.array([r["step"] for r in rows], dtype=float)
    values = np.array([r[key] for r in rows], dtype=float)
    ci = np.nan_to_num(np.array([r.get(f"{key}_ci", 0.0) or 0.0 for r in rows], dtype=float))
    return steps, values, ci


def selfplay_series(run: Run, opponent: str) -> tuple[np.ndarray, np.ndarray]:
    rows = [r for r in run.records if r["kind"] == "selfplay" and r["opponent"] == opponent]
    return (
        np.array([r["step"] for r in rows], dtype=float),
        np.array([r["win_rate"] for r in rows], dtype=float),
    )


def aggregate(
    series: list[tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean, lowest and highest over runs at the steps every run has."""
    common = set(series[0][0].tolist())
    for steps, _ in series[1:]:
        common &= set(steps.tolist())
    steps = np.array(sorted(common))
    table = np.array(
        [[dict(zip(s.tolist(), v.tolist(), strict=True))[x] for x in steps] for s, v in series]
    )
    if table.size == 0:
        empty = np.array([])
        return steps, empty, empty, empty
    return steps, table.mean(axis=0), table.min(axis=0), table.max(axis=0)


def smooth(values: np.ndarray, window: int = 10) -> np.ndarray:
    """Trailing mean over ``window`` points (fewer at the start)."""
    if values.size == 0:
        return values
    sums = np.cumsum(np.insert(values, 0, 0.0))
    idx = np.arange(1, values.size + 1)
    lo = np.maximum(0, idx - window)
    return (sums[idx] - sums[lo]) / (idx - lo)


# ---- drawing -------------------------------------------------------------------------


def draw(groups: list[list[Run]], window: int) -> bytes:
    """The six panels as PNG bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 2, figsize=(13, 11), sharex=True)
    (win_ax, points_ax), (selfplay_ax, entropy_ax), (policy_ax, value_ax) = axes
    several = len(groups) > 1
    opponents = sorted({r["opponent"] for g in groups for run in g for r in run.records})
    styles = ["-", "--", ":", "-."]
    for gi, group in enumerate(groups):
        label = group_label(group)
        for oi, opponent in enumerate(opponents):
            colour = f"C{(gi if several else oi) % 10}"
            style = styles[oi % len(styles)] if several else "-"
            name = f"{label}: vs {opponent}" if several else f"vs {opponent}"
            for ax, key in ((win_ax, "win_rate"), (points_ax, "mean_points")):
                plot_eval(ax, group, opponent, key, colour, style, name)
            runs = [selfplay_series(run, opponent) for run in group]
            if all(s.size for s, _ in runs):
                steps, mean, low, high = aggregate([(s, smooth(v, window)) for s, v in runs])
                selfplay_ax.plot(steps, mean, color=colour, ls=style, label=name)
                if len(group) > 1:
                    selfplay_ax.fill_between(steps, low, high, color=colour, alpha=0.15)
        for ax, name in (
            (entropy_ax, "entropy"),
            (policy_ax, "policy loss"),
            (value_ax, "value loss"),
        ):
            runs = [run.scalars[name] for run in group if name in run.scalars]
            if len(runs) != len(group) or not runs:
                continue
            steps, mean, low, high = aggregate([(s, smooth(v, window)) for s, v in runs])
            ax.plot(steps, mean, color=f"C{gi % 10}", label=label)
            if len(group) > 1:
                ax.fill_between(steps, low, high, color=f"C{gi % 10}", alpha=0.15)
    players = next(
        (r["num_players"] for g in groups for run in g for r in run.records if r["kind"] == "eval"),
        None,
    )
    if players:
        win_ax.axhline(1 / players, color="grey", ls="--", label="equal players")
    band = "band: lowest to highest seed" if any(len(g) > 1 for g in groups) else "band: 95% CI"
    titles = {
        win_ax: f"evaluation win rate ({band})",
        points_ax: f"evaluation mean points ({band})",
        selfplay_ax: f"self-play win rate (trailing mean of {window})",
        entropy_ax: f"policy entropy (trailing mean of {window})",
        policy_ax: f"PPO policy loss (trailing mean of {window})",
        value_ax: f"PPO value loss (trailing mean of {window})",
    }
    for ax, title in titles.items():
        ax.set_title(title, fontsize=10)
        if ax.lines:
            ax.legend(loc="best", fontsize=7)
        else:
            ax.text(0.5, 0.5, "not logged", ha="center", va="center", transform=ax.transAxes)
    for ax in axes[-1]:
        ax.set_xlabel("learner steps")
    fig.suptitle(", ".join(group_label(g) for g in groups)[:150])
    fig.tight_layout()
    image = io.BytesIO()
    fig.savefig(image, format="png", dpi=90)
    plt.close(fig)
    return image.getvalue()


def plot_eval(
    ax: Any, group: list[Run], opponent: str, key: str, colour: str, style: str, name: str
) -> None:
    """One evaluation curve: a run with its intervals, or seeds with their spread."""
    series = [eval_series(run, opponent, key) for run in group]
    if not all(s.size for s, _, _ in series):
        return
    if len(group) == 1:
        steps, values, ci = series[0]
        ax.plot(steps, values, marker="o", color=colour, ls=style, label=name)
        ax.fill_between(steps, values - ci, values + ci, color=colour, alpha=0.15)
        return
    steps, mean, low, high = aggregate([(s, v) for s, v, _ in series])
    ax.plot(steps, mean, marker="o", color=colour, ls=style, label=name)
    ax.fill_between(steps, low, high, color=colour, alpha=0.15)
