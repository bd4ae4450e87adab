"""Load benchmark: League events played over HTTP by hundreds of players while sockets watch.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/load.py --private-postgres

Everything runs on loopback and stops by itself (`--timeout`, 10 minutes by default):

- a scratch database (`bench_load`) on the PostgreSQL server of DATABASE_URL, or on a private
  server started for the run (`--private-postgres`: a throwaway cluster whose max_connections
  fits the load, see below), migrated with `manage.py migrate`, dropped at the end;
- a Redis database of its own on REDIS_URL's server (`--redis-db`, refused unless empty) and
  key prefixes of its own, deleted at the end;
- two daphne processes (`syndicate.asgi:application`, DATABASE_CONN_MAX_AGE=0 and a connection
  pool of `--pool` connections each, 12 as in docker-compose.yml; `--pool 0` opens a connection
  per request) and, as docker-compose.yml and `make run` run them, the live-updates publisher
  (`manage.py publish_live`, LIVE_UPDATES=process); `--live background` runs the live updates in
  a thread of each daphne process instead;
- `--events` League events of `--players` players each, seeded through the services in this
  process, plus one more player per event held back as the marker; players are signed in with
  database sessions (no password, no login form);
- the players, one coroutine each, split over both daphne processes: starting selection, then six
  results (random, fixed seed) and a card choice after each win, each request sent when the
  previous one is answered (30 s at most; with `--pace S`, after a random pause of S seconds on
  average, as players report when their game ends), each with its own Idempotency-Key; a 5xx, a
  timeout or a failed connection is sent again with the same key 2 s later (at most 3 tries), a
  4xx is not; a player whose write got no answer stops, and that write is replayed once, same
  key, after the load (the answer completes the player's hand for the card checks); players
  still playing 150 s before the hard timeout stop, and the report says so;
- `--watchers` board sockets split over the events and both processes, in a process of their own
  (`bench/load_watchers.py`), behaving like `static/js/live.js` (reload on a version gap);
- the references, measured at the same time: GET /healthz on each daphne process, and a bare
  one-row transaction on the scratch database, both every 100 ms;
- after the load, rounds of marker changes: in each round every event's marker player makes one
  change over HTTP at the same moment, and each socket's lag is the time from that answer to the
  first frame carrying the new version;
- the checks: every dealt position once and contiguous, every hand 7 cards and equal to what the
  answers told the player, every audit chain verifying, every socket at the database's version.

Each daphne request runs in a thread of its own, with a database connection from the pool (or,
with `--pool 0`, a connection of its own), and a request the client gave up on keeps running;
without a pool, PostgreSQL may need more connections than players: at least `events x players`
+ 60, and up to three times that once requests time out. The script refuses a server with fewer
connections than it needs (PostgreSQL's default is 100) unless `--allow-few-connections`;
`--private-postgres` starts one with room for every try (`events x players x 3` + 200).

Options: `--events/--players/--watchers` scale it down for a smoke run; `--sample` runs daphne
under `bench/load_sampler.py` (a stack sampler) and adds where its threads spend time;
`--keep-logs DIR` keeps the servers' logs; `--shards N` runs N publisher processes sharing the
events by shard, `--kill-shard-after S` kills one with SIGKILL mid-run, `--compare-events K` runs
again with K events at the same rate per event, `--rest-before S` measures the publishers at rest
first (docs/performance.md, "Publishers by shard"). Figures and findings: docs/performance.md,
"Load".
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import ctypes
import glob
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import psycopg
import redis
from psycopg import sql

if TYPE_CHECKING:
    from load_seed import Change, Checks, EventPlan, Player

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
APPLICATION = "syndicate.asgi:application"
GOAL_P95_MS = 200.0
GOAL_LAG_S = 1.0
REQUEST_TIMEOUT = 30.0
TRIES = 3
PROBE_EVERY = 0.1
PR_SET_PDEATHSIG = 1
SAMPLE_EVERY = 0.2
MARKER_PLAN = "wlwlwl"  # the marker players' games: 10 changes each, starting selection first
MARKER_WAIT = 5.0  # at most this long for every socket to see a marker change
SETTLE_WAIT = 120.0  # at most this long, after the load, for every socket to catch up
RETRY_AFTER = 2.0  # seconds before resending (a person tapping "Check again")
RESERVE = 150.0  # seconds of the hard timeout kept for the markers, the checks and cleaning up


# --- the services around the run -----------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def as_postgres(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextlib.contextmanager
def private_postgres(max_connections: int) -> Iterator[tuple[str, Path]]:
    """A throwaway PostgreSQL cluster on a free loopback port: (URL, data folder)."""
    folders = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[4]))
    if not folders:
        sys.exit(
            "--private-postgres needs PostgreSQL's server binaries (apt-get install postgresql)."
        )
    bindir = Path(folders[-1])
    folder = Path(tempfile.mkdtemp(prefix="bench-load-pg."))
    data = folder / "data"
    port = free_port()
    folder.chmod(0o755)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    started = False
    try:
        subprocess.run(
            as_postgres([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]),
            check=True,
            capture_output=True,
        )
        options = (
            f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 "
            f"-c max_connections={max_connections} "
            "-c shared_preload_libraries=pg_stat_statements"
        )
        subprocess.run(
            as_postgres(
                [
                    str(bindir / "pg_ctl"),
                    *("-D", str(data), "-l", str(folder / "server.log")),
                    *("-w", "-o", options, "start"),
                ]
            ),
            check=True,
            capture_output=True,
        )
        started = True
        yield f"postgres://postgres@127.0.0.1:{port}/postgres", data
    finally:
        if started:
            subprocess.run(
                as_postgres([str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]),
                capture_output=True,
            )
        shutil.rmtree(folder, ignore_errors=True)


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def create_scratch(server_url: str, name: str) -> None:
    with psycopg.connect(server_url, autocommit=True) as server:
        if server.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            sys.exit(
                f"Database {name!r} already exists (a run that was killed?). "
                "Drop it yourself or choose another name with --database."
            )
        server.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def drop_scratch(server_url: str, name: str) -> None:
    with psycopg.connect(server_url, autocommit=True) as server:
        server.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def redis_keys(client: redis.Redis, prefixes: list[str]) -> list[bytes]:
    found: list[bytes] = []
    for pattern in [f"{p}*" for p in prefixes] + ["celery", "_kombu*", "unacked*"]:
        found.extend(client.scan_iter(match=pattern, count=1000))
    return found


def postgres_server(
    stack: contextlib.ExitStack[Any], *, private: bool, max_connections: int
) -> tuple[str, Path | None]:
    """DATABASE_URL's PostgreSQL server, or a private one stopped with `stack`: (URL, data)."""
    if private:
        server_url, pg_data = stack.enter_context(private_postgres(max_connections))
        return server_url, pg_data
    server_url = os.environ.get("DATABASE_URL", "")
    if not server_url.startswith(("postgres://", "postgresql://")):
        sys.exit("This benchmark runs on PostgreSQL only: set DATABASE_URL=postgres://...")
    return server_url, None


def empty_redis(redis_db: int) -> tuple[str, redis.Redis]:
    """REDIS_URL's server with database `redis_db`, which must be empty: (URL, client)."""
    redis_url = urlunsplit(
        urlsplit(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")._replace(
            path=f"/{redis_db}"
        )
    )
    client = redis.Redis.from_url(redis_url)
    if client.dbsize():
        sys.exit(f"Redis database {redis_db} is not empty: choose another with --redis-db.")
    return redis_url, client


def forget_keys(client: redis.Redis, prefixes: list[str]) -> None:
    """Delete the run's keys (its prefixes, and Celery's)."""
    if keys := redis_keys(client, prefixes):
        client.delete(*keys)


def scratch_env(
    stack: contextlib.ExitStack[Any], server_url: str, database: str, *, redis_url: str, prefix: str
) -> dict[str, str]:
    """A scratch database on the server, dropped with `stack`, and the environment that uses it
    (with Redis keys under `prefix`)."""
    create_scratch(server_url, database)
    stack.callback(drop_scratch, server_url, database)
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "syndicate.settings",
        "DATABASE_URL": with_database(server_url, database),
        "REDIS_URL": redis_url,
        "CHANNELS_PREFIX": prefix,
        "CACHE_PREFIX": f"{prefix}-cache",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        # Hundreds of simulated players from one address, faster than people play.
        "API_THROTTLE_RATES": "address=off,account_read=off,account_write=off,house_write=off",
    }


