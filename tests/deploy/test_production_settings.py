"""Production mode (SYNDICATE_PRODUCTION=1) as docker-compose.yml runs it.

Each case runs manage.py (or daphne) in a subprocess with its own environment: .env.example's
values, with a fresh secret key and VAPID pair, and this test run's PostgreSQL and Redis. No
database fixture: nothing here writes to a database.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import yaml
from django.core.management.utils import get_random_secret_key

from tests.deploy.envfile import interpolate, read_env_file
from tests.waiting import PATIENCE

ROOT = Path(__file__).resolve().parents[2]
MANAGE = [sys.executable, str(ROOT / "manage.py")]
NO_ISSUES = "System check identified no issues (0 silenced)."
# Inherited variables that would change what is tested: each case sets its own.
INHERITED_PREFIXES = (
    "DJANGO_",
    "SYNDICATE_",
    "VAPID_",
    "AUDIT_",
    "EMAIL_",
    "CELERY_",
    "DATABASE_",
)


def run(
    args: list[str], env: dict[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def database_url() -> str:
    url = os.environ.get("DATABASE_URL")
    if url:
        return url
    from django.conf import settings

    db = settings.DATABASES["default"]
    return f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def redis_url() -> str:
    from django.conf import settings

    return os.environ.get("REDIS_URL") or str(settings.REDIS_URL)


@pytest.fixture(scope="module")
def base_env() -> dict[str, str]:
    """The process environment less anything that configures the app."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(INHERITED_PREFIXES)}
    env.pop("REDIS_URL", None)
    return env


