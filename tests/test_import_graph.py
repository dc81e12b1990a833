"""How the packages hang together: no module-level import circle among the
project's modules, the learner registry imports none of its members, and no
training module but the vector-engine adapters' protocol knows a game by name
(a game is known by its registry entry, ``flockgym.envs.ENVS``).

Read from the source with ``ast`` (nothing is imported), so a circle is found
even where Python's import order happens to let it pass today."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from flockgym.envs import ENVS

REPO = Path(__file__).resolve().parent.parent
PACKAGES = {
    "flockgym": "flockgym",
    "flockgym.envs": "envs",
    "flockgym.common": "common",
    "flockgym.bots": "bots",
    "flockgym.training": "training",
    "flockgym.evaluation": "evaluation",
    "flockgym.cli": "cli",
    "flockgym.play": "play",
}
"""Each package's folder in the checkout (pyproject.toml's ``package-dir``); a
folder not there yet has no modules."""


def module_files() -> dict[str, Path]:
    """Every Python module of the packages, by dotted name."""
    modules = {}
    for package, folder in PACKAGES.items():
        root = REPO / folder
        for path in sorted(root.rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


MODULES = module_files()


def is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The imports run when the module is imported: those at its top level and in
    its top-level ``if``/``try``/``with`` blocks and class bodies, not those in
    functions (run on use) nor under ``if TYPE_CHECKING:`` (never run)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found.append(node)
            elif isinstance(node, ast.If):
                if not is_type_checking(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, node.orelse, node.finalbody):
                    visit(block)
                for handler in node.handlers:
                    visit(handler.body)
            elif isinstance(node, (ast.With, ast.ClassDef)):
                visit(node.body)

    visit(tree.body)
    return found


def every_import(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import that can run: at module level and inside functions (run on
    use, but an import circle all the same), not under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and is_type_checking(child.test):
                for statement in child.orelse:
                    visit_node(statement)
                continue
            visit_node(child)

    def visit_node(node: ast.AST) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        visit(node)

    visit(tree)
    return found


def imported_modules(name: str, path: Path, deferred: bool = False) -> set[str]:
    """The project modules ``name`` imports at module level (with ``deferred``,
    inside functions too): ``from pkg import x`` counts as importing ``pkg.x``
    where that is a module, else ``pkg``."""
    is_package = path.name == "__init__.py"
    targets = set()
    tree = ast.parse(path.read_text(), str(path))
    for node in every_import(tree) if deferred else module_level_imports(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            parent = name.split(".")
            if not is_package:
                parent.pop()
            parent = parent[: len(parent) - (node.level - 1)]
            base = ".".join([*parent, base]) if base else ".".join(parent)
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            targets.add(submodule if submodule in MODULES else base)
    return {target for target in targets if target in MODULES and target != name}


def import_graph(deferred: bool = False) -> dict[str, set[str]]:
    return {name: imported_modules(name, path, deferred) for name, path in MODULES.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of ``graph`` as ``[a, b, ..., a]``, or [] if there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return []


def test_the_graph_reads_every_kind_of_module_level_import() -> None:
    graph = import_graph()
    assert "flockgym.bots.checkpoints" in graph["flockgym.training.learners"]
    assert "flockgym.training.learners" in graph["flockgym.training.rllib.learner"]
    assert "flockgym.envs.core.rng" in graph["flockgym.envs.asrus.vector"]
    assert "flockgym.envs.core.bots" in graph["flockgym.envs"]


def test_find_cycle_names_the_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) == []


def test_imports_in_functions_and_type_checking_blocks_do_not_count() -> None:
    tree = ast.parse(
        "import os\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import json\nelse:\n    import re\n"
        "try:\n    import csv\nexcept ImportError:\n    import io\n"
        "def f():\n    import sys\n"
        "class C:\n    import math\n    def g(self):\n        import ast\n"
    )
    names = [alias.name for node in module_level_imports(tree) for alias in node.names]
    assert names == ["os", "TYPE_CHECKING", "re", "csv", "io", "math"]


def test_no_module_level_import_circle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle == [], "module-level import circle: " + " -> ".join(cycle)


def test_imports_inside_functions_count_for_the_deferred_graph() -> None:
    tree = ast.parse(
        "import os\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import json\n"
        "def f():\n    import sys\n    if TYPE_CHECKING:\n        import csv\n"
        "class C:\n    def g(self):\n        from ast import parse\n"
    )
    names = [alias.name for node in every_import(tree) for alias in node.names]
    assert names == ["os", "TYPE_CHECKING", "sys", "parse"]


def test_no_import_circle_even_through_imports_inside_functions() -> None:
    """An import deferred into a function to dodge a circle still ties the two
    modules both ways: none is left, envs included (a typing-only import under
    ``if TYPE_CHECKING:`` does not count)."""
    cycle = find_cycle(import_graph(deferred=True))
    assert cycle == [], "import circle through deferred imports: " + " -> ".join(cycle)


ALLOWED_IMPORTS = {
    "flockgym": ("flockgym.envs",),
    "flockgym.openspiel": ("flockgym.envs",),
    "flockgym.envs": (),
    "flockgym.common": ("flockgym", "flockgym.envs"),
    "flockgym.bots": ("flockgym.envs", "flockgym.common", "flockgym.training.learners"),
    "flockgym.training": (
        "flockgym.envs", "flockgym.common", "flockgym.bots",
        "flockgym.evaluation.tournaments", "flockgym.evaluation.plot",
    ),
    "flockgym.evaluation": (
        "flockgym.envs", "flockgym.common", "flockgym.bots", "flockgym.training",
    ),
    "flockgym.play": ("flockgym.envs", "flockgym.common", "flockgym.bots"),
    "flockgym.cli": ("flockgym",),
}  # fmt: skip
"""What each package may import besides itself (each package's docstring says the
same): the bots rebuild a checkpoint's network with the learner registry, a
training run ends with a tournament and its plots, and only the command line
imports everything."""


def package_of(module: str) -> str:
    parts = module.split(".")
    name = ".".join(parts[:2])
    return name if name in ALLOWED_IMPORTS else parts[0]


def test_each_package_imports_only_what_its_docstring_allows() -> None:
    wrong = []
    for source, targets in import_graph(deferred=True).items():
        package = package_of(source)
        for target in sorted(targets):
            allowed = (package, *ALLOWED_IMPORTS[package])
            if package_of(target) != package and not any(
                target == prefix or target.startswith(prefix + ".") for prefix in allowed
            ):
                wrong.append(f"{source} -> {target}")
    assert wrong == []


def test_the_learner_registry_imports_no_learner_module_nor_ray() -> None:
    pytest.importorskip("torch")  # the train extra (make test-min runs without it)
    code = (
        "import sys\n"
        "import flockgym.training.learners as learners\n"
        "assert learners.learner_names() == "
        "['expert_iteration', 'maskable_ppo', 'masked_dqn', 'masked_qrdqn', 'rllib_ppo']\n"
        "modules = ('ray', 'flockgym.training.rllib.learner', 'flockgym.training.masked_dqn',"
        " 'flockgym.training.expert_iteration')\n"
        "print(sorted(m for m in modules if m in sys.modules))\n"
        "learners.get_learner('rllib_ppo')\n"
        "print('flockgym.training.rllib.learner' in sys.modules, 'ray' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert out.stdout.splitlines() == ["[]", "True False"]


def test_a_learner_registered_by_name_is_imported_on_first_use() -> None:
    pytest.importorskip("torch")
    from flockgym.training import learners

    learners.register_learner("flockgym.training.learners:MaskablePPOLearner", "spare_ppo")
    try:
        assert "spare_ppo" in learners.learner_names()
        first = learners.get_learner("spare_ppo")
        assert type(first) is learners.MaskablePPOLearner
        assert learners.get_learner("spare_ppo") is first
        with pytest.raises(ValueError, match="allowed: a Learner instance, or 'module:Class'"):
            learners.register_learner("MaskablePPOLearner", "bad_ppo")
        assert "bad_ppo" not in learners.learner_names()
    finally:
        del learners.LEARNERS["spare_ppo"]
        learners._INSTANCES.pop("spare_ppo", None)


# ---- games are known by the registry ------------------------------------------------

GAMES = sorted(env_id.rsplit("_", 1)[0] for env_id in ENVS)
"""The game folders' names (``asrus``, ...), from the registered env ids."""
GAME_MODULE = re.compile(r"flockgym\.envs\.(" + "|".join(GAMES) + r")\b")