def migrate(env: dict[str, str]) -> None:
    subprocess.run(
        [PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True
    )


def setup_django(env: dict[str, str]) -> None:
    """This process on the scratch database, for seeding and checking: no live updates (nobody
    listens to it)."""
    os.environ.update({**env, "LIVE_UPDATES": "off"})
    import django

    sys.path.insert(1, str(ROOT))  # the project, after bench/ (this script's folder)
    django.setup()


@dataclass
class Daphne:
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def die_with_parent() -> None:
    """In a child before exec: receive SIGTERM when this script dies, even by SIGKILL."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def start_daphne(env: dict[str, str], folder: Path, number: int, sample: bool) -> Daphne:
    port = free_port()
    log = folder / f"daphne{number}.log"
    server = ["-m", "daphne"]
    if sample:
        sampler = ROOT / "bench" / "load_sampler.py"
        server = [str(sampler), str(folder / f"sample{number}.json"), str(SAMPLE_EVERY)]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [PYTHON, *server, "-b", "127.0.0.1", "-p", str(port), APPLICATION],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )
    return Daphne(port, process, log)


def start_publisher(
    env: dict[str, str], folder: Path, nice: int, number: int = 1, shards: int = 1
) -> subprocess.Popen[bytes]:
    """A live-updates publisher (`manage.py publish_live`), as `make run` starts it (one of
    `shards` processes with `--shards`); returns once it marks itself alive (the servers hand
    their changes over from then)."""
    name = "publisher.log" if number == 1 else f"publisher{number}.log"
    with (folder / name).open("wb") as out:
        process = subprocess.Popen(
            [PYTHON, "manage.py", "publish_live", f"--nice={nice}", f"--shards={shards}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )
    client = redis.Redis.from_url(env["REDIS_URL"])
    deadline = time.monotonic() + 60
    try:
        alive = f"{env.get('CHANNELS_PREFIX', 'asgi')}:live:publishers:{shards}"
        mine = f"{process.pid}@".encode()
        while not any(bytes(m).startswith(mine) for m in list(client.zrange(alive, 0, -1))):
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError(f"the publisher did not start: see {folder / name}")
            time.sleep(0.1)
    finally:
        client.close()
    return process


def start_servers(
    stack: contextlib.ExitStack[Any],
    env: dict[str, str],
    folder: Path,
    *,
    count: int,
    pool: int,
    sample: bool = False,
    live: str = "process",
    publisher_nice: int = 0,
    shards: int = 1,
) -> tuple[list[Daphne], list[subprocess.Popen[bytes]]]:
    """`count` daphne processes on the scratch environment, each with a connection pool of `pool`
    (0: a connection per request), and the live-updates publishers (`live` "process": one
    process per shard, the events split into `shards`; with "background" each daphne process
    runs its own); stopped with `stack`."""
    daphne_env = {
        **env,
        "LIVE_UPDATES": live,
        "LIVE_SHARDS": str(shards),
        "DATABASE_CONN_MAX_AGE": "0",
        "DATABASE_POOL_SIZE": str(pool),
    }
    publishers = []
    if live == "process":
        for number in range(1, shards + 1):
            publisher = start_publisher(daphne_env, folder, publisher_nice, number, shards)
            stack.callback(stop_process, publisher)
            publishers.append(publisher)
    servers = [start_daphne(daphne_env, folder, n, sample) for n in range(1, count + 1)]
    for server in servers:
        stack.callback(stop_process, server.process)
    return servers, publishers


async def wait_healthy(servers: list[Daphne], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as session:
        for server in servers:
            while True:
                if server.process.poll() is not None:
                    raise RuntimeError(f"daphne on {server.port} exited: see {server.log}")
                with contextlib.suppress(aiohttp.ClientError, OSError):
                    async with session.get(f"{server.base}/healthz") as response:
                        if response.status == 200:
                            break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"daphne on {server.port} did not answer /healthz")
                await asyncio.sleep(0.2)


def stop_process(process: subprocess.Popen[bytes] | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


def server_errors(log: Path, most: int = 5) -> tuple[int, list[str]]:
    """Tracebacks and ERROR lines in a daphne log: their count and the first distinct ones."""
    text = log.read_text(errors="replace") if log.exists() else ""
    lines = [line for line in text.splitlines() if " ERROR " in line or "Error:" in line]
    distinct = list(dict.fromkeys(re.sub(r"\d+", "N", line)[:240] for line in lines))
    return text.count("Traceback"), distinct[:most]


# --- CPU accounting ------------------------------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as source:
        text = source.read()
    return text[text.rfind(")") + 2 :].split()  # field 3 (state) is index 0


def process_cpu(pid: int, *, children: bool = False) -> float:
    try:
        fields = _stat(pid)
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / TICK


def postgres_cpu(data: Path | None) -> float:
    """CPU seconds of a PostgreSQL server: the postmaster, its reaped and its live children.

    With no private data folder: every PostgreSQL server on the machine (others' work included).
    """
    if data is not None:
        roots = {int((data / "postmaster.pid").read_text().split()[0])}
    else:
        roots = set()
        for entry in Path("/proc").glob("[0-9]*"):
            with contextlib.suppress(OSError, IndexError):
                if (entry / "comm").read_text().strip() == "postgres":
                    parent = int(_stat(int(entry.name))[1])
                    if Path(f"/proc/{parent}/comm").read_text().strip() != "postgres":
                        roots.add(int(entry.name))
    total = sum(process_cpu(root, children=True) for root in roots)
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, IndexError):
            if int(_stat(int(entry.name))[1]) in roots:
                total += process_cpu(int(entry.name))
    return total


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot."""
    with open("/proc/stat") as source:
        values = [int(v) for v in source.readline().split()[1:]]
    idle = values[3] + values[4]
    return (sum(values[:8]) - idle) / TICK, sum(values[:8]) / TICK


def redis_cpu(client: redis.Redis) -> float:
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


@dataclass
class CpuSample:
    at: float
    parts: dict[str, float]
    busy: float
    total: float


def cpu_sample(
    servers: list[Daphne],
    watchers_pid: int | None,
    pg_data: Path | None,
    client: redis.Redis,
    publisher_pids: list[int] | None = None,
) -> CpuSample:
    parts = {f"daphne {n}": process_cpu(s.process.pid) for n, s in enumerate(servers, start=1)}
    pids = publisher_pids or []
    for number, pid in enumerate(pids, start=1):
        # A publisher killed by the run is a zombie until stopped: its CPU time stays readable.
        parts["publisher" if len(pids) == 1 else f"publisher {number}"] = process_cpu(pid)
    parts["watchers (client)"] = process_cpu(watchers_pid) if watchers_pid else 0.0
    parts["players (client)"] = process_cpu(os.getpid())
    parts["PostgreSQL" + ("" if pg_data else " (all servers)")] = postgres_cpu(pg_data)
    parts["Redis (whole server)"] = redis_cpu(client)
    busy, total = machine_busy()
    return CpuSample(time.monotonic(), parts, busy, total)


# --- the players ---------------------------------------------------------------------------------


@dataclass
class Sent:
    """One write as the player saw it: first send to the 2xx answer, retries included."""

    kind: str  # start, result, choice; marker-* for the markers
    label: str
    game: int | None
    began: float
    answered: float | None = None
    tries: int = 0


@dataclass
class Failure:
    kind: str
    label: str
    game: int | None
    status: int
    body: str
    attempt: int


@dataclass(frozen=True)
class Unanswered:
    """A write that never got a 2xx: replayed after the load with the same Idempotency-Key."""

    player: Player
    kind: str
    game: int | None
    path: str
    payload: str
    headers: dict[str, str]


@dataclass
class Traffic:
    sent: list[Sent] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    hands: dict[int, list[str]] = field(default_factory=dict)  # registration -> kept, as answered
    finished: set[int] = field(default_factory=set)  # registrations whose hand is complete
    unanswered: list[Unanswered] = field(default_factory=list)
    replays: Counter[str] = field(default_factory=Counter)  # status of each replay
    abandoned: int = 0
    stopped: int = 0


async def write(
    session: aiohttp.ClientSession,
    base: str,
    player: Player,
    traffic: Traffic,
    kind: str,
    path: str,
    body: dict[str, Any],
    game: int | None = None,
    began: float | None = None,
) -> tuple[dict[str, Any] | None, Sent]:
    """POST one change and wait for its answer; a 5xx or lost connection is retried, same key.

    `began`: when the write was due (an open-loop arrival), if it was sent later than that."""
    headers = {
        "Cookie": f"sessionid={player.sessionid}; csrftoken={player.csrftoken}",
        "X-CSRFToken": player.csrftoken,
        "Idempotency-Key": uuid.uuid4().hex,
        "Content-Type": "application/json",
    }
    payload = json.dumps(body)
    sent = Sent(kind, player.label, game, time.monotonic() if began is None else began)
    traffic.sent.append(sent)
    for attempt in range(1, TRIES + 1):
        sent.tries = attempt
        try:
            async with session.post(base + path, data=payload, headers=headers) as response:
                status, text = response.status, await response.text()
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            status, text = 0, f"{type(error).__name__}: {error}"
        if 200 <= status < 300:
            sent.answered = time.monotonic()
            answer: dict[str, Any] = json.loads(text)
            return answer, sent
        traffic.failures.append(Failure(kind, player.label, game, status, text[:400], attempt))
        if 400 <= status < 500:
            break  # a refusal: the same key would only replay it
        await asyncio.sleep(RETRY_AFTER)
    traffic.unanswered.append(Unanswered(player, kind, game, path, payload, headers))
    return None, sent


async def replay(
    session: aiohttp.ClientSession, base: str, lost: Unanswered, traffic: Traffic
) -> None:
    """Send an unanswered write again with its key: the stored answer (or the change, if it never
    ran) comes back, and the player's hand gets its card."""
    try:
        async with session.post(
            base + lost.path, data=lost.payload, headers=lost.headers
        ) as response:
            status, text = response.status, await response.text()
    except (aiohttp.ClientError, TimeoutError, OSError) as error:
        status, text = 0, type(error).__name__
    traffic.replays[f"{lost.kind} {status}"] += 1
    if not 200 <= status < 300:
        return
    answer = json.loads(text)
    hand = traffic.hands.setdefault(lost.player.registration_id, [])
    if lost.kind == "start":
        hand.extend(answer["kept"])
    elif lost.kind == "result" and "card" in answer:
        hand.append(answer["card"])
    elif lost.kind == "choice":
        hand.append(answer["kept"])


def steps(rng: random.Random, plan: str | None = None) -> list[tuple[str, int | None, Any]]:
    """A player's changes in order: (kind, game, choice), the choices drawn up front."""
    result: list[tuple[str, int | None, Any]] = [("start", None, [rng.randrange(3)])]
    for game in range(1, 7):
        outcome = (
            rng.choice(["win", "loss"]) if plan is None else ("win", "loss")[plan[game - 1] == "l"]
        )
        result.append(("result", game, outcome))
        if outcome == "win":
            result.append(("choice", game, rng.randrange(2)))
    return result


async def step(
    session: aiohttp.ClientSession,
    base: str,
    player: Player,
    traffic: Traffic,
    kind: str,
    game: int | None,
    choice: Any,
    prefix: str = "",
    began: float | None = None,
) -> Sent | None:
    """One change; keeps the player's hand as the answers tell it. None if it failed."""
    rid = player.registration_id
    hand = traffic.hands.setdefault(rid, [])
    if kind == "start":
        path, body = f"/api/registrations/{rid}/starting-selection/", {"slots": choice}
    elif kind == "result":
        path, body = f"/api/registrations/{rid}/results/", {"game": game, "outcome": choice}
    else:
        path, body = f"/api/registrations/{rid}/win-choice/", {"slot": choice}
    answer, sent = await write(
        session, base, player, traffic, prefix + kind, path, body, game, began
    )
    if answer is None:
        return None
    if kind == "start":
        hand.extend(answer["kept"])
    elif kind == "result" and "card" in answer:
        hand.append(answer["card"])
    elif kind == "choice":
        hand.append(answer["kept"])
    return sent


async def play(
    session: aiohttp.ClientSession,
    base: str,
    player: Player,
    traffic: Traffic,
    seed: int,
    deadline: float,
    pace: float = 0.0,
) -> None:
    """A player's whole hand; with a `pace`, each write waits a random pause first (exponential,
    `pace` seconds on average), as players at a venue report when their game ends."""
    rng = random.Random(f"{seed}-{player.label}")
    pauses = random.Random(f"{seed}-{player.label}-pace")
    for kind, game, choice in steps(rng):
        if pace:
            await asyncio.sleep(pauses.expovariate(1 / pace))
        if time.monotonic() > deadline:
            traffic.stopped += 1  # the run's time is up: leave the hand unfinished
            return
        if await step(session, base, player, traffic, kind, game, choice) is None:
            traffic.abandoned += 1
            return
    traffic.finished.add(player.registration_id)


@dataclass
class Writer:
    """A player in the open loop: the changes still to make, and whether one is on its way."""

    player: Player
    session: aiohttp.ClientSession
    base: str
    todo: list[tuple[str, int | None, Any]]
    done: int = 0
    gave_up: bool = False


@dataclass
class Arrivals:
    """The open loop's arrivals: how many came, and how many found no player ready to write."""

    due: int = 0
    nobody_ready: int = 0
    seconds: float = 0.0


async def open_loop(
    writers: list[Writer],
    traffic: Traffic,
    *,
    rate: float,
    seed: int,
    duration: float,
    deadline: float,
) -> Arrivals:
    """Writes arrive at `rate` a second in all (Poisson: exponential gaps, fixed seed), whatever
    the answers: each arrival is the next change of a random player who has one to make and is
    not waiting for an answer. A write's latency counts from its arrival, so queueing shows.
    Arrivals stop after `duration` seconds (0: when every player has made every change)."""
    gaps = random.Random(f"{seed}-arrivals")
    pick = random.Random(f"{seed}-pick")
    ready = [w for w in writers if w.todo]
    left = len(ready)  # players with changes still to make, ready or waiting for an answer
    arrivals = Arrivals()
    running: set[asyncio.Task[None]] = set()
    began = time.monotonic()
    due = began

    async def one(writer: Writer, at: float) -> None:
        nonlocal left
        kind, game, choice = writer.todo[writer.done]
        sent = await step(
            writer.session, writer.base, writer.player, traffic, kind, game, choice, began=at
        )
        if sent is None:
            traffic.abandoned += 1
            writer.gave_up = True
            left -= 1
            return
        writer.done += 1
        if writer.done == len(writer.todo):
            traffic.finished.add(writer.player.registration_id)
            left -= 1
        else:
            ready.append(writer)

    while left:
        due += gaps.expovariate(rate)
        if (duration and due - began > duration) or due > deadline:
            break
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        arrivals.due += 1
        if not ready:
            arrivals.nobody_ready += 1
            continue
        index = pick.randrange(len(ready))
        ready[index], ready[-1] = ready[-1], ready[index]
        task = asyncio.create_task(one(ready.pop(), due))
        running.add(task)
        task.add_done_callback(running.discard)
    arrivals.seconds = time.monotonic() - began
    await asyncio.gather(*running)
    traffic.stopped += sum(w.done < len(w.todo) and not w.gave_up for w in writers)
    return arrivals


# --- the references ------------------------------------------------------------------------------


@dataclass
class Probes:
    health: list[float] = field(default_factory=list)
    health_failures: list[str] = field(default_factory=list)
    bare: list[float] = field(default_factory=list)
    connections: list[int] = field(default_factory=list)


async def probe_health(
    session: aiohttp.ClientSession, base: str, probes: Probes, stop: asyncio.Event
) -> None:
    while not stop.is_set():
        began = time.monotonic()
        try:
            async with session.get(base + "/healthz") as response:
                await response.read()
                status = response.status
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            status = 0
            probes.health_failures.append(f"{type(error).__name__}: {error}"[:200])
        if status == 200:
            probes.health.append(time.monotonic() - began)
        elif status:
            probes.health_failures.append(f"HTTP {status}")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), PROBE_EVERY)


