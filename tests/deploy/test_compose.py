"""The production stack: docker-compose.yml, deploy/nginx.conf, the image and .env.example.

No Docker engine is needed: the files are parsed and their structure checked, and
`docker compose config` runs when the `docker compose` command (or a standalone v2
`docker-compose`) is installed. docs/deploy.md explains the choices checked here.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy.envfile import interpolate, read_env_file

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
NGINX = ROOT / "deploy" / "nginx.conf"
ENV_EXAMPLE = ROOT / ".env.example"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
SETTINGS = ROOT / "syndicate" / "settings.py"

# Production refuses to start (settings) or to pass `check` (push.E001, audit.E001) without these.
REQUIRED_IN_ENV_FILE = {
    "POSTGRES_PASSWORD",
    "POSTGRES_APP_PASSWORD",
    "DJANGO_SECRET_KEY",
    "DJANGO_ALLOWED_HOSTS",
    "VAPID_PUBLIC_KEY",
    "VAPID_PRIVATE_KEY",
    "AUDIT_SIGNING_KEY",
}
# Not required to start, but a real deployment needs them set.
EXPECTED_IN_ENV_FILE = {
    "DJANGO_CSRF_TRUSTED_ORIGINS",
    "SITE_URL",
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "DEFAULT_FROM_EMAIL",
    "VAPID_SUBJECT",
    "LOG_LEVEL",
}
# docker-compose.yml sets these for every app service.
SET_BY_COMPOSE = {"SYNDICATE_PRODUCTION", "DATABASE_URL", "REDIS_URL", "CHANNEL_REDIS_URLS"}
# Read by the settings but never meant for production.
DEVELOPMENT_ONLY = {
    "DJANGO_DEBUG",
    "DEBUG",  # the short name, read outside production only (DJANGO_DEBUG is the one it reads)
    "SYNDICATE_VAR_DIR",
    "CELERY_TASK_ALWAYS_EAGER",
    "TEST_DATABASE_NAME",
    "SIGNUP_EMAIL_CODE",  # production always asks for the code
}


# --- docker-compose.yml ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(loaded, dict)
    return loaded


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = compose["services"]
    assert isinstance(found, dict)
    return found


def command_of(service: dict[str, Any]) -> list[str]:
    command = service.get("command") or []
    return command.split() if isinstance(command, str) else [str(part) for part in command]


def app_services(services: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The services that run the project's image (they are built from the Dockerfile)."""
    return {name: service for name, service in services.items() if "build" in service}


