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


REFERENCE = re.compile(r"\$\{([A-Z][A-Z0-9_]*)(?::([-?])([^}]*))?\}")


def interpolate(text: str, values: dict[str, str]) -> str:
    """`${NAME}`, `${NAME:-default}` and `${NAME:?message}` filled in from `values`, as compose
    fills in the compose file from .env."""

    def fill(match: re.Match[str]) -> str:
        name, kind, rest = match.groups()
        if values.get(name):
            return values[name]
        if kind == "?":
            raise ValueError(f"{name}: {rest}")
        return rest if kind == "-" else ""

    return REFERENCE.sub(fill, text)
