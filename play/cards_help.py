"""What the special cards of each game do, in a few words: ``?`` in terminal
play and the page's help both show it.

Each entry is ``(card, what it does)``. The notes are the game's own:
``special_cards_help()`` in its ``data.py``, exported by its ``<game>_v0``
module (:mod:`.table_talk`); a game without them gets a pointer to its rules
page. The how-to-play page is the game's too (``envs/<game>/how_to_play.md``).
"""

from __future__ import annotations

import re

from .table_talk import game_hook

Help = list[tuple[str, str]]


def special_cards_help(env_id: str) -> Help:
    """The special cards of ``env_id`` and what they do (a pointer for envs without notes)."""
    notes = game_hook(env_id, "special_cards_help")
    if notes is not None:
        return list(notes())
    game = env_id.rsplit("_", 1)[0]
    return [("rules", f"see docs/rules/{game}.md and the env's docstring")]


HOW_TO_PLAY = "how_to_play.md"
"""A game's short rules for newcomers, package data in its own folder (``envs/<game>/``)."""


def how_to_play(env_id: str) -> str:
    """The how-to-play page (markdown) of a registered env, read from its game's package.

    The env id is looked up in the registry (an unknown id is an ``OptionError``
    naming the registered ones) and the file is found from the package of the
    env's class, never from a path given by a caller; so a request can only ever
    read one of these pages. An env whose game has no page gets a pointer."""
    from importlib.resources import files

    from flockgym.envs import env_module

    package = env_module(env_id).raw_env.__module__.rpartition(".")[0]
    page = files(package).joinpath(HOW_TO_PLAY)
    if page.is_file():
        return page.read_text(encoding="utf-8")
    game = env_id.rsplit("_", 1)[0]
    return (
        f"# {env_id}\n\nThis game has no how-to-play page yet: its rules are in its "
        f"env's docstring and on the rules page `docs/rules/{game}.md`.\n"
    )


WON_SECTION = re.compile(r"^## How it is won\n(.*?)(?=^## |\Z)", re.MULTILINE | re.DOTALL)


def how_it_is_won(env_id: str) -> list[str]:
    """The "How it is won" section of the game's how-to-play page as plain
    paragraphs and list items, one string each (markdown's bold dropped), for a
    terminal to wrap; a pointer to the page when it has no such section."""
    found = WON_SECTION.search(how_to_play(env_id))
    if found is None:
        game = env_id.rsplit("_", 1)[0]
        return [f"see the rules page docs/rules/{game}.md"]
    items: list[str] = []
    for block in found.group(1).replace("**", "").strip().split("\n\n"):
        for item in re.split(r"\n(?=- )", block):  # a list item starts a line with "- "
            items.append(" ".join(item.split()))
    return items


def help_text(env_id: str) -> str:
    """The help as lines of text for a terminal."""
    return "\n".join(f"  {card}: {text}" for card, text in special_cards_help(env_id))
