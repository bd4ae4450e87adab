"""Reading .env.example the way docker compose reads an env file (the subset it uses)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV_EXAMPLE = ROOT / ".env.example"

VARIABLE = re.compile(r"([A-Z][A-Z0-9_]*)=(.*)")
COMMENTED = re.compile(r"#\s*([A-Z][A-Z0-9_]*)=.*")


def read_env_file(path: Path = ENV_EXAMPLE) -> tuple[dict[str, str], set[str]]:
    """The variables the file sets, and those only named in comments (optional ones)."""
    values: dict[str, str] = {}
    optional: set[str] = set()
    for line in path.read_text().splitlines():
        if match := VARIABLE.fullmatch(line):
            value = match.group(2)
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            values[match.group(1)] = value
        elif match := COMMENTED.fullmatch(line):
            optional.add(match.group(1))
    return values, optional
