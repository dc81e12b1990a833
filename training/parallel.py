"""Batched self-play across worker processes (``batched.workers: N`` in a config).

:class:`ParallelBatchedVecEnv` splits the ``n_envs`` games of ``vec_env:
batched`` into ``N`` contiguous slices, each a
:class:`~.batched.BatchedSelfPlayVecEnv`: worker 0 is the training process
itself, workers 1 to N-1 are processes of their own. The learner's step sends
each worker its slice of the actions, then plays slice 0 while the other
workers play theirs, opponents and all, so a machine with N cores collects
rollouts on all of them; the learner's forward pass and update stay in the
training process. (Worker 0 in the training process saves a process and its
messages: the training process would otherwise wait idle while the games
are played.)

Game ``i`` keeps everything that makes it the game it is: its seat rotation
(``seat_offset = i``) and its seed (``seed + i``, sent to the worker that holds
it), so the learner sees, step for step, what the one-process batched env and
``DummyVecEnv`` show it for the same seed (``tests/training/test_parallel.py``),
and a run with workers ends with the weights of the same run without them.

Workers ignore Ctrl-C: the main process catches it, writes its checkpoint and
closes the workers (``close``), as with the other vec envs. An error in a
worker is raised again in the main process with the worker's traceback; a
worker that dies (killed by a signal, out of memory, an exit) is reported as
:class:`WorkerError` naming the worker, its games and its exit code or signal,
and training stops (``flockgym train`` prints how to resume the run).
Messages between the processes are this module's own (Python's multiprocessing
pipes); nothing is read from disk but what the workers' envs load themselves
(snapshot checkpoints, weights only).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import traceback
from multiprocessing.connection import Connection
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from flockgym.envs import OptionError
from flockgym.training.batched import BatchedSelfPlayVecEnv

MAX_WORKERS = 64
"""More worker processes than any machine this is meant for has cores."""


class WorkerError(RuntimeError):
    """An error raised inside a worker process (its traceback is in the message),
    or a worker process that died without answering."""


def death_message(
    worker: int, pid: int | None, games: range, exitcode: int | None, started: bool
) -> str:
    """Why worker ``worker`` stopped answering, for a person: which worker and
    games, its exit code or the signal that ended it. Only a worker that died
    before its first answer (``started`` false) with an error exit may be a
    script without a ``__main__`` guard (each worker imports the script's module
    again), so only then is that said."""
    who = f"worker {worker} (process {pid}, games {games.start} to {games.stop - 1})"
    if exitcode is None:
        how = "closed its pipe without answering"
    elif exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        how = f"was killed by {name} (exit code {exitcode})"
        if -exitcode == signal.SIGKILL:
            how += ": the system's out-of-memory killer, or a person, ended it"
    else:
        how = f"exited with code {exitcode} without answering"
    when = "while starting" if not started else "during training"
    message = f"{who} {how} {when}"
    if not started and exitcode is not None and exitcode > 0:
        message += (
            "; if a script of your own started the training, it must do so under "
            "`if __name__ == '__main__':`, since each worker imports the script's module again"
        )
    return message


def slices(n_envs: int, workers: int) -> list[range]:
    """Contiguous, nearly equal slices of the games, one per worker, in order."""
    if not 1 <= workers <= min(n_envs, MAX_WORKERS):
        raise OptionError(
            f"workers={workers!r} for {n_envs} games; allowed: 1 to "
            f"{min(n_envs, MAX_WORKERS)} (at most one worker per game)"
        )
    size, extra = divmod(n_envs, workers)
    bounds, start = [], 0
    for k in range(workers):
        stop = start + size + (1 if k < extra else 0)
        bounds.append(range(start, stop))
        start = stop
    return bounds


class ParallelBatchedVecEnv(VecEnv):
    """``n_envs`` batched self-play games in ``workers`` processes (see the
    module docstring); the arguments are :class:`~.batched.BatchedSelfPlayVecEnv`'s."""

    def __init__(
        self,
        n_envs: int,
        env_kwargs: dict[str, Any],
        engine: str = "auto",
        dealing: str = "exact",
        workers: int = 2,
    ) -> None:
        self.slices = slices(n_envs, workers)
        self.owner = np.concatenate([[k] * len(part) for k, part in enumerate(self.slices)])
        self.local = np.concatenate([np.arange(len(part)) for part in self.slices])
        # Slice 0 first, in this process: a wrong engine, dealing or env option
        # fails here with its own error before any worker starts.
        self.local_games = BatchedSelfPlayVecEnv(len(self.slices[0]), env_kwargs, engine, dealing)
        self._local_request: tuple[str, Any] | None = None
        context = multiprocessing.get_context(
            "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        )
        self.connections: list[Connection] = []
        self.processes: list[Any] = []
        self.closed = False
        self.started = False  # every worker has answered once
        try:
            for part in self.slices[1:]:
                ours, theirs = context.Pipe()
                process = context.Process(
                    target=work,
                    args=(theirs, part.start, len(part), env_kwargs, engine, dealing),
                    daemon=True,
                )
                process.start()
                theirs.close()
                self.connections.append(ours)
                self.processes.append(process)
            self._broadcast("spaces")
            self.started = True
        except BaseException:
            self.close()
            raise
        games = self.local_games
        super().__init__(n_envs, games.observation_space, games.action_space)
        self._masks: np.ndarray | None = None
        self._actions = np.zeros(n_envs, dtype=np.int64)

    # ---- talking to the workers -----------------------------------------------------

    def _send(self, worker: int, command: str, payload: Any = None) -> None:
        """Worker 0 is this process: its command is done when its answer is read, so
        that it runs while the other workers do theirs."""
        if worker == 0:
            self._local_request = (command, payload)
            return
        with contextlib.suppress(BrokenPipeError, OSError):  # its answer will say why
            self.connections[worker - 1].send((command, payload))

    def _receive(self, worker: int) -> Any:
        if worker == 0:
            assert self._local_request is not None
            command, payload = self._local_request
            self._local_request = None
            return answer(self.local_games, command, payload)
        try:
            status, value = self.connections[worker - 1].recv()
        except (EOFError, OSError):
            process = self.processes[worker - 1]
            process.join(timeout=5)  # its pipe is closed: it is gone or going
            raise WorkerError(
                death_message(
                    worker, process.pid, self.slices[worker], process.exitcode, self.started
                )
            ) from None
        if status == "error":
            last_line = value.strip().splitlines()[-1]
            raise WorkerError(f"worker {worker}: {last_line}\n{value}")
        return value

    def _gather(self, workers: Any = None) -> dict[int, Any]:
        """The answer of every worker listed (all of them by default), read even if
        one failed, so that no answer is left behind for the next command."""
        answers, failure = {}, None
        for worker in range(len(self.slices)) if workers is None else workers:
            try:
                answers[worker] = self._receive(worker)
            except Exception as error:
                failure = failure or error
        if failure is not None:
            raise failure
        return answers

    def _broadcast(self, command: str, payload: Any = None) -> list[Any]:
        for worker in range(len(self.slices)):
            self._send(worker, command, payload)
        return list(self._gather().values())

    def _by_worker(self, indices: Any) -> dict[int, list[int]]:
        """Local indices per worker of the global ``indices``, in the order given."""
        chosen: dict[int, list[int]] = {}
        for i in self._get_indices(indices):
            chosen.setdefault(int(self.owner[i]), []).append(int(self.local[i]))
        return chosen

    def _per_env(self, command: str, indices: Any, *payload: Any) -> list[Any]:
        """``command`` on the envs listed, answers in the order of ``indices``."""
        chosen = self._by_worker(indices)
        for worker, local in chosen.items():
            self._send(worker, command, (local, *payload))
        answers = {worker: iter(values) for worker, values in self._gather(chosen).items()}
        return [next(answers[int(self.owner[i])]) for i in self._get_indices(indices)]

    # ---- VecEnv ---------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        for worker, part in enumerate(self.slices):
            seeds = [self._seeds[i] for i in part]
            self._send(worker, "reset", seeds)
        answers = list(self._gather().values())
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [info for _, infos, _ in answers for info in infos]
        self._masks = np.concatenate([masks for _, _, masks in answers])
        return np.concatenate([observations for observations, _, _ in answers])

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)
        for worker, part in enumerate(self.slices):
            self._send(worker, "step", self._actions[part.start : part.stop])

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        answers = list(self._gather().values())
        infos: list[dict[str, Any]] = []
        for part, (_, _, _, worker_infos, restarted, _) in zip(self.slices, answers, strict=True):
            infos.extend(worker_infos)
            for local, info in restarted.items():
                self.reset_infos[part.start + local] = info
        self._masks = np.concatenate([answer[5] for answer in answers])
        return (
            np.concatenate([answer[0] for answer in answers]),
            np.concatenate([answer[1] for answer in answers]),
            np.concatenate([answer[2] for answer in answers]),
            infos,
        )

    def action_masks(self) -> np.ndarray:
        """``[n_envs, A]`` bool: the learners' legal moves now, as the last step or
        reset left them (no message to the workers)."""
        if self._masks is None:
            self._masks = np.concatenate(self._broadcast("masks"))
        return self._masks.copy()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.local_games.close()
        for connection, process in zip(self.connections, self.processes, strict=True):
            if process.is_alive():
                with contextlib.suppress(BrokenPipeError, OSError):
                    connection.send(("close", None))
        for connection, process in zip(self.connections, self.processes, strict=True):
            process.join(timeout=10)
            if process.is_alive():
                process.terminate()
                process.join()
            connection.close()

    def has_attr(self, attr_name: str) -> bool:
        return all(self._per_env("has_attr", None, attr_name))

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return self._per_env("get_attr", indices, attr_name)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        self._masks = None
        self._per_env("set_attr", indices, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        self._masks = None
        return self._per_env("env_method", indices, method_name, method_args, method_kwargs)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]


