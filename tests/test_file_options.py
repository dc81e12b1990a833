"""Options that name a file: declared as such, and read only when safe.

A server taking env options from requests must know which options open files
(``Option.reads_file``); the library itself refuses anything but a small regular
file with an allowed suffix, and its errors never quote the file's content or a
resolved absolute path.
"""

from __future__ import annotations

import pytest

from flockgym.envs import list_envs, make


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
