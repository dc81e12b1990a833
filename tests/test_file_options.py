"""Options that name a file: declared as such, and read only when safe.

A server taking env options from requests must know which options open files
(``Option.reads_file``); the library itself refuses anything but a small regular
file with an allowed suffix, and its errors never quote the file's content or a
resolved absolute path.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from flockgym.envs import list_envs, make
from flockgym.envs.core import options as options_module
from flockgym.envs.core.errors import OptionError, OptionFileError
from flockgym.envs.core.options import MAX_OPTION_FILE_BYTES, read_option_file
from flockgym.envs.skybirds import data as skybirds_data


def _file_options(env_name: str) -> set[str]:
    """The names of the env's options declared as reading a file."""
    env = make(env_name)
    return {o.name for o in type(env.unwrapped).option_table() if o.reads_file}


def test_reads_file_is_declared_exactly_on_path_options() -> None:
    found = {name: _file_options(name) for name in list_envs()}
    assert found == {
        "arena_v0": {"data"},
        "asrus_v0": set(),
        "astrobirdz_v0": set(),
        "skybirds_v0": {"aerodrome"},
    }


# ---- what a file-reading option refuses, before it reads -----------------------------

SECRET = "s3cr3t-token-7Qx"
"""A string that must never appear in an error about a file that holds it."""

ARENA = ("arena_v0", "data", ".yaml")
SKYBIRDS = ("skybirds_v0", "aerodrome", ".json")


def _refusal(env_name: str, option: str, path: object) -> str:
    """The error message of making ``env_name`` with ``option=path``; it must be
    an OptionError (a ValueError subclass the caller can catch)."""
    with pytest.raises(OptionError) as caught:
        make(env_name, **{option: str(path)})
    return str(caught.value)


@pytest.mark.parametrize(("env_name", "option", "suffix"), [ARENA, SKYBIRDS])
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, env_name, option, suffix) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    fifo = tmp_path / f"pipe{suffix}"
    os.mkfifo(fifo)
    message = _refusal(env_name, option, fifo)
    assert f"file '{fifo}': not a regular file" in message


@pytest.mark.parametrize(("env_name", "option", "suffix"), [ARENA, SKYBIRDS])
def test_a_symlink_to_a_fifo_is_refused(tmp_path: Path, env_name, option, suffix) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    os.mkfifo(tmp_path / "pipe")
    link = tmp_path / f"link{suffix}"
    link.symlink_to(tmp_path / "pipe")
    assert "not a regular file" in _refusal(env_name, option, link)


@pytest.mark.parametrize(("env_name", "option", "suffix"), [ARENA, SKYBIRDS])
def test_a_device_is_refused(tmp_path: Path, env_name, option, suffix) -> None:
    device = Path(os.devnull)
    if not device.exists() or not stat.S_ISCHR(device.stat().st_mode):
        pytest.skip("no character device at os.devnull")
    link = tmp_path / f"endless{suffix}"
    link.symlink_to(device)
    assert "not a regular file" in _refusal(env_name, option, link)


@pytest.mark.parametrize(("env_name", "option", "suffix"), [ARENA, SKYBIRDS])
def test_a_directory_is_refused(tmp_path: Path, env_name, option, suffix) -> None:
    folder = tmp_path / f"folder{suffix}"
    folder.mkdir()
    assert "not a regular file" in _refusal(env_name, option, folder)


@pytest.mark.parametrize(("env_name", "option", "suffix"), [ARENA, SKYBIRDS])
def test_a_file_over_the_limit_is_refused(tmp_path: Path, env_name, option, suffix) -> None:
    big = tmp_path / f"big{suffix}"
    big.write_bytes(b" " * (MAX_OPTION_FILE_BYTES + 1))
    message = _refusal(env_name, option, big)
    assert f"larger than the limit of {MAX_OPTION_FILE_BYTES} bytes" in message