def web_service() -> dict[str, Any]:
    """The web service in docker-compose.yml (its replicas are alike)."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    service: dict[str, Any] = compose["services"]["web"]
    return service


def channel_servers() -> str:
    """Two channel-layer addresses on this run's Redis, in CHANNEL_REDIS_URLS's place (settings
    only: pub/sub ignores the database number)."""
    first = urlsplit(redis_url())
    second = first._replace(path=f"/{int(first.path.lstrip('/') or 0) + 1}")
    return f"{urlunsplit(first)},{urlunsplit(second)}"


@pytest.fixture(scope="module")
def production_env(base_env: dict[str, str]) -> dict[str, str]:
    """What a web container gets: .env.example filled in, plus what compose sets, with this
    test run's PostgreSQL and Redis instead of the stack's."""
    values, _ = read_env_file()
    env = {**base_env, **values}
    compose_sets = web_service()["environment"].items()
    env.update({name: interpolate(str(value), values) for name, value in compose_sets})
    assert env["SYNDICATE_PRODUCTION"] == "1"
    env.update(
        DJANGO_SECRET_KEY=get_random_secret_key(),
        DATABASE_URL=database_url(),
        REDIS_URL=redis_url(),
        CHANNEL_REDIS_URLS=channel_servers(),
    )
    assert len(env["DJANGO_SECRET_KEY"]) == 50
    # The VAPID pair, generated the way .env.example says (production mode off for that step).
    keys = run([*MANAGE, "vapid_keys"], {**env, "SYNDICATE_PRODUCTION": "0"})
    assert keys.returncode == 0, keys.stderr
    pairs = dict(line.split("=", 1) for line in keys.stdout.split())
    assert set(pairs) == {"VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"}
    env.update(pairs)
    # The audit signing key, likewise.
    audit_key = run([*MANAGE, "audit_keys"], {**env, "SYNDICATE_PRODUCTION": "0"})
    assert audit_key.returncode == 0, audit_key.stderr
    name, value = audit_key.stdout.strip().split("=", 1)
    assert name == "AUDIT_SIGNING_KEY"
    env[name] = value
    return env


def without(env: dict[str, str], name: str) -> dict[str, str]:
    return {k: v for k, v in env.items() if k != name}


def test_check_deploy_reports_nothing(production_env: dict[str, str]) -> None:
    result = run([*MANAGE, "check", "--deploy", "--fail-level", "WARNING"], production_env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == NO_ISSUES
    assert result.stderr.strip() == ""


def test_production_security_settings(production_env: dict[str, str]) -> None:
    script = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({name: getattr(s, name) for name in ["
        "'DEBUG', 'SECURE_HSTS_SECONDS', 'SECURE_HSTS_INCLUDE_SUBDOMAINS', 'SECURE_SSL_REDIRECT',"
        "'SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SECURE_PROXY_SSL_HEADER', 'STORAGES',"
        "'MIDDLEWARE', 'ALLOWED_HOSTS', 'CSRF_TRUSTED_ORIGINS', 'CHANNEL_LAYERS',"
        "'CELERY_BROKER_URL', 'SITE_URL']}, default=str))"
    )
    env = {**production_env, "DJANGO_SETTINGS_MODULE": "syndicate.settings"}
    result = run([sys.executable, "-c", script], env)
    assert result.returncode == 0, result.stderr
    found: dict[str, Any] = json.loads(result.stdout)
    assert found["DEBUG"] is False
    assert found["SECURE_HSTS_SECONDS"] >= 365 * 24 * 3600
    assert found["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert found["SECURE_SSL_REDIRECT"] is True
    assert found["SESSION_COOKIE_SECURE"] is True and found["CSRF_COOKIE_SECURE"] is True
    # The header nginx sets (deploy/nginx.conf: X-Forwarded-Proto $scheme).
    assert found["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert found["STORAGES"]["staticfiles"]["BACKEND"] == (
        "whitenoise.storage.CompressedManifestStaticFilesStorage"
    )
    # whitenoise answers static files before sessions, CSRF and the views.
    middleware = found["MIDDLEWARE"]
    assert middleware[0] == "django.middleware.security.SecurityMiddleware"
    whitenoise = middleware.index("whitenoise.middleware.WhiteNoiseMiddleware")
    assert whitenoise < middleware.index("django.contrib.sessions.middleware.SessionMiddleware")
    assert found["ALLOWED_HOSTS"] == ["poker.example.com"]
    assert found["CSRF_TRUSTED_ORIGINS"] == ["https://poker.example.com"]
    assert found["SITE_URL"] == "https://poker.example.com"
    # One channel layer, over CHANNEL_REDIS_URLS's servers in their order, and one broker for
    # every daphne process, publisher and worker.
    layer = found["CHANNEL_LAYERS"]["default"]
    assert layer["BACKEND"] == "live.channel_layer.PubSubChannelLayer"
    addresses = [host["address"] for host in layer["CONFIG"]["hosts"]]
    assert addresses == production_env["CHANNEL_REDIS_URLS"].split(",")
    assert len(addresses) == 2
    assert found["CELERY_BROKER_URL"] == production_env["REDIS_URL"]


SETTING_SCRIPT = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps([h['address'] for h in s.CHANNEL_LAYERS['default']['CONFIG']['hosts']]"
    " + [s.LIVE_SHARDS]))"
)


def layer_and_shards(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run(
        [sys.executable, "-c", SETTING_SCRIPT],
        {**env, "DJANGO_SETTINGS_MODULE": "syndicate.settings"},
    )


def test_the_channel_layer_is_redis_url_alone_by_default(base_env: dict[str, str]) -> None:
    """`make run` and a one-server deployment: nothing new to set."""
    env = {**base_env, "DATABASE_URL": database_url(), "REDIS_URL": redis_url()}
    env.pop("CHANNEL_REDIS_URLS", None)
    env.pop("LIVE_SHARDS", None)
    result = layer_and_shards(env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [redis_url(), 1]


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("CHANNEL_REDIS_URLS", "channels1:6379", "each entry must be a redis://"),
        ("LIVE_SHARDS", "0", "LIVE_SHARDS is '0': a whole number, 1 or more."),
        ("LIVE_SHARDS", "three", "LIVE_SHARDS is 'three': a whole number, 1 or more."),
    ],
)
def test_a_bad_channel_server_or_shard_count_is_refused(
    name: str, value: str, message: str, production_env: dict[str, str]
) -> None:
    result = layer_and_shards({**production_env, name: value})
    assert result.returncode != 0
    assert message in result.stderr


POOL_SCRIPT = """
import json, threading, django
django.setup()
from django.db import close_old_connections, connection

def query():
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pids.append(cursor.fetchone()[0])
    close_old_connections()  # as at the end of each request: back to the pool

