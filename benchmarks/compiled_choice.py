"""The figures behind the compiled engines' technology (docs/scale.md).

A compiled engine is called from Python once per step (legal actions, apply,
observation), and every test process and worker loads it afresh. So the
binding's cost per call and its load time matter beside the speed of the C++
itself. Measured here in one run, each rate per CPU-second of this process:

* a generator draw called from Python: numpy's ``Generator.integers(6)``
  against the same draw through the pybind11 binding of numpy_rng.hpp
  (``flockgym.envs.core._native``), i.e. numpy's per-call cost against the
  binding's;
* the same draw in a C++ loop (what an engine's dice cost inside a step);
* loading the extension in a fresh interpreter (wall time, median of 5):
  there is no just-in-time compilation in each process.

    python benchmarks/compiled_choice.py [--seconds 1.0] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from flockgym.envs.core import _native  # type: ignore[attr-defined]


def calls_per_cpu_second(call: Callable[[], Any], seconds: float, batch: int = 1) -> float:
    """Calls of ``call`` per CPU-second (each call counted ``batch`` times)."""
    done = 0
    start = time.process_time()
    while (elapsed := time.process_time() - start) < seconds:
        for _ in range(100):
            call()
        done += 100 * batch
    return done / elapsed


LOAD_TIMER = (
    "import time, flockgym.envs.core\n"
    "start = time.perf_counter()\n"
    "import flockgym.envs.core._native\n"
    "print(time.perf_counter() - start)\n"
)


def load_seconds(runs: int = 5) -> float:
    """Median wall time of loading the extension in a fresh interpreter (the
    package imported first, so only the extension's own load is timed)."""
    times = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", LOAD_TIMER], check=True, capture_output=True, text=True
        )
        times.append(float(out.stdout))
    return statistics.median(times)


def measure(seconds: float) -> dict[str, Any]:
    rng = np.random.Generator(np.random.PCG64(0))
    twin = _native.NumpyRng(rng.bit_generator.state)
    numpy_call = calls_per_cpu_second(lambda: rng.integers(6), seconds)
    binding_call = calls_per_cpu_second(lambda: twin.integers(0, 6), seconds)
    in_cpp = calls_per_cpu_second(lambda: twin.integers_many(0, 6, 10_000), seconds, 10_000)
    return {
        "draws_per_cpu_second": {
            "numpy_generator_call": numpy_call,
            "pybind11_binding_call": binding_call,
            "cpp_loop": in_cpp,
        },
        "binding_call_over_numpy_call": binding_call / numpy_call,
        "cpp_loop_over_numpy_call": in_cpp / numpy_call,
        "extension_load_seconds": load_seconds(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per rate")
    parser.add_argument("--json", type=Path, help="save the run here")
    args = parser.parse_args(argv)
    result = measure(args.seconds)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
