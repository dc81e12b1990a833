"""The page's Rules panel, server side: every game ships a how-to-play page in its
own folder (package data), and ``GET /api/rules/{env}`` serves exactly that page,
looked up in the registry (never a path from the request)."""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

import pytest
from serve_helpers import CheckedClient

from flockgym.envs import env_module, list_envs
from flockgym.play.cards_help import HOW_TO_PLAY, how_to_play

ROOT = Path(__file__).resolve().parents[2]
SECTIONS = ["## How it is won", "## A turn", "## The special cards", "## The full rules"]


def game_package(env_id: str) -> str:
    """``asrus_v0`` -> ``flockgym.envs.asrus``, the package of the env's class."""
    return env_module(env_id).raw_env.__module__.rpartition(".")[0]


@pytest.mark.parametrize("env_id", list_envs())
def test_each_game_ships_a_how_to_play_page_with_its_sections(env_id: str):
    page = files(game_package(env_id)).joinpath(HOW_TO_PLAY)
    assert page.is_file(), f"{game_package(env_id)} has no {HOW_TO_PLAY}"
    text = page.read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings[0].startswith("# How to play ")
    assert [h for h in headings if h.startswith("## ")] == SECTIONS
    game = env_id.rsplit("_", 1)[0]
    link = f"[docs/rules/{game}.md](../../docs/rules/{game}.md)"
    assert link in text  # the full rules page, which exists in the checkout
    assert (ROOT / "docs" / "rules" / f"{game}.md").is_file()
    for heading in SECTIONS[:3]:  # each section says something
        body = text.split(heading, 1)[1].split("\n## ", 1)[0]
        assert len(body.split()) >= 40, f"{env_id}: {heading} is nearly empty"


def test_how_to_play_names_the_registered_envs_for_an_unknown_one():
    with pytest.raises(ValueError, match=re.escape(f"registered envs: {', '.join(list_envs())}")):
        how_to_play("chess_v0")


@pytest.mark.parametrize("env_id", list_envs())
def test_the_rules_route_serves_the_page(client: CheckedClient, env_id: str):
    response = client.http.get(f"/api/rules/{env_id}")
    assert response.status_code == 200, response.text
    page = files(game_package(env_id)).joinpath(HOW_TO_PLAY).read_text(encoding="utf-8")
    assert response.json() == {"env": env_id, "markdown": page}


@pytest.mark.parametrize("name", ["chess_v0", "asrus", "asrus_v0.md", "ASRUS_V0", "asrus_v0%00"])
def test_the_rules_route_refuses_anything_else_naming_the_envs(client: CheckedClient, name: str):
    response = client.http.get(f"/api/rules/{name}")
    assert response.status_code == 404
    assert response.json()["error"].endswith(f"; envs: {', '.join(list_envs())}")


@pytest.mark.parametrize(
    "path", ["asrus_v0/../../pyproject.toml", "..", "%2e%2e%2fpyproject.toml", "asrus_v0/x"]
)
def test_a_path_in_the_rules_route_is_no_env(client: CheckedClient, path: str):
    response = client.http.get(f"/api/rules/{path}")
    assert response.status_code == 404
    assert "markdown" not in response.json()
