"""The publisher prepares before it serves: the first delivery does not wait for tables,
templates or the URL map."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from live.fragments import LIVE_TEMPLATES

ROOT = Path(__file__).resolve().parents[2]

# In a process of its own, which starts with nothing built, loaded or compiled.
PREPARED = """
import json
import django
django.setup()
from django.template import engines
from django.urls import get_resolver
from scoring import evaluator
from live import delivery

loader = engines["django"].engine.template_loaders[0]
resolver = get_resolver()
before = [evaluator._built, len(loader.get_template_cache), resolver._populated]
delivery.prepare()
after = [evaluator._built, sorted(loader.get_template_cache), resolver._populated]
namespaces = [ns._populated for _, ns in resolver.namespace_dict.values()]
print(json.dumps([before, after, namespaces]))
"""


def test_prepare_builds_the_tables_compiles_the_templates_and_maps_the_urls() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "syndicate.settings"}
    done = subprocess.run(
        [sys.executable, "-c", PREPARED], cwd=ROOT, env=env, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode()
    before, after, namespaces = json.loads(done.stdout.decode().strip().splitlines()[-1])

    assert before == [False, 0, False]
    built, compiled, populated = after
    assert built and populated
    assert namespaces and all(namespaces)
    live = sorted(
        str(path.relative_to(ROOT / "templates"))
        for pattern in LIVE_TEMPLATES
        for path in (ROOT / "templates").glob(pattern)
    )
    assert {"web/_board_row.html", "house/_player_row.html", "web/_player.html"} <= set(live)
    assert set(live) <= set(compiled)
