"""The figures the docs state about the shipped bots reproduce.

Every shipped bot's README (``checkpoints/<game>/README.md``) lists the
``flockgym eval`` commands of its evaluation; their JSON and Markdown are saved
in ``checkpoints/<game>/<bot>_eval/<field>/``. Here:

* a fast subset of those commands (:data:`RERUN`, chosen for their cost: a few
  seconds of CPU each) is run again, as written in the README but into a
  temporary folder, and its ``tournament.json`` must equal the committed one;
* for every stated tournament, the saved ``tournament.md`` is the rendering of
  the saved ``tournament.json``, the README shows every saved table verbatim
  and no other, each command of the README has a saved result, and the prose
  figures of each bot's goal paragraph ("It meets the goal ...") are figures of
  its saved tables;
* the README's and docs/training.md's tables of shipped bots are rendered from
  the same JSON (``tests/test_docs_claims.py``), and docs/baselines.md is the
  output of ``flockgym baselines`` (its command heads the page).

Marked slow (``make test-slow``): the other 18 stated tournaments re-run
against their JSON (about 9 CPU-minutes, the Arena's and Skybirds' 4-player
fields most), and each game's section of docs/baselines.md written again by
its command into a copy of the page, which must not change.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from flockgym.training.cli import main
from flockgym.training.evaluate import Standing, TournamentResult

ROOT = Path(__file__).resolve().parent.parent
READMES = sorted((ROOT / "checkpoints").glob("*/README.md"))

RERUN = [
    "checkpoints/asrus/ppo_5p_eval/field_heuristic",
    "checkpoints/asrus/ppo_5p_eval/field_random",
    "checkpoints/astrobirdz/ppo_4p_eval/field_random",
]
"""The stated tournaments re-run here, by their --out folder: about 9 s of CPU
together (Asrus plays on its vectorised engine)."""


def eval_commands() -> dict[str, list[str]]:
    """Every ``flockgym eval`` command the checkpoint READMEs state, by --out folder."""
    commands = {}
    for readme in READMES:
        for line in readme.read_text().splitlines():
            if line.startswith("flockgym eval "):
                argv = shlex.split(line)[1:]
                commands[argv[argv.index("--out") + 1]] = argv
    return commands


def saved_result(folder: Path) -> TournamentResult:
    data = json.loads((folder / "tournament.json").read_text())
    data.pop("games")
    data["standings"] = [Standing(**row) for row in data["standings"]]
    return TournamentResult(**data)


def test_every_stated_command_has_its_saved_result_and_no_result_lacks_a_command() -> None:
    commands = eval_commands()
    saved = sorted(
        p.parent.relative_to(ROOT).as_posix()
        for p in (ROOT / "checkpoints").glob("*/*_eval/*/tournament.json")
    )
    assert sorted(commands) == saved and len(saved) == 22
    assert set(RERUN) <= set(commands)


@pytest.mark.parametrize("out", RERUN)
def test_a_stated_tournament_rerun_gives_the_committed_json(
    out: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's command, run again (into tmp_path, one process), measures
    exactly what the committed JSON says."""
    pytest.importorskip("torch")  # eval plays the checkpoints: the train extra
    monkeypatch.chdir(ROOT)  # the commands name the checkpoints relative to the checkout
    argv = eval_commands()[out]
    argv = [a if a != out else str(tmp_path / "out") for a in argv]
    argv = [a for a in argv if a not in ("--jobs", "2")] + ["--no-progress"]
    assert main(argv) == 0
    capsys.readouterr()
    rerun = json.loads((tmp_path / "out" / "tournament.json").read_text())
    committed = json.loads((ROOT / out / "tournament.json").read_text())
    assert rerun == committed
    assert (tmp_path / "out" / "tournament.md").read_text() == (
        ROOT / out / "tournament.md"
    ).read_text()


