"""What README.md says about the checkout holds: every game's rules page is
linked from the games table, the extras it says ``make`` installs are the
Makefile's, and the demo's time is the saved measurement's."""

from __future__ import annotations

import json
import re
from pathlib import Path

from script_loader import load_script

from flockgym.envs import list_envs

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_the_games_table_links_every_rules_page() -> None:
    table = [line for line in README.splitlines() if re.search(r"\| `\w+_v0` \|", line)]
    assert len(table) == len(list_envs())
    for env_id in list_envs():
        game = env_id.rsplit("_", 1)[0]
        assert (ROOT / "docs" / "rules" / f"{game}.md").is_file()
        [row] = [line for line in table if f"`{env_id}`" in line]
        assert re.match(rf"\| \[[^]]+\]\(docs/rules/{game}\.md\) \|", row), row


def test_the_extras_make_installs_are_the_makefiles() -> None:
    makefile = (ROOT / "Makefile").read_text()
    [installed] = re.findall(r'-e "\.\[([a-z,]+)\]"', makefile.split("$(RLLIB_STAMP):")[0])
    stated = re.search(r"`make demo` and `make test` install `-e '\.\[([a-z,]+)\]'`", README)
    assert stated and stated.group(1) == installed
    for extra in installed.split(","):  # each is described in the extras list
        assert re.search(rf"^#\s+{extra}\s", README, re.MULTILINE), extra


def test_the_demo_time_is_the_saved_measurement() -> None:
    run = json.loads((ROOT / "benchmarks" / "results" / "demo_time.json").read_text())
    assert load_script("demo_time").summary(run) in " ".join(README.split())
    assert "under a minute" not in " ".join(README.split()).split("`make demo` is")[1][:600]
