"""The one reader every loader goes through (``flockgym.envs.core.reader``):
regular files only, a size cap, JSON and YAML within depth and digit limits,
YAML without anchors or aliases; each refusal a named error saying what is
allowed, before any large or endless work is done."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from flockgym.envs.core import reader
from flockgym.envs.core.errors import FlockgymError
from flockgym.envs.core.reader import (
    InputFileError,
    InputSyntaxError,
    NestingError,
    NumberTooLongError,
    YamlAliasError,
)

BILLION_LAUGHS = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]" for i in range(8)]
)
"""About 600 bytes that PyYAML's safe_load expands to 9**9 strings."""


def test_every_refusal_is_a_flockgym_error() -> None:
    for error in (
        InputFileError,
        InputSyntaxError,
        NestingError,
        NumberTooLongError,
        YamlAliasError,
    ):
        assert issubclass(error, reader.InputError)
        assert issubclass(error, FlockgymError)


def test_a_fifo_is_refused_before_it_is_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "config.yaml"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match=r"not a regular file \(directories, pipes"):
        reader.read_text(fifo, "config")


@pytest.mark.parametrize("name", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused(name: str) -> None:
    with pytest.raises(InputFileError, match=f"config '{name}': not a regular file"):
        reader.read_bytes(name, "config")


def test_a_folder_and_a_missing_file_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="not a regular file"):
        reader.read_bytes(tmp_path, "spec")
    with pytest.raises(InputFileError, match=r"not found \(cannot read the file\)"):
        reader.read_bytes(tmp_path / "none.yaml", "spec")
    with pytest.raises(InputFileError, match="a path cannot hold a NUL character"):
        reader.read_bytes("a\0b", "spec")


def test_a_file_past_the_cap_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 101)
    with pytest.raises(InputFileError, match="larger than the limit of 100 bytes"):
        reader.read_bytes(big, "state", limit=100)
    assert reader.read_bytes(big, "state", limit=101) == b" " * 101


def test_text_must_be_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "c.yaml"
    bad.write_bytes(b"a: \xff\n")
    with pytest.raises(InputFileError, match=r"not UTF-8 text \(byte 0xff at offset 3\)"):
        reader.read_text(bad, "config")


def test_json_numbers_past_the_digit_limit_are_named() -> None:
    for text in ("9" * 5000, "[1, " + "9" * 300 + "]", "1." + "0" * 300):
        with pytest.raises(NumberTooLongError, match="allowed: at most 256"):
            reader.parse_json(text, "state JSON")
    assert reader.parse_json("[" + "9" * 256 + "]") == [int("9" * 256)]


def test_json_nesting_past_the_limit_is_named_at_any_depth() -> None:
    for depth in (65, 995, 100_000):
        with pytest.raises(NestingError, match="state JSON: nested deeper than 64 levels"):
            reader.parse_json("[" * depth + "]" * depth, "state JSON")
    assert reader.parse_json("[" * 64 + "]" * 64) is not None


def test_invalid_json_says_where() -> None:
    with pytest.raises(InputSyntaxError, match=r"^x is not valid JSON \(line 1, column 2"):
        reader.parse_json("{x", "x")


def test_yaml_aliases_are_refused_before_any_expansion() -> None:
    with pytest.raises(YamlAliasError, match=r"line 1, column 4: an anchor \(&a\); anchors"):
        reader.parse_yaml(BILLION_LAUGHS, "spec")
    with pytest.raises(YamlAliasError, match=r"an anchor \(&base\)"):
        reader.parse_yaml("base: &base {a: 1}\nother:\n  <<: *base\n")


def test_yaml_depth_and_digits_are_bounded() -> None:
    for depth in (65, 995, 20_000):
        with pytest.raises(NestingError, match="nested deeper than 64 levels"):
            reader.parse_yaml("[" * depth + "]" * depth, "--set a")
    with pytest.raises(NumberTooLongError, match="a number of 5,000 characters; allowed"):
        reader.parse_yaml("a: " + "9" * 5000)
    with pytest.raises(NumberTooLongError):
        reader.parse_yaml("a: " + "1" * 300 + ".5")
    assert reader.parse_yaml("a: [1, 2.5, 3e6, x]") == {"a": [1, 2.5, "3e6", "x"]}


def test_yaml_is_safe_load_only() -> None:
    with pytest.raises(InputSyntaxError, match="not valid YAML"):
        reader.parse_yaml("!!python/object/apply:os.system ['true']")


def test_the_reader_imports_no_torch_or_pydantic() -> None:
    code = (
        "import sys, flockgym.envs.core.reader; "
        "print(sorted(m for m in ('torch', 'pydantic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
