"""The self-play envs in a vec env for a learner: stable-baselines3's own
(``DummyVecEnv``, ``SubprocVecEnv``), or the batched one in one process or several.
It stands above :mod:`~flockgym.training.selfplay`,
:mod:`~flockgym.training.batched` and :mod:`~flockgym.training.parallel`, which
import none of it, so the three are layered one way."""

from __future__ import annotations

from functools import partial
from typing import Any

from flockgym.training.batched import BatchedSelfPlayVecEnv
from flockgym.training.parallel import ParallelBatchedVecEnv
from flockgym.training.selfplay import SelfPlayEnv


def make_selfplay_env(torch_threads: int, seat_offset: int, **kwargs: Any) -> SelfPlayEnv:
    """Factory for the vec envs (a top-level function, so a subprocess can be sent it).
    Snapshot opponents run torch in here; a subprocess must not grab every core."""
    import torch

    torch.set_num_threads(torch_threads)
    return SelfPlayEnv(seat_offset=seat_offset, **kwargs)


def make_vec_env(
    vec_env: str,
    n_envs: int,
    torch_threads: int,
    env_kwargs: dict[str, Any],
    engine: str = "auto",
    dealing: str = "exact",
    workers: int = 1,
) -> Any:
    """``n_envs`` self-play envs in the named vec-env class (``DummyVecEnv``,
    ``SubprocVecEnv``, or ``batched``: :class:`~flockgym.training.batched.BatchedSelfPlayVecEnv` on
    ``engine`` with ``dealing``, in ``workers`` processes when more than one:
    :class:`~flockgym.training.parallel.ParallelBatchedVecEnv`), with episode monitoring."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if vec_env == "batched" and workers > 1:
        return VecMonitor(ParallelBatchedVecEnv(n_envs, env_kwargs, engine, dealing, workers))
    if vec_env == "batched":
        return VecMonitor(BatchedSelfPlayVecEnv(n_envs, env_kwargs, engine, dealing))
    factories = [
        partial(make_selfplay_env, torch_threads, rank, **env_kwargs) for rank in range(n_envs)
    ]
    venv = DummyVecEnv(factories) if vec_env == "DummyVecEnv" else SubprocVecEnv(factories)
    return VecMonitor(venv)
