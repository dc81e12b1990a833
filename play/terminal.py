"""``flockgym play ENV --seat K --opponents SPEC,...``: a person against bots, in a terminal.

The table is the env's own text rendering from the person's seat, so the
terminal shows exactly what that seat may see; the other seats' moves are
announced with their content only where the game makes them in the open (every
card played to an Astrobirdz trick; no Asrus commitment until the turn
resolves), and what the seat's view then shows is told as it happens: each
completed trick with its winner, each turn's scoring item by item, each
revealed Asrus turn. A move is typed as its action string (``9+C``) or as its
action id after ``#`` (``#105``); anything else is refused with the list of
legal moves, and ``?`` also says how the game is won and what its special
cards do. Every line is wrapped to the terminal's width (between words; a move
is never split). A move that is the only legal one is played for the person.
The game is saved like a web game (``flockgym replay FILE`` replays it).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any, TextIO

from flockgym.bots.policies import BotSpecError, make_participant, parse_specs
from flockgym.common.errors import GameAbandoned
from flockgym.envs import FlockgymError, OptionError, make
from flockgym.envs.core.bots import fill_seats
from flockgym.envs.core.play import play_game
from flockgym.envs.core.rng import derive_seed

from .cards_help import help_text, how_it_is_won
from .narration import Narrator
from .records import GameLog, game_options, number, record_file_name

HELP = "type a move as listed (e.g. its action string) or #id; '?' lists the moves, 'quit' leaves"
ACTION_ID = re.compile(r"#?([0-9]{1,9})")
"""An action id as typed: ASCII digits, at most nine (no id is longer; never
``int()`` of an unbounded string)."""
LONGEST_MOVE = 200
"""Longer input is no move of any game; it is refused without being parsed."""


def play_terminal(
    env_id: str,
    seat: int,
    opponents: str,
    seed: int | None = None,
    env_options: dict[str, Any] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    save_dir: Path | None = None,
    width: int | None = None,
) -> dict[str, Any]:
    """Play one game; return its summary (points, winners, the person's rank).

    With ``save_dir`` the game is saved there as JSON as it goes (the
    format of ``flockgym serve``; a game left early is saved as abandoned).
    Lines are wrapped to ``width`` columns (default: the terminal's)."""
    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    columns = width or shutil.get_terminal_size((100, 24)).columns
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
    bot_seeds = {agent: derive_seed(seed, i) for i, agent in enumerate(others)}
    bots = {
        agent: make_participant(spec, env_id, env_options).new_bot(bot_seeds[agent])
        for agent, spec in zip(others, specs, strict=True)
    }
    names = {me: "you", **{a: s.text for a, s in zip(others, specs, strict=True)}}
    log = terminal_log(raw, seed, me, names, bot_seeds, save_dir)
    narrator = Narrator(raw, me, names)

    def say(text: str = "", end: str = "\n") -> None:
        print(wrap_lines(text, columns), file=stdout, end=end, flush=True)

    say(f"{env_id}: you are {me} (seat {seat}); deal seed {seed}")
    for agent, spec in zip(others, specs, strict=True):
        say(f"  {agent}: {spec.text}")

    class Person:
        """The person at the terminal, seated like a bot."""

        def act(self, observation: Any, view: Any) -> int:
            for line in narrator.catch_up():
                say(line)
            legal = raw.legal_actions(me)
            if len(legal) == 1:
                say(f"your only move is {raw.action_to_string(me, legal[0])}: played for you")
                return legal[0]
            say()
            say(env.render())
            return ask_move(raw, me, stdin, say, columns)

    def announce(env: Any, agent: str, action: int) -> None:
        lines = narrator.move(agent, action)
        for line in lines if agent != me else lines[:-1]:
            say(line)
        log.add_move(agent, action, raw.action_to_string(agent, action))
        log.save()

    try:
        play_game(env, {**bots, me: Person()}, seed=seed, on_step=announce)
    except GameAbandoned:
        log.finish("abandoned", scores_of(raw), [])
        log.save()
        raise
    for line in narrator.catch_up():
        say(line)
    over = raw.game.is_over()
    log.finish("over" if over else "truncated", scores_of(raw), list(raw.winners))
    log.save()
    say()
    summary = summarise(raw, me)
    say(summary["text"])
    if log.path is not None:
        say(f"saved as {log.path} (replay it with: flockgym replay {log.path})")
    return summary


def scores_of(raw: Any) -> dict[str, Any]:
    return {agent: number(points) for agent, points in raw.scores.items()}


def terminal_log(
    raw: Any,
    seed: int,
    me: str,
    names: dict[str, str],
    bot_seeds: dict[str, int],
    save_dir: Path | None,
) -> GameLog:
    """The saved game of a terminal session (written only with ``save_dir``)."""
    seats = []
    for agent in raw.possible_agents:
        seat: dict[str, Any] = {"agent": agent, "kind": "human" if agent == me else "bot"}
        seat["name"] = names[agent]
        if agent != me:
            seat.update(bot={"spec": names[agent]}, bot_seed=bot_seeds[agent])
        seats.append(seat)
    path = None
    if save_dir is not None:
        path = Path(save_dir) / record_file_name(raw.env_id, os.urandom(4).hex())
    return GameLog(raw.env_id, game_options(raw), seed, seats, path, source="terminal")


def seat_specs(opponents: str, count: int) -> list[Any]:
    """One bot spec per other seat, in seat order after the person's: the specs
    given take the first seats and the last one fills the seats left
    (``heuristic`` fills them all; ``run,heuristic`` is the run, then heuristics)."""
    try:
        return fill_seats(parse_specs(opponents), count, "--opponents", "other seats")
    except OptionError as err:
        raise BotSpecError(str(err)) from None


def legal_moves_text(raw: Any, agent: str, width: int | None = None) -> str:
    """The legal moves, wrapped to the terminal between moves (never inside one)."""
    moves = [f"{raw.action_to_string(agent, a)} (#{a})" for a in raw.legal_actions(agent)]
    width = width or shutil.get_terminal_size((100, 24)).columns
    lines, line = [], "legal moves:"
    for index, move in enumerate(moves):
        item = move + ("," if index < len(moves) - 1 else "")
        if len(line) + 1 + len(item) > width and line.strip():
            lines.append(line)
            line = " "
        line += " " + item
    lines.append(line)
    return "\n".join(lines)


def wrap_lines(text: str, width: int) -> str:
    """Each line of ``text`` wrapped to ``width`` columns between words (a word
    longer than the line stays whole); a wrapped line's rest is indented two
    columns past the line's own indent, so it reads as the same item."""
    lines = []
    for line in text.split("\n"):
        indent = " " * (len(line) - len(line.lstrip(" ")))
        lines.extend(
            textwrap.wrap(
                line,
                width,
                subsequent_indent=indent + "  ",
                break_long_words=False,
                break_on_hyphens=False,
            )
            if len(line) > width
            else [line]
        )
    return "\n".join(lines)


def game_help(env_id: str) -> str:
    """What ``?`` explains: how the game is won, then its special cards."""
    won = "\n".join(f"  {item}" for item in how_it_is_won(env_id))
    return f"how {env_id} is won:\n{won}\nthe special cards of {env_id}:\n{help_text(env_id)}"


def ask_move(raw: Any, agent: str, stdin: TextIO, say: Any, width: int | None = None) -> int:
    """Read lines until one names a legal move; return its action id."""
    say(legal_moves_text(raw, agent, width))
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
            if text:
                say(game_help(raw.env_id))
            say(legal_moves_text(raw, agent, width))
            continue
        action = read_move(raw, agent, text)
        if action is None:
            last = int(raw.action_space(agent).n) - 1
            say(
                f"{shorten(text)!r} is not a legal move now (action ids are #0 to #{last}, "
                f"and only the listed ones are legal). {HELP}"
            )
            say(legal_moves_text(raw, agent, width))
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
