"""static/js/live.js against a stand-in DOM (Node.js): versions, gaps, reconnects, the dot."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SCRIPT = HERE.parents[1] / "static" / "js" / "live.js"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_client_follows_the_protocol() -> None:
    node = shutil.which("node")
    assert node is not None
    run = subprocess.run(
        [node, str(HERE / "live_js_check.js"), str(SCRIPT)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
