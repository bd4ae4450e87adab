"""A venue rush on a running `make run`: 128 players act at the same instant, wave after wave.

    make run                                    # in another terminal
    .venv/bin/python bench/rush.py http://127.0.0.1:8000 [--players 128] [--seed 7]

Over HTTP only, like the pages: each player signs up through allauth's form (CSRF token from the
page, display name, password) from an address of its own in 127.0.0.0/8 (players' phones come
from different addresses; allauth limits sign-ups per address), then plays through the REST API
with its session cookie, the CSRF header and an `Idempotency-Key` per write. House is the demo
House account of `seed_demo` (house@example.com), signed in through the login form; it creates a
League event and opens registration.

Each wave releases one thread per player through a barrier, so every request leaves at the same
instant: sign-up, register, House checks every player in (one House session, 128 requests at
once), House starts (one request), starting card confirm, game 1 result, win choice (winners),
game 2 result. After every write wave the same requests are sent again at once with the same keys:
each must get the very same answer (a write is accepted once). At the end every player's own
view (`/api/events/<id>/me/`) must show the hand and games the answers told it.

Reference, measured in the same run: a wave of bare `GET /healthz` from every player at the
same instant, before the first wave and after the last.

Everything goes to the base URL (loopback); the script stops by itself: each request waits
300 s at most, and the whole run is bounded by --timeout (default 900 s).
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import random
import re
import secrets
import statistics
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

HOUSE_EMAIL = "house@example.com"
DEMO_PASSWORD = "cornhole-demo-7"
REOPENED = [0]  # keep-alive connections opened again, over all clients
REOPENED_LOCK = threading.Lock()
REQUEST_TIMEOUT = 300.0  # as long as a phone browser waits


@dataclass
class Answer:
    status: int  # 0: no answer (connection failed or timed out)
    body: str
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body)

    def same(self, other: Answer) -> bool:
        """The same status and the same JSON (a stored answer comes back with its keys sorted)."""
        try:
            return self.status == other.status and self.json() == other.json()
        except ValueError:
            return (self.status, self.body) == (other.status, other.body)


class Client:
    """One browser: its own source address, keep-alive connection and cookies."""

    def __init__(self, base: str, source: str) -> None:
        parts = urlsplit(base)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.source = source
        self.cookies: dict[str, str] = {}
        self.connection: http.client.HTTPConnection | None = None
        self.reconnects = 0

    def _connection(self) -> http.client.HTTPConnection:
        if self.connection is None:
            self.connection = http.client.HTTPConnection(
                self.host, self.port, timeout=REQUEST_TIMEOUT, source_address=(self.source, 0)
            )
        return self.connection

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        sent = {"Host": f"{self.host}:{self.port}", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        began = time.perf_counter()
        for attempt in (1, 2):
            reused = self.connection is not None
            try:
                connection = self._connection()
                connection.request(method, path, body=body, headers=sent)
                response = connection.getresponse()
                text = response.read().decode("utf-8", "replace")
                break
            except (OSError, http.client.HTTPException) as error:
                self.close()
                # A keep-alive connection the server closed while idle fails before any answer:
                # a browser opens a new one and sends again (writes carry an Idempotency-Key).
                stale = isinstance(
                    error, (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected)
                )
                if attempt == 1 and reused and stale:
                    self.reconnects += 1
                    with REOPENED_LOCK:
                        REOPENED[0] += 1
                    continue
                return Answer(0, type(error).__name__, time.perf_counter() - began)
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        return Answer(response.status, text, time.perf_counter() - began)

    def twin(self, source: str) -> Client:
        """Another connection of the same browser session (a second tab)."""
        other = Client(f"http://{self.host}:{self.port}", source)
        other.cookies = dict(self.cookies)
        return other

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def form(self, path: str, fields: dict[str, str]) -> Answer:
        """GET a page, then POST its form with the CSRF token, as a browser does."""
        page = self.request("GET", path)
        if page.status != 200:
            return page
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.body)
        if found is None:
            return Answer(0, f"no CSRF token on {path}", page.seconds)
        encoded = "&".join(
            f"{k}={_quote(v)}" for k, v in {"csrfmiddlewaretoken": found[1], **fields}.items()
        )
        answer = self.request(
            "POST",
            path,
            encoded.encode(),
            {
                "Content-Type": "application/x-www-form-urlencoded",
                "Referer": f"http://{self.host}:{self.port}{path}",
            },
        )
        return Answer(answer.status, answer.body, page.seconds + answer.seconds)

    def api(self, path: str, payload: dict[str, Any] | None, key: str) -> Answer:
        return self.request(
            "POST",
            path,
            json.dumps(payload or {}).encode(),
            {
                "Content-Type": "application/json",
                "X-CSRFToken": self.cookies.get("csrftoken", ""),
                "Idempotency-Key": key,
            },
        )

    def get_json(self, path: str) -> Answer:
        return self.request("GET", path, headers={"Accept": "application/json"})


def _quote(value: str) -> str:
    from urllib.parse import quote_plus

    return quote_plus(value)


@dataclass
class Player:
    number: int
    client: Client
    email: str
    password: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    registration_id: int = 0
    outcomes: dict[int, str] = field(default_factory=dict)
    hand: list[str] = field(default_factory=list)
    keep: int = 0


@dataclass
class Wave:
    name: str
    answers: list[Answer]
    wall: float
    replay: list[Answer] | None = None
    success: tuple[int, ...] = (200, 201)
    reopened: int = 0

    def row(self, reference: float) -> str:
        if not self.answers:
            return f"| {self.name} | 0 | - | - | - | - | - | - | - | - | - |"
        seconds = sorted(a.seconds for a in self.answers)
        errors = sum(1 for a in self.answers if a.status not in self.success)
        five = sum(1 for a in self.answers if a.status >= 500 or a.status == 0)
        p50 = statistics.median(seconds) * 1000
        p95 = seconds[max(0, round(0.95 * len(seconds)) - 1)] * 1000
        if self.replay is None:
            once = "-"
        else:
            same = sum(
                1
                for first, again in zip(self.answers, self.replay, strict=True)
                if first.same(again)
            )
            once = f"{same}/{len(self.answers)}"
        counts = sorted(Counter(a.status for a in self.answers).items())
        codes = ", ".join(f"{code}: {n}" for code, n in counts)
        return (
            f"| {self.name} | {len(self.answers)} | {errors} | {five} | {once} | {p50:.0f} | "
            f"{p95:.0f} | {p50 / reference:.1f}x | {self.wall:.1f} | {self.reopened} | {codes} |"
        )


class Waves(list[Wave]):
    """The waves in order; each is charged the connections reopened since the previous one."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0

    def append(self, wave: Wave) -> None:
        wave.reopened, self.seen = REOPENED[0] - self.seen, REOPENED[0]
        super().append(wave)


