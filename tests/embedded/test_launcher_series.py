"""`make run` prints the demo's series and season pages beside its event's
(syndicate/launcher.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from syndicate.launcher import Demo, print_addresses


def test_it_prints_the_demo_series_and_season_pages(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SITE_URL", "http://127.0.0.1:8106")
    demo = Demo(event_id=4, series_id=2, season_id=3)
    print_addresses("127.0.0.1", 8106, 4, tmp_path, False, lan=None, demo=demo)
    printed = capsys.readouterr().out
    assert "  Series (House):  http://127.0.0.1:8106/house/series/2/" in printed
    assert "  Season table:    http://127.0.0.1:8106/seasons/3/" in printed
    assert "  Season (House):  http://127.0.0.1:8106/house/seasons/3/" in printed
    print_addresses("127.0.0.1", 8106, 4, tmp_path, False, lan=None, demo=Demo(event_id=4))
    assert "/house/series/" not in capsys.readouterr().out