def test_a_file_at_the_limit_is_read(tmp_path: Path) -> None:
    """The limit is inclusive: a file of exactly MAX_OPTION_FILE_BYTES is read."""
    shipped = skybirds_data.DEFAULT_AERODROME_ROWS
    text = json.dumps(list(shipped))
    padded = tmp_path / "table.json"
    padded.write_text(text + " " * (MAX_OPTION_FILE_BYTES - len(text.encode())))
    assert read_option_file(padded, (".json",)).strip() == text
    env = make("skybirds_v0", aerodrome=str(padded))
    assert len(env.unwrapped.config.tokens) == len(shipped)


@pytest.mark.parametrize(
    ("env_name", "option", "name", "allowed"),
    [
        ("arena_v0", "data", "passwd", ".yaml or .yml"),
        ("arena_v0", "data", "box.json", ".yaml or .yml"),
        ("skybirds_v0", "aerodrome", "table.txt", ".json, .yaml, .yml or .csv"),
    ],
)
def test_a_wrong_suffix_is_refused_before_the_file_is_touched(
    tmp_path: Path, env_name, option, name, allowed
) -> None:
    # the file does not even exist: the suffix is checked first
    message = _refusal(env_name, option, tmp_path / name)
    assert message.endswith(f"file '{tmp_path / name}': must end in {allowed}")


def _secret_files(tmp_path: Path, suffix: str) -> list[Path]:
    """Files of the given suffix that hold SECRET in every place a parser or a
    checker might quote it."""
    texts = {
        "scalar": f"{SECRET}\n",
        "mapping": f"password: {SECRET}\nuser: root\n",
        "key": f"{SECRET}: 1\n",
        "list": f"- {SECRET}\n- [{SECRET}]\n",
        "broken": f"a: [{SECRET}, \n  b: {{\n",
        "tag": f"!{SECRET} x\n",
        "csv": f"{SECRET},x\n{SECRET},y\n",
        "json": f'["{SECRET}", {{"token": "{SECRET}"}}]',
        "badjson": f'{{"{SECRET}": [1, 2',
        "binary": SECRET + "\udcff",
    }
    out = []
    for key, text in texts.items():
        path = tmp_path / f"{key}{suffix}"
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        out.append(path)
    return out


@pytest.mark.parametrize(
    ("env_name", "option", "suffix"),
    [ARENA, ("arena_v0", "data", ".yml"), SKYBIRDS, ("skybirds_v0", "aerodrome", ".yaml"),
     ("skybirds_v0", "aerodrome", ".csv")],
)  # fmt: skip
def test_no_error_quotes_the_content_or_a_resolved_path(
    tmp_path: Path, monkeypatch, env_name, option, suffix
) -> None:
    """A file holding a secret: the error names the file as given (here a
    relative name) and the problem, and neither the secret nor the folder."""
    monkeypatch.chdir(tmp_path)
    for path in _secret_files(tmp_path, suffix):
        message = _refusal(env_name, option, path.name)
        assert SECRET not in message, message
        assert str(tmp_path) not in message, message
        assert f"'{path.name}'" in message or f" {path.name}:" in message, message


def test_malformed_yaml_names_the_place_without_the_text(tmp_path: Path) -> None:
    path = tmp_path / "box.yaml"
    path.write_text(f"a: [{SECRET}, \n  b: {{\n")
    message = _refusal("arena_v0", "data", path)
    assert message.endswith(
        "arena box box.yaml: not valid YAML "
        "(line 3, column 1: expected the node content, but found '...')"
    )
    bad_json = tmp_path / "table.json"
    bad_json.write_text(f'{{"{SECRET}": [1, 2')
    assert _refusal("skybirds_v0", "aerodrome", bad_json).endswith(
        "aerodrome file 'table.json': not valid JSON (line 1, column 27: Expecting '...' delimiter)"
    )


def test_yaml_that_would_run_code_is_refused_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "evil.yaml"
    marker = tmp_path / "ran"
    path.write_text(f"!!python/object/apply:os.system ['touch {marker}']\n")
    message = _refusal("arena_v0", "data", path)
    assert "not valid YAML" in message and "os.system" not in message
    assert not marker.exists()


