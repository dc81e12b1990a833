"""How long ``make demo`` takes after the install: ``flockgym train
configs/quickstart.yaml`` run as ``make demo`` runs it (a fresh process, the run
folder in a temporary directory), its wall time, the CPU time of the process
and its children, and the machine's load when it started. The README states
:func:`summary` of the saved run.

    python benchmarks/demo_time.py --json benchmarks/results/demo_time.json
    python benchmarks/demo_time.py --summary benchmarks/results/demo_time.json
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from baseline_tree import checkout_commit  # benchmarks/: the script's own folder
from run_helpers import add_run_arguments, print_and_save, print_saved

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "quickstart.yaml"


def time_demo() -> dict[str, Any]:
    """Run the demo's command once; its wall and CPU seconds and the load."""
    load = os.getloadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "flockgym.cli", "train", str(CONFIG),
                   "--set", f"output.dir={out}"]  # fmt: skip
        start = time.perf_counter()
        subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"seconds": wall, "cpu_seconds": cpu, "load_average": load}


def summary(run: dict[str, Any]) -> str:
    """The README's words for a saved run."""
    return (
        f"{run['seconds']:.0f} s here after the install ({run['cpu_seconds']:.0f} CPU-s on "
        f"{run['cores']} cores at load {run['load_average'][0]:.1f}; "
        f"`python benchmarks/demo_time.py`, saved in `benchmarks/results/demo_time.json`)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_run_arguments(parser, "print a saved run's words")
    args = parser.parse_args()
    if args.summary:
        print_saved(summary, args.summary)
        return
    run = {
        "command": "python " + " ".join(sys.argv),
        "commit": checkout_commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cores": os.cpu_count(),
        **time_demo(),
    }
    print_and_save(run, summary, args.json)


if __name__ == "__main__":
    main()