pids = []
for _ in range(5):  # rounds of requests, each in threads of their own as under daphne
    threads = [threading.Thread(target=query) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
pool = connection.pool
print(json.dumps({"queries": len(pids), "backends": len(set(pids)), "max": pool.max_size}))
"""


def test_web_processes_reuse_database_connections_from_a_pool(
    production_env: dict[str, str],
) -> None:
    """Each request runs in a thread of its own: the pool, not the thread, keeps connections."""
    env = {**production_env, "DJANGO_SETTINGS_MODULE": "syndicate.settings"}
    result = run([sys.executable, "-c", POOL_SCRIPT], env)
    assert result.returncode == 0, result.stderr
    found = json.loads(result.stdout)
    assert found["max"] == int(web_service()["environment"]["DATABASE_POOL_SIZE"]) == 12
    assert found["queries"] == 30
    assert found["backends"] <= 6  # 30 queries in 30 threads, at most 6 at a time


@pytest.mark.parametrize(
    "name", ["DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL"]
)
def test_production_refuses_to_start_without(name: str, production_env: dict[str, str]) -> None:
    """Production never falls back on the embedded servers of `make run`."""
    result = run([*MANAGE, "check"], without(production_env, name))
    assert result.returncode != 0
    assert f"Production mode needs {name} in the environment." in result.stderr


@pytest.mark.parametrize("production", ["0", "1"])
def test_a_database_other_than_postgresql_is_refused(
    production: str, production_env: dict[str, str]
) -> None:
    env = {
        **production_env,
        "SYNDICATE_PRODUCTION": production,
        "DATABASE_URL": "sqlite:///db.sqlite3",
    }
    result = run([*MANAGE, "check"], env)
    assert result.returncode != 0
    assert "DATABASE_URL must name a PostgreSQL database" in result.stderr
    assert not (ROOT / "db.sqlite3").exists()


@pytest.mark.parametrize("name", ["VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY"])
def test_check_fails_without_vapid_keys(name: str, production_env: dict[str, str]) -> None:
    result = run([*MANAGE, "check"], without(production_env, name))
    assert result.returncode != 0
    assert "push.E001" in result.stderr


# --- the web containers' health check against a real daphne ---------------------------------


def web_command() -> list[str]:
    """The web service's command in docker-compose.yml."""
    command = web_service()["command"]
    assert isinstance(command, list)
    return [str(part) for part in command]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def get(port: int, headers: dict[str, str], path: str = "/healthz") -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("Location") or ""
    finally:
        connection.close()


def wait_for_port(
    port: int, process: subprocess.Popen[bytes], log: Path, seconds: float = PATIENCE
) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"daphne exited with {process.returncode}:\n{log.read_text()}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    pytest.fail(f"daphne did not listen on {port} within {seconds} s")


def maintenance_database(url: str) -> str:
    """The same server's `postgres` database: /healthz only runs SELECT 1."""
    return urlunsplit(urlsplit(url)._replace(path="/postgres"))


def test_daphne_passes_the_container_health_check(
    production_env: dict[str, str], tmp_path: Path
) -> None:
    command = web_command()
    assert command[0] == "daphne"
    port = free_port()
    command = ["--bind=127.0.0.1" if part.startswith("--bind=") else part for part in command]
    command = [f"--port={port}" if part.startswith("--port=") else part for part in command]
    env = {
        **production_env,
        "DATABASE_URL": maintenance_database(production_env["DATABASE_URL"]),
        "LIVE_UPDATES": "off",
    }
    daphne = str(Path(sys.executable).with_name("daphne"))
    log = tmp_path / "daphne.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [daphne, *command[1:]], cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT
        )
    try:
        wait_for_port(port, process, log)
        probe = run(
            [sys.executable, str(ROOT / "deploy" / "healthcheck.py")],
            {**env, "HEALTHCHECK_PORT": str(port)},
        )
        assert probe.returncode == 0, probe.stdout + probe.stderr
        assert probe.stdout.startswith("200 ")
        # Why the probe names a Host: production answers the container's own address with 400.
        assert get(port, {"Host": "127.0.0.1"})[0] == 400
        assert get(port, {"Host": "poker.example.com", "X-Forwarded-Proto": "https"})[0] == 200
        # Plain HTTP (nginx always says https) is redirected.
        assert get(port, {"Host": "poker.example.com"}, "/") == (301, "https://poker.example.com/")
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def email_verification(env: dict[str, str]) -> str:
    """ACCOUNT_EMAIL_VERIFICATION as the settings compute it in `env`."""
    found = run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings; "
            "print(settings.ACCOUNT_EMAIL_VERIFICATION)",
        ],
        {**env, "DJANGO_SETTINGS_MODULE": "syndicate.settings"},
    )
    assert found.returncode == 0, found.stderr
    return found.stdout.strip()


def test_sign_up_asks_for_an_emailed_code_by_default(base_env: dict[str, str]) -> None:
    env = {**base_env, "DATABASE_URL": database_url(), "REDIS_URL": redis_url()}
    assert email_verification(env) == "mandatory"
    assert email_verification({**env, "SIGNUP_EMAIL_CODE": "0"}) == "none"


def test_production_always_asks_for_the_code(production_env: dict[str, str]) -> None:
    assert email_verification({**production_env, "SIGNUP_EMAIL_CODE": "0"}) == "mandatory"
