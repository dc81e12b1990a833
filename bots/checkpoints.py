"""Checkpoint zips: what one may hold, written atomically, read without running
anything from them and without inflating anything before its size is checked.

A checkpoint is a zip of these members, and only these:

====================  ==========================================================
``flockgym.json``     what it was trained for: env, options, shapes, learner,
                      network, step, seed, commit (:class:`~.policies.CheckpointMeta`)
``policy.pth``        the policy network's ``state_dict``: tensors only
``optimizer.pth``     resumable checkpoints: the optimizer's ``state_dict``
``learner.json``      resumable checkpoints: the learner's counters and schedules
``generators.json``   resumable checkpoints: Python, numpy and torch generator states
====================  ==========================================================

``.pth`` members are read with ``torch.load(weights_only=True)``, which builds
tensors and plain containers and refuses any other object, and ``.json``
members as strict UTF-8 JSON, so opening a checkpoint never executes code from
it. Before any member is inflated, the zip's directory is checked: known
member names only, each once, each within its size limit (the caller's, e.g.
derived from the parameter count the metadata implies) and a sane compression
ratio, so neither a zip bomb nor a doctored size can exhaust memory. Any
failure is a :class:`CheckpointError` naming the file and the problem.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flockgym.common.errors import CheckpointError
from flockgym.common.files import write_atomic
from flockgym.envs.core.reader import InputError, parse_json

if TYPE_CHECKING:
    import torch

META_MEMBER = "flockgym.json"
POLICY_MEMBER = "policy.pth"
OPTIMIZER_MEMBER = "optimizer.pth"
LEARNER_MEMBER = "learner.json"
GENERATORS_MEMBER = "generators.json"
MEMBERS = (META_MEMBER, POLICY_MEMBER, OPTIMIZER_MEMBER, LEARNER_MEMBER, GENERATORS_MEMBER)
RESUMABLE_MEMBERS = frozenset(MEMBERS)

MAX_JSON_BYTES = 1 << 20
"""A JSON member is metadata or counters: a megabyte is far more than any needs."""
MAX_MEMBER_BYTES = 1 << 30
"""No member of any checkpoint inflates past this, whatever its limit says."""
MAX_RATIO = 200
"""Weights compress by a few percent; a member (over a megabyte) inflating to
more than this many times its compressed size is a zip bomb."""
RATIO_FREE_BYTES = 1 << 20


class CheckpointArchive:
    """A checkpoint zip opened for reading, its directory already checked
    (use as a context manager)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise CheckpointError(f"checkpoint {self.path} does not exist")
        try:
            self.zip = zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError):
            raise CheckpointError(f"{self.path} is not a checkpoint: not a zip file") from None
        except OSError as err:
            raise CheckpointError(f"cannot read checkpoint {self.path}: {err.strerror}") from None
        try:
            self.members = self._checked_directory()
        except CheckpointError:
            self.zip.close()
            raise

    def __enter__(self) -> CheckpointArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.zip.close()

    def names(self) -> set[str]:
        return set(self.members)

    def _checked_directory(self) -> dict[str, zipfile.ZipInfo]:
        members: dict[str, zipfile.ZipInfo] = {}
        for info in self.zip.infolist():
            name = info.filename
            if name not in MEMBERS:
                raise CheckpointError(
                    f"{self.path}: unexpected member {name[:80]!r}; a flockgym checkpoint "
                    f"holds only {', '.join(MEMBERS)} (nothing else is read, and a file "
                    "written by another tool is refused rather than guessed at)"
                )
            if name in members:
                raise CheckpointError(f"{self.path}: member {name!r} appears twice")
            ratio = info.file_size / max(info.compress_size, 1)
            if info.file_size > RATIO_FREE_BYTES and ratio > MAX_RATIO:
                raise CheckpointError(
                    f"{self.path}: {name} would inflate {ratio:,.0f} times (to "
                    f"{info.file_size:,} bytes): a zip bomb, not weights; allowed: at most "
                    f"{MAX_RATIO} times"
                )
            if info.file_size > MAX_MEMBER_BYTES:
                raise CheckpointError(
                    f"{self.path}: {name} would inflate to {info.file_size:,} bytes; allowed: "
                    f"at most {MAX_MEMBER_BYTES:,}"
                )
            members[name] = info
        return members

    def require(self, *names: str) -> None:
        missing = [name for name in names if name not in self.members]
        if missing:
            raise CheckpointError(f"{self.path} has no {', '.join(missing)}")

    def read(self, name: str, max_bytes: int) -> bytes:
        """The inflated bytes of ``name``, refused unless its declared size fits."""
        self.require(name)
        size = self.members[name].file_size
        if size > max_bytes:
            raise CheckpointError(
                f"{self.path}: {name} would inflate to {size:,} bytes; allowed for this "
                f"checkpoint: at most {max_bytes:,}"
            )
        try:
            # zipfile never returns more than the declared size, and checks the CRC.
            return self.zip.read(name)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as err:
            raise CheckpointError(f"{self.path}: {name} is damaged ({err})") from None

    def json(self, name: str, max_bytes: int = MAX_JSON_BYTES) -> Any:
        """A JSON member, as strict UTF-8 text, through the project's reader: a
        number past its digit limit or a nesting past its depth limit is a
        :class:`CheckpointError` naming the member, like any other damage."""
        data = self.read(name, max_bytes)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise CheckpointError(
                f"{self.path}: {name} is not UTF-8 text (byte 0x{data[err.start]:02x} at "
                f"offset {err.start})"
            ) from None
        try:
            return parse_json(text, name)
        except InputError as err:
            raise CheckpointError(f"{self.path}: {err}") from None

    def tensors(self, name: str, max_bytes: int) -> Any:
        """A ``torch.save`` member, weights only: tensors and plain containers."""
        import torch  # the training extra: only reading weights needs it

        data = self.read(name, max_bytes)
        try:
            return torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
        except Exception as err:  # whatever the bytes hold, none of it runs: refuse them
            first_line = str(err).strip().splitlines()[0] if str(err).strip() else ""
            raise CheckpointError(
                f"{self.path}: {name} is not a weights-only tensor file, so it is not "
                f"loaded ({type(err).__name__}: {first_line[:300]})"
            ) from None


