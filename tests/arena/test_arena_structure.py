"""How the Arena's rules modules hang together, read from the source with
``ast``: the chapters are functions over a typed game (no mixin classes, no
``self: Any``), and of the rules modules only ``rules.py`` writes the
legality caches."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import flockgym.envs.arena as arena_package

ARENA = Path(arena_package.__file__).resolve().parent
CHAPTERS = ("setup.py", "movement.py", "encounters.py", "challenges.py")
CACHES = ("_legal", "_mask")


def tree(name: str) -> ast.Module:
    return ast.parse((ARENA / name).read_text(), name)


@pytest.mark.parametrize("name", CHAPTERS)
def test_a_chapter_is_functions_over_a_typed_game(name: str) -> None:
    module = tree(name)
    classes = [n.name for n in module.body if isinstance(n, ast.ClassDef)]
    assert not [c for c in classes if c.endswith("Rules")]
    functions = [n for n in module.body if isinstance(n, ast.FunctionDef)]
    assert functions
    for function in functions:
        first = function.args.args[0]
        assert first.arg in ("game", "g"), function.name
        assert ast.unparse(first.annotation) == "ArenaGame", function.name


def cache_writes(module: ast.Module) -> list[str]:
    """Every assignment to an attribute named like a legality cache."""
    found = []
    for node in ast.walk(module):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and part.attr in CACHES:
                    found.append(f"line {part.lineno}: {ast.unparse(target)}")
    return found


def test_only_rules_writes_the_legality_caches() -> None:
    """The chapters and the modules that build or read a game's state leave the
    caches to ``rules.py`` (which does write them: the scan finds writes)."""
    others = (*CHAPTERS, "state.py", "dice.py", "phases.py")
    assert {name: cache_writes(tree(name)) for name in others} == {name: [] for name in others}
    assert cache_writes(tree("rules.py"))
