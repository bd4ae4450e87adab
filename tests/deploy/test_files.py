"""Development keys under var/ are written once, whoever writes them at the same moment."""

from __future__ import annotations

import threading
from pathlib import Path

from helpers.files import write_once


def test_writers_at_once_keep_one_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "var" / "key.pem"
    start = threading.Barrier(8)
    results: dict[int, bool] = {}

    def write(n: int) -> None:
        start.wait()
        results[n] = write_once(path, f"writer {n}\n".encode() * 10_000)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    (winner,) = [n for n, wrote in results.items() if wrote]
    assert path.read_bytes() == f"writer {winner}\n".encode() * 10_000
    assert path.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["key.pem"]  # no temporary left


def test_an_existing_file_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "key.pem"
    path.write_bytes(b"first")
    assert write_once(path, b"second") is False
    assert path.read_bytes() == b"first"