BOMB = "\n".join(
    [f'{SECRET}: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]" for i in range(8)]
)


@pytest.mark.parametrize(
    ("env_name", "option", "name", "text", "problem"),
    [
        ("arena_v0", "data", "box.yaml", BOMB, "line 1, column 19: an anchor; anchors and "
         "aliases are not allowed: write each value out"),
        ("skybirds_v0", "aerodrome", "t.yaml", BOMB, "line 1, column 19: an anchor; anchors "
         "and aliases are not allowed: write each value out"),
        ("arena_v0", "data", "box.yaml", "a: " + "9" * 5000, "line 1, column 4: a number of "
         "5,000 characters; allowed: at most 256 a number"),
        ("skybirds_v0", "aerodrome", "t.json", "[" + "9" * 5000 + "]", "a number of 5,000 "
         "digits; allowed: at most 256 digits a number"),
        ("skybirds_v0", "aerodrome", "t.json", "[" * 995 + "]" * 995, "nested deeper than 64 "
         "levels; allowed: at most 64"),
        ("skybirds_v0", "aerodrome", "t.json", "[" * 100 + "]" * 100, "the table: nested "
         "deeper than 64 levels; allowed: at most 64"),
        ("arena_v0", "data", "box.yaml", "[" * 995 + "]" * 995, "line 1, column 65: nested "
         "deeper than 64 levels; allowed: at most 64"),
    ],
)  # fmt: skip
def test_alias_bombs_long_numbers_and_deep_nesting_in_a_file_are_refused(
    tmp_path: Path, env_name: str, option: str, name: str, text: str, problem: str
) -> None:
    """``yaml.safe_load`` expands a 600-byte alias bomb to 9**9 strings; Python's
    digit limit and parser depth raise bare errors: each is an OptionError."""
    path = tmp_path / name
    path.write_text(text)
    message = _refusal(env_name, option, path)
    assert message.endswith(problem), message
    assert SECRET not in message


def test_a_symlink_to_a_regular_file_is_read(tmp_path: Path) -> None:
    from flockgym.envs.arena import data as arena_data

    link = tmp_path / "box.yaml"
    link.symlink_to(arena_data.DEFAULT_PATH)
    env = make("arena_v0", data=str(link))
    shipped = arena_data.default_box()
    assert (env.unwrapped.box.cards, env.unwrapped.box.spaces) == (shipped.cards, shipped.spaces)


def test_read_option_file_refuses_a_fifo_swapped_in_after_the_check(
    tmp_path: Path, monkeypatch
) -> None:
    """The opened file is checked again (and opened without blocking), so a
    FIFO that replaces the file between the stat and the open is refused."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    path = tmp_path / "box.yaml"
    path.write_text("a: 1\n")
    checked = options_module.option_file_stat

    def check_then_swap(name, suffixes):
        info = checked(name, suffixes)
        path.unlink()
        os.mkfifo(path)
        return info

    monkeypatch.setattr(options_module, "option_file_stat", check_then_swap)
    with pytest.raises(OptionFileError, match="not a regular file"):
        read_option_file(path, (".yaml",))


def test_a_file_that_grows_past_the_limit_after_the_check_is_refused(
    tmp_path: Path, monkeypatch
) -> None:
    path = tmp_path / "t.json"
    path.write_text("[]")
    checked = options_module.option_file_stat

    def check_then_grow(name, suffixes):
        info = checked(name, suffixes)
        path.write_bytes(b" " * 11)
        return info

    monkeypatch.setattr(options_module, "option_file_stat", check_then_grow)
    with pytest.raises(OptionFileError, match="larger than the limit of 10 bytes"):
        read_option_file(path, (".json",), limit=10)


@pytest.mark.parametrize(
    ("env_name", "option"), [("arena_v0", "data"), ("skybirds_v0", "aerodrome")]
)
def test_a_path_with_a_nul_character_is_refused(env_name, option) -> None:
    message = _refusal(env_name, option, "box\0.yaml")
    assert message.endswith("file 'box\\x00.yaml': a path cannot hold a NUL character")
