"""One daphne process killed mid-event: its clients reconnect to the other and recover the state.

Two daphne processes share the test database and a private Redis channel layer, as two web replicas
do behind nginx. Sockets of the board, the players and House connect to A; A is killed with
SIGKILL while a result submission to it is in flight; the submission is retried on B with the same
Idempotency-Key and another change is made on B while the sockets are down; the sockets reconnect
the way live.js does and must start from snapshots equal to what the database holds.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import pytest
import requests

from events.models import Event, GameResult, Registration
from events.reads.board import board_view
from events.reads.common import to_json
from events.reads.player import player_state
from house.read_model import house_table
from tests.factories import make_table
from tests.faults.clients import Api, LiveSocket, Loop, session_cookie
from tests.faults.processes import Processes, app_env, report

pytestmark = pytest.mark.django_db(transaction=True)


def as_sent(value: Any) -> Any:
    """A snapshot as a socket carries it (JSON)."""
    return json.loads(json.dumps(value))


def results_path(registration_id: int) -> str:
    return f"/api/registrations/{registration_id}/results/"


def test_clients_of_a_killed_daphne_recover_the_saved_state_from_the_other(
    processes: Processes, loop: Loop
) -> None:
    redis_server = processes.redis()
    env = app_env(
        redis_server.url,
        CHANNELS_PREFIX=f"faults-{uuid.uuid4().hex[:8]}",
        LIVE_UPDATES="background",
    )
    a = processes.daphne("daphne-a", env)
    b = processes.daphne("daphne-b", env)

    table = make_table("league", players=4, start=True)
    for player in table.players:
        table.choose_start(player)
    event_id = table.event.pk
    first, second, third, _ = table.players
    rids = {p.pk: table.rid(p) for p in table.players}
    apis = {p.pk: Api(p) for p in (first, second, third)}
    a.wait_ready()
    b.wait_ready()

    servers = [a.url, b.url]  # nginx's upstream list: A is tried first, B when A refuses
    board = f"/ws/events/{event_id}/board/"
    # "held" sockets stay down until the changes on B have committed; "free" ones reconnect at
    # once, to time live.js's own reconnect.
    held = [LiveSocket(loop, board, servers) for _ in range(2)]
    held += [
        LiveSocket(loop, f"/ws/events/{event_id}/player/", servers, session_cookie(p))
        for p in (second, third)
    ]
    held.append(
        LiveSocket(loop, f"/ws/events/{event_id}/house/", servers, session_cookie(table.house))
    )
    free = [LiveSocket(loop, board, servers) for _ in range(3)]
    sockets = held + free
    expected_streams = {
        s: {s.event_stream}
        | ({"player"} if "/player/" in s.path else set())
        | ({"house"} if "/house/" in s.path else set())
        for s in sockets
    }
    for s in sockets:
        s.wait_for(lambda k: set(k.snapshots(1)) == expected_streams[k], "the first snapshots")
        assert {f.server for f in s.since(1)} == {a.url}
    start_version = Event.objects.get(pk=event_id).version
    assert all(s.snapshots(1)[s.event_stream].message["version"] == start_version for s in sockets)

    # A change through A: every socket hears it through the Redis channel layer.
    posted_at = time.monotonic()
    answer = apis[first.pk].post(
        a.url, results_path(rids[first.pk]), {"game": 1, "outcome": "loss"}
    )
    answer_ms = round((time.monotonic() - posted_at) * 1000)
    assert answer.status_code == 201, answer.text
    for s in sockets:
        s.wait_for(
            lambda k: any(x.message["version"] == start_version + 1 for x in k.frames),
            "an update",
        )

    # Kill A while a submission to it is in flight.
    for s in held:
        s.held = True
    key = f"in-flight-{uuid.uuid4().hex}"
    outcome: dict[str, Any] = {}

    def in_flight() -> None:
        try:
            response = apis[second.pk].post(
                a.url, results_path(rids[second.pk]), {"game": 1, "outcome": "loss"}, key
            )
            outcome["status"] = response.status_code
        except requests.RequestException as error:
            outcome["error"] = type(error).__name__

    sender = threading.Thread(target=in_flight)
    sender.start()
    time.sleep(0.03)  # the request is on its way; an answer takes longer than this here
    killed_at = time.monotonic()
    a.kill()
    sender.join(timeout=20)
    committed_on_a = GameResult.objects.filter(registration_id=rids[second.pk], game=1).exists()
    close_after = []
    for s in sockets:
        s.wait_for(lambda k: bool(k.closes), "the close")
        close_after.append(s.closes[0].at - killed_at)

    # While the held sockets are down: the client's retry and a new change, both on B.
    retry = apis[second.pk].post(
        b.url, results_path(rids[second.pk]), {"game": 1, "outcome": "loss"}, key
    )
    assert retry.status_code == 201, retry.text
    assert GameResult.objects.filter(registration_id=rids[second.pk], game=1).count() == 1
    again = apis[second.pk].post(
        b.url, results_path(rids[second.pk]), {"game": 1, "outcome": "loss"}, key
    )
    assert again.json() == retry.json()
    change = apis[third.pk].post(
        b.url, results_path(rids[third.pk]), {"game": 1, "outcome": "loss"}
    )
    assert change.status_code == 201, change.text
    version_while_down = Event.objects.get(pk=event_id).version

    released_at = time.monotonic()
    for s in held:
        s.held = False
    for s in sockets:
        s.wait_for(
            lambda k: k.connection >= 2 and set(k.snapshots(2)) == expected_streams[k],
            "the snapshots after the reconnect",
        )
    event = Event.objects.get(pk=event_id)
    assert event.version == version_while_down
    for s in held:
        snapshots = s.snapshots(2)
        assert {f.server for f in snapshots.values()} == {b.url}
        assert snapshots[s.event_stream].message["version"] == event.version
        if s.event_stream == "board":
            assert snapshots["board"].message["data"] == as_sent(to_json(board_view(event).data))
        if "player" in snapshots:
            registration = Registration.objects.get(
                pk=snapshots["player"].message["data"]["registration_id"]
            )
            assert snapshots["player"].message["version"] == registration.version
            assert snapshots["player"].message["data"] == as_sent(
                to_json(player_state(registration))
            )
            games = snapshots["player"].message["data"]["games"]
            assert games[0]["outcome"] == "loss"  # reported on B while this socket was down
        if "house" in snapshots:
            assert snapshots["house"].message["version"] == event.version
            assert snapshots["house"].message["data"] == as_sent(house_table(event).data())
    for s in free:
        assert s.snapshots(2)["board"].server == b.url

    # Live updates go on from B: one more change reaches every socket as the next version.
    final = apis[first.pk].post(b.url, results_path(rids[first.pk]), {"game": 2, "outcome": "loss"})
    assert final.status_code == 201, final.text
    event = Event.objects.get(pk=event_id)
    for s in sockets:
        s.wait_version(s.event_stream, event.version, "the update from B")
        (_heard,) = [
            f
            for f in s.since(2)
            if f.message["stream"] == s.event_stream and f.message["version"] == event.version
        ]
        if s.event_stream == "board":
            # An update carries what moved since its base: the page's data, patched.
            assert s.data_at("board", event.version) == as_sent(to_json(board_view(event).data))
        assert s.reloads == 0 and s.refused is None

    group = f"{env['CHANNELS_PREFIX']}:group:event.{event_id}"
    members = redis_server.client().zcard(group)
    report(
        "daphne_killed",
        sockets=len(sockets),
        submission_answer_ms=answer_ms,
        in_flight=outcome,
        in_flight_committed_on_a=committed_on_a,
        kill_to_close_ms=[round(x * 1000) for x in close_after],
        close_codes=sorted({str(s.closes[0].code) for s in sockets}),
        free_close_to_snapshot_ms=[
            round((s.snapshots(2)["board"].at - s.closes[0].at) * 1000) for s in free
        ],
        free_close_to_open_ms=[round((s.opened[1][0] - s.closes[0].at) * 1000) for s in free],
        held_release_to_snapshot_ms=[
            round((s.snapshots(2)[s.event_stream].at - released_at) * 1000) for s in held
        ],
        versions={"start": start_version, "while_down": version_while_down, "final": event.version},
        results_of_retried_game=GameResult.objects.filter(
            registration_id=rids[second.pk], game=1
        ).count(),
        event_group_members_in_redis=members,
    )
    for s in sockets:
        s.close()
