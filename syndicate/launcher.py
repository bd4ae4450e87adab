"""`make run`: the embedded servers, migrations, the demo, a Celery worker, the live-updates
publisher and daphne.

With DATABASE_URL / REDIS_URL unset it starts (or finds) the embedded PostgreSQL and Valkey under
`var/` and holds them; Ctrl-C (or SIGTERM) stops daphne, the worker and the publisher, then the
servers unless another `make run` on the same folder still holds them. Their data stays in `var/`.
HOST (default 127.0.0.1) and PORT (default 8000) choose where daphne listens. With HOST=0.0.0.0
(or another address than a loopback one) it prints the addresses phones on the network reach,
and gives the processes it starts SITE_URL, DJANGO_ALLOWED_HOSTS and DJANGO_CSRF_TRUSTED_ORIGINS
for them, each only when the environment leaves it unset.
"""

from __future__ import annotations

import ipaddress
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from syndicate import embedded

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


class Stop(Exception):
    """SIGTERM, handled like Ctrl-C."""


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Stop


# Listening on every address of the machine.
ANY_HOST = frozenset({"0.0.0.0", "::", ""})
LOCAL_HOSTS = ("127.0.0.1", "localhost")


def lan_addresses() -> list[str]:
    """Each IPv4 address of this machine's interfaces that are up, loopback and link-local
    (169.254.x.x, no network's address) left out, in the order the system lists them."""
    import psutil

    stats = psutil.net_if_stats()
    found: list[str] = []
    for name, addresses in psutil.net_if_addrs().items():
        if name in stats and not stats[name].isup:
            continue
        for address in addresses:
            if address.family != socket.AF_INET:
                continue
            ip = ipaddress.IPv4Address(address.address)
            if not (ip.is_loopback or ip.is_link_local) and address.address not in found:
                found.append(address.address)
    return found


def phone_addresses(host: str) -> list[str]:
    """Where phones on the network reach daphne listening on `host`: every LAN address when it
    listens on all of them, the host itself when it is not a loopback one, else nowhere."""
    if host in ANY_HOST:
        return lan_addresses()
    if host == "localhost" or _is_loopback(host):
        return []
    return [host]


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name


def venue_environment(
    environ: Mapping[str, str], *, port: int, addresses: list[str], browse_host: str
) -> dict[str, str]:
    """What the processes `make run` starts need so that pages load at `addresses` (and at
    `browse_host` on this machine): the public address, the allowed hosts and the trusted
    origins, each only when `environ` leaves it unset. The board's QR and emailed links use
    SITE_URL: the first LAN address, else this machine's."""
    added: dict[str, str] = {}
    if not environ.get("SITE_URL"):
        added["SITE_URL"] = _url(addresses[0] if addresses else browse_host, port)
    if addresses and not environ.get("DJANGO_ALLOWED_HOSTS"):
        hosts = dict.fromkeys([*LOCAL_HOSTS, browse_host, *addresses])
        added["DJANGO_ALLOWED_HOSTS"] = ",".join(hosts)
    if addresses and not environ.get("DJANGO_CSRF_TRUSTED_ORIGINS"):
        added["DJANGO_CSRF_TRUSTED_ORIGINS"] = ",".join(_url(a, port) for a in addresses)
    return added


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _answers(host: str, port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


@dataclass(frozen=True)
class Demo:
    """The demo's pages `make run` prints: its event, its series and the series' season."""

    event_id: int | None = None
    series_id: int | None = None
    season_id: int | None = None


def _prepare() -> Demo:
    """Migrate, seed the demo (it prints the accounts) and return its ids."""
    import django
    from django.core.management import call_command
    from django.db import connections

    django.setup()
    from events.management.commands import seed_demo
    from events.models import Event
    from seasons.management.commands.seed_demo_series import demo_series

    call_command("migrate", "--noinput", verbosity=1)
    call_command("seed_demo")
    call_command("seed_demo_series")
    event = Event.objects.filter(name=seed_demo.EVENT_NAME).order_by("pk").first()
    series, season = demo_series()
    connections.close_all()
    return Demo(
        event_id=event.pk if event else None,
        series_id=series.pk if series else None,
        season_id=season.pk if season else None,
    )


class Helper:
    """A process `make run` keeps running beside daphne, its output in a log under var/."""

    def __init__(self, name: str, argv: list[str], log: Path, env: Mapping[str, str]) -> None:
        self.name, self.argv, self.log, self.env = name, argv, log, dict(env)
        self.process: subprocess.Popen[bytes]

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.argv, stdout=log, stderr=subprocess.STDOUT, env=self.env
            )


# Both of the worker's queues, reminders first (settings.WORKER_QUEUES).
WORKER_QUEUES = "celery,announcements"


def worker_argv(var_dir: Path) -> list[str]:
    """The Celery worker, with beat, on both queues: reminders and the beat's tasks, then House's
    announcements by Poker push, which wait while a reminder is queued."""
    return [
        str(BIN / "celery"),
        "-A",
        "syndicate",
        "worker",
        "--beat",
        "--loglevel=INFO",
        "--concurrency=1",
        f"--queues={WORKER_QUEUES}",
        "--schedule",
        str(var_dir / "celerybeat-schedule"),
    ]