@pytest.mark.slow
@pytest.mark.parametrize("out", sorted(set(eval_commands()) - set(RERUN)))
def test_every_other_stated_tournament_rerun_gives_the_committed_json(
    out: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The other 18 stated tournaments (about 9 CPU-minutes): `make test-slow`."""
    test_a_stated_tournament_rerun_gives_the_committed_json(out, tmp_path, monkeypatch, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("env_id", ["arena_v0", "asrus_v0", "astrobirdz_v0", "skybirds_v0"])
def test_the_baselines_page_section_reruns_to_the_same_text(
    env_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/baselines.md's section of one game (its shipped bots' Elo tables
    among them), written again by its command into a copy of the page."""
    monkeypatch.chdir(ROOT)
    page = tmp_path / "baselines.md"
    page.write_text((ROOT / "docs" / "baselines.md").read_text())
    argv = ["baselines", "--games", "40", "--seed", "0", "--env", env_id, "--out", str(page)]
    assert main(argv) == 0
    capsys.readouterr()
    assert page.read_text() == (ROOT / "docs" / "baselines.md").read_text()


@pytest.mark.parametrize("out", sorted(eval_commands()))
def test_each_saved_table_is_the_rendering_of_its_saved_json(out: str) -> None:
    folder = ROOT / out
    result = saved_result(folder)
    assert (folder / "tournament.md").read_text() == result.to_markdown()
    argv = eval_commands()[out]
    assert result.env_id == argv[argv.index("--env") + 1]
    assert result.deals == int(argv[argv.index("--games") + 1])
    assert result.seed == (int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 0)
    assert not result.partial


TABLE = re.compile(r"\*\*[a-z_0-9]+\*\* \(.*?\n\n(?:\|.*\n)+")


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.parent.name)
def test_a_readme_shows_exactly_its_saved_tables(readme: Path) -> None:
    shown = sorted(m.group(0).rstrip("\n") for m in TABLE.finditer(readme.read_text()))
    saved = sorted(p.read_text().rstrip("\n") for p in readme.parent.glob("*_eval/*/tournament.md"))
    assert shown == saved


FIGURE = re.compile(r"\d+\.\d%")


def goal_paragraphs(text: str) -> list[str]:
    """The paragraphs that state a bot's strength against its goal."""
    return [p for p in text.split("\n\n") if p.startswith("**It meets the goal")]


@pytest.mark.parametrize("readme", READMES, ids=lambda p: p.parent.name)
def test_the_goal_paragraphs_state_figures_of_the_saved_tables(readme: Path) -> None:
    """Each win rate the goal paragraph gives is one of the bot's saved figures
    (goals and fair shares aside); figures of other deals are named as such."""
    saved = "\n".join(p.read_text() for p in readme.parent.glob("*_eval/*/tournament.md"))
    figures = set(FIGURE.findall(saved))
    for paragraph in goal_paragraphs(readme.read_text()):
        stated = FIGURE.findall(paragraph.split("It was chosen as the run's end")[0])
        assert [f for f in stated if f not in figures] == [], paragraph


def test_the_asrus_bot_is_reported_on_other_deals_than_it_was_chosen_on() -> None:
    """asrus/ppo_5p was chosen on 200 deals of seed 1000 and is reported on 300
    deals of seed 4242, where it meets its goal with margin (>= 45%)."""
    report = saved_result(ROOT / "checkpoints/asrus/ppo_5p_eval/field_heuristic")
    selection = saved_result(ROOT / "checkpoints/asrus/ppo_5p_eval/selection_field_heuristic")
    assert (report.seed, report.deals, selection.seed, selection.deals) == (4242, 300, 1000, 200)
    bot, heuristic = report.standings
    assert (f"{bot.win_rate:.1%}", f"{bot.win_rate_ci:.1%}") == ("51.6%", "2.2%")
    assert (round(bot.mean_points, 1), round(heuristic.mean_points, 1)) == (141.9, 77.0)


def test_the_baselines_page_names_the_command_that_wrote_it() -> None:
    text = (ROOT / "docs" / "baselines.md").read_text()
    assert "Generated by `flockgym baselines --games 40 --seed 0 --out docs/baselines.md`" in text
