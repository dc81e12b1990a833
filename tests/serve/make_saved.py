"""Regenerate the saved games of ``tests/serve/saved/`` (regression cases).

Each is a whole game played the way people play them, through the server's
API (a seeded random person) or through terminal play, and saved by the
product itself. After an intended change of the rules, run
``python tests/serve/make_saved.py`` and review the diff, as for the golden
playthroughs.
"""

from __future__ import annotations

import io
import random
import re
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).parent
SAVED = HERE / "saved"
HUMAN = {"kind": "human"}


class SeededPerson:
    """Terminal input: a random listed move, by id, from a seeded generator."""

    def __init__(self, screen: io.StringIO, seed: int) -> None:
        self.screen, self.rng = screen, random.Random(seed)

    def readline(self) -> str:
        listed = self.screen.getvalue().rsplit("legal moves:", 1)[1].split("your move")[0]
        return f"#{self.rng.choice(re.findall(r'[(]#([0-9]+)[)]', listed))}\n"


def web_game(folder: Path, env_id: str, options: dict, seats: list[dict], seed: int) -> Path:
    sys.path.insert(0, str(HERE))
    warnings.filterwarnings("ignore", message="Using `httpx`")
    import serve_helpers

    serve_helpers.SMALL_OPTIONS[env_id] = options
    with serve_helpers.make_client(folder, [], shipped=None) as client:
        serve_helpers.play_whole_game(client, env_id, seats, seed=seed)
    return next(folder.glob("*.json"))


def terminal_game(folder: Path, env_id: str, options: dict, opponents: str, seed: int) -> Path:
    from flockgym.play.terminal import play_terminal

    screen = io.StringIO()
    person = SeededPerson(screen, seed)
    play_terminal(env_id, 1, opponents, seed, options, person, screen, save_dir=folder)
    return next(folder.glob("*.json"))


def main() -> None:
    heuristic, random_bot = {"kind": "bot", "bot": "heuristic"}, {"kind": "bot", "bot": "random"}
    with tempfile.TemporaryDirectory() as temp:
        tmp = Path(temp)
        made = {
            "web-asrus-3p-seed21.json": web_game(
                tmp / "a", "asrus_v0", {"num_players": 3}, [HUMAN, heuristic, random_bot], 21
            ),
            "web-astrobirdz-3p-hotseat-seed22.json": web_game(
                tmp / "b", "astrobirdz_v0", {"num_players": 3}, [heuristic, HUMAN, HUMAN], 22
            ),
            "terminal-astrobirdz-3p-pass-cards-seed23.json": terminal_game(
                tmp / "c",
                "astrobirdz_v0",
                {"num_players": 3, "pass_cards": True},
                "heuristic,random",
                23,
            ),
        }
        SAVED.mkdir(exist_ok=True)
        for name, path in made.items():
            shutil.copy(path, SAVED / name)
            print(f"wrote {SAVED / name}")


if __name__ == "__main__":
    main()
