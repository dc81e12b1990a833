"""Print the lowest versions pyproject.toml allows for the runtime dependencies
(``name>=X`` becomes ``name==X``), plus the test tools at their pinned versions
from constraints.txt, one requirement per line: what the minimum-versions job
installs to check that the declared floors are real."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tomllib

TEST_TOOLS = ("pytest", "pytest-xdist", "hypothesis")

root = Path(__file__).resolve().parent.parent
project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
for requirement in project["dependencies"]:
    match = re.fullmatch(r"\s*([A-Za-z0-9_.\-\[\]]+)\s*>=\s*([0-9][^,;\s]*)\s*", requirement)
    if match is None:
        sys.exit(f"cannot read a floor from dependency {requirement!r}: write it as name>=X")
    print(f"{match.group(1)}=={match.group(2)}")
pins = {}
for line in (root / "constraints.txt").read_text().splitlines():
    name, _, version = line.partition("==")
    if version:
        pins[name.strip().lower().replace("_", "-")] = version.strip()
for tool in TEST_TOOLS:
    print(f"{tool}=={pins[tool]}")