async def probe_database(url: str, database: str, probes: Probes, stop: asyncio.Event) -> None:
    """The bare transaction (BEGIN, one UPDATE by primary key, COMMIT), and the connection count."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as db:
        rounds = 0
        while not stop.is_set():
            began = time.monotonic()
            async with db.transaction():
                await db.execute(
                    "UPDATE bench_reference_row SET counter = counter + 1 WHERE id = 1"
                )
            probes.bare.append(time.monotonic() - began)
            rounds += 1
            if rounds % 5 == 0:
                cursor = await db.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [database]
                )
                row = await cursor.fetchone()
                probes.connections.append(int(row[0]) if row else 0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), PROBE_EVERY)


# --- the watchers' process -----------------------------------------------------------------------


class Watchers:
    """Talks to `bench/load_watchers.py` over its standard input and output."""

    def __init__(self, process: asyncio.subprocess.Process | None) -> None:
        self.process = process
        self.lock = asyncio.Lock()

    @classmethod
    async def start(cls, config: Path, log: Path, pages: int) -> Watchers:
        if not pages:
            return cls(None)  # no page open: nothing to start, every page "caught up"
        with log.open("wb") as err:
            process = await asyncio.create_subprocess_exec(
                PYTHON,
                str(ROOT / "bench" / "load_watchers.py"),
                str(config),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,
                preexec_fn=die_with_parent,
                limit=2**24,
            )
        return cls(process)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    async def read(self, timeout: float) -> dict[str, Any]:
        if self.process is None:
            return {"ready": True, "seconds": 0.0, "sockets": [], "done": True}
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        if not line:
            raise RuntimeError("the watchers' process ended early: see watchers.log")
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def command(self, line: str, timeout: float = 30.0) -> dict[str, Any]:
        if self.process is None:
            return await self.read(timeout)
        assert self.process.stdin is not None
        async with self.lock:
            self.process.stdin.write(line.encode() + b"\n")
            await self.process.stdin.drain()
            return await self.read(timeout)

    async def status(self) -> list[list[int]]:
        sockets: list[list[int]] = (await self.command("status"))["sockets"]
        return sockets

    async def caught_up(
        self, versions: dict[int, int], timeout: float, *, accepted: bool
    ) -> float | None:
        """Seconds until every socket has seen (or accepted) its event's version, or None."""
        began = time.monotonic()
        while time.monotonic() - began < timeout:
            behind = [
                s for s in await self.status() if (s[2] if accepted else s[1]) < versions[s[0]]
            ]
            if not behind:
                return time.monotonic() - began
            await asyncio.sleep(0.05)
        return None


async def current_versions(
    db: psycopg.AsyncConnection[Any], event_ids: list[int]
) -> dict[int, int]:
    cursor = await db.execute(
        "SELECT id, version FROM events_event WHERE id = ANY(%s)", [event_ids]
    )
    return {int(row[0]): int(row[1]) for row in await cursor.fetchall()}


# --- the run -------------------------------------------------------------------------------------


@dataclass
class Marker:
    round: int
    event_id: int
    version: int
    answered: float


@dataclass
class Outcome:
    traffic: Traffic
    probes: Probes
    load_seconds: float
    settle_seconds: float | None
    settle_accepted_seconds: float | None
    markers: list[Marker]
    final_seen: list[list[int]]
    final_accepted_seconds: float | None
    cpu: tuple[CpuSample, CpuSample]
    watchers_connect: float
    pg_statements: list[tuple[str, int, float, float]]
    frames: list[dict[str, Any]]
    arrivals: Arrivals | None = None
    killed: Killed | None = None
    publishers_resting: float | None = None  # CPU seconds a second, before the load


@dataclass
class Killed:
    """A publisher killed with SIGKILL during the load (`--kill-shard-after`)."""

    at: float  # time.monotonic()
    pid: int
    shards: list[int]  # the shards it held


async def kill_a_publisher(
    after: float,
    publishers: list[subprocess.Popen[bytes]],
    client: redis.Redis,
    prefix: str,
    shards: int,
    event_id: int,
) -> Killed | None:
    """`after` seconds from now, SIGKILL the holder of the shard of `event_id` (one of
    `shards`)."""
    from live.delivery import shard_of

    await asyncio.sleep(after)
    target = shard_of(event_id, shards)
    leases = [f"{prefix}:live:shard:{shards}:{n}:lease" for n in range(shards)]
    tokens = [client.get(key) for key in leases]
    holders = [t.split(b"@", 1)[0] if isinstance(t, bytes) else b"" for t in tokens]
    victim = next((p for p in publishers if str(p.pid).encode() == holders[target]), None)
    if victim is None:
        print(f"no publisher holds shard {target}: none killed", flush=True)
        return None
    os.kill(victim.pid, signal.SIGKILL)
    killed = Killed(
        time.monotonic(), victim.pid, [n for n, h in enumerate(holders) if h == holders[target]]
    )
    print(f"publisher {victim.pid} killed, holding shards {killed.shards}", flush=True)
    return killed


