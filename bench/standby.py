"""The night survives its laptop (docs/reliability.md, docs/performance.md, "The standby copy").

Three measures in one run, each against `make run` in fresh clones of this checkout:

1. **The loss test.** Clone A runs `make run` with STANDBY_DIR; a started League event of
   `--players` players (seeded through the services, signed in with database sessions as
   bench/load.py does) is played over HTTP, writes arriving open loop at `--rate` a second (as
   players finish games, bench/load.py's `open_loop`), each with its Idempotency-Key. After
   `--writes` acknowledged writes, every process of A's night is killed with SIGKILL (make run,
   daphne, the worker, the publisher, the keeper and its receiver, PostgreSQL, Valkey) and
   A's `var/postgres` is deleted. Clone B runs `make restore FROM=<the folder>` then `make run`:
   every acknowledged write must be there (each result, each kept card in the order the
   answers gave them), the event's audit export must verify, and the seconds from
   `make restore` to B serving are timed.
2. **Write latency, standby on and off.** The same load on B: once with a standby folder (commits
   wait for it), once without, `--rounds` times, which goes first alternating; p50 and p95 of
   each, and their ratio.
3. **Pulling the folder mid-event.** On B with a standby folder, the folder is deleted a third of
   the way through the load: the seconds until writes flow again (the longest a write waited
   across the pull, and when the first write sent after the pull was answered), and until House's
   state (`standby.state` in B's cache) says lost.

    .venv/bin/python bench/standby.py [--players 64] [--rate 20] [--writes 300] [--rounds 2]
    .venv/bin/python bench/standby.py --latency-only --rounds 4     # measure 2 alone

Everything stays on loopback and under a temporary folder, removed at the end (`--keep`: kept).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pickle
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import aiohttp
import psutil
import psycopg
import redis

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(ROOT))

import load  # noqa: E402 - bench/ is on the path now

from syndicate import embedded  # noqa: E402


def say(line: str) -> None:
    print(line, flush=True)


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def clone(source: Path, into: Path) -> Path:
    subprocess.run(["git", "clone", "--quiet", str(source), str(into)], check=True)
    into.chmod(0o755)
    # The virtualenv is built once per clone by its first `make`; from the package cache.
    subprocess.run(["make", ".venv/bin/.installed"], cwd=into, check=True, capture_output=True)
    return into


def make_run(folder: Path, port: int, log: Path, **extra: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.pop("STANDBY_DIR", None)
    with log.open("ab") as out:
        process = subprocess.Popen(
            ["make", "run"],
            cwd=folder,
            env={**env, "PORT": str(port), **extra},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 600
    while not healthy(port):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"make run in {folder} did not serve; see {log}")
        time.sleep(0.1)
    return process


def stop(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=120)


def power_cut(process: subprocess.Popen[bytes], folder: Path) -> None:
    """SIGKILL to every process of the night: make run's group, and what runs from its clone
    (the servers run in sessions of their own; the receiver is the keeper's child)."""
    victims = []
    for candidate in psutil.process_iter(["pid", "cmdline", "cwd"]):
        try:
            text = " ".join(candidate.info["cmdline"] or []) + " " + (candidate.info["cwd"] or "")
        except psutil.Error:
            continue
        if str(folder) in text and candidate.pid != os.getpid():
            victims.append(candidate)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    for victim in victims:
        with contextlib.suppress(psutil.Error):
            victim.kill()
    psutil.wait_procs(victims, timeout=30)


def servers(folder: Path) -> embedded.Services:
    return embedded.ensure(folder / "var")


def waiting_for_copy(database_url: str) -> bool:
    with psycopg.connect(database_url) as connection:
        row = connection.execute("SHOW synchronous_standby_names").fetchone()
    return row is not None and row[0] != ""


def wait_for(check: Any, what: str, timeout: float = 300) -> float:
    began = time.monotonic()
    while not check():
        if time.monotonic() - began > timeout:
            raise SystemExit(f"Timed out waiting for {what}.")
        time.sleep(0.05)
    return time.monotonic() - began


def seed(folder: Path, players: int, tag: str) -> dict[str, Any]:
    """A started League event in that clone's database, through the services (a process of its
    own: Django is set up once per process)."""
    services = servers(folder)
    out = subprocess.run(
        [sys.executable, str(BENCH / "standby.py"), "--seed-only", str(players), tag],
        env={**os.environ, "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    plan: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return plan


def seed_only(players: int, tag: str) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "syndicate.settings"
    import django

    django.setup()
    from load_seed import seed as seed_events

    plan = seed_events(events=1, players=players, tag=tag)[0]
    print(
        json.dumps(
            {
                "event_id": plan.event_id,
                "players": [asdict(p) for p in [*plan.players, plan.marker]],
            }
        )
    )


@dataclass(frozen=True)
class Player:
    """A signed-in player as bench/load.py's writes need them (load_seed.Player, without Django)."""

    event_id: int
    registration_id: int
    label: str
    sessionid: str
    csrftoken: str


class Acknowledged:
    """What the answers told the players: each write's latency, the results and hands."""

    def __init__(self) -> None:
        self.latencies: list[tuple[float, float]] = []  # (sent, answered)
        self.results: set[tuple[int, int]] = set()
        self.traffic = load.Traffic()


async def play(
    port: int,
    plan: dict[str, Any],
    rate: float,
    writes: int,
    seed_value: int,
    during: Any = None,
) -> Acknowledged:
    """Open-loop writes from the event's players until `writes` were answered (or all made)."""
    acknowledged = Acknowledged()
    base = f"http://127.0.0.1:{port}"
    players = [Player(**p) for p in plan["players"]]
    async with aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0),
        timeout=aiohttp.ClientTimeout(total=load.REQUEST_TIMEOUT),
    ) as session:
        writers = [
            load.Writer(
                p,
                session,
                base,  # type: ignore[arg-type]
                load.steps(random.Random(f"{seed_value}-{p.label}")),
            )
            for p in players
        ]
        traffic = acknowledged.traffic
        stop_at = time.monotonic() + 600
        loop = asyncio.create_task(
            load.open_loop(
                writers, traffic, rate=rate, seed=seed_value, duration=0, deadline=stop_at
            )
        )
        pulled = False
        while not loop.done():
            answered = sum(1 for s in traffic.sent if s.answered)
            if during is not None and not pulled and answered >= writes // 3:
                pulled = True
                during()
            if answered >= writes:
                loop.cancel()
                break
            await asyncio.sleep(0.01)
        with contextlib.suppress(asyncio.CancelledError):
            await loop
    for sent in traffic.sent:
        if sent.answered:
            acknowledged.latencies.append((sent.began, sent.answered))
            if sent.kind == "result" and sent.game is not None:
                rid = next(p.registration_id for p in players if p.label == sent.label)
                acknowledged.results.add((rid, sent.game))
    return acknowledged


def check_restored(database_url: str, acknowledged: Acknowledged) -> tuple[int, int]:
    """(acknowledged writes checked, lost): each result row, each hand as the answers told it."""
    lost = 0
    with psycopg.connect(database_url) as connection:
        found_results = set(
            connection.execute("SELECT registration_id, game FROM events_gameresult").fetchall()
        )
        kept: dict[int, list[str]] = {}
        for rid, card in connection.execute(
            "SELECT registration_id, card FROM cards_dealtcard WHERE state = 'kept'"
            " ORDER BY registration_id, kept_index"
        ):
            kept.setdefault(rid, []).append(card)
    lost += len(acknowledged.results - found_results)
    for rid, told in acknowledged.traffic.hands.items():
        if kept.get(rid, [])[: len(told)] != told:
            lost += 1
    checked = len(acknowledged.latencies)
    return checked, lost


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def latencies_ms(acknowledged: Acknowledged) -> list[float]:
    return [(answered - sent) * 1000 for sent, answered in acknowledged.latencies]


def house_sees_lost(redis_url: str) -> bool:
    client = redis.Redis.from_url(redis_url)
    raw = client.get("syndicate:1:standby:copies")
    if raw is None:
        return False
    stored = pickle.loads(raw)
    return any(json.loads(value)["state"] == "lost" for value in stored.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rate", type=float, default=20.0, help="writes a second, open loop")
    parser.add_argument("--writes", type=int, default=300, help="acknowledged before the cut")
    parser.add_argument("--rounds", type=int, default=2, help="latency rounds, on and off")
    parser.add_argument("--keep", action="store_true")
    parser.add_argument(
        "--latency-only", action="store_true", help="only measure 2 (on a fresh clone's demo)"
    )
    parser.add_argument("--seed-only", nargs=2, metavar=("PLAYERS", "TAG"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seed_only:
        seed_only(int(args.seed_only[0]), args.seed_only[1])
        return
    work = Path(tempfile.mkdtemp(prefix="syndicate-standby-bench-"))
    work.chmod(0o755)
    a, b, stick = work / "a", work / "b", work / "stick"
    stick.mkdir()
    runs: list[subprocess.Popen[bytes]] = []
    try:
        say("Cloning A and B ...")
        if not args.latency_only:
            clone(ROOT, a)
        clone(ROOT, b)

        if not args.latency_only:
            # 1. The loss test.
            night = make_run(a, 8301, work / "a.log", STANDBY_DIR=str(stick))
            runs.append(night)
            wait_for(lambda: waiting_for_copy(servers(a).database_url), "the copy to be in step")
            plan = seed(a, args.players, "loss")
            acknowledged = asyncio.run(play(8301, plan, args.rate, args.writes, 1))
            say(
                f"A: {len(acknowledged.latencies)} writes acknowledged; kill -9 of the whole night."
            )
            power_cut(night, a)
            shutil.rmtree(a / "var" / "postgres")
            began = time.monotonic()
            restored = subprocess.run(
                ["make", "restore", f"FROM={stick}"], cwd=b, capture_output=True, text=True
            )
            if restored.returncode != 0:
                raise SystemExit(f"make restore failed:\n{restored.stdout}{restored.stderr}")
            restore_seconds = time.monotonic() - began
            serving = make_run(b, 8302, work / "b.log")
            runs.append(serving)
            to_serving = time.monotonic() - began
            checked, lost = check_restored(servers(b).database_url, acknowledged)
            audit = work / "audit.json"
            exported = subprocess.run(
                [".venv/bin/python", "manage.py", "export_audit", str(plan["event_id"])],
                cwd=b,
                capture_output=True,
                text=True,
                check=True,
            )
            audit.write_text(exported.stdout)
            verified = subprocess.run(
                [".venv/bin/python", "manage.py", "verify_audit", str(audit)],
                cwd=b,
                capture_output=True,
                text=True,
            )
            say(restored.stdout.strip())
            say(
                f"LOSS: {checked} acknowledged writes checked, {lost} lost; audit "
                f"{'verifies' if verified.returncode == 0 else 'FAILS: ' + verified.stderr}; "
                f"make restore {restore_seconds:.1f} s, make restore to serving {to_serving:.1f} s"
            )
            stop(serving)
            runs.remove(serving)

        # 2. Latency, standby on and off, alternating on B (the restored night).
        figures: dict[str, list[float]] = {"on": [], "off": []}
        for round_number in range(args.rounds):
            # Alternating which goes first, so neither always meets a fresher machine.
            for mode in ("on", "off") if round_number % 2 == 0 else ("off", "on"):
                folder = work / f"stick-{mode}-{round_number}"
                extra = {"STANDBY_DIR": str(folder)} if mode == "on" else {}
                if mode == "on":
                    folder.mkdir()
                run = make_run(b, 8302, work / "b.log", **extra)
                runs.append(run)
                if mode == "on":
                    wait_for(lambda: waiting_for_copy(servers(b).database_url), "in step")
                plan = seed(b, args.players, f"{mode}{round_number}")
                got = asyncio.run(play(8302, plan, args.rate, args.writes, 2 + round_number))
                ms = latencies_ms(got)
                figures[mode] += ms
                say(
                    f"round {round_number + 1} standby {mode}: {len(ms)} writes, "
                    f"p50 {percentile(ms, 0.5):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms"
                )
                stop(run)
                runs.remove(run)
        on, off = figures["on"], figures["off"]
        say(
            f"LATENCY: on p50 {percentile(on, 0.5):.1f} / p95 {percentile(on, 0.95):.1f} ms; "
            f"off p50 {percentile(off, 0.5):.1f} / p95 {percentile(off, 0.95):.1f} ms; "
            f"p95 ratio {percentile(on, 0.95) / percentile(off, 0.95):.2f}x"
        )

        if not args.latency_only:
            # 3. Pulling the folder mid-event.
            pulled_folder = work / "stick-pulled"
            pulled_folder.mkdir()
            run = make_run(b, 8302, work / "b.log", STANDBY_DIR=str(pulled_folder))
            runs.append(run)
            wait_for(lambda: waiting_for_copy(servers(b).database_url), "in step")
            plan = seed(b, args.players, "pull")
            redis_url = servers(b).redis_url
            pulled_at: list[float] = []
            house_told: list[float] = []

            def watch_house() -> None:
                wait_for(lambda: house_sees_lost(redis_url), "House to see the copy lost", 120)
                house_told.append(time.monotonic())

            def pull() -> None:
                pulled_at.append(time.monotonic())
                shutil.rmtree(pulled_folder)
                threading.Thread(target=watch_house, daemon=True).start()

            got = asyncio.run(play(8302, plan, args.rate, args.writes, 9, during=pull))
            at = pulled_at[0]
            wait_for(lambda: bool(house_told), "House to see the copy lost", 120)
            across = [answered - max(sent, at) for sent, answered in got.latencies if answered > at]
            after = [answered - at for sent, answered in got.latencies if sent >= at]
            say(
                f"PULL: writes flow again within {max(across):.2f} s of the pull (the longest any "
                f"write waited across it), the first write sent after it answered "
                f"{min(after):.2f} s after the pull; House saw the copy lost "
                f"{house_told[0] - at:.2f} s after the pull"
            )
            stop(run)
            runs.remove(run)
    finally:
        for run in runs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(run.pid, signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                run.wait(timeout=60)
        for folder in (a, b):
            if folder.exists():
                subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "syndicate.embedded",
                        "stop",
                        "--var-dir",
                        str(folder / "var"),
                    ],
                    cwd=ROOT,
                    capture_output=True,
                )
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            say(f"Kept {work}")


if __name__ == "__main__":
    main()
