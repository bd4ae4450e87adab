"""Files the project writes for itself under var/ (development keys)."""

from __future__ import annotations

import os
import uuid
from pathlib import Path


def write_once(path: Path, content: bytes, mode: int = 0o600) -> bool:
    """Write `content` to `path` unless a file is already there; False when one was.

    The content goes to a unique temporary name first and is then linked into place, so processes
    or threads writing at once keep one file, and nobody reads a half-written one. On False the
    caller reads what the other writer left.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{uuid.uuid4().hex}.tmp")
    temporary.write_bytes(content)
    temporary.chmod(mode)
    try:
        os.link(temporary, path)
    except FileExistsError:
        return False
    finally:
        temporary.unlink()
    return True
