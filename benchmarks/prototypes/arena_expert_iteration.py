"""A measured prototype: expert iteration on the Arena searcher's moves, 2 players.

This is a benchmark script, not product code. It answers one question of
issue 13: can the shipped 2-player Arena bot learn the moves by which the Monte
Carlo searcher of ``benchmarks/arena_headroom.py`` beats the heuristic, from as
many searcher games as fit in a shipped bot's training budget?

``collect`` plays games of the training config's self-play env with the
searcher at the learner's seat (searching only ``--phases``, where
``arena_headroom.py --phases`` found its edge; the heuristic's move elsewhere),
and saves every learner decision: the learner's input (observation and
advice), its mask, the move played, whether the searcher searched that
decision and whether it left the heuristic's move there, and the return from
there on. It is saved after every game, so a stopped run keeps its games.
``fit`` fine-tunes a checkpoint's network on
those decisions (cross-entropy on the moves, the value head on the returns;
the last tenth of the games held out), prints how often the greedy network
plays the searcher's move (on departures and elsewhere) before and after each
pass, and writes the fitted checkpoint for ``flockgym eval``.

    python benchmarks/prototypes/arena_expert_iteration.py collect --games 120 --out DIR
    python benchmarks/prototypes/arena_expert_iteration.py fit --data DIR --out fitted.zip
        [--checkpoint arena/ppo_2p] [--rows all|searched] [--own] [--departure-weight 1]
    flockgym eval --env arena_v0 --option num_players=2 --players fitted.zip,heuristic --games 100

The figures it gave are in docs/training.md (Arena, 2 players).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import torch

from flockgym.bots.checkpoints import (
    POLICY_MEMBER,
    CheckpointArchive,
    tensor_bytes,
    write_checkpoint,
)
from flockgym.bots.policies import read_meta_and_learner
from flockgym.bots.shipped import find_shipped
from flockgym.envs.arena.observer import game_view
from flockgym.training.config import load_config
from flockgym.training.learners import advice_actions
from flockgym.training.pretrain import learner_seat_env, play_learner_game

HERE = Path(__file__).resolve().parent
CONFIG = HERE.parents[1] / "configs" / "arena" / "ppo_2p.yaml"
PLAYOUT_SEED = 777
"""Process ``p``'s playouts and heuristic seeds come from a generator seeded
with this plus ``p`` (its games from ``--seed`` plus ``p``)."""
SEARCHED = "action,move,pick_space,pick_card,pick_player,pick_character"


def headroom() -> ModuleType:
    """``benchmarks/arena_headroom.py``, the searcher."""
    spec = importlib.util.spec_from_file_location(
        "arena_headroom", HERE.parent / "arena_headroom.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def collect_part(part: int, args: argparse.Namespace) -> tuple[int, float]:
    """``args.games`` searcher games in one process, saved to ``part-<part>.npz``."""
    h = headroom()
    config = load_config(args.config)
    env = learner_seat_env(config)
    env.reset_generator(args.seed + part)
    search = h.Search(config.env.options["num_players"], args.first, args.second, args.margin)
    rng = np.random.default_rng(PLAYOUT_SEED + part)
    rows: dict[str, list[Any]] = {
        k: [] for k in ("obs", "mask", "act", "game", "searched", "departed")
    }
    returns: list[np.ndarray] = []
    won = 0.0
    agents = list(env.raw.possible_agents)
    for number in range(args.games):
        bot = h.ArenaHeuristicBot(seed=int(rng.integers(2**31)))

        def search_move(vector: np.ndarray, bot: Any = bot, number: int = number) -> int:
            game = env.raw.arena  # the Python engine's game (a copy on the compiled engine)
            move = h.heuristic_move(bot, game, agents)
            phase = game_view(game, game.current_player(), agents)["phase"]
            searched = len(game.legal_actions()) > 1 and phase in args.phases
            departed = False
            if searched:
                chosen = h.searched_move(game, move, search, rng, agents)
                departed, move = chosen != move, chosen
            mask = env.raw.observe(env.learner)["action_mask"]
            for key, value in zip(
                rows, (vector, mask, move, number, searched, departed), strict=True
            ):
                rows[key].append(value)
            return move

        game_returns, win = play_learner_game(env, search_move, config.algo.gamma)
        returns.append(game_returns)
        won += win
        save_part(Path(args.out) / f"part-{part}.npz", rows, returns)
        print(f"part {part}: game {number + 1}, won {won / (number + 1):.1%}", file=sys.stderr)
    return part, won / args.games


def save_part(path: Path, rows: dict[str, list[Any]], returns: list[np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        path,
        obs=np.asarray(rows["obs"], dtype=np.float32),
        mask=np.asarray(rows["mask"], dtype=bool),
        act=np.asarray(rows["act"], dtype=np.int64),
        game=np.asarray(rows["game"], dtype=np.int64),
        searched=np.asarray(rows["searched"], dtype=bool),
        departed=np.asarray(rows["departed"], dtype=bool),
        ret=np.concatenate(returns).astype(np.float32),
    )


def load_data(folder: Path) -> dict[str, np.ndarray]:
    """Every part's rows, each part's games numbered apart."""
    parts = []
    for index, path in enumerate(sorted(folder.glob("part-*.npz"))):
        with np.load(path, allow_pickle=False) as data:
            part = {key: data[key] for key in data.files}
        part["game"] = part["game"] + index * 1_000_000
        parts.append(part)
    if not parts:
        raise SystemExit(f"{folder}: no part-*.npz files (run 'collect' first)")
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def matches(net: Any, data: dict[str, torch.Tensor], rows: torch.Tensor) -> str:
    """How often the greedy network plays the target move: all, departures, the rest."""
    if not rows.any():
        return "no decisions"
    with torch.no_grad():
        greedy, _, _ = net(data["obs"][rows], deterministic=True, action_masks=data["mask"][rows])
    same = greedy == data["act"][rows]
    departed = data["departed"][rows]
    return (
        f"{same.float().mean():.1%} (departures {same[departed].float().mean():.1%}, "
        f"elsewhere {same[~departed].float().mean():.1%})"
    )


def fit(args: argparse.Namespace) -> None:
    torch.manual_seed(0)
    arrays = load_data(Path(args.data))
    games = np.unique(arrays["game"])
    held = np.isin(arrays["game"], games[len(games) - len(games) // 10 :])
    used = arrays["searched"] if args.rows == "searched" else np.ones_like(held)
    path = find_shipped(args.checkpoint, "checkpoint") or Path(args.checkpoint)
    with CheckpointArchive(path) as archive:
        meta, learner = read_meta_and_learner(archive)
        net = learner.load_network(
            archive, meta.network, meta.input_size, meta.num_actions, advice_actions(meta)
        )
        meta_bytes = archive.zip.read("flockgym.json")
    data = {key: torch.as_tensor(value) for key, value in arrays.items()}
    if args.own:  # the network's own move wherever the searcher kept the heuristic's
        with torch.no_grad():
            own, _, _ = net(data["obs"], deterministic=True, action_masks=data["mask"])
        data["act"] = torch.where(data["departed"], data["act"], own)
    train, test = torch.as_tensor(~held & used), torch.as_tensor(held & used)
    print(f"{len(held):,} decisions, {int(data['departed'].sum()):,} departures; "
          f"fit on {int(train.sum()):,}, held out {int(test.sum()):,}")  # fmt: skip
    print(f"before: train {matches(net, data, train)}; held out {matches(net, data, test)}")
    weights = torch.where(data["departed"], args.departure_weight, 1.0)
    optimizer = torch.optim.Adam(net.parameters(), lr=args.learning_rate)
    fitted = torch.nonzero(train).flatten()
    for epoch in range(args.epochs):
        net.set_training_mode(True)
        order = fitted[torch.randperm(len(fitted))]
        for start in range(0, len(order), 256):
            rows = order[start : start + 256]
            values, log_prob, _ = net.evaluate_actions(
                data["obs"][rows], data["act"][rows], data["mask"][rows]
            )
            value_loss = torch.nn.functional.mse_loss(values.flatten(), data["ret"][rows])
            loss = -(log_prob * weights[rows]).mean() + 0.5 * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            optimizer.step()
        net.set_training_mode(False)
        print(f"pass {epoch + 1}: train {matches(net, data, train)}; "
              f"held out {matches(net, data, test)}")  # fmt: skip
    members = {"flockgym.json": meta_bytes, POLICY_MEMBER: tensor_bytes(net.state_dict())}
    print(f"wrote {write_checkpoint(Path(args.out), members)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    collect = commands.add_parser("collect", help="searcher games at the learner's seat")
    collect.add_argument("--config", default=str(CONFIG))
    collect.add_argument("--games", type=int, default=120, help="per process")
    collect.add_argument("--jobs", type=int, default=2)
    collect.add_argument("--first", type=int, default=4)
    collect.add_argument("--second", type=int, default=12)
    collect.add_argument("--margin", type=float, default=0.1)
    phases = headroom().phase_set
    collect.add_argument("--phases", type=phases, default=phases(SEARCHED))
    collect.add_argument("--seed", type=int, default=4242)
    collect.add_argument("--out", required=True, help="folder for the part-*.npz files")
    tune = commands.add_parser("fit", help="fine-tune a checkpoint on the collected moves")
    tune.add_argument("--data", required=True)
    tune.add_argument("--checkpoint", default="arena/ppo_2p")
    tune.add_argument("--out", required=True)
    tune.add_argument("--epochs", type=int, default=4)
    tune.add_argument("--learning-rate", type=float, default=1e-4)
    tune.add_argument("--departure-weight", type=float, default=1.0)
    tune.add_argument("--rows", choices=("all", "searched"), default="all")
    tune.add_argument("--own", action="store_true", help="keep the network's moves elsewhere")
    args = parser.parse_args()  # --phases names checked by the searcher's phase_set
    if args.command == "fit":
        fit(args)
        return
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for part, rate in pool.map(collect_part, range(args.jobs), [args] * args.jobs):
            print(f"part {part}: the searcher won {rate:.1%} of its {args.games} games")


if __name__ == "__main__":
    main()
