"""docs/rules/arena.md against the code: the box tables are the data file's, every
option, task and table row is documented, and the README lists the env as ready."""

from __future__ import annotations

import re
from pathlib import Path

from flockgym.envs import arena_v0
from flockgym.envs.arena.data import FORMS, default_box
from flockgym.envs.arena.encounters import PORTAL_TABLES, TASKS

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "rules" / "arena.md").read_text()
BOX = default_box()


def table_after(heading: str) -> list[list[str]]:
    """The rows of the first Markdown table after ``heading`` (cells stripped)."""
    part = DOC.split(heading, 1)[1]
    rows = []
    for line in part.splitlines():
        if line.startswith("|"):
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return rows[2:]  # skip the header and the --- row


def test_every_space_is_documented_with_its_moves():
    rows = table_after("#### Every space")
    assert [int(r[0]) for r in rows] == list(range(BOX.num_spaces))
    for row, space in zip(rows, BOX.spaces, strict=True):
        assert row[1] == f"{space.at[0]},{space.at[1]}" and row[2] == space.kind
        assert row[3] == space.region and row[4] == ", ".join(map(str, space.next))


def test_maneuver_and_world_tables_are_the_data():
    for heading, cards in (("### Maneuver cards (30)", BOX.cards[: BOX.num_maneuvers]),
                           ("### World cards (20)", BOX.cards[BOX.num_maneuvers :])):  # fmt: skip
        rows = table_after(heading)
        assert len(rows) == len(cards)
        for row, card in zip(rows, cards, strict=True):
            bonus = f"+{card.bonus.amount} for {FORMS[card.bonus.form]}" if card.bonus else ""
            assert row == [card.name, card.character, str(card.number), str(card.challenge), bonus]


def test_characters_gyms_and_medal_cards_are_the_data():
    rows = table_after("### Characters")
    assert [r[0] for r in rows] == [c.name for c in BOX.characters]
    for row, c in zip(rows, BOX.characters, strict=True):
        assert row[4] == f"{c.bonus.kind} +{c.bonus.amount}"
    rows = table_after("### Gyms (8)")
    assert [(r[0], r[1]) for r in rows] == [(g.name, g.colour) for g in BOX.gyms]
    rows = table_after("### Medal cards (12)")
    assert [r[0] for r in rows] == [m.name for m in BOX.medal_cards]
    rows = table_after("### Medal bonus cards")
    assert [(r[0], r[1]) for r in rows] == list(BOX.medal_bonus_cards)


def test_every_table_row_and_task_is_documented():
    rows = table_after("### The AstroPortal encounters")
    assert [r[0] for r in rows] == [f"{t} {PORTAL_TABLES[t]}" for t in range(1, 9)]
    assert all(len(r) == 4 and all(r[1:]) for r in rows)
    slide = table_after("### The Nebula Slide table")
    assert [r[0] for r in slide] == [str(i) for i in range(1, 9)]
    tasks = table_after("### Pick tasks")
    assert [r[0] for r in tasks] == [f"`{name}`" for name in TASKS]


def test_every_game_option_is_documented_with_its_default():
    rows = {r[0].strip("`"): r[1] for r in table_after("## Options")}
    for option in arena_v0.raw_env.game_options:
        assert option.name in rows
        default = option.default
        shown = (
            "None"
            if default is None
            else f'"{default}"'
            if isinstance(default, str)
            else str(default)
        )
        assert rows[option.name].strip("`") == shown


def test_rulings_are_numbered_and_quote_a_passage():
    rows = table_after("## Rulings")
    assert [int(r[0]) for r in rows] == list(range(1, len(rows) + 1))
    assert all(
        r[1].startswith(
            (
                '"',
                "Slide",
                "Nova",
                "Dark",
                "Star",
                "Space",
                "Zoom",
                "Asteroid",
                "(",
                "There",
                "fewer",
            )
        )
        for r in rows
    )
    for option in ("world_challenge", "dark_matter", "max_rounds"):
        assert re.search(rf"[Oo]ption `{option}", DOC)


def test_readme_lists_the_arena_as_ready():
    readme = (ROOT / "README.md").read_text()
    row = next(line for line in readme.splitlines() if "`arena_v0`" in line)
    assert "[Berzerkerbirdz Extreme Sports Arena](docs/rules/arena.md)" in row
    assert row.rstrip().endswith("| ready |") and "2-6" in row
    assert (ROOT / "docs" / "rules" / "arena.md").is_file()
