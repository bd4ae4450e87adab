"""The repository explains itself: docs/rules.md states the rules, and everything cites it.

No source file, template, script or document cites a document outside the repository (the
product specification, the players' rules sheet or the screens document the project started
from), and every "docs/rules.md section N" names a section that docs/rules.md has.
"""

from __future__ import annotations

import re
import subprocess
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"

TEXT_SUFFIXES = {
    ".py",
    ".pyi",
    ".html",
    ".js",
    ".css",
    ".md",
    ".txt",
    ".toml",
    ".cfg",
    ".ini",
    ".yml",
    ".yaml",
    ".sh",
    ".conf",
    ".example",
}
PLAIN_NAMES = {"Makefile", "Dockerfile"}
SCRIPT_FOLDERS = ("scripts/", ".ci/", "bin/")
SKIPPED = (".venv/", ".git/", "var/", "node_modules/")

# A space inside a citation, or a line break that carries on a comment or a docstring.
GAP = r"(?:[ \t]+|[ \t]*\n[ \t]*(?:(?:#|//|\*|\{#)[ \t]*)?)"
NUMBER = r"\d+(?:\.\d+)?"
NUMBERS = rf"{NUMBER}(?:(?:,{GAP}|{GAP}and{GAP}|{GAP}?[-\u2013]{GAP}?){NUMBER})*"
CITATION = re.compile(rf"rules\.md,?{GAP}(?:sections?{GAP}|§{GAP}?)(?P<numbers>{NUMBERS})")
# Inside docs/rules.md a reference needs no file name.
INNER_REFERENCE = re.compile(rf"\bsections?{GAP}(?P<numbers>{NUMBERS})")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)\.? \S", re.MULTILINE)

# The outside documents' names, spelled in pieces so that this file does not cite them itself.
OUTSIDE = re.compile(
    "|".join(
        [
            r"\bS" r"PEC\b",
            r"\bD" r"ESIGN\b",
            r"\.\./sh" r"ared\b",
            r"/work/sh" r"ared\b",
            r"seven-card-poker-" r"rules",
            r"\brules" + GAP + r"sections?" + GAP + r"\d",
        ]
    )
)


@cache
def repository_files() -> tuple[Path, ...]:
    """Tracked files and new ones not ignored; the whole tree when git is not at hand."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout.decode()
        names = sorted({name for name in listed.split("\0") if name})
    except (OSError, subprocess.CalledProcessError):
        names = sorted(str(path.relative_to(ROOT)) for path in ROOT.rglob("*") if path.is_file())
    return tuple(ROOT / name for name in names if not name.startswith(SKIPPED))


@cache
def text_files() -> tuple[tuple[str, str], ...]:
    """(path from the root, text) of every source, template, script and document."""
    found = []
    for path in repository_files():
        name = str(path.relative_to(ROOT))
        if path.is_symlink() or not path.is_file():
            continue
        if not (
            path.suffix in TEXT_SUFFIXES
            or path.name in PLAIN_NAMES
            or (name.startswith(SCRIPT_FOLDERS) and not path.suffix)
        ):
            continue
        try:
            found.append((name, path.read_text(encoding="utf-8")))
        except UnicodeDecodeError:
            continue
    return tuple(found)


def sections() -> set[str]:
    return set(HEADING.findall(RULES.read_text(encoding="utf-8")))


def cited(numbers: str) -> list[str]:
    """`6.8, 7.4 and 10.1` -> ['6.8', '7.4', '10.1'] (a range by its two ends)."""
    return re.findall(NUMBER, numbers)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def test_it_reads_the_files_that_cite_the_rules() -> None:
    names = {name for name, _ in text_files()}
    assert {"README.md", "docs/rules.md", "scoring/evaluator.py", "Makefile"} <= names
    assert not any(name.startswith(".venv/") for name in names)


def test_no_file_cites_a_document_outside_the_repository() -> None:
    found = [
        f"{name}:{line_of(text, match.start())}: {match.group(0)!r}"
        for name, text in text_files()
        for match in OUTSIDE.finditer(text)
    ]
    assert found == [], "cite docs/rules.md instead:\n" + "\n".join(found)


def test_the_rules_are_numbered_in_order() -> None:
    headings = HEADING.findall(RULES.read_text(encoding="utf-8"))
    tops = [heading for heading in headings if "." not in heading]
    assert tops == [str(n) for n in range(1, len(tops) + 1)]
    assert len(tops) >= 10
    for top in tops:
        subsections = [h for h in headings if h.startswith(f"{top}.")]
        assert subsections == [f"{top}.{n}" for n in range(1, len(subsections) + 1)], top


def test_every_citation_names_a_section_of_the_rules() -> None:
    known = sections()
    citations = 0
    missing = []
    for name, text in text_files():
        matches = list(CITATION.finditer(text))
        if name == "docs/rules.md":
            matches += INNER_REFERENCE.finditer(text)
        for match in matches:
            for number in cited(match.group("numbers")):
                citations += 1
                if number not in known:
                    missing.append(f"{name}:{line_of(text, match.start())}: section {number}")
    assert missing == [], "docs/rules.md has no such section:\n" + "\n".join(missing)
    assert citations >= 50  # the code does cite the rules


def test_the_readme_points_to_the_rules() -> None:
    assert "docs/rules.md" in (ROOT / "README.md").read_text(encoding="utf-8")
