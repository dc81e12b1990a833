"""A game's modules stand in one order: ``basics`` (types and pure functions)
below ``state`` (the saved-game reader) below ``rules`` (the engine). No module
imports one above it, not even inside a function (a typing-only import under
``if TYPE_CHECKING:`` never runs and is allowed), so the reader and the engine
form no import circle. Read from the source with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENVS = Path(__file__).resolve().parent.parent / "envs"
LAYERS = ("basics", "state", "rules")
"""Lowest first."""


def _runs(node: ast.AST) -> bool:
    """Whether ``node`` is not the body of an ``if TYPE_CHECKING:``."""
    return not (
        isinstance(node, ast.If)
        and (
            (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
            or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")
        )
    )


def sibling_imports(path: Path) -> set[str]:
    """The modules of the same game folder that ``path`` imports anywhere
    (functions included), typing-only imports left out."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ImportFrom) and child.level == 1:
                if child.module:
                    found.add(child.module.split(".")[0])
                else:
                    found.update(alias.name for alias in child.names)
            if _runs(child):
                visit(child)
            else:
                for stmt in child.orelse:
                    visit(stmt)

    visit(ast.parse(path.read_text()))
    return found


@pytest.mark.parametrize("game", ["astrobirdz", "skybirds"])
def test_basics_state_and_rules_import_only_downwards(game: str) -> None:
    for index, layer in enumerate(LAYERS):
        above = set(LAYERS[index + 1 :])
        imported = sibling_imports(ENVS / game / f"{layer}.py")
        assert not imported & above, f"{game}/{layer}.py imports {sorted(imported & above)}"