def keeper_argv(environ: Mapping[str, str]) -> list[str]:
    """The standby keeper (standby.keeper), when a standby folder or a second laptop is wanted."""
    argv = [sys.executable, str(ROOT / "manage.py"), "keep_standby"]
    if environ.get("STANDBY_DIR"):
        argv += ["--dir", environ["STANDBY_DIR"]]
    if environ.get("STANDBY_ALLOW"):
        argv.append("--laptop")
    return argv if len(argv) > 3 else []


class CopyWatch:
    """Prints each standby copy's state when it changes, as House's pages show it."""

    def __init__(self) -> None:
        self.shown: dict[str, str] = {}
        self.next_look = 0.0

    def print_changes(self) -> None:
        if time.monotonic() < self.next_look:
            return
        self.next_look = time.monotonic() + 1
        from standby import state

        try:
            copies = state.copies()
        except Exception:  # the cache is away for a moment: look again next second
            return
        for copy in copies:
            seen = f"{copy.where} {copy.state} {copy.reason}"  # its seconds aside
            if self.shown.get(copy.name) != seen:
                self.shown[copy.name] = seen
                print(state.describe(copy), flush=True)


def _stop(process: subprocess.Popen[bytes], name: str) -> None:
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        print(f"{name} did not stop within 15 s: killing it.", file=sys.stderr)
        process.kill()
        process.wait()