# ---- the worker process ------------------------------------------------------------------


def work(
    connection: Connection,
    first_index: int,
    count: int,
    env_kwargs: dict[str, Any],
    engine: str,
    dealing: str,
) -> None:
    """A worker's life: build its games, then answer commands until ``close``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import torch

    torch.set_num_threads(1)
    try:
        venv = BatchedSelfPlayVecEnv(count, env_kwargs, engine, dealing, first_index=first_index)
    except Exception:
        connection.send(("error", traceback.format_exc()))
        return
    while True:
        try:
            command, payload = connection.recv()
        except EOFError:
            return
        if command == "close":
            venv.close()
            return
        try:
            connection.send(("ok", answer(venv, command, payload)))
        except Exception:
            connection.send(("error", traceback.format_exc()))


def answer(venv: Any, command: str, payload: Any) -> Any:
    """One command of the main process, done on this worker's games."""
    if command == "reset":
        venv._seeds = list(payload)
        observations = venv.reset()
        return observations, venv.reset_infos, venv.action_masks()
    if command == "step":
        before = list(venv.reset_infos)
        venv.step_async(payload)
        observations, rewards, dones, infos = venv.step_wait()
        restarted = {i: info for i, info in enumerate(venv.reset_infos) if info is not before[i]}
        return observations, rewards, dones, infos, restarted, venv.action_masks()
    if command == "masks":
        return venv.action_masks()
    if command == "spaces":
        return venv.observation_space, venv.action_space
    local, *rest = payload
    if command == "has_attr":
        return [hasattr(venv.slots[i], rest[0]) for i in local]
    if command == "get_attr":
        return venv.get_attr(rest[0], local)
    if command == "set_attr":
        venv.set_attr(rest[0], rest[1], local)
        return [None for _ in local]
    if command == "env_method":
        name, args, kwargs = rest
        return venv.env_method(name, *args, indices=local, **kwargs)
    raise ValueError(
        f"unknown command {command!r}; allowed: reset, step, masks, has_attr, get_attr, "
        "set_attr, env_method, spaces, close"
    )
