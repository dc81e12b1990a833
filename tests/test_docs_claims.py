"""The docs' claims about the shipped bots are the evaluations saved beside them:
the tables of README.md and docs/training.md are ``bot_claims``' rendering of
``checkpoints/<game>/<bot>_eval/``, and no prose there states another figure as
the shipped bot's (a bot retrained leaves its old figure in CHANGELOG.md, not
stacked on the new one)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from flockgym.evaluation.bot_claims import (
    BEGIN,
    END,
    TABLES,
    readme_table,
    render_page,
    shipped_claims,
    training_table,
)

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "docs" / "training.md"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_shipped_bot_tables_are_rendered_from_the_saved_evaluations(page: Path) -> None:
    text = page.read_text()
    table = TABLES[page.name](shipped_claims())
    assert render_page(text, table, page.name) == text, (
        f"{page.name}'s table is stale: python -m flockgym.evaluation.bot_claims "
        "README.md docs/training.md"
    )


def test_every_shipped_bot_has_one_claim_from_its_own_evaluation() -> None:
    claims = {c.name: c for c in shipped_claims()}
    shipped = sorted(
        p.relative_to(ROOT / "checkpoints").with_suffix("").as_posix()
        for p in (ROOT / "checkpoints").glob("*/*.zip")
    )
    assert sorted(claims) == shipped and len(shipped) == 7
    claim = claims["skybirds/ppo_2p"]
    assert (claim.players, claim.steps, claim.evaluation) == (
        2,
        1_503_232,
        "skybirds/ppo_2p_eval/heuristic",
    )
    saved = json.loads((ROOT / "checkpoints" / claim.evaluation / "tournament.json").read_text())
    assert saved["standings"][0]["win_rate"] == claim.win_rate == 430 / 600
    assert claim.measured() == "71.7% ± 3.2% against the heuristic (27.2 points against 21.5)"
    assert claim.goal_met
    arena = claims["arena/ppo_2p"]
    assert arena.goal_text() == ">= 60% (restated from the measured ceiling)"
    assert arena.measured() == "57.7% ± 2.5% against the heuristic (3.7 points against 3.1)"
    assert arena.evaluation == "arena/ppo_2p_eval/heuristic"
    assert not arena.goal_met
    assert claims["arena/ppo_4p"].goal_text() == (
        ">= 33% (restated from the measured ceiling) and more points than they"
    )


def test_a_stale_table_is_found_and_rendered_anew() -> None:
    claims = shipped_claims()
    page = f"intro\n{BEGIN}\n| an old table |\n{END}\nafter\n"
    rendered = render_page(page, training_table(claims), "training.md")
    assert rendered == f"intro\n{BEGIN}\n{training_table(claims)}\n{END}\nafter\n"
    assert "| `asrus/ppo_5p` | 5 players | 1,251,328 | 51.6% ± 2.2% alone among" in rendered
    assert "| `asrus/ppo_5p` | 5 players | 51.6% alone among heuristic bots (fair share 20%) |" in (
        readme_table(claims)
    )
    with pytest.raises(ValueError, match="needs one"):
        render_page("no markers", "", "README.md")


FIGURE = re.compile(r"\d+(?:\.\d)?% ± \d+(?:\.\d)?%")


def sentences(text: str) -> list[str]:
    """The prose's sentences (table rows and code aside), one line each."""
    prose = " ".join(line for line in text.splitlines() if not line.startswith(("|", "    ")))
    return re.split(r"(?<=[.:;])\s+(?=[A-Z*(])", prose)


def test_the_prose_states_no_other_figure_as_the_shipped_bots() -> None:
    """A sentence about "the shipped bot" with a win rate and its interval states
    the bot's current figure, unless it is about other deals than its evaluation's."""
    current = {f"{c.win_rate:.1%} ± {c.win_rate_ci:.1%}" for c in shipped_claims()}
    text = (ROOT / "docs" / "training.md").read_text()
    section = text.split("## How the shipped bots were trained", 1)[1].split("\n## ", 1)[0]
    stale = [
        (figure, sentence)
        for sentence in sentences(section)
        if re.search(r"shipped (bot|one)", sentence) and "deals" not in sentence
        for figure in FIGURE.findall(sentence)
        if figure not in current
    ]
    assert stale == []


def test_the_play_page_names_every_shipped_bot_and_what_it_says_of_them_holds() -> None:
    """docs/play.md lists the seven bots by their page ids and says each wins more
    of its games than the heuristic at its table (alone among heuristics: more
    than each of them wins), the Arena's two by the least."""
    text = (ROOT / "docs" / "play.md").read_text()
    claims = shipped_claims()
    assert [c.name for c in claims if f"`shipped/{c.name}.zip`" not in text] == []
    assert "win more of their games than the heuristic at their table" in text
    margins = {c.name: c.win_rate - (1 - c.win_rate) / (c.players - 1) for c in claims}
    assert all(margin > 0 for margin in margins.values()), margins
    assert sorted(margins, key=margins.get)[:2] == ["arena/ppo_4p", "arena/ppo_2p"]


@pytest.mark.parametrize("short_game", [False, True])
def test_random_skybirds_play_never_reaches_the_armistice(short_game: bool) -> None:
    """The Skybirds env page's advice (start from reward="score") rests on this:
    random Great Wars are truncated at max_campaigns, no one wins, and a
    reward="win" learner is paid nothing, with the shorter game too."""
    import numpy as np

    from flockgym.envs import make
    from flockgym.envs.skybirds import env as skybirds_env

    assert "--players random,random\n--option num_players=2 --games 20``" in skybirds_env.__doc__
    for seed in range(2):
        env = make("skybirds_v0", num_players=2, short_game=short_game, max_campaigns=30)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        paid = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            paid[agent] += reward
            legal = np.flatnonzero(observation["action_mask"])
            env.step(None if terminated or truncated else int(rng.choice(legal)))
        raw = env.unwrapped
        assert (raw.winners, truncated, terminated) == ([], True, False)
        assert paid == {"player_0": 0.0, "player_1": 0.0}
