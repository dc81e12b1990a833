"""Where a compiled engine cannot load, the Python one runs and says so once."""

from __future__ import annotations

import warnings

import pytest

from flockgym.envs.core import compiled


def test_a_missing_engine_warns_once_and_gives_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compiled, "_loaded", {})
    with pytest.warns(compiled.CompiledEngineWarning, match="nosuchgame.*Python engine runs"):
        assert compiled.load_compiled("nosuchgame") is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiled.load_compiled("nosuchgame") is None
        assert not compiled.compiled_available("nosuchgame")


def test_a_built_engine_loads_without_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compiled, "_loaded", {})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module = compiled.load_compiled("core")
    assert module is not None and hasattr(module, "NumpyRng")


def test_asking_for_a_missing_engine_after_the_warning_says_why_and_what_is_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The warning comes once; an error raised later must stand alone."""
    monkeypatch.setattr(compiled, "_loaded", {})
    monkeypatch.setattr(compiled, "_why_not", {})
    with pytest.warns(compiled.CompiledEngineWarning):
        compiled.load_compiled("nosuchgame")
    with pytest.raises(RuntimeError) as raised:
        compiled.require_compiled("nosuchgame", "Nosuch")
    message = str(raised.value)
    assert "flockgym.envs.nosuchgame._native did not load (No module named" in message
    assert "allowed: engine='python'" in message and "C++17 compiler" in message