def tensor_bytes(obj: Any) -> bytes:
    """``torch.save`` of tensors and plain containers, as bytes."""
    import torch

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def json_bytes(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, allow_nan=False) + "\n").encode("utf-8")


def write_checkpoint(path: Path, members: dict[str, bytes]) -> Path:
    """A checkpoint zip of ``members`` (names from :data:`MEMBERS`), written atomically."""
    unknown = set(members) - set(MEMBERS)
    if unknown:
        raise ValueError(f"not checkpoint members: {sorted(unknown)}")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in MEMBERS:
            if name in members:
                archive.writestr(name, members[name])
    return write_atomic(path, buffer.getvalue())


def check_state_dict(path: Path, name: str, state: Any, expected: dict[str, torch.Tensor]) -> None:
    """``state`` must hold exactly ``expected``'s tensors, of the same shapes and
    types (finite numbers), before any is copied into a network."""
    import torch

    if not isinstance(state, dict) or not all(isinstance(k, str) for k in state):
        raise CheckpointError(
            f"{path}: {name} holds no state dict (a mapping of layer names to tensors), "
            f"but a {type(state).__name__}"
        )
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    if missing or unexpected:
        raise CheckpointError(
            f"{path}: {name} holds the weights of another network (missing: "
            f"{', '.join(missing) or '-'}; unexpected: {', '.join(unexpected)[:200] or '-'}); "
            "the metadata's network and the weights do not match"
        )
    for key, tensor in state.items():
        want = expected[key]
        if not isinstance(tensor, torch.Tensor) or tensor.shape != want.shape:
            shape = tuple(tensor.shape) if isinstance(tensor, torch.Tensor) else type(tensor)
            raise CheckpointError(
                f"{path}: {name}: {key} has shape {shape}; the metadata's network needs "
                f"{tuple(want.shape)}: the weights do not match"
            )
        if tensor.dtype != want.dtype or not bool(torch.isfinite(tensor).all()):
            raise CheckpointError(f"{path}: {name}: {key} is not finite {want.dtype} numbers")
