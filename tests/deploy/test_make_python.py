"""`make` checks the Python before it installs anything (scripts/check-python), in plain words."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def fake_python(folder: Path, version: str) -> tuple[Path, Path]:
    """A `python` that answers the version query as `version` and logs every call."""
    log = folder / "calls.log"
    python = folder / "python"
    python.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> {log}\n'
        'case "$*" in *version_info*) echo ' + version + " ;; *) exit 0 ;; esac\n"
    )
    python.chmod(0o755)
    return python, log


def checkout(folder: Path) -> Path:
    """A fresh clone's make files, without its .venv."""
    root = folder / "clone"
    (root / "scripts").mkdir(parents=True)
    for name in ("Makefile", ".python-version", "requirements-dev.lock", "scripts/check-python"):
        shutil.copy2(ROOT / name, root / name)
    return root


def test_make_run_with_another_python_stops_before_installing(tmp_path: Path) -> None:
    python, log = fake_python(tmp_path, "3.12")
    clone = checkout(tmp_path)
    done = subprocess.run(
        ["make", "-C", str(clone), "run", f"PYTHON={python}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "Syndicate needs Python 3.13 (found 3.12): install it" in done.stderr
    assert "PYTHON=python3.13" in done.stderr
    assert "Installing" not in done.stdout
    assert log.read_text().count("\n") == 1  # the version query only: no pip, no uv
    assert not (clone / ".venv").exists()


def test_the_check_names_a_python_that_does_not_run(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(ROOT / "scripts" / "check-python"), str(tmp_path / "no-such-python")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "Syndicate needs Python 3.13 (found none:" in done.stderr


def test_the_right_python_passes_and_make_says_what_it_installs(tmp_path: Path) -> None:
    check = subprocess.run([str(ROOT / "scripts" / "check-python"), sys.executable], timeout=60)
    assert check.returncode == 0  # the suite itself runs on the Python of .python-version
    python, _ = fake_python(tmp_path, "3.13")
    plan = subprocess.run(
        ["make", "-n", "-C", str(checkout(tmp_path)), "run", f"PYTHON={python}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    lines = plan.splitlines()
    checked = next(i for i, line in enumerate(lines) if "check-python" in line)
    told = next(i for i, line in enumerate(lines) if "about a minute the first time" in line)
    installing = next(i for i, line in enumerate(lines) if "pip install" in line)
    assert checked < told < installing