def pages_config(
    args: argparse.Namespace, plans: list[EventPlan], servers: list[Daphne]
) -> list[dict[str, Any]]:
    """The open pages: boards, every player's phone (the first `--phones` of each event) and
    House dashboards, spread over the events and the daphne processes."""
    pages: list[dict[str, Any]] = []
    events = len(plans)
    for n in range(args.watchers):
        server = servers[(n // events) % len(servers)]
        plan = plans[n % events]
        pages.append(
            {
                "kind": "board",
                "url": f"ws://127.0.0.1:{server.port}/ws/events/{plan.event_id}/board/",
                "origin": server.base,
                "event": plan.event_id,
            }
        )
    for plan in plans:
        for n, player in enumerate(plan.players[: args.phones]):
            server = servers[n % len(servers)]  # the server its player writes to
            pages.append(
                {
                    "kind": "phone",
                    "url": f"ws://127.0.0.1:{server.port}/ws/events/{plan.event_id}/player/",
                    "origin": server.base,
                    "event": plan.event_id,
                    "cookie": f"sessionid={player.sessionid}",
                }
            )
    for n in range(args.house):
        server = servers[(n // events) % len(servers)]
        plan = plans[n % events]
        pages.append(
            {
                "kind": "house",
                "url": f"ws://127.0.0.1:{server.port}/ws/events/{plan.event_id}/house/",
                "origin": server.base,
                "event": plan.event_id,
                "cookie": f"sessionid={plan.house_sessionid}",
            }
        )
    return pages


async def pg_statements(
    url: str, database: str, top: int = 1000
) -> list[tuple[str, int, float, float]]:
    """(query, calls, total ms, mean ms) from pg_stat_statements, the most costly first."""
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as db:
        cursor = await db.execute(
            "SELECT query, calls, total_exec_time, mean_exec_time FROM pg_stat_statements "
            "JOIN pg_database d ON d.oid = dbid WHERE d.datname = %s "
            "ORDER BY total_exec_time DESC LIMIT %s",
            [database, top],
        )
        return [(str(q), int(c), float(t), float(m)) for q, c, t, m in await cursor.fetchall()]


async def run(
    *,
    args: argparse.Namespace,
    plans: list[EventPlan],
    servers: list[Daphne],
    scratch_url: str,
    folder: Path,
    pg_data: Path | None,
    redis_client: redis.Redis,
    statements: bool,
    deadline: float,
    hard_end: float,
    publishers: list[subprocess.Popen[bytes]] | None = None,
    channels_prefix: str = "asgi",
) -> Outcome:
    event_ids = [plan.event_id for plan in plans]
    config = folder / "watchers.json"
    output = folder / "frames.json"
    sockets = pages_config(args, plans, servers)
    config.write_text(
        json.dumps(
            {
                "sockets": sockets,
                "connect_timeout": 300,
                "deadline": args.timeout,
                "output": str(output),
            }
        )
    )
    watchers = await Watchers.start(config, folder / "watchers.log", len(sockets))
    try:
        ready = await watchers.read(timeout=320)
        if not ready.get("ready"):
            raise RuntimeError(f"the pages did not all connect: {ready}")
        print(f"{len(sockets)} pages connected in {ready['seconds']:.1f} s", flush=True)

        traffic, probes, stop = Traffic(), Probes(), asyncio.Event()
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT)
        sessions = [
            aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0),
                cookie_jar=aiohttp.DummyCookieJar(),
                timeout=timeout,
            )
            for _ in servers
        ]
        async with contextlib.AsyncExitStack() as stack:
            for session in sessions:
                await stack.enter_async_context(session)
            db = await psycopg.AsyncConnection.connect(scratch_url, autocommit=True)
            stack.push_async_callback(db.close)
            if statements:
                await db.execute("SELECT pg_stat_statements_reset()")
            probe_tasks = [
                asyncio.create_task(probe_health(s, server.base, probes, stop))
                for s, server in zip(sessions, servers, strict=True)
            ]
            probe_tasks.append(
                asyncio.create_task(probe_database(scratch_url, args.database, probes, stop))
            )
            publisher_pids = [p.pid for p in publishers or []]
            resting = None
            if args.rest_before and publisher_pids:
                # The publishers' own cost with every page open and nothing changing.
                rested = time.monotonic()
                first = sum(process_cpu(pid) for pid in publisher_pids)
                await asyncio.sleep(args.rest_before)
                spent = sum(process_cpu(pid) for pid in publisher_pids) - first
                resting = spent / (time.monotonic() - rested)
            before = cpu_sample(servers, watchers.pid, pg_data, redis_client, publisher_pids)
            began = time.monotonic()
            arrivals = None
            killing = None
            if args.kill_shard_after and publishers:
                killing = asyncio.create_task(
                    kill_a_publisher(
                        args.kill_shard_after,
                        publishers,
                        redis_client,
                        channels_prefix,
                        args.shards,
                        event_ids[0],
                    )
                )
            if args.rate:
                writers = [
                    Writer(
                        player,
                        sessions[n % len(servers)],
                        servers[n % len(servers)].base,
                        steps(random.Random(f"{args.seed}-{player.label}")),
                    )
                    for plan in plans
                    for n, player in enumerate(plan.players)
                ]
                print(f"{len(writers)} players, writes arriving at {args.rate:g}/s ...", flush=True)
                arrivals = await open_loop(
                    writers,
                    traffic,
                    rate=args.rate,
                    seed=args.seed,
                    duration=args.duration,
                    deadline=deadline,
                )
            else:
                until = min(deadline, began + args.duration) if args.duration else deadline
                players = [
                    play(
                        sessions[n % len(servers)],
                        servers[n % len(servers)].base,
                        player,
                        traffic,
                        args.seed,
                        until,
                        args.pace,
                    )
                    for plan in plans
                    for n, player in enumerate(plan.players)
                ]
                print(f"{len(players)} players playing ...", flush=True)
                await asyncio.gather(*players)
            load_seconds = time.monotonic() - began
            after = cpu_sample(servers, watchers.pid, pg_data, redis_client, publisher_pids)
            killed = await killing if killing is not None else None
            stop.set()
            await asyncio.gather(*probe_tasks)
            found = await pg_statements(scratch_url, args.database) if statements else []
            print(f"load done in {load_seconds:.1f} s; waiting for the sockets", flush=True)
            for (kind, status), group in _grouped(traffic.failures).items():
                print(f"  errors: {kind} HTTP {status} x{len(group)}: {group[0].body[:200]}")

            versions = await current_versions(db, event_ids)
            settle = await watchers.caught_up(versions, wait(hard_end), accepted=False)
            settle_accepted = await watchers.caught_up(versions, wait(hard_end), accepted=True)
            if traffic.unanswered:
                print(f"replaying {len(traffic.unanswered)} unanswered writes", flush=True)
                await asyncio.gather(
                    *(
                        replay(
                            sessions[n % len(servers)],
                            servers[n % len(servers)].base,
                            lost,
                            traffic,
                        )
                        for n, lost in enumerate(traffic.unanswered)
                    )
                )
                versions = await current_versions(db, event_ids)
                await watchers.caught_up(versions, wait(hard_end), accepted=True)

            markers: list[Marker] = []
            todo = [steps(random.Random(args.seed), MARKER_PLAN) for _ in plans]
            for number in range(len(todo[0])):
                server = number % len(servers)
                made = await asyncio.gather(
                    *(
                        mark(
                            sessions[server],
                            servers[server].base,
                            plan,
                            todo[n][number],
                            traffic,
                            db,
                            number + 1,
                        )
                        for n, plan in enumerate(plans)
                    )
                )
                markers += [m for m in made if m is not None]
                now = await current_versions(db, event_ids)
                await watchers.caught_up(now, MARKER_WAIT, accepted=False)
                await asyncio.sleep(0.3)
            final = await current_versions(db, event_ids)
            await watchers.caught_up(final, wait(hard_end, after=30), accepted=False)
            accepted = await watchers.caught_up(final, wait(hard_end, after=30), accepted=True)
            final_seen = await watchers.status()
        await watchers.command("stop", timeout=120)
        if watchers.process is not None:
            await watchers.process.wait()
    finally:
        if watchers.process is not None and watchers.process.returncode is None:
            watchers.process.terminate()
            await watchers.process.wait()
    frames = json.loads(output.read_text()) if sockets else []
    return Outcome(
        traffic=traffic,
        probes=probes,
        load_seconds=load_seconds,
        settle_seconds=settle,
        settle_accepted_seconds=settle_accepted,
        markers=markers,
        final_seen=final_seen,
        final_accepted_seconds=accepted,
        cpu=(before, after),
        watchers_connect=float(ready["seconds"]),
        pg_statements=found,
        frames=frames,
        arrivals=arrivals,
        killed=killed,
        publishers_resting=resting,
    )


def wait(hard_end: float, after: float = 100.0) -> float:
    """How long a settling wait may last: SETTLE_WAIT, less if the hard timeout is near (the
    markers, the checks and the report need the last `after` seconds)."""
    return max(5.0, min(SETTLE_WAIT, (hard_end - after - time.monotonic()) / 2))


async def mark(
    session: aiohttp.ClientSession,
    base: str,
    plan: EventPlan,
    change: tuple[str, int | None, Any],
    traffic: Traffic,
    db: psycopg.AsyncConnection[Any],
    number: int,
) -> Marker | None:
    """One marker change over HTTP, and the event's version it made (the only writer now)."""
    kind, game, choice = change
    sent = await step(session, base, plan.marker, traffic, kind, game, choice, "marker-")
    if sent is None or sent.answered is None:
        return None
    version = (await current_versions(db, [plan.event_id]))[plan.event_id]
    return Marker(number, plan.event_id, version, sent.answered)


# --- the figures ---------------------------------------------------------------------------------

ACTIONS = {
    "start": "starting_selection_confirmed",
    "result": "result_submitted",
    "choice": "win_choice_confirmed",
}


def quantiles_ms(values: list[float]) -> tuple[float, float, float, float] | None:
    """p50, p95, p99 and max, in milliseconds."""
    if len(values) < 2:
        return None
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[49] * 1000, cuts[94] * 1000, cuts[98] * 1000, max(values) * 1000


def shown(values: list[float]) -> str:
    q = quantiles_ms(values)
    return "n/a" if q is None else f"{q[0]:.0f} / {q[1]:.0f} / {q[2]:.0f} / {q[3]:.0f}"


@dataclass
class Socket:
    """One page: the moments it showed a new version of its event, with the running highest."""

    event: int
    kind: str
    times: list[float]
    highest: list[int]

    def first_at_least(self, version: int) -> float | None:
        index = bisect.bisect_left(self.highest, version)
        return self.times[index] if index < len(self.highest) else None


KINDS = ("phone", "board", "house")


def bytes_per_change(frames: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Per kind of page, each page's bytes received over the changes of its event it showed."""
    found: dict[str, list[float]] = {}
    for record in frames:
        versions = [version for _at, version in record["shown"]]
        if len(versions) > 1 and max(versions) > min(versions):
            span = max(versions) - min(versions)
            found.setdefault(record["kind"], []).append(record["bytes"] / span)
    return found


def sockets_of(frames: list[dict[str, Any]]) -> list[Socket]:
    found = []
    for record in frames:
        times, highest, top = [], [], -1
        for arrived, version in record["shown"]:
            top = max(top, version)
            times.append(arrived)
            highest.append(top)
        found.append(Socket(record["event"], record["kind"], times, highest))
    return found


def lags(sockets: list[Socket], targets: list[tuple[int, int, float]]) -> tuple[list[float], int]:
    """For each (event, version, answered) and each page of that event: the time until the page
    showed that version or a later one.

    Returns the times and how many page-version pairs never showed.
    """
    by_event: dict[int, list[Socket]] = {}
    for s in sockets:
        by_event.setdefault(s.event, []).append(s)
    found, missing = [], 0
    for event_id, version, answered in targets:
        for s in by_event.get(event_id, []):
            arrived = s.first_at_least(version)
            if arrived is None:
                missing += 1
            else:
                found.append(arrived - answered)
    return found, missing


def load_targets(
    traffic: Traffic, changes: dict[int, list[Change] | None]
) -> tuple[list[tuple[int, int, float]], list[float], int]:
    """(event, version, answered) for every version made by a load request; the time between
    the starts of two such consecutive changes of one event (how long each held the event's
    lock, the queue never being empty); and how many events could not be matched at all."""
    answered = {
        (ACTIONS[s.kind], s.label, s.game): s.answered
        for s in traffic.sent
        if s.kind in ACTIONS and s.answered is not None
    }
    targets, gaps, unmatched = [], [], 0
    for event_id, groups in changes.items():
        if groups is None:
            unmatched += 1
            continue
        previous = None
        for version, (action, label, game, began) in enumerate(groups, start=1):
            when = answered.get((action, label, game))
            if when is None:
                previous = None
                continue
            targets.append((event_id, version, when))
            if previous is not None:
                gaps.append(began - previous)
            previous = began
    return targets, gaps, unmatched


def statement(query: str) -> str:
    """A short name for a SQL statement: its verb, its table, and a row lock if it takes one."""
    text = re.sub(r"\s+", " ", query).strip()
    verb = text.split(" ", 1)[0].upper()
    table = re.search(r'(?:FROM|INTO|UPDATE) "?(\w+)"?', text)
    name = (
        f"{verb} {table.group(1)}"
        if table and verb in {"SELECT", "INSERT", "UPDATE", "DELETE"}
        else text[:60]
    )
    if "COUNT(" in text.upper():
        name += " count"
    if "FOR NO KEY UPDATE" in text or "FOR UPDATE" in text:
        name += " FOR UPDATE (lock)"
    return name.replace("|", "\\|")


def cpu_table(outcome: Outcome) -> list[str]:
    before, after = outcome.cpu
    wall = after.at - before.at
    lines = ["| Process | CPU seconds during the load | Cores busy (average) |", "|---|---:|---:|"]
    for name, value in after.parts.items():
        spent = value - before.parts[name]
        lines.append(f"| {name} | {spent:.1f} | {spent / wall:.2f} |")
    busy = after.busy - before.busy
    total = after.total - before.total
    lines.append(
        f"| whole machine ({os.cpu_count()} cores) | {busy:.1f} | {busy / wall:.2f} "
        f"({100 * busy / total:.0f}% busy) |"
    )
    return lines


def publishers_by_shard(
    args: argparse.Namespace,
    outcome: Outcome,
    targets: list[tuple[int, int, float]],
    sockets: list[Socket],
    frames: list[dict[str, Any]],
    writes: int,
) -> list[str]:
    """The publishers' figures: CPU per change over every shard's process, phones' p95, and
    with `--kill-shard-after`, what the killed process's events saw."""
    from live.delivery import shard_of

    before, after = outcome.cpu
    spent = sum(
        value - before.parts[name]
        for name, value in after.parts.items()
        if name.startswith("publisher")
    )
    resting = outcome.publishers_resting
    net = spent - (resting or 0.0) * (after.at - before.at)
    phones = [s for s in sockets if s.kind == "phone"]
    phone_lags, phone_never = lags(phones, targets)
    cuts = quantiles_ms(phone_lags)
    lines = [
        f"Publishers ({args.shards} shards, one process each):",
        "",
        "| Measure | Value |",
        "|---|---:|",
        f"| publisher CPU per change, all processes (ms) | {spent * 1000 / max(writes, 1):.2f} |",
        *(
            [
                f"| publishers at rest, every page open, nothing changing (CPU ms/s) | "
                f"{resting * 1000:.2f} |",
                f"| publisher CPU per change, all processes, their rest taken off (ms) | "
                f"{net * 1000 / max(writes, 1):.2f} |",
            ]
            if resting is not None
            else []
        ),
        "| phones: write to shown p50 / p95 / p99 (ms) | "
        + (" / ".join(f"{c:.0f}" for c in cuts[:3]) if cuts else "n/a")
        + " |",
        f"| (page, change) pairs never shown, phones / all pages | {phone_never} / "
        f"{lags(sockets, targets)[1]} |",
        f"| frames of a version already had / versions shown twice | "
        f"{sum(r.get('repeated', 0) for r in frames)} / "
        f"{sum(r.get('shown_twice', 0) for r in frames)} |",
    ]
    killed = outcome.killed
    if killed is not None:
        hit = {e for e, _v, _a in targets if shard_of(e, args.shards) in killed.shards}
        after_kill = sorted(
            (answered, event, version)
            for event, version, answered in targets
            if event in hit and answered >= killed.at
        )
        by_event: dict[int, list[Socket]] = {}
        for s in sockets:
            by_event.setdefault(s.event, []).append(s)
        window = [
            (answered, event, version)
            for answered, event, version in after_kill
            if answered < killed.at + 10
        ]
        delays, never = [], 0
        first_back = None
        for answered, event, version in window:
            for s in by_event.get(event, []):
                at = s.first_at_least(version)
                if at is None:
                    never += 1
                    continue
                delays.append(at - answered)
                first_back = at if first_back is None else min(first_back, at)
        lines += [
            f"| killed: publisher {killed.pid} holding shards {killed.shards} "
            f"({len(hit)} events) | {killed.at - before.at:.1f} s into the load |",
            f"| killed shard's events: changes in the 10 s after the kill / pages' "
            f"(page, change) pairs never shown | {len(window)} / {never} |",
            "| killed shard's events: first change shown after the kill, s after the kill | "
            + ("n/a" if first_back is None else f"{first_back - killed.at:.2f}")
            + " |",
            "| killed shard's events: write to shown for those changes, p50 / max (s) | "
            + (f"{statistics.median(delays):.2f} / {max(delays):.2f}" if delays else "n/a")
            + " |",
        ]
    return lines


def report(
    args: argparse.Namespace,
    outcome: Outcome,
    checks: Checks,
    changes: dict[int, list[Change] | None],
    servers: list[Daphne],
) -> tuple[str, dict[str, Any]]:
    """The run's report, and its headline figures (for the comparison with no page open)."""
    traffic, probes = outcome.traffic, outcome.probes
    load = [s for s in traffic.sent if not s.kind.startswith("marker-")]
    done = [s for s in load if s.answered is not None]

    def latencies(kind: str) -> list[float]:
        return [s.answered - s.began for s in done if s.kind == kind and s.answered]

    results, choices, starts = latencies("result"), latencies("choice"), latencies("start")
    failures = [f for f in traffic.failures if not f.kind.startswith("marker-")]
    marker_failures = [f for f in traffic.failures if f.kind.startswith("marker-")]
    sockets = sockets_of(outcome.frames)
    frames = outcome.frames

    targets, gaps, unmatched = load_targets(traffic, changes)
    idle = [
        s.answered - s.began for s in traffic.sent if s.kind.startswith("marker-") and s.answered
    ]
    load_lags, load_missing = lags(sockets, targets)
    marker_lags: list[float] = []
    marker_missing = 0
    rounds_within = 0
    rounds = sorted({m.round for m in outcome.markers})
    per_round_max = []
    for number in rounds:
        found, missing = lags(
            sockets,
            [(m.event_id, m.version, m.answered) for m in outcome.markers if m.round == number],
        )
        marker_lags += found
        marker_missing += missing
        per_round_max.append(max(found) if found else float("inf"))
        if not missing and found and max(found) <= GOAL_LAG_S:
            rounds_within += 1
    within = sum(lag <= GOAL_LAG_S for lag in marker_lags)
    pairs = len(marker_lags) + marker_missing

    final_seen = sum(s[1] == checks.versions[s[0]] for s in outcome.final_seen)
    final_accepted = sum(s[2] == checks.versions[s[0]] for s in outcome.final_seen)
    received = sum(r["frames"] for r in frames)
    snapshots = sum(r["snapshots"] for r in frames)
    all_writes = [s.answered - s.began for s in done if s.answered]
    requests = sum(r["requests"] for r in frames)
    per_kind: dict[str, dict[str, Any]] = {}
    per_bytes = bytes_per_change(frames)
    for kind in KINDS:
        of_kind = [s for s in sockets if s.kind == kind]
        if not of_kind:
            continue
        shows, never = lags(of_kind, targets)
        per_kind[kind] = {
            "pages": len(of_kind),
            "show": shows,
            "never": never,
            "bytes": per_bytes.get(kind, []),
            "requests": sum(r["requests"] for r in frames if r["kind"] == kind),
        }
    lost = sum(1 for k, _n in traffic.replays.items() if not k.split()[-1].startswith("2"))
    server_tracebacks = [server_errors(s.log) for s in servers]

    settled = " / ".join(
        "not reached" if seconds is None else f"{seconds:.1f}"
        for seconds in (outcome.settle_seconds, outcome.settle_accepted_seconds)
    )
    p95_results = quantiles_ms(results)
    p95_choices = quantiles_ms(choices + starts)
    lines = [
        f"Machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, load average "
        f"{os.getloadavg()[0]:.1f} at the end; {args.events} events x {args.players} players "
        f"(+1 marker each), {args.watchers} boards, {args.phones} phones per event, "
        f"{args.house} House pages, {len(servers)} daphne processes, seed {args.seed}, "
        f"database pool {args.pool or 'off'}, "
        + (
            f"writes arriving at {args.rate:g}/s (Poisson, open loop)."
            if args.rate
            else f"a {args.pace:g} s pause on average before each write."
            if args.pace
            else "each player's next write as soon as the last is answered."
        ),
        "",
        "| Measure | Value |",
        "|---|---:|",
        f"| writes answered 2xx / sent | {len(done)} / {len(load)} |",
        f"| load wall time (s) | {outcome.load_seconds:.1f} |",
        f"| throughput (writes/s) | {len(done) / outcome.load_seconds:.1f} |",
        *(
            [
                f"| arrivals (open loop) / found no player ready | {outcome.arrivals.due} / "
                f"{outcome.arrivals.nobody_ready} |"
            ]
            if outcome.arrivals
            else []
        ),
        f"| every write, from its arrival, p50 / p95 / p99 / max (ms) | {shown(all_writes)} |",
        f"| time between two changes of one event, p50 / p95 / p99 / max (ms) | {shown(gaps)} |",
        f"| result submissions p50 / p95 / p99 / max (ms) | {shown(results)} |",
        f"| win card choices p50 / p95 / p99 / max (ms) | {shown(choices)} |",
        f"| starting selections p50 / p95 / p99 / max (ms) | {shown(starts)} |",
        f"| reference: GET /healthz, same client, same time (ms) | {shown(probes.health)} |",
        f"| reference: bare one-row transaction (ms) | {shown(probes.bare)} |",
        f"| marker writes, alone after the load (ms) | {shown(idle)} |",
        f"| errors (non-2xx or failed connection, tries included) | {len(failures)} |",
        f"| players who gave up after an error / stopped by the time limit | "
        f"{traffic.abandoned} / {traffic.stopped} |",
        f"| /healthz failures | {len(probes.health_failures)} |",
        f"| PostgreSQL connections to the scratch database, max seen | "
        f"{max(probes.connections, default=0)} |",
        f"| pages open (s to connect all) | {len(frames)} ({outcome.watchers_connect:.1f}) |",
        f"| websocket frames received (snapshots) | {received} ({snapshots}) |",
        f"| websocket data received (MB) | {sum(r['bytes'] for r in frames) / 1e6:.1f} |",
        f"| HTTP requests made by the pages / per write | {requests} / "
        f"{requests / max(len(done), 1):.3f} |",
        *(
            line
            for kind, figures in per_kind.items()
            for line in (
                f"| {kind} pages ({figures['pages']}): shows a change, from its answer, "
                f"p50 / p95 / p99 / max (ms) | {shown(figures['show'])} |",
                f"| {kind} pages: page-change pairs shown / never shown | "
                f"{len(figures['show'])} / {figures['never']} |",
                f"| {kind} pages: bytes per page per change of its event, mean / median | "
                + (
                    f"{statistics.mean(figures['bytes']):,.0f} / "
                    f"{statistics.median(figures['bytes']):,.0f} |"
                    if figures["bytes"]
                    else "n/a |"
                ),
            )
        ),
        f"| reloads asked after a version gap | {sum(r['reloads'] for r in frames)} |",
        f"| reconnects / stale or repeated updates | "
        f"{sum(max(r['connects'] - 1, 0) for r in frames)} / "
        f"{sum(r['stale_updates'] for r in frames)} |",
        f"| frames of a version the socket already had (not a reload's answer) / "
        f"versions shown twice | {sum(r.get('repeated', 0) for r in frames)} / "
        f"{sum(r.get('shown_twice', 0) for r in frames)} |",
        f"| lag during the load p50 / p95 / p99 / max (ms) | {shown(load_lags)} |",
        f"| lag during the load: socket-version pairs measured / never arrived | "
        f"{len(load_lags)} / {load_missing} |",
        f"| after the load, all sockets at the final version: received / accepted (s) "
        f"| {settled} |",
        f"| unanswered writes replayed with their key, answers | "
        f"{', '.join(f'{k} x{n}' for k, n in sorted(traffic.replays.items())) or 'none'} |",
        f"| marker lag p50 / p95 / p99 / max (ms) | {shown(marker_lags)} |",
        f"| marker socket deliveries within 1 s | {within} / {pairs} |",
        f"| marker rounds reaching every socket within 1 s | {rounds_within} / {len(rounds)} |",
        f"| final version: sockets whose last frame = Event.version | "
        f"{final_seen} / {len(outcome.final_seen)} |",
        f"| final version: sockets whose accepted version = Event.version | "
        f"{final_accepted} / {len(outcome.final_seen)} |",
        f"| stock cards dealt / positions dealt twice or skipped | {checks.stock_dealt} / "
        f"{sum('dealt' in p for p in checks.problems)} |",
        f"| hands equal to the answers / complete (7 cards, wild shown) | "
        f"{checks.hands_matching_answers} / {checks.hands_complete} of {checks.hands_checked} |",
        f"| audit chains verifying ({checks.audit_entries} entries) | {checks.audit_ok} / "
        f"{len(checks.versions)} |",
        f"| daphne tracebacks | {sum(t for t, _ in server_tracebacks)} |",
        f"| after the run, alone: one board snapshot / one change's snapshots (ms) | "
        f"{checks.snapshot_ms.get('board', 0):.0f} / {checks.snapshot_ms.get('change', 0):.0f} |",
    ]
    lines += ["", *cpu_table(outcome)]
    if outcome.pg_statements:
        every = sum(calls for _, calls, _, _ in outcome.pg_statements)
        lines += [
            "",
            f"PostgreSQL during the load: {every} statements, {every / max(len(done), 1):.1f} "
            "per write (websocket snapshots and reloads included); the costliest:",
            "",
            "| Statement | Calls | Per write | Total (s) | Mean (ms) |",
            "|---|---:|---:|---:|---:|",
        ]
        named: dict[str, list[float]] = {}
        for query, calls, total, _mean in outcome.pg_statements:
            sums = named.setdefault(statement(query), [0, 0.0])
            sums[0] += calls
            sums[1] += total
        for name, (count, spent) in sorted(named.items(), key=lambda i: -i[1][1])[:12]:
            lines.append(
                f"| {name} | {count:.0f} | {count / max(len(done), 1):.1f} "
                f"| {spent / 1000:.1f} | {spent / count:.2f} |"
            )
    if args.live == "process":
        lines += ["", *publishers_by_shard(args, outcome, targets, sockets, frames, len(done))]
    lines += ["", "Goals:"]
    lines.append(
        f"- no errors: {'met' if not failures and not marker_failures else 'NOT met'} "
        f"({len(failures)} during the load, {len(marker_failures)} for the markers)"
    )
    lines.append(
        f"- no lost or duplicated card: {'met' if not checks.problems else 'NOT met'} "
        f"({len(checks.problems)} problems)"
    )
    worst = max(p95_results[1] if p95_results else 0.0, p95_choices[1] if p95_choices else 0.0)
    lines.append(
        f"- p95 submission under {GOAL_P95_MS:.0f} ms: "
        f"{'met' if worst < GOAL_P95_MS else 'NOT met'} (worst p95 {worst:.0f} ms)"
    )
    lines.append(
        f"- a standings change on every socket within {GOAL_LAG_S:.0f} s: "
        f"{'met' if rounds and rounds_within == len(rounds) else 'NOT met'} "
        f"({rounds_within} of {len(rounds)} marker rounds; slowest socket per round "
        + ", ".join(f"{x:.2f}" for x in per_round_max)
        + " s)"
    )
    lines.append(
        f"- every socket's last version equals the database's: "
        f"{'met' if final_seen == len(outcome.final_seen) else 'NOT met'}"
    )
    if traffic.stopped and args.duration:
        lines.append(
            f"- note: no write started after {args.duration:g} s, as asked: {traffic.stopped} "
            "players had changes left to make (their hands are checked against their answers)"
        )
    elif traffic.stopped:
        lines.append(
            f"- note: the time limit cut the load short ({traffic.stopped} players stopped "
            "before their last game): the figures cover the part that ran"
        )
    if unmatched:
        lines.append(f"- note: {unmatched} events' versions could not be matched to requests")
    if failures or marker_failures:
        lines += ["", "Errors (first of each kind):"]
        for (kind, status), group in _grouped(failures + marker_failures).items():
            lines.append(f"- {kind} HTTP {status} x{len(group)}: {group[0].body[:300]}")
    if checks.problems:
        lines += ["", "Problems found in the database:", *(f"- {p}" for p in checks.problems[:20])]
    for number, (count, distinct) in enumerate(server_tracebacks, start=1):
        if count or distinct:
            lines += [
                "",
                f"daphne {number} log ({count} tracebacks):",
                *(f"    {d}" for d in distinct),
            ]
    closes = Counter(c for r in frames for c in r["closes"])
    if closes:
        lines += ["", "Socket closes: " + ", ".join(f"{c} x{n}" for c, n in closes.most_common(5))]
    before, after = outcome.cpu
    writes = max(len(done), 1)
    cpu = {
        name: (value - before.parts[name]) * 1000 / writes for name, value in after.parts.items()
    }
    summary: dict[str, Any] = {
        "writes": len(done),
        "sent": len(load),
        "seconds": outcome.load_seconds,
        "throughput": len(done) / outcome.load_seconds,
        "latency": quantiles_ms(all_writes),
        "cpu_ms_per_write": cpu,
        "machine_ms_per_write": (after.busy - before.busy) * 1000 / writes,
        "errors": len(failures) + len(marker_failures),
        "lost": lost,
        "nobody_ready": outcome.arrivals.nobody_ready if outcome.arrivals else None,
        "arrivals": outcome.arrivals.due if outcome.arrivals else None,
        "requests_per_write": requests / writes,
        "show": {k: quantiles_ms(f["show"]) for k, f in per_kind.items()},
        "never_shown": {k: f["never"] for k, f in per_kind.items()},
        "bytes": {
            k: statistics.mean(f["bytes"]) if f["bytes"] else None for k, f in per_kind.items()
        },
        "pages": {k: f["pages"] for k, f in per_kind.items()},
        "final_pages": f"{final_seen} / {len(outcome.final_seen)}",
        "problems": len(checks.problems),
        "hands": f"{checks.hands_matching_answers} / {checks.hands_checked}",
        "audit": f"{checks.audit_ok} / {len(checks.versions)}",
        "stock_dealt": checks.stock_dealt,
        "tracebacks": sum(t for t, _ in server_tracebacks),
        "load_average": os.getloadavg(),
        "publishers_resting_ms_per_s": (
            None if outcome.publishers_resting is None else outcome.publishers_resting * 1000
        ),
    }
    return "\n".join(lines), summary


def samples(files: list[Path], top: int = 12) -> str:
    """The stack samples of both daphne processes, added up (see bench/load_sampler.py)."""
    found = [json.loads(f.read_text()) for f in files if f.exists()]
    if not found:
        return "No stack samples were written."
    count = sum(f["samples"] for f in found)
    threads: dict[str, Counter[str]] = {}
    change: Counter[str] = Counter()
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    for f in found:
        for kind, states in f["threads"].items():
            threads.setdefault(kind, Counter()).update(states)
        change.update(f["change"])
        own.update(dict(f["self"]))
        inclusive.update(dict(f["inclusive"]))
    lines = [
        f"Stack samples of both daphne processes, every {SAMPLE_EVERY * 1000:.0f} ms "
        f"({count} rounds); threads in each state at an average moment:",
        "",
        "| Threads | Running Python | Waiting for PostgreSQL | Idle |",
        "|---|---:|---:|---:|",
    ]
    for kind, states in sorted(threads.items(), key=lambda i: -i[1]["running"]):
        lines.append(
            f"| {kind} | {states['running'] / count:.2f} | {states['database'] / count:.2f} "
            f"| {states['idle'] / count:.2f} |"
        )
    inside = sum(change.values())
    if inside:
        lines += ["", "Threads inside `events.runner.perform` (a change):", ""]
        lines += [f"- {name}: {n / count:.2f} threads on average" for name, n in change.items()]
    running = sum(own.values())
    lines += ["", "| Innermost frame (running samples) | Share |", "|---|---:|"]
    lines += [f"| `{name}` | {100 * n / running:.1f}% |" for name, n in own.most_common(top)]
    lines += ["", "| Project function on the stack (running samples) | Share |", "|---|---:|"]
    lines += [
        f"| `{name}` | {100 * n / running:.1f}% |" for name, n in inclusive.most_common(top * 2)
    ]
    return "\n".join(lines)


def _grouped(failures: list[Failure]) -> dict[tuple[str, int], list[Failure]]:
    groups: dict[tuple[str, int], list[Failure]] = {}
    for failure in failures:
        groups.setdefault((failure.kind, failure.status), []).append(failure)
    return groups


# --- main ----------------------------------------------------------------------------------------


class HardTimeout(BaseException):
    """The run's time is up: everything stops and is cleaned up."""


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=4)
    parser.add_argument("--players", type=int, default=128, help="per event (plus one marker)")
    parser.add_argument(
        "--watchers", "--boards", type=int, default=500, help="board pages in all", dest="watchers"
    )
    parser.add_argument(
        "--phones", type=int, default=0, help="player pages per event (the first players)"
    )
    parser.add_argument("--house", type=int, default=0, help="House dashboards in all")
    parser.add_argument("--daphne", type=int, default=2, help="daphne processes")
    parser.add_argument(
        "--live",
        choices=["process", "background"],
        default="process",
        help="LIVE_UPDATES: the publisher in its own process, or a thread in each daphne",
    )
    parser.add_argument(
        "--publisher-nice", type=int, default=0, help="the publisher's niceness (publish_live)"
    )
    parser.add_argument(
        "--shards",
        type=int,
        default=1,
        help="LIVE_SHARDS: the events split into N shards, one publisher process per shard",
    )
    parser.add_argument(
        "--kill-shard-after",
        type=float,
        default=0.0,
        metavar="S",
        help="SIGKILL the publisher holding the first event's shard S seconds into the load",
    )
    parser.add_argument(
        "--rest-before",
        type=float,
        default=0.0,
        metavar="S",
        help="measure the publishers' CPU for S seconds with every page open before the load",
    )
    parser.add_argument(
        "--compare-events",
        type=int,
        default=0,
        metavar="K",
        help="then the same run with K events, writes arriving at the same rate per event",
    )
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        metavar="WRITES",
        help="open loop: writes arriving per second in all (Poisson); 0: each player writes "
        "again as soon as answered (closed loop)",
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="writes start only this long (0: until every player is done); in the closed loop, "
        "the throughput at saturation over that time",
    )
    parser.add_argument(
        "--compare-no-pages",
        action="store_true",
        help="then the same writes again with no page open, on a fresh scratch database",
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--timeout", type=int, default=600, help="hard limit of one run, seconds")
    parser.add_argument(
        "--pace",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="closed loop: players pause this long on average before each write",
    )
    parser.add_argument(
        "--pool",
        type=int,
        default=12,
        help="database connections per daphne process (DATABASE_POOL_SIZE); 0: one per request",
    )
    parser.add_argument("--database", default="bench_load", help="scratch database to create")
    parser.add_argument("--redis-db", type=int, default=11, help="Redis database to use (empty)")
    parser.add_argument(
        "--private-postgres",
        action="store_true",
        help="run on a throwaway PostgreSQL with max_connections sized for the load",
    )
    parser.add_argument(
        "--sample",
        action="store_true",
        help="run daphne under bench/load_sampler.py and report where its threads spend time",
    )
    parser.add_argument("--keep-logs", metavar="DIR", help="copy the servers' logs there")
    parser.add_argument(
        "--allow-few-connections",
        action="store_true",
        help="run even if the server's max_connections is below the load's need",
    )
    return parser.parse_args()


def show_logs(folder: Path, lines: int = 25) -> None:
    """After a failure, the end of each server's log (the folder is removed afterwards)."""
    for log in sorted(folder.glob("*.log")):
        tail = log.read_text(errors="replace").splitlines()[-lines:]
        print(f"--- {log.name}", *tail, sep="\n", file=sys.stderr)


def keep_logs(folder: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    for log in [*folder.glob("*.log"), *folder.glob("sample*.json")]:
        shutil.copy(log, into / log.name)


def raise_timeout(signum: int, frame: object) -> None:
    raise HardTimeout()


def raise_exit(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def without_pages(args: argparse.Namespace) -> argparse.Namespace:
    """The same writes with no page open: the reference of `--compare-no-pages`."""
    return argparse.Namespace(**{**vars(args), "watchers": 0, "phones": 0, "house": 0})


def fewer_events(args: argparse.Namespace, events: int) -> argparse.Namespace:
    """The same run with `events` events, the writes arriving at the same rate per event, and
    the boards and House pages per event as many (`--compare-events`)."""
    scale = events / args.events
    return argparse.Namespace(
        **{
            **vars(args),
            "events": events,
            "rate": args.rate * scale,
            "watchers": max(events, round(args.watchers * scale)) if args.watchers else 0,
            "house": round(args.house * scale),
            "kill_shard_after": 0.0,
        }
    )


def one_run(
    args: argparse.Namespace,
    *,
    number: int,
    server_url: str,
    pg_data: Path | None,
    redis_url: str,
    redis_client: redis.Redis,
    folder: Path,
) -> tuple[str, dict[str, Any]]:
    """Scratch database, seed, servers, the load, the checks: one report and its figures."""
    started = time.monotonic()
    tag = uuid.uuid4().hex[:8]
    prefix = f"benchload-{tag}"
    with contextlib.ExitStack() as stack:
        stack.callback(forget_keys, redis_client, [prefix])
        env = scratch_env(stack, server_url, args.database, redis_url=redis_url, prefix=prefix)
        scratch_url = env["DATABASE_URL"]
        began = time.monotonic()
        migrate(env)
        with psycopg.connect(scratch_url, autocommit=True) as scratch:
            statements = bool(
                scratch.execute(
                    "SELECT 1 FROM pg_settings WHERE name = 'shared_preload_libraries' "
                    "AND setting LIKE '%%pg_stat_statements%%'"
                ).fetchone()
            )
            if statements:
                scratch.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        if number == 1:
            setup_django(env)
        import load_seed
        from django.db import connections

        connections.close_all()  # a fresh scratch database of the same name
        stack.callback(connections.close_all)
        load_seed.prepare_reference()
        plans = load_seed.seed(events=args.events, players=args.players, tag=tag)
        print(
            f"scratch database {args.database!r} migrated and seeded in "
            f"{time.monotonic() - began:.0f} s",
            flush=True,
        )
        connections.close_all()

        run_folder = folder / f"run{number}"
        run_folder.mkdir()
        servers, publishers = start_servers(
            stack,
            env,
            run_folder,
            count=args.daphne,
            pool=args.pool,
            sample=args.sample,
            live=args.live,
            publisher_nice=args.publisher_nice,
            shards=args.shards,
        )
        stack.push(lambda kind, error, trace: show_logs(run_folder) if kind else None)
        if args.keep_logs:
            stack.callback(keep_logs, run_folder, Path(args.keep_logs) / f"run{number}")
        asyncio.run(wait_healthy(servers))
        outcome = asyncio.run(
            run(
                args=args,
                plans=plans,
                servers=servers,
                scratch_url=scratch_url,
                folder=run_folder,
                pg_data=pg_data,
                redis_client=redis_client,
                statements=statements,
                deadline=started + args.timeout - RESERVE,
                hard_end=started + args.timeout,
                publishers=publishers,
                channels_prefix=env.get("CHANNELS_PREFIX", "asgi"),
            )
        )
        for server in servers:
            stop_process(server.process)
        for publisher in publishers:
            stop_process(publisher)
        changes = {plan.event_id: load_seed.changes_by_version(plan.event_id) for plan in plans}
        checks = load_seed.check(plans, outcome.traffic.hands, outcome.traffic.finished)
        checks.snapshot_ms = load_seed.snapshot_cost([plan.event_id for plan in plans])
        text, summary = report(args, outcome, checks, changes, servers)
        if args.sample:
            files = [run_folder / f"sample{n}.json" for n in range(1, args.daphne + 1)]
            text += "\n\n" + samples(files)
        return text, summary


def comparison(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """The headline figures side by side, with pages open against none."""
    names = [name for name, _ in runs]
    lines = [
        "| Measure | " + " | ".join(names) + " | ratio |",
        "|---|" + "---:|" * (len(names) + 1),
    ]
    first, last = runs[0][1], runs[-1][1]

    def row(label: str, values: list[float | None], fmt: str = "{:.1f}") -> None:
        shown = ["n/a" if v is None else fmt.format(v) for v in values]
        ratio = (
            f"{values[0] / values[-1]:.2f}x"
            if len(values) > 1 and values[0] is not None and values[-1]
            else ""
        )
        lines.append(f"| {label} | " + " | ".join(shown) + f" | {ratio} |")

    row("writes answered", [r["writes"] for _, r in runs], "{:.0f}")
    row("throughput (writes/s)", [r["throughput"] for _, r in runs])
    for name in first["cpu_ms_per_write"]:
        row(f"CPU per write, {name} (ms)", [r["cpu_ms_per_write"].get(name) for _, r in runs])
    daphne = [
        sum(v for k, v in r["cpu_ms_per_write"].items() if k.startswith("daphne")) for _, r in runs
    ]
    row("CPU per write, all daphne processes (ms)", list(daphne))
    publishers = [
        sum(v for k, v in r["cpu_ms_per_write"].items() if k.startswith("publisher"))
        for _, r in runs
    ]
    row("CPU per write, all publishers (ms)", publishers, "{:.2f}")
    if all(r.get("publishers_resting_ms_per_s") is not None for _, r in runs):
        row(
            "CPU per write, all publishers, their rest taken off (ms)",
            [
                p - r["publishers_resting_ms_per_s"] * r["seconds"] / max(r["writes"], 1)
                for p, (_, r) in zip(publishers, runs, strict=True)
            ],
            "{:.2f}",
        )
        row(
            "publishers at rest (CPU ms/s)",
            [r["publishers_resting_ms_per_s"] for _, r in runs],
            "{:.2f}",
        )
    servers = [
        sum(
            v
            for k, v in r["cpu_ms_per_write"].items()
            if k.startswith(("daphne", "publisher", "PostgreSQL", "Redis"))
        )
        for _, r in runs
    ]
    row("CPU per write, every server process (ms)", list(servers))
    row("CPU per write, whole machine (ms)", [r["machine_ms_per_write"] for _, r in runs])
    for index, cut in ((0, "p50"), (1, "p95"), (2, "p99")):
        row(
            f"write latency from arrival, {cut} (ms)",
            [r["latency"][index] if r["latency"] else None for _, r in runs],
            "{:.0f}",
        )
    for kind in KINDS:
        if kind in first["show"]:
            cuts = first["show"][kind] or (None, None, None)
            lines.append(
                f"| {kind} pages ({first['pages'][kind]}): shows a change within, "
                f"p50 / p95 / p99 (ms) | "
                + " / ".join("n/a" if c is None else f"{c:.0f}" for c in cuts[:3])
                + " |" * len(runs)
            )
            lines.append(
                f"| {kind} pages: bytes per page per change, mean | "
                f"{first['bytes'][kind] or 0:,.0f} |" + " |" * (len(runs) - 1)
            )
    row("errors", [r["errors"] for _, r in runs], "{:.0f}")
    row("writes never answered, after the replay", [r["lost"] for _, r in runs], "{:.0f}")
    row(
        "arrivals that found no player ready",
        [r["nobody_ready"] for _, r in runs],
        "{:.0f}",
    )
    row("HTTP requests by pages per write", [r["requests_per_write"] for _, r in runs], "{:.3f}")
    lines.append(
        "| load average at the end | "
        + " | ".join(f"{r['load_average'][0]:.1f}" for _, r in runs)
        + " | |"
    )
    del last
    return "\n".join(lines)


def main() -> None:
    args = arguments()
    runs = [("pages open" if not args.compare_events else f"{args.events} events", args)]
    if args.compare_no_pages:
        runs.append(("no page open", without_pages(args)))
    if args.compare_events:
        runs.append((f"{args.compare_events} events", fewer_events(args, args.compare_events)))
    signal.signal(signal.SIGALRM, raise_timeout)
    signal.signal(signal.SIGTERM, raise_exit)
    signal.alarm(args.timeout * len(runs))
    # The daphne processes, each with its pool (or a connection per request), the references.
    needed = args.daphne * args.pool + 40 if args.pool else args.events * args.players + 60
    with contextlib.ExitStack() as stack:
        # A private server has room for every try of every player (a timed-out request keeps
        # its connection).
        server_url, pg_data = postgres_server(
            stack,
            private=args.private_postgres,
            max_connections=args.events * args.players * TRIES + 200,
        )
        if urlsplit(server_url).path.lstrip("/") == args.database:
            sys.exit(f"DATABASE_URL names {args.database!r}: point it at another database.")
        with psycopg.connect(server_url, autocommit=True) as server:
            row = server.execute("SHOW max_connections").fetchone()
            limit = int(row[0]) if row else 0
        if limit < needed and not args.allow_few_connections:
            sys.exit(
                f"The server allows {limit} connections; this load may need about {needed}. "
                "Use --private-postgres, or "
                "--allow-few-connections to see what happens."
            )
        redis_url, redis_client = empty_redis(args.redis_db)
        # Whatever any run left under the benchmark's prefixes (this process's cache writes use
        # the first run's prefix) goes at the end: the database was empty at the start.
        stack.callback(forget_keys, redis_client, ["benchload-"])
        folder = Path(tempfile.mkdtemp(prefix="bench-load."))
        stack.callback(shutil.rmtree, folder, True)
        summaries = []
        for number, (name, run_args) in enumerate(runs, start=1):
            print(f"=== {name}", flush=True)
            text, summary = one_run(
                run_args,
                number=number,
                server_url=server_url,
                pg_data=pg_data,
                redis_url=redis_url,
                redis_client=redis_client,
                folder=folder,
            )
            print(f"\n## {name}\n\n{text}\n", flush=True)
            summaries.append((name, summary))
        signal.alarm(0)
        if len(summaries) > 1:
            print(comparison(summaries))
        print("\nFigures (JSON): " + json.dumps(dict(summaries), default=str))


if __name__ == "__main__":
    main()
