"""Fault checks: run tests/faults (the CI checks and the slow ones), summarize what they measured.

    .venv/bin/python bench/faults.py                # every check once (about 4 to 5 minutes)
    .venv/bin/python bench/faults.py --runs 3       # three times, for spreads of the timings
    .venv/bin/python bench/faults.py --ci-only      # without the slow checks (test_slow_checks.py)

Each run is one pytest invocation on a test database of its own (`test_<name>` on the server in
--database-url, created and dropped by pytest-django). Every process a check needs (a private
Redis, daphne servers, Celery workers and beat) is started by the check and stopped afterwards;
the shared PostgreSQL and Redis servers are not restarted. The checks append one JSON line each to
a report file (FAULTS_REPORT); this script prints them grouped by check, with the minimum, median
and maximum of each number over the runs. docs/reliability.md quotes these figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def numbers(values: list[Any]) -> list[float]:
    found: list[float] = []
    for value in values:
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            found.append(float(value))
        elif isinstance(value, list):
            found += numbers(value)
    return found


def summarize(lines: list[dict[str, Any]]) -> None:
    by_check: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in lines:
        by_check[line.pop("check")].append(line)
    for check, runs in sorted(by_check.items()):
        print(f"\n== {check} ({len(runs)} run{'s' if len(runs) > 1 else ''})")
        keys = sorted({key for run in runs for key in run})
        for key in keys:
            values = [run.get(key) for run in runs]
            found = numbers(values)
            if found and len(runs) > 1:
                spread = (
                    f"min {min(found):g}, median {statistics.median(found):g}, max {max(found):g}"
                )
                print(f"  {key}: {spread}")
            else:
                shown = values[0] if len(runs) == 1 else values
                print(f"  {key}: {json.dumps(shown, default=str)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--ci-only", action="store_true", help="skip test_slow_checks.py")
    parser.add_argument(
        "--database-url",
        default="postgres://postgres@127.0.0.1:5432/faults_bench",
        help="the server and database name; pytest-django creates test_<name> beside it",
    )
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        help="required by the suite's settings; the checks use private Redis servers",
    )
    args = parser.parse_args()

    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", prefix="faults-") as report:
        env = {
            **os.environ,
            "DATABASE_URL": args.database_url,
            "REDIS_URL": args.redis_url,
            "FAULTS_REPORT": report.name,
        }
        if not args.ci_only:
            env["FAULTS_SLOW"] = "1"
        failed = 0
        for run in range(1, args.runs + 1):
            started = time.monotonic()
            result = subprocess.run(
                [sys.executable, "-m", "pytest", "tests/faults", "-q", "-p", "no:cacheprovider"],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            closing = result.stdout.strip().splitlines()[-1:] or ["(no output)"]
            print(f"run {run}: {closing[0]} ({time.monotonic() - started:.0f} s wall)")
            if result.returncode != 0:
                failed += 1
                print(result.stdout[-4000:])
        lines = [json.loads(line) for line in Path(report.name).read_text().splitlines() if line]
    summarize(lines)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