def at_once(actors: list[Any], act: Callable[[Any], Answer]) -> tuple[list[Answer], float]:
    """Every actor's request, released through one barrier; their answers in actor order."""
    answers: list[Answer | None] = [None] * len(actors)
    barrier = threading.Barrier(len(actors) + 1)

    def run(index: int, actor: Any) -> None:
        barrier.wait()
        answers[index] = act(actor)

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(actors)]
    for thread in threads:
        thread.start()
    barrier.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - began
    return [a if a is not None else Answer(0, "no thread answer", 0.0) for a in answers], wall


def write_wave(
    name: str, actors: list[Any], request: Callable[[Any, str], Answer], waves: Waves
) -> list[Answer]:
    """A write from every actor at once, then the same writes with the same keys at once."""
    keys = [uuid.uuid4().hex for _ in actors]
    pairs = list(zip(actors, keys, strict=True))
    answers, wall = at_once(pairs, lambda pair: request(pair[0], pair[1]))
    replay, _ = at_once(pairs, lambda pair: request(pair[0], pair[1]))
    waves.append(Wave(name, answers, wall, replay))
    return answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the running make run, e.g. http://127.0.0.1:8000")
    parser.add_argument("--players", type=int, default=128)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    base = args.base.rstrip("/")
    rng = random.Random(args.seed)
    deadline = time.monotonic() + args.timeout
    run_id = uuid.uuid4().hex[:8]
    waves = Waves()
    failures: list[str] = []

    def check(condition: bool, what: str) -> None:
        if not condition:
            failures.append(what)

    def timed_out() -> bool:
        return time.monotonic() > deadline

    players = [
        Player(
            n, Client(base, f"127.0.{1 + n // 250}.{1 + n % 250}"), f"rush-{run_id}-{n}@example.com"
        )
        for n in range(args.players)
    ]
    house = Client(base, "127.0.9.1")

    health, _ = at_once(players, lambda p: p.client.request("GET", "/healthz"))
    reference_before = statistics.median(a.seconds for a in health) * 1000
    waves.append(Wave("reference: GET /healthz", health, 0.0))

    answer = house.form("/accounts/login/", {"login": HOUSE_EMAIL, "password": DEMO_PASSWORD})
    check(answer.status == 302, f"House sign-in: {answer.status}")
    tomorrow = (datetime.date.today() + datetime.timedelta(days=1)).isoformat()
    created = house.api(
        "/api/events/",
        {
            "name": f"Rush {run_id}",
            "date": tomorrow,
            "format": "league",
            "contribution": 10,
            "remainder_policy": "An indivisible High remainder rolls into next week's pool.",
        },
        uuid.uuid4().hex,
    )
    if created.status != 201:
        print(f"Creating the event failed: {created.status} {created.body[:300]}", file=sys.stderr)
        return 1
    event_id = created.json()["event_id"]
    opened = house.api(f"/api/events/{event_id}/registration/open/", None, uuid.uuid4().hex)
    check(opened.status == 200, f"open registration: {opened.status} {opened.body[:200]}")

    def sign_up(player: Player) -> Answer:
        return player.client.form(
            "/accounts/signup/",
            {
                "email": player.email,
                "display_name": f"Rush {player.number}",
                "password1": player.password,
                "password2": player.password,
            },
        )

    answers, wall = at_once(players, sign_up)
    # allauth redirects after a sign-up; the session cookie is the proof of being signed in.
    waves.append(Wave("sign-up (allauth form)", answers, wall, success=(302,)))
    for player, answer in zip(players, answers, strict=True):
        signed_in = answer.status == 302 and "sessionid" in player.client.cookies
        shown = re.findall(r'(?s)<ul class="errorlist[^>]*>(.*?)</ul>', answer.body)
        check(signed_in, f"sign-up {player.number}: {answer.status} {shown or answer.body[:200]}")
        player.client.request("GET", "/")  # the CSRF cookie for the API writes

    answers = write_wave(
        "register",
        players,
        lambda p, key: p.client.api(f"/api/events/{event_id}/register/", None, key),
        waves,
    )
    for player, answer in zip(players, answers, strict=True):
        if answer.status == 201:
            player.registration_id = answer.json()["registration_id"]
    registered = [p for p in players if p.registration_id]

    # One House session, one connection per request (tabs of the same browser).
    tabs = {p.number: house.twin(f"127.0.10.{1 + p.number % 250}") for p in registered}
    write_wave(
        "House: check in",
        registered,
        lambda p, key: tabs[p.number].api(
            f"/api/registrations/{p.registration_id}/check-in/", None, key
        ),
        waves,
    )
    started = house.api(f"/api/events/{event_id}/start/", None, uuid.uuid4().hex)
    waves.append(Wave("House: start (one request)", [started], started.seconds))

    for player in registered:
        snapshot = player.client.get_json(f"/api/events/{event_id}/me/")
        pending = snapshot.json().get("pending") if snapshot.status == 200 else None
        player.keep = int(pending["keep"]) if pending else 0
        check(pending is not None, f"player {player.number} has no starting offer")

    answers = write_wave(
        "starting card confirm",
        registered,
        lambda p, key: p.client.api(
            f"/api/registrations/{p.registration_id}/starting-selection/",
            {"slots": list(range(p.keep))},
            key,
        ),
        waves,
    )
    for player, answer in zip(registered, answers, strict=True):
        if answer.status == 200:
            player.hand.extend(answer.json()["kept"])

    for player in registered:
        player.outcomes = {game: rng.choice(["win", "loss"]) for game in (1, 2)}

    def result(game: int) -> Callable[[Player, str], Answer]:
        return lambda p, key: p.client.api(
            f"/api/registrations/{p.registration_id}/results/",
            {"game": game, "outcome": p.outcomes[game]},
            key,
        )

    def keep_cards(answers: list[Answer], actors: list[Player]) -> None:
        for player, answer in zip(actors, answers, strict=True):
            if answer.status == 201 and "card" in answer.json():
                player.hand.append(answer.json()["card"])

    keep_cards(write_wave("game 1 result", registered, result(1), waves), registered)
    winners = [p for p in registered if p.outcomes[1] == "win"]
    answers = write_wave(
        "win choice (game 1 winners)",
        winners,
        lambda p, key: p.client.api(
            f"/api/registrations/{p.registration_id}/win-choice/", {"slot": p.number % 2}, key
        ),
        waves,
    )
    for player, answer in zip(winners, answers, strict=True):
        if answer.status == 200:
            player.hand.append(answer.json()["kept"])
    keep_cards(write_wave("game 2 result", registered, result(2), waves), registered)

    health, _ = at_once(players, lambda p: p.client.request("GET", "/healthz"))
    reference_after = statistics.median(a.seconds for a in health) * 1000
    waves.append(Wave("reference: GET /healthz, after", health, 0.0))

    # Every player's own view agrees with what the answers told it: nothing applied twice.
    for player in registered:
        view = player.client.get_json(f"/api/events/{event_id}/me/")
        if view.status != 200:
            check(False, f"player {player.number}: /me/ {view.status}")
            continue
        snapshot = view.json()
        held = len(snapshot["hand"])
        check(held == len(player.hand), f"player {player.number}: {held} cards, told {player.hand}")
        games = {g["game"]: g["outcome"] for g in snapshot["games"] if g["outcome"]}
        check(games == player.outcomes, f"player {player.number}: games {games}")

    for wave in waves:
        if wave.name.startswith("reference") or wave.name.startswith("House: start"):
            continue
        errors = [a for a in wave.answers if a.status not in wave.success]
        if errors:
            first = errors[0]
            check(
                False, f"{wave.name}: {len(errors)} errors, e.g. {first.status} {first.body[:200]}"
            )
        if wave.replay is not None:
            same = [a.same(b) for a, b in zip(wave.answers, wave.replay, strict=True)]
            if not all(same):
                index = same.index(False)
                first, again = wave.answers[index], wave.replay[index]
                check(
                    False,
                    f"{wave.name}: {same.count(False)} replays answered differently, e.g. "
                    f"{first.status} {first.body[:120]} then {again.status} {again.body[:120]}",
                )
    check(started.status == 200, f"start: {started.status} {started.body[:200]}")
    check(not timed_out(), "the run went past --timeout")

    reference = statistics.mean([reference_before, reference_after])
    print(f"Event {event_id}: {len(registered)} players, base {base}")
    print(
        "| Wave | Requests | Errors | 5xx or no answer | Same answer on replay | p50 (ms) | "
        "p95 (ms) | p50 / reference p50 | Wave wall time (s) | Reopened | Status codes |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for wave in waves:
        print(wave.row(reference))
    print(f"Reference p50 before / after: {reference_before:.0f} / {reference_after:.0f} ms")
    reconnects = house.reconnects + sum(p.client.reconnects for p in players)
    print(f"Idle keep-alive connections closed by the server and opened again: {reconnects}")
    for failure in failures:
        print("FAILED:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
