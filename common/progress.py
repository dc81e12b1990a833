"""Progress of long commands: a bar on a terminal, a line every few seconds in a log.

A tournament or a training run whose output goes to a file or a pipe (a batch
job, CI, ``nohup``) still says how far it is: one line every
:data:`LINE_SECONDS` seconds, with the rate and the time left. On a terminal
it is tqdm's bar when the training extra is installed (else the same lines).
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

LINE_SECONDS = 5.0


class Progress:
    """Counts ``total`` units of work; see the module docstring.

    ``enabled=False`` shows nothing; ``stream`` (default stderr) and ``interval``
    (default :data:`LINE_SECONDS`) are for logs and tests."""

    def __init__(
        self,
        total: int,
        unit: str,
        enabled: bool = True,
        label: str = "",
        initial: int = 0,
        stream: TextIO | None = None,
        interval: float | None = None,
    ) -> None:
        self.total = total
        self.unit = unit
        self.label = label
        self.count = self.started_at = initial
        self.stream = stream or sys.stderr
        self.interval = LINE_SECONDS if interval is None else interval
        self.enabled = enabled
        self.start = self.last_line = time.monotonic()
        self.bar: Any = None
        if enabled and stream is None and is_terminal(self.stream):
            self.bar = terminal_bar(total, unit, label, initial)

    def update(self, done: int) -> None:
        """``done`` more units are finished."""
        self.count += done
        if self.bar is not None:
            self.bar.update(done)
            return
        now = time.monotonic()
        if self.enabled and now - self.last_line >= self.interval:
            self.last_line = now
            self.print_line(now)

    def print_line(self, now: float) -> None:
        elapsed = max(now - self.start, 1e-9)
        rate = (self.count - self.started_at) / elapsed
        share = self.count / self.total if self.total else 1.0
        left = max(self.total - self.count, 0) / rate if rate > 0 else float("inf")
        eta = f"about {format_seconds(left)} left" if left != float("inf") else "rate unknown"
        prefix = f"{self.label}: " if self.label else ""
        print(
            f"{prefix}{self.count:,}/{self.total:,} {self.unit} ({share:.0%}), "
            f"{rate:,.1f} {self.unit}/s, {eta}",
            file=self.stream,
            flush=True,
        )

    def write(self, text: str) -> None:
        """A message that does not break the bar."""
        if self.bar is not None:
            self.bar.write(text)
        else:
            print(text, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def terminal_bar(total: int, unit: str, label: str, initial: int) -> Any:
    """tqdm's bar (the training extra), or None to print lines instead."""
    try:
        from tqdm import tqdm
    except ModuleNotFoundError:
        return None
    return tqdm(
        total=total,
        initial=initial,
        unit=unit,
        desc=label or None,
        leave=False,
        dynamic_ncols=True,
        unit_scale=total > 100_000,
    )


def format_seconds(seconds: float) -> str:
    """``75`` -> ``1 min 15 s``."""
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"
