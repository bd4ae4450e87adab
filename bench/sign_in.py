"""Sign-up and sign-in, 32 at once, beside a bare request, on daphne as `make run` starts it: the
code of this checkout and of another (the code before) in the same run.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/14 \\
        .venv/bin/python bench/sign_in.py --before /tmp/wt-before [--rounds 2] [--at-once 32]

A scratch database (`bench_sign_in`, dropped at the end). For each round and each checkout, one
daphne process (the environment `make run` gives it: sign-up without an emailed code, key prefixes
of its own), then waves of `--at-once` requests released together (one thread each, a barrier),
each from an address of its own in 127.0.0.0/8 (allauth limits sign-ups and sign-ins per address):

- untimed, one sign-up and one sign-in (a new process's first ones load what they need);
- `GET /healthz`, the bare request (a new connection each, as the other waves);
- sign-up through allauth's form (the page is fetched first, untimed, for its CSRF token; the POST
  is timed, until its redirect);
- sign-in through the login form with those accounts, from fresh browsers (likewise);
- on this checkout, after the code before in the same round: sign-in with the accounts the code
  before created (stored with its hasher, checked with it and stored again with this one's);
- `GET /healthz` again.

It prints p50 and p95 of each wave, the wave's length, and the CPU time the daphne process used
in the wave per request (PostgreSQL's not counted).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rush import Answer, Client
from scratch import (
    ROOT,
    before_after_parser,
    cpu_seconds,
    daphne,
    delete_keys,
    make_run_environment,
    manage,
    percentile,
    scratch_database,
    servers_from_environment,
)

SERVER_PID = [0]  # the daphne process of the waves under way
CPU_PER_REQUEST: list[float] = [0.0]  # its CPU seconds per request in the last wave


def at_once(clients: list[Client], act: Callable[[Client], Answer]) -> tuple[list[Answer], float]:
    barrier = threading.Barrier(len(clients))
    answers: list[Answer | None] = [None] * len(clients)

    def run(index: int) -> None:
        barrier.wait(timeout=120)
        answers[index] = act(clients[index])

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(clients))]
    began, cpu = time.perf_counter(), cpu_seconds(SERVER_PID[0])
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    CPU_PER_REQUEST[0] = (cpu_seconds(SERVER_PID[0]) - cpu) / len(clients)
    return [a if a is not None else Answer(0, "no answer", 0.0) for a in answers], (
        time.perf_counter() - began
    )


def csrf_token(client: Client, path: str) -> str:
    import re

    page = client.request("GET", path)
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)
    if page.status != 200 or found is None:
        sys.exit(f"No form at {path}: {page.status}")
    return found[1]


def post_form(client: Client, path: str, fields: dict[str, str]) -> Answer:
    from urllib.parse import urlencode

    return client.request(
        "POST",
        path,
        urlencode(fields).encode(),
        {
            "Content-Type": "application/x-www-form-urlencoded",
            "Referer": f"http://{client.host}:{client.port}{path}",
        },
    )


def row(label: str, answers: list[Answer], seconds: float, expected: int) -> str:
    import re

    ok = [a.seconds * 1000 for a in answers if a.status == expected]
    errors = len(answers) - len(ok)
    for answer in answers:
        if answer.status != expected:
            shown = re.findall(r'(?s)<ul class="errorlist[^>]*>(.*?)</ul>', answer.body)
            print(f"{label}: {answer.status} {' '.join(shown)[:300] or answer.body[:200]}")
            break
    return (
        f"| {label} | {len(answers)} | {errors} | {percentile(ok, 0.5):,.0f} "
        f"| {percentile(ok, 0.95):,.0f} | {seconds:.2f} | {CPU_PER_REQUEST[0] * 1000:.0f} |"
    )


def addresses(round_: int, server: int, wave: int, count: int) -> list[str]:
    return [f"127.{10 + round_}.{server * 10 + wave}.{n + 1}" for n in range(count)]


def run_server(
    base: str, label: str, round_: int, server: int, args: argparse.Namespace, older: list[str]
) -> tuple[list[str], list[str]]:
    """The waves against one server; returns its table rows and the accounts it created."""
    count = args.at_once
    rows = []
    # Warm-up, untimed: the first sign-up and sign-in of a new process load what they need.
    warm = Client(base, f"127.{10 + round_}.{server * 10 + 9}.1")
    warm_email = f"warm-r{round_}-s{server}-{secrets.token_hex(3)}@example.com"
    fields = {"email": warm_email, "display_name": "Warm", "password1": "cornhole-warm-77"}
    post_form(
        warm,
        "/accounts/signup/",
        fields
        | {
            "password2": fields["password1"],
            "csrfmiddlewaretoken": csrf_token(warm, "/accounts/signup/"),
        },
    )
    warm = Client(base, f"127.{10 + round_}.{server * 10 + 9}.2")
    post_form(
        warm,
        "/accounts/login/",
        {
            "login": warm_email,
            "password": fields["password1"],
            "csrfmiddlewaretoken": csrf_token(warm, "/accounts/login/"),
        },
    )

    def healthz(wave: int) -> tuple[list[Answer], float]:
        clients = [Client(base, a) for a in addresses(round_, server, wave, count)]
        return at_once(clients, lambda c: c.request("GET", "/healthz"))

    answers, seconds = healthz(0)
    rows.append(row(f"{label}: GET /healthz", answers, seconds, 200))

    emails = [f"r{round_}-s{server}-{n}-{secrets.token_hex(3)}@example.com" for n in range(count)]
    password = "cornhole-bench-77"
    clients = [Client(base, a) for a in addresses(round_, server, 1, count)]
    tokens = [csrf_token(c, "/accounts/signup/") for c in clients]
    forms = {
        id(c): {
            "csrfmiddlewaretoken": token,
            "email": email,
            "password1": password,
            "password2": password,
            "display_name": f"Bench {n}",
        }
        for n, (c, token, email) in enumerate(zip(clients, tokens, emails, strict=True))
    }
    answers, seconds = at_once(clients, lambda c: post_form(c, "/accounts/signup/", forms[id(c)]))
    rows.append(row(f"{label}: sign-up", answers, seconds, 302))

    def sign_in_wave(wave: int, accounts: list[str], what: str) -> None:
        clients = [Client(base, a) for a in addresses(round_, server, wave, len(accounts))]
        tokens = [csrf_token(c, "/accounts/login/") for c in clients]
        fields = {
            id(c): {"csrfmiddlewaretoken": t, "login": e, "password": password}
            for c, t, e in zip(clients, tokens, accounts, strict=True)
        }
        answers, seconds = at_once(
            clients, lambda c: post_form(c, "/accounts/login/", fields[id(c)])
        )
        rows.append(row(f"{label}: {what}", answers, seconds, 302))

    sign_in_wave(2, emails, "sign-in")
    if older:
        sign_in_wave(3, older, "sign-in, stored by the code before (checked, stored again)")
    answers, seconds = healthz(4)
    rows.append(row(f"{label}: GET /healthz, after", answers, seconds, 200))
    return rows, emails


def main() -> int:
    parser = before_after_parser(__doc__.splitlines()[0], port=8115, database="bench_sign_in")
    parser.add_argument("--at-once", type=int, default=32)
    args = parser.parse_args()
    server_url, redis_url = servers_from_environment()
    checkouts = {"before": args.before.resolve(), "after": ROOT}
    logs = Path(f"/tmp/bench-sign-in-{os.getpid()}")
    logs.mkdir(exist_ok=True)
    table: list[str] = []
    with scratch_database(server_url, args.database) as database_url:
        seed_prefix = f"bench-sign-in-{os.getpid()}-migrate"
        env = make_run_environment(database_url, redis_url, seed_prefix)
        manage(ROOT, env, "migrate", "--noinput", "-v", "0")
        delete_keys(redis_url, seed_prefix)
        print(
            f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; "
            f"{args.at_once} at once",
            flush=True,
        )
        for round_ in range(1, args.rounds + 1):
            older: list[str] = []
            for server, (label, checkout) in enumerate(checkouts.items()):
                prefix = f"bench-sign-in-{os.getpid()}-{label}-{round_}"
                env = make_run_environment(database_url, redis_url, prefix)
                try:
                    with daphne(checkout, args.port, env, logs / f"{label}-{round_}.log") as (
                        base,
                        pid,
                    ):
                        SERVER_PID[0] = pid
                        rows, created = run_server(
                            base, f"{label}, round {round_}", round_, server, args, older
                        )
                finally:
                    delete_keys(redis_url, prefix)
                older = created
                for line in rows:
                    print(line, flush=True)
                table += rows
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end; logs in {logs}/")
    print(
        "| Wave | Requests | Errors | p50 (ms) | p95 (ms) | Wave (s) "
        "| daphne CPU per request (ms) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
