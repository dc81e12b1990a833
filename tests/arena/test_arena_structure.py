"""How the Arena's rules modules hang together, read from the source with
``ast``: the chapters are functions over a typed game (no mixin classes, no
``self: Any``), of the rules modules only ``rules.py`` writes the legality
caches, and the modules import one another one way (no circle, not even
through an import deferred into a function)."""

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


LAYERS = (
    ("phases", "data"),
    ("config", "actions", "dice"),
    ("challenges",),
    ("encounters",),
    ("movement", "setup"),
    ("state",),
    ("rules",),
    ("observer",),
    ("native",),
    ("resample",),
    ("bots",),
    ("env",),
)
"""The Arena's modules from the bottom up: each imports only modules of the
layers below its own (the rules modules' docstring gives this order)."""


def is_type_checking(test: ast.expr) -> bool:
    return ast.unparse(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def arena_imports(name: str) -> set[str]:
    """The Arena modules ``name`` imports anywhere, in functions too (run on use
    is run all the same), but not under ``if TYPE_CHECKING:`` (never run)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and is_type_checking(child.test):
                for statement in child.orelse:
                    visit_statement(statement)
                continue
            visit_statement(child)

    def visit_statement(node: ast.AST) -> None:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        visit(node)

    visit(tree(f"{name}.py"))
    return found


def test_every_arena_module_has_a_layer() -> None:
    modules = {path.stem for path in ARENA.glob("*.py")} - {"__init__"}
    assert sorted(m for layer in LAYERS for m in layer) == sorted(modules)


@pytest.mark.parametrize("level", range(len(LAYERS)))
def test_the_arena_modules_import_only_downwards(level: int) -> None:
    """No import circle, deferred imports included: data does not import its
    observer, the saved-state reader does not import the engine."""
    below = {m for layer in LAYERS[:level] for m in layer}
    for name in LAYERS[level]:
        assert arena_imports(name) <= below, (name, sorted(arena_imports(name) - below))
