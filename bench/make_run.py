"""Seconds from a fresh clone to `make run` serving, a restart, and a restart after kill -9.

Clones the checkout into a temporary folder, then:
1. `make run` in the fresh clone (virtualenv from the package cache, initdb, migrations, demo)
   until /healthz answers; Ctrl-C (SIGINT to its process group, as a terminal sends it);
2. `make run` again (the servers start on the kept data) until /healthz answers; Ctrl-C;
3. `make run`, one committed write (a new user), then kill -9 of everything it started,
   PostgreSQL and Valkey included (a power cut), then `make run` until /healthz answers and the
   write is there.
Reference: the same machine's `python -c pass`, median of 5, printed beside the figures.

    .venv/bin/python bench/make_run.py [--source .] [--port 8201] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def start(clone: Path, port: int, log: Path) -> tuple[subprocess.Popen[bytes], float]:
    began = time.monotonic()
    with log.open("ab") as out:
        process = subprocess.Popen(
            ["make", "run"],
            cwd=clone,
            env={**os.environ, "PORT": str(port)},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, like a terminal's foreground job
        )
    while not healthy(port):
        if process.poll() is not None:
            raise SystemExit(f"make run exited ({process.returncode}); see {log}")
        if time.monotonic() - began > 600:
            raise SystemExit(f"make run did not serve within 600 s; see {log}")
        time.sleep(0.1)
    return process, time.monotonic() - began


def ctrl_c(process: subprocess.Popen[bytes]) -> float:
    began = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=120)
    return time.monotonic() - began


def manage(clone: Path, *args: str) -> str:
    result = subprocess.run(
        [str(clone / ".venv/bin/python"), "manage.py", *args],
        cwd=clone,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""


def power_cut(process: subprocess.Popen[bytes], clone: Path) -> None:
    """SIGKILL to the make run process group and to the embedded servers (their own sessions)."""
    pids = [int((clone / "var/postgres/postmaster.pid").read_text().split()[0])]
    pids.append(int((clone / "var/valkey/valkey.pid").read_text().strip()))
    os.killpg(process.pid, signal.SIGKILL)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    process.wait()


def python_startup() -> float:
    times = []
    for _ in range(5):
        began = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.monotonic() - began)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--port", type=int, default=8201)
    parser.add_argument("--keep", action="store_true", help="keep the clone")
    args = parser.parse_args()
    # A terminal's Ctrl-C: make and its children must not inherit an ignored SIGINT from a
    # shell that started this benchmark in the background.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    folder = Path(tempfile.mkdtemp(prefix="syndicate-clone-"))
    folder.chmod(0o755)  # under root, PostgreSQL's own user must enter the clone
    clone = folder / "syndicate"
    log = folder / "make-run.log"
    subprocess.run(["git", "clone", "-q", args.source, str(clone)], check=True)
    rows = []
    done = False
    try:
        began = time.monotonic()
        with log.open("ab") as out:
            subprocess.run(
                ["make", ".venv/bin/.installed"], cwd=clone, stdout=out, stderr=out, check=True
            )
        install = time.monotonic() - began
        process, first = start(clone, args.port, log)
        rows.append(("fresh clone: `make run` until /healthz answers", install + first))
        rows.append(("  of which: .venv from the package cache (uv)", install))
        rows.append(("  of which: initdb, servers, migrations, demo, daphne", first))
        rows.append(("Ctrl-C until `make run` exited", ctrl_c(process)))
        process, again = start(clone, args.port, log)
        rows.append(("restart: `make run` until /healthz answers", again))
        rows.append(("Ctrl-C until `make run` exited", ctrl_c(process)))

        process, _ = start(clone, args.port, log)
        manage(clone, "shell", "-c", _CREATE_USER)
        power_cut(process, clone)
        process, recovered = start(clone, args.port, log)
        found = manage(clone, "shell", "-c", _COUNT_USER)
        rows.append(("after kill -9 of everything: `make run` until /healthz answers", recovered))
        rows.append(("Ctrl-C until `make run` exited", ctrl_c(process)))
        assert found == "1", f"the write before kill -9 is missing ({found!r})"
        reference = python_startup()
        done = True
    finally:
        subprocess.run(
            [str(clone / ".venv/bin/python"), "-m", "syndicate.embedded", "stop"],
            cwd=clone,
            check=False,
            capture_output=True,
        )
        if done and not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            print(f"Kept {folder} (log: {log})", file=sys.stderr)
    print("| Step | Seconds |")
    print("|---|---:|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.1f} |")
    print("| the write committed before kill -9, after the restart | present |")
    print(f"| reference: `python -c pass` (median of 5) | {reference:.3f} |")


_CREATE_USER = (
    "from accounts.models import User; "
    "User.objects.create_user(email='power-cut@example.com', password='x-9-power-cut', "
    "display_name='Power Cut')"
)
_COUNT_USER = (
    "from accounts.models import User; "
    "print(User.objects.filter(email='power-cut@example.com').count())"
)


if __name__ == "__main__":
    main()
