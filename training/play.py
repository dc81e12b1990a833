"""``flockgym play ENV --seat K --opponents SPEC,...``: a person against bots, in a terminal.

The table is the env's own text rendering from the person's seat, so the
terminal shows exactly what that seat may see; the other seats' moves are
announced without their content (in a simultaneous game like Asrus they are
hidden until the turn resolves). A move is typed as its action string (``9+C``)
or as its action id after ``#`` (``#105``); anything else is refused with the
list of legal moves.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any, TextIO

from flockgym.envs import FlockgymError, make
from flockgym.envs.core.play import play_game

from .evaluate import derive_seed
from .policies import BotSpecError, make_participant, parse_specs

HELP = "type a move as listed (e.g. its action string) or #id; '?' lists the moves, 'quit' leaves"
ACTION_ID = re.compile(r"#?([0-9]{1,9})")
"""An action id as typed: ASCII digits, at most nine (no id is longer; never
``int()`` of an unbounded string)."""
LONGEST_MOVE = 200
"""Longer input is no move of any game; it is refused without being parsed."""


class GameAbandoned(Exception):
    """The person quit, or the input ended, before the game was over."""


def play_terminal(
    env_id: str,
    seat: int,
    opponents: str,
    seed: int | None = None,
    env_options: dict[str, Any] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> dict[str, Any]:
    """Play one game; return its summary (points, winners, the person's rank)."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    env_options = dict(env_options or {})
    env = make(env_id, render_mode="ansi", **env_options)
    raw = env.unwrapped
    agents = list(env.possible_agents)
    if not 0 <= seat < len(agents):
        raise FlockgymError(f"--seat {seat} is not a seat of {env_id}; seats: 0..{len(agents) - 1}")
    me = agents[seat]
    others = [a for a in agents if a != me]
    specs = seat_specs(opponents, len(others))
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")
    bots = {
        agent: make_participant(spec, env_id, env_options).new_bot(derive_seed(seed, i))
        for i, (agent, spec) in enumerate(zip(others, specs, strict=True))
    }

    def say(text: str = "", end: str = "\n") -> None:
        print(text, file=stdout, end=end, flush=True)

    say(f"{env_id}: you are {me} (seat {seat}); deal seed {seed}")
    for agent, spec in zip(others, specs, strict=True):
        say(f"  {agent}: {spec.text}")

    class Person:
        """The person at the terminal, seated like a bot."""

        def act(self, observation: Any, view: Any) -> int:
            say()
            say(env.render())
            return ask_move(raw, me, stdin, say)

    def announce(env: Any, agent: str, action: int) -> None:
        if agent != me:
            say(f"{agent} has moved")

    play_game(env, {**bots, me: Person()}, seed=seed, on_step=announce)
    say()
    say(env.render())
    summary = summarise(raw, me)
    say(summary["text"])
    return summary


def seat_specs(opponents: str, count: int) -> list[Any]:
    """One bot spec per other seat: a single spec fills them all."""
    specs = parse_specs(opponents)
    if len(specs) == 1:
        return specs * count
    if len(specs) != count:
        raise BotSpecError(
            f"--opponents names {len(specs)} bots for {count} other seats; give one "
            f"(for every seat) or {count}"
        )
    return specs


def legal_moves_text(raw: Any, agent: str) -> str:
    moves = [f"{raw.action_to_string(agent, a)} (#{a})" for a in raw.legal_actions(agent)]
    return "legal moves: " + ", ".join(moves)


def ask_move(raw: Any, agent: str, stdin: TextIO, say: Any) -> int:
    """Read lines until one names a legal move; return its action id."""
    say(legal_moves_text(raw, agent))
    while True:
        say(f"your move ({agent})> ", end="")
        line = stdin.readline()
        if not line:
            raise GameAbandoned("input ended before the game was over")
        text = line.strip()
        if text.lower() in ("quit", "exit", "q"):
            raise GameAbandoned("you left the game")
        if text in ("?", "help", ""):
            say(HELP)
            say(legal_moves_text(raw, agent))
            continue
        action = read_move(raw, agent, text)
        if action is None:
            last = int(raw.action_space(agent).n) - 1
            say(
                f"{shorten(text)!r} is not a legal move now (action ids are #0 to #{last}, "
                f"and only the listed ones are legal). {HELP}"
            )
            say(legal_moves_text(raw, agent))
            continue
        return action


def shorten(text: str, limit: int = 40) -> str:
    """``text``, cut to ``limit`` characters with the count of the rest."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text) - limit} more)"


def read_move(raw: Any, agent: str, text: str) -> int | None:
    """The legal action id ``text`` names (action string, ``#id`` or bare id), else None."""
    if len(text) > LONGEST_MOVE:
        return None
    legal = set(raw.legal_actions(agent))
    try:
        action = raw.string_to_action(agent, text)
    except ValueError:
        action = None
    if action is not None and action in legal:
        return action
    typed_id = ACTION_ID.fullmatch(text)
    if typed_id and int(typed_id.group(1)) in legal:
        return int(typed_id.group(1))
    return None


def summarise(raw: Any, me: str) -> dict[str, Any]:
    """Final points, winners and the person's rank, with a one-paragraph text."""
    scores = dict(raw.scores)
    winners = list(raw.winners)
    order = sorted(scores, key=lambda a: -scores[a])
    rank = 1 + sum(1 for a in scores if scores[a] > scores[me])
    lines = ["final points: " + ", ".join(f"{a} {scores[a]:g}" for a in order)]
    lines.append("winners: " + (", ".join(winners) or "none"))
    verdict = "you won" if me in winners else "you did not win"
    lines.append(f"{verdict}: {me} finished #{rank} of {len(scores)} with {scores[me]:g} points")
    return {
        "scores": scores,
        "winners": winners,
        "rank": rank,
        "won": me in winners,
        "text": "\n".join(lines),
    }