def main() -> int:
    os.chdir(ROOT)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "syndicate.settings")
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "8000"))
    browse_host = "127.0.0.1" if host in {"0.0.0.0", "::", ""} else host
    if _answers(browse_host, port):
        print(
            f"Port {port} is taken (another `make run`?): stop it, or choose another port, "
            "e.g. `PORT=8001 make run`.",
            file=sys.stderr,
        )
        return 1
    # Ctrl-C stops everything even when started from a script that ignores SIGINT (a background
    # job of a shell script): the children then get the default action back too.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _on_sigterm)
    addresses = phone_addresses(host)
    os.environ.update(
        venue_environment(os.environ, port=port, addresses=addresses, browse_host=browse_host)
    )
    var_dir = embedded.default_root()
    wants_database = not os.environ.get("DATABASE_URL")
    wants_redis = not os.environ.get("REDIS_URL")
    holding = wants_database or wants_redis
    children: list[tuple[subprocess.Popen[bytes], str]] = []
    standby_password = ""
    try:
        if holding:
            embedded.hold(var_dir, os.getpid())
            allowed = [
                a.strip() for a in os.environ.get("STANDBY_ALLOW", "").split(",") if a.strip()
            ]
            services = embedded.ensure(
                var_dir,
                database=wants_database,
                redis=wants_redis,
                listen="*" if allowed and wants_database else None,
            )
            if allowed and wants_database:
                standby_password = embedded.allow_standby(var_dir, allowed)
            elif wants_database:
                embedded.close_standby(var_dir)
            # The worker and daphne inherit the URLs: they need not look for the servers again.
            if wants_database:
                os.environ["DATABASE_URL"] = services.database_url
            if wants_redis:
                os.environ["REDIS_URL"] = services.redis_url
        if wants_database:
            embedded.commits_wait_for_no_copy(var_dir)
        demo = _prepare()
        # One web process, pooled like production's (docker-compose.yml): requests reuse their
        # database connections instead of authenticating a new one each time.
        web_env = {**os.environ}
        web_env.setdefault("DATABASE_POOL_SIZE", "12")
        if not os.environ.get("EMAIL_HOST"):
            # No mail leaves this laptop: sign-up codes would never arrive (syndicate/settings.py).
            web_env.setdefault("SIGNUP_EMAIL_CODE", "0")
        var_dir.mkdir(parents=True, exist_ok=True)
        # Live pages are served by a publisher of their own (live.delivery, "process"): daphne
        # only relays its frames. LIVE_UPDATES=background keeps them inside daphne instead. Niced
        # as in docker-compose.yml: on a laptop's two cores the players' requests come first
        # (docs/performance.md, "The publisher in a process of its own").
        web_env.setdefault("LIVE_UPDATES", "process")
        helpers = [
            Helper("The Celery worker", worker_argv(var_dir), var_dir / "celery.log", os.environ)
        ]
        keeper = keeper_argv(os.environ)
        if keeper:
            from standby import state

            state.clear()
            helpers.append(
                Helper("The standby keeper", keeper, var_dir / "standby.log", os.environ)
            )
        if web_env["LIVE_UPDATES"] == "process":
            publisher_argv = [sys.executable, str(ROOT / "manage.py"), "publish_live", "--nice=5"]
            helpers.append(
                Helper("The publisher", publisher_argv, var_dir / "publisher.log", web_env)
            )
        for helper in helpers:
            helper.start()
            children.append((helper.process, helper.name))
        web = subprocess.Popen(
            [str(BIN / "daphne"), "-b", host, "-p", str(port), "syndicate.asgi:application"],
            env=web_env,
        )
        children.append((web, "daphne"))
        while not _answers(browse_host, port):
            if web.poll() is not None:
                print("daphne exited before it served.", file=sys.stderr)
                return 1
            time.sleep(0.1)
        phones = addresses if host in ANY_HOST or addresses else None
        print_addresses(browse_host, port, demo.event_id, var_dir, holding, lan=phones, demo=demo)
        if standby_password:
            print_standby_command(var_dir, standby_password)
        copies = CopyWatch() if keeper else None
        while True:
            if copies is not None:
                copies.print_changes()
            if web.poll() is not None:
                print(f"daphne exited ({web.returncode}): stopping.", file=sys.stderr)
                return 1
            for helper in helpers:
                if helper.process.poll() is not None:
                    # As docker-compose.yml's restart policy does: the worker exits on a Redis
                    # restart while it holds a message (docs/reliability.md, D2).
                    print(f"{helper.name} exited ({helper.process.returncode}): starting it again.")
                    time.sleep(2)
                    children.remove((helper.process, helper.name))
                    helper.start()
                    children.append((helper.process, helper.name))
            time.sleep(0.5)
    except (KeyboardInterrupt, Stop):
        print("\nStopping ...", file=sys.stderr)
        return 0
    except embedded.EmbeddedError as error:
        print(error, file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not skip the cleanup
        for process, _ in children:  # all at once: they shut down side by side
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process, name in children:
            _stop(process, name)
        if holding:
            stopped = embedded.release(var_dir, os.getpid())
            if stopped:
                print(f"Stopped {' and '.join(stopped)}; the data stays in {var_dir}/.")
            else:
                print(f"Another `make run` still uses the servers in {var_dir}/.")


def print_standby_command(var_dir: Path, password: str) -> None:
    """What House types on the second laptop (README.md, "A second laptop")."""
    database_port = embedded.status(var_dir)["postgres"]
    hosts = lan_addresses() or ["<this laptop's address>"]
    print(
        "Second laptop (a fresh clone on the same network, from an address STANDBY_ALLOW "
        "allows):\n"
        f"  make standby PRIMARY={hosts[0]}:{database_port}\n"
        f"and type this password when it asks: {password}\n",
        flush=True,
    )


def print_addresses(
    host: str,
    port: int,
    event_id: int | None,
    var_dir: Path,
    embedded_servers: bool,
    *,
    lan: list[str] | None,
    demo: Demo | None = None,
) -> None:
    """The addresses to open; `lan`: where phones reach it (None: this laptop only); `demo`:
    the demo's series and season pages too."""
    local = _url(host, port)
    # The links go to the public address (what the board's QR shows), on this laptop too.
    base = os.environ.get("SITE_URL", local).rstrip("/")
    lines = ["", f"Serving on {base}/"]
    if event_id is not None:
        lines += [
            f"  Player page:     {base}/events/{event_id}/",
            f"  House dashboard: {base}/house/events/{event_id}/",
            f"  Board:           {base}/board/{event_id}/",
        ]
    if demo is not None and demo.series_id is not None:
        lines.append(f"  Series (House):  {base}/house/series/{demo.series_id}/")
    if demo is not None and demo.season_id is not None:
        lines += [
            f"  Season table:    {base}/seasons/{demo.season_id}/",
            f"  Season (House):  {base}/house/seasons/{demo.season_id}/",
        ]
    lines.append(f"  Events, sign-in: {base}/  (API: {base}/api/docs/)")
    if lan:
        lines.append("Phones on the same network open it at:")
        lines += [f"  {_url(address, port)}/" for address in lan]
        lines.append(
            f"This laptop also at {local}/. Over plain http phones get no push notifications "
            'and cannot install the app: see README.md, "Phones at a venue".'
        )
    elif lan is not None:
        lines.append(
            "No network address found: phones cannot reach this laptop until it joins a "
            "network (then start `make run` again)."
        )
    if not os.environ.get("EMAIL_HOST") and os.environ.get("SIGNUP_EMAIL_CODE", "0") == "0":
        lines.append("Sign-up without an emailed code: no EMAIL_HOST is set to send one.")
    status = embedded.status(var_dir) if embedded_servers else {}
    if status.get("postgres"):
        data = var_dir / "postgres"
        # Under root in a folder its account cannot enter, the data lives where it can.
        where = f"{data}/ (a link to {data.resolve()}/)" if data.is_symlink() else f"{data}/"
        lines.append(f"PostgreSQL on 127.0.0.1:{status['postgres']}, data in {where}")
    if status.get("valkey"):
        lines.append(f"Valkey on 127.0.0.1:{status['valkey']}, data in {var_dir / 'valkey'}/")
    lines += [
        f"Celery worker log: {var_dir / 'celery.log'}",
        f"Live-updates publisher log: {var_dir / 'publisher.log'}",
        "Ctrl-C stops everything; the data stays for the next `make run`.",
        "",
    ]
    print("\n".join(lines), flush=True)


if __name__ == "__main__":
    sys.exit(main())