def game_names_in_code(path: Path) -> list[str]:
    """Where ``path``'s code names a game: an identifier or attribute containing a
    game's name, an import of a game's modules, or a string that is an env id, a
    game's folder or one of its modules. Docstrings, comments and strings that
    only mention a game (help text, examples) do not count."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        names: list[str | None] = []
        if isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.alias):
            names = [node.name, node.asname]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module]
        elif isinstance(node, (ast.arg, ast.keyword)):
            names = [node.arg]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.strip().lower()
            if text in ENVS or text in GAMES or GAME_MODULE.match(text):
                found.append(f"line {node.lineno}: {node.value!r}")
            continue
        for name in filter(None, names):
            if any(game in name.lower() for game in GAMES):
                found.append(f"line {getattr(node, 'lineno', '?')}: {name}")
    return found


GAME_FREE_FOLDERS = ("common", "bots", "training", "evaluation", "cli", "play")


def training_files() -> list[Path]:
    """The modules outside the games: all ask the registry for a game."""
    return [path for folder in GAME_FREE_FOLDERS for path in sorted((REPO / folder).rglob("*.py"))]


def test_the_game_name_check_finds_what_it_looks_for(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""An Asrus example in a docstring is fine: asrus_v0."""\n'
        "from flockgym.envs.asrus.vector import VectorAsrus\n"
        "import flockgym.envs.skybirds_v0\n"
        "def f(env_id):\n"
        '    help = "e.g. asrus_v0 (the default)"\n'
        '    return env_id == "astrobirdz_v0" or "flockgym.envs.arena.bots:ArenaBot"\n'
    )
    assert sorted(game_names_in_code(sample)) == [
        "line 2: VectorAsrus",
        "line 2: flockgym.envs.asrus.vector",
        "line 3: flockgym.envs.skybirds_v0",
        "line 6: 'astrobirdz_v0'",
        "line 6: 'flockgym.envs.arena.bots:ArenaBot'",
    ]


@pytest.mark.parametrize("path", training_files(), ids=lambda p: str(p.relative_to(REPO)))
def test_training_code_names_no_game(path: Path) -> None:
    assert game_names_in_code(path) == []