def web_services(services: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {name: s for name, s in services.items() if command_of(s)[:1] == ["daphne"]}


def replicas(service: dict[str, Any]) -> int:
    """How many containers `docker compose up` starts for the service, with .env.example."""
    values, _ = read_env_file()
    return int(interpolate(str(service.get("deploy", {}).get("replicas", 1)), values))


def channel_servers(services: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The Redis servers that CHANNEL_REDIS_URLS lists (the same for every app service)."""
    urls = {s["environment"]["CHANNEL_REDIS_URLS"] for s in app_services(services).values()}
    assert len(urls) == 1, urls
    names = [url.removeprefix("redis://").split(":")[0] for url in urls.pop().split(",")]
    assert len(set(names)) == len(names), names
    return {name: services[name] for name in names}


def healthcheck_test(service: dict[str, Any]) -> str:
    test = service.get("healthcheck", {}).get("test")
    assert test, "no health check"
    return " ".join(test) if isinstance(test, list) else str(test)


def test_at_least_two_daphne_processes(services: dict[str, dict[str, Any]]) -> None:
    webs = web_services(services)
    assert sum(replicas(service) for service in webs.values()) >= 2, f"daphne: {sorted(webs)}"
    for name, service in webs.items():
        command = command_of(service)
        assert command[-1] == "syndicate.asgi:application", name
        assert "--bind=0.0.0.0" in command and "--port=8000" in command, name
        # The client address comes from nginx's X-Forwarded-For (login rate limits per client).
        assert "--proxy-headers" in command, name
        # Only nginx is published: a daphne port reachable from outside would trust any
        # client's X-Forwarded-For and skip TLS.
        assert "ports" not in service, f"{name} publishes a port; only nginx may"
        # Django: no persistent database connections under ASGI; its pool reuses them.
        assert str(service["environment"]["DATABASE_CONN_MAX_AGE"]) == "0", name
        assert int(service["environment"]["DATABASE_POOL_SIZE"]) > 8, name  # HTTP_CONCURRENCY
        # nginx is the one proxy whose X-Forwarded-For counts (allauth's client address).
        assert str(service["environment"]["DJANGO_TRUSTED_PROXY_COUNT"]) == "1", name


def test_web_health_checks_use_the_healthz_probe(services: dict[str, dict[str, Any]]) -> None:
    for name, service in web_services(services).items():
        assert healthcheck_test(service) == "CMD python deploy/healthcheck.py", name
    assert (ROOT / "deploy" / "healthcheck.py").is_file()


def test_nginx_fronts_every_daphne_process(services: dict[str, dict[str, Any]]) -> None:
    nginx = services["nginx"]
    # 1.27.3 or newer: the upstream's `resolve` follows recreated containers.
    assert re.fullmatch(r"nginx:1\.(2[7-9]|[3-9]\d)(\.\d+)?-alpine", nginx["image"])
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf:ro" in nginx["volumes"]
    assert any(volume.endswith(":/etc/nginx/certs:ro") for volume in nginx["volumes"])
    published = {str(port).rsplit(":", 1)[-1] for port in nginx["ports"]}
    assert published == {"80", "443"}
    for name in web_services(services):
        assert nginx["depends_on"][name]["condition"] == "service_healthy", name
    assert "/nginx-health" in healthcheck_test(nginx)


def test_worker_and_a_single_beat(services: dict[str, dict[str, Any]]) -> None:
    workers = {n: s for n, s in services.items() if command_of(s)[2:3] == ["worker"]}
    beats = {n: s for n, s in services.items() if command_of(s)[2:3] == ["beat"]}
    assert workers, "no Celery worker service"
    assert len(beats) == 1, f"exactly one Celery beat, found {sorted(beats)}"
    for name, service in {**workers, **beats}.items():
        assert command_of(service)[:2] == ["celery", "--app=syndicate"], name
    for name, service in workers.items():
        check = healthcheck_test(service)
        assert "inspect ping" in check and "$$HOSTNAME" in check, name
    for name, service in workers.items():
        # Deliveries wait on push services: a thread pool runs many at once (docs/deploy.md).
        assert "--pool=threads" in command_of(service), name
    (beat,) = beats.values()
    schedule = [part for part in command_of(beat) if part.startswith("--schedule=")]
    assert schedule and schedule[0].startswith("--schedule=/tmp/"), "beat's schedule file"


def test_publishers_share_the_shards_and_web_processes_hand_them_their_changes(
    services: dict[str, dict[str, Any]],
) -> None:
    publishers = {
        n: s for n, s in services.items() if command_of(s)[1:3] == ["manage.py", "publish_live"]
    }
    assert len(publishers) == 1, f"one publisher service, found {sorted(publishers)}"
    (publisher,) = publishers.values()
    # Several processes: when one stops renewing its leases, the others take its shards over.
    assert replicas(publisher) >= 2
    assert publisher["environment"]["LIVE_UPDATES"] == "process"
    assert publisher["restart"] == "unless-stopped"
    # Every publisher and every web process agree on the number of shards: the command line's
    # and the LIVE_SHARDS they all get are one value.
    shards = [part for part in command_of(publisher) if part.startswith("--shards=")]
    assert shards == ["--shards=${LIVE_SHARDS:-12}"], command_of(publisher)
    for name, service in app_services(services).items():
        assert service["environment"]["LIVE_SHARDS"] == "${LIVE_SHARDS:-12}", name
    values, _ = read_env_file()
    assert int(interpolate(shards[0].split("=", 1)[1], values)) >= replicas(publisher)
    for name, service in web_services(services).items():
        assert service["environment"]["LIVE_UPDATES"] == "process", name


def test_workers_scale_out(services: dict[str, dict[str, Any]]) -> None:
    workers = {n: s for n, s in services.items() if command_of(s)[2:3] == ["worker"]}
    assert sum(replicas(service) for service in workers.values()) >= 2


def test_database_and_redis(compose: dict[str, Any], services: dict[str, dict[str, Any]]) -> None:
    db, redis = services["db"], services["redis"]
    assert str(db["image"]).startswith("postgres:16")
    assert "pg_isready" in healthcheck_test(db)
    assert str(redis["image"]).startswith("redis:7")
    assert command_of(redis)[-2:] == ["--appendonly", "yes"]
    assert "redis-cli ping" in healthcheck_test(redis)
    # Named volumes (not bind mounts), declared at the top level.
    assert "pgdata:/var/lib/postgresql/data" in db["volumes"]
    assert "redisdata:/data" in redis["volumes"]
    assert {"pgdata", "redisdata"} <= set(compose["volumes"])
    # Never published: only the app services reach them, on the stack's network.
    assert "ports" not in db and "ports" not in redis


def test_the_channel_layer_spreads_over_servers_of_its_own(
    services: dict[str, dict[str, Any]],
) -> None:
    servers = channel_servers(services)
    assert len(servers) >= 2, sorted(servers)
    # The broker, the cache and the live updates' list stay on the one `redis`.
    assert "redis" not in servers
    for name, server in servers.items():
        assert str(server["image"]).startswith("redis:7"), name
        # Pub/sub only: nothing to keep, so nothing written to disk.
        assert command_of(server) == ["redis-server", "--save", "", "--appendonly", "no"], name
        assert "volumes" not in server and "ports" not in server, name
        assert "redis-cli ping" in healthcheck_test(server), name


def test_every_app_service_runs_in_production_mode(services: dict[str, dict[str, Any]]) -> None:
    apps = app_services(services)
    assert {"migrate", "worker", "beat", *web_services(services)} <= set(apps)
    for name, service in apps.items():
        assert service["env_file"] == ".env", name
        environment = service["environment"]
        assert environment["SYNDICATE_PRODUCTION"] == "1", name
        assert "@db:5432/" in environment["DATABASE_URL"], name
        assert environment["REDIS_URL"].startswith("redis://redis:6379/"), name
        assert set(SET_BY_COMPOSE) <= set(environment), name
        assert environment["CHANNEL_REDIS_URLS"] == ",".join(
            f"redis://{server}:6379/0" for server in channel_servers(services)
        ), name


def test_only_the_migration_connects_as_the_owner(services: dict[str, dict[str, Any]]) -> None:
    """The app runs as a role that owns nothing; migrate runs as the owner, then grants."""
    owner, runtime = "postgres://syndicate:", "postgres://syndicate_app:"
    for name, service in app_services(services).items():
        url = service["environment"]["DATABASE_URL"]
        if name == "migrate":
            assert url.startswith(owner), name
        else:
            assert url.startswith(runtime) and "POSTGRES_APP_PASSWORD" in url, name
    command = " ".join(command_of(services["migrate"]))
    assert command.index("manage.py migrate") < command.index("manage.py grant_app_role")
    assert "grant_app_role syndicate_app" in command
    db = services["db"]
    assert "./deploy/postgres-init:/docker-entrypoint-initdb.d:ro" in db["volumes"]
    assert "POSTGRES_APP_PASSWORD" in db["environment"]
    init = (ROOT / "deploy" / "postgres-init" / "10-app-role.sh").read_text()
    assert "CREATE ROLE syndicate_app LOGIN NOSUPERUSER" in init
    assert "POSTGRES_APP_PASSWORD" in init


def test_restart_policies_and_startup_order(services: dict[str, dict[str, Any]]) -> None:
    for name, service in services.items():
        expected = "no" if name == "migrate" else "unless-stopped"
        assert service.get("restart") == expected, name
    migrate = services["migrate"]
    assert "manage.py migrate --noinput" in " ".join(command_of(migrate))
    assert "manage.py check --deploy" in " ".join(command_of(migrate))
    for name, service in app_services(services).items():
        if name == "migrate":
            continue
        depends = service["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully", name
        assert depends["db"]["condition"] == "service_healthy", name
        assert depends["redis"]["condition"] == "service_healthy", name
        for server in channel_servers(services):
            assert depends[server]["condition"] == "service_healthy", (name, server)


# --- deploy/nginx.conf ----------------------------------------------------------------------------


@dataclass
class Directive:
    name: str
    args: list[str]
    block: list[Directive] | None = None

    def all(self, name: str) -> list[Directive]:
        return [child for child in self.block or [] if child.name == name]

    def one(self, name: str, *args: str) -> Directive:
        found = [d for d in self.all(name) if list(args) == d.args[: len(args)]]
        assert len(found) == 1, f"{name} {' '.join(args)}: found {len(found)}"
        return found[0]

    def headers(self) -> dict[str, str]:
        return {d.args[0].lower(): " ".join(d.args[1:]) for d in self.all("proxy_set_header")}


TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|[{};]|[^\s{};"\']+')


def parse_nginx(text: str) -> Directive:
    """A small parser for nginx's syntax: directives, arguments and blocks (no includes)."""
    text = "\n".join(re.sub(r"(^|\s)#.*$", "", line) for line in text.splitlines())
    tokens = TOKEN.findall(text)
    position = 0

    def block() -> list[Directive]:
        nonlocal position
        found: list[Directive] = []
        words: list[str] = []
        while position < len(tokens):
            token = tokens[position]
            position += 1
            if token == ";":
                found.append(Directive(words[0], words[1:]))
                words = []
            elif token == "{":
                found.append(Directive(words[0], words[1:], block()))
                words = []
            elif token == "}":
                assert not words, f"unterminated directive {words}"
                return found
            else:
                words.append(token.strip("\"'") if token[0] in "\"'" else token)
        assert not words, f"unterminated directive {words}"
        return found

    root = Directive("main", [], block())
    assert position == len(tokens)
    return root


@pytest.fixture(scope="module")
def nginx() -> Directive:
    return parse_nginx(NGINX.read_text())


@pytest.fixture(scope="module")
def https_server(nginx: Directive) -> Directive:
    http = nginx.one("http")
    (server,) = [s for s in http.all("server") if s.all("listen")[0].args[:2] == ["443", "ssl"]]
    return server


def test_nginx_upstream_lists_every_daphne_service(
    nginx: Directive, services: dict[str, dict[str, Any]]
) -> None:
    http = nginx.one("http")
    upstream = http.one("upstream", "daphne")
    servers = {d.args[0] for d in upstream.all("server")}
    assert servers == {f"{name}:8000" for name in web_services(services)}
    for server in upstream.all("server"):
        assert "resolve" in server.args, server.args  # follows recreated containers
    assert upstream.all("zone") and upstream.all("keepalive")
    assert http.one("resolver").args[0] == "127.0.0.11"  # Docker's embedded DNS


def test_nginx_proxies_websocket_upgrades(nginx: Directive, https_server: Directive) -> None:
    http = nginx.one("http")
    mapping = http.one("map", "$http_upgrade", "$connection_upgrade")
    assert mapping.block is not None
    assert {(d.name, *d.args) for d in mapping.block} == {("default", "upgrade"), ("", "")}

    ws = https_server.one("location", "/ws/")
    assert ws.one("proxy_pass").args == ["http://daphne"]
    assert ws.one("proxy_http_version").args == ["1.1"]
    headers = ws.headers()
    assert headers["upgrade"] == "$http_upgrade"
    assert headers["connection"] == "$connection_upgrade"
    # Long-lived sockets: daphne pings idle ones every 20 s; nginx must not cut them first.
    assert seconds(ws.one("proxy_read_timeout").args[0]) >= 600
    assert seconds(ws.one("proxy_send_timeout").args[0]) >= 600


def test_nginx_forwards_scheme_client_and_host(https_server: Directive) -> None:
    for path in ("/ws/", "/"):
        location = https_server.one("location", path)
        assert location.one("proxy_pass").args == ["http://daphne"], path
        headers = location.headers()
        assert headers["host"] == "$host", path
        # SECURE_PROXY_SSL_HEADER reads X-Forwarded-Proto; daphne --proxy-headers reads
        # X-Forwarded-For, replaced (not appended to) so a client cannot choose its address.
        assert headers["x-forwarded-proto"] == "$scheme", path
        assert headers["x-forwarded-for"] == "$remote_addr", path
    assert https_server.one("location", "/").headers()["connection"] == ""


def test_nginx_terminates_tls_and_redirects_http(nginx: Directive, https_server: Directive) -> None:
    assert https_server.one("ssl_certificate").args == ["/etc/nginx/certs/fullchain.pem"]
    assert https_server.one("ssl_certificate_key").args == ["/etc/nginx/certs/privkey.pem"]
    assert set(https_server.one("ssl_protocols").args) <= {"TLSv1.2", "TLSv1.3"}
    http = nginx.one("http")
    (plain,) = [s for s in http.all("server") if s.all("listen")[0].args[0] == "80"]
    assert plain.one("location", "/").one("return").args == ["301", "https://$host$request_uri"]
    assert plain.one("location", "=", "/nginx-health").one("return").args[0] == "200"
    assert plain.one("location", "/.well-known/acme-challenge/").one("root").args == [
        "/var/www/acme"
    ]


def test_nginx_accepts_the_scoreholio_upload(https_server: Directive) -> None:
    from house.views import SCOREHOLIO_MAX_BYTES

    limit = https_server.one("client_max_body_size").args[0]
    assert size_in_bytes(limit) > SCOREHOLIO_MAX_BYTES  # the app's own message, not a bare 413
    assert size_in_bytes(limit) <= 10 * 1024 * 1024


def seconds(value: str) -> int:
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    match = re.fullmatch(r"(\d+)([smhd]?)", value)
    assert match, value
    return int(match.group(1)) * units.get(match.group(2) or "s", 1)


def size_in_bytes(value: str) -> int:
    match = re.fullmatch(r"(\d+)([kKmMgG]?)", value)
    assert match, value
    return (
        int(match.group(1)) * {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[match.group(2).lower()]
    )


def test_nginx_parser_reads_blocks_and_quotes() -> None:
    parsed = parse_nginx(
        'http { # note\n  map $a $b { default x; "" ""; }\n  return 200 "ok\\n"; }'
    )
    http = parsed.one("http")
    assert http.one("return").args == ["200", "ok\\n"]
    assert http.one("map").block == [Directive("default", ["x"]), Directive("", [""])]


# --- Dockerfile and .dockerignore -----------------------------------------------------------------


def test_dockerfile_builds_a_locked_non_root_image() -> None:
    dockerfile = DOCKERFILE.read_text()
    assert re.search(r"^FROM python:3\.13-slim\S*$", dockerfile, re.MULTILINE)
    assert "uv pip install --system --compile-bytecode --require-hashes -r requirements.lock" in (
        dockerfile
    )
    assert "manage.py collectstatic --noinput" in dockerfile
    users = re.findall(r"^USER (\S+)$", dockerfile, re.MULTILINE)
    assert users and users[-1] not in {"root", "0"}
    assert re.search(r"^EXPOSE 8000$", dockerfile, re.MULTILINE)


def test_dockerignore_keeps_secrets_out_and_the_health_probe_in() -> None:
    patterns = {
        line.strip()
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    # var/ holds the embedded servers' data and their password (syndicate/embedded.py).
    assert {".env", ".git", ".venv", "var", "**/*.pem", "**/*.key", "staticfiles"} <= patterns
    assert not any(p.startswith("deploy") and p != "deploy/certs" for p in patterns)


# --- .env.example ---------------------------------------------------------------------------------


def settings_variables() -> set[str]:
    """Every environment variable syndicate/settings.py reads (by name, in a call)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(SETTINGS.read_text())):
        if isinstance(node, ast.Call) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                callee = ast.unparse(node.func)
                if callee in {"os.environ.get", "os.getenv", "env_flag", "env_list"}:
                    names.add(first.value)
        elif (
            isinstance(node, ast.Subscript)
            and ast.unparse(node.value) == "os.environ"
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ):
            names.add(node.slice.value)
    return names


def test_env_example_has_every_production_variable() -> None:
    values, _ = read_env_file()
    missing = (REQUIRED_IN_ENV_FILE | EXPECTED_IN_ENV_FILE) - set(values)
    assert not missing, f".env.example lacks {sorted(missing)}"
    # What compose sets must not be overridden from the env file by accident.
    assert not SET_BY_COMPOSE & set(values)


def test_env_example_covers_every_setting(services: dict[str, dict[str, Any]]) -> None:
    values, optional = read_env_file()
    read = settings_variables()
    assert {"DJANGO_SECRET_KEY", "REDIS_URL", "LOG_LEVEL"} <= read  # the scan works
    by_compose = {name for s in services.values() for name in s.get("environment") or {}}
    undocumented = read - set(values) - optional - by_compose - DEVELOPMENT_ONLY
    assert not undocumented, (
        f"syndicate/settings.py reads {sorted(undocumented)}: add each to .env.example, "
        "with a comment (commented out when optional)"
    )


def test_env_example_holds_no_secret() -> None:
    values, _ = read_env_file()
    assert values["VAPID_PUBLIC_KEY"] == "" and values["VAPID_PRIVATE_KEY"] == ""
    assert values["AUDIT_SIGNING_KEY"] == ""
    for name in (
        "POSTGRES_PASSWORD",
        "POSTGRES_APP_PASSWORD",
        "DJANGO_SECRET_KEY",
        "EMAIL_HOST_PASSWORD",
    ):
        assert re.search(r"change|replace", values[name]), f"{name} looks like a real value"


def test_every_variable_is_explained() -> None:
    """Each variable line of .env.example follows a comment line."""
    lines = ENV_EXAMPLE.read_text().splitlines()
    for number, line in enumerate(lines):
        if re.fullmatch(r"[A-Z][A-Z0-9_]*=.*", line):
            previous = lines[number - 1] if number else ""
            assert previous.startswith("#") or re.fullmatch(r"[A-Z][A-Z0-9_]*=.*", previous), (
                f"line {number + 1}: {line.split('=')[0]} has no comment"
            )


# --- docker compose config --------------------------------------------------------------------


def compose_command() -> list[str] | None:
    """`docker compose` (the v2 plugin), else a standalone v2 `docker-compose`, else None."""
    candidates: list[list[str]] = []
    if shutil.which("docker"):
        candidates.append(["docker", "compose"])
    if shutil.which("docker-compose"):
        candidates.append(["docker-compose"])
    for candidate in candidates:
        try:
            version = subprocess.run(
                [*candidate, "version", "--short"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            continue
        if version.returncode == 0 and version.stdout.strip().lstrip("v").startswith("2"):
            return candidate
    return None


def test_docker_compose_config_validates(tmp_path: Path) -> None:
    command = compose_command()
    if command is None:
        pytest.skip(
            "no `docker compose` (nor a v2 `docker-compose`) on this machine; the "
            "structure checks above still ran. docs/deploy.md says how to install it."
        )
    # A copy of the stack with .env.example as its .env, the way an operator starts.
    shutil.copy(COMPOSE, tmp_path / "docker-compose.yml")
    shutil.copy(ENV_EXAMPLE, tmp_path / ".env")
    shutil.copytree(ROOT / "deploy", tmp_path / "deploy")
    run = [*command, "--project-directory", str(tmp_path), "-f", str(tmp_path / COMPOSE.name)]
    quiet = subprocess.run(
        [*run, "config", "-q"], capture_output=True, text=True, timeout=60, check=False
    )
    assert quiet.returncode == 0, quiet.stderr
    # The model compose itself builds (anchors merged, .env read): the same facts as above.
    resolved = subprocess.run(
        [*run, "config", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert resolved.returncode == 0, resolved.stderr
    model = json.loads(resolved.stdout)["services"]
    webs = web_services(model)
    assert sum(service["deploy"]["replicas"] for service in webs.values()) >= 2
    assert model["publisher"]["deploy"]["replicas"] >= 2
    assert "--shards=12" in model["publisher"]["command"]  # LIVE_SHARDS's default, filled in
    for name, service in app_services(model).items():
        environment = service["environment"]
        assert environment["SYNDICATE_PRODUCTION"] == "1", name
        assert environment["DJANGO_ALLOWED_HOSTS"] == "poker.example.com", name  # from .env
        role = "syndicate" if name == "migrate" else "syndicate_app"
        assert environment["DATABASE_URL"].startswith(f"postgres://{role}:"), name
    for name in webs:
        assert model[name]["environment"]["DATABASE_CONN_MAX_AGE"] == "0", name


def test_compose_without_a_postgres_password_is_refused(tmp_path: Path) -> None:
    command = compose_command()
    if command is None:
        pytest.skip("no `docker compose` here; see test_docker_compose_config_validates")
    shutil.copy(COMPOSE, tmp_path / "docker-compose.yml")
    lines = ENV_EXAMPLE.read_text().splitlines(keepends=True)
    (tmp_path / ".env").write_text(
        "".join(line for line in lines if not line.startswith("POSTGRES_PASSWORD="))
    )
    environment = {k: v for k, v in os.environ.items() if k != "POSTGRES_PASSWORD"}
    project = ["--project-directory", str(tmp_path), "-f", str(tmp_path / COMPOSE.name)]
    result = subprocess.run(
        [*command, *project, "config", "-q"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=environment,
    )
    assert result.returncode != 0
    assert "set POSTGRES_PASSWORD in .env" in result.stderr
