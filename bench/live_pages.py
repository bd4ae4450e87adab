"""Live pages benchmark: what one change costs the server and each open page, pushed vs refetched.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python bench/live_pages.py --players 128

One started League event of `--players` players is seeded through the services in a scratch
database (`bench_live_pages`, dropped at the end) and played part-way (every starting card chosen,
one result each). Then `--changes` changes are made, each a result or a card choice of a random
player (seeded), with live updates off; after each, in this process and on the same data:

- targeted (what the pages get now): `live.targeting.change_snapshots` for the change: the board's
  and House's pieces that changed since the last change (rendered once, for every page), the
  touched player's panel and the places frame; then each phone's own places frame as its socket
  cuts it;
- whole fragments (what the pages got before targeted updates): the same, but the board's and
  House's whole fragments rendered and sent at every change, with their full data;
- refetched (the reference, what the pages did before): the same snapshots without HTML, and,
  for every phone page (each refetched its panel after a board change, at most every 1.5 s), the
  player's snapshot with the event's standings and `web/_player.html`, as the refetch computed
  them; the House dashboard's refetch likewise.

Reported: median milliseconds of server work per change for every phone, a board and a House
page open, and bytes each page receives per change; first, the publisher's own work per change
(`change_snapshots` and every frame encoded), in CPU time. `--publisher-only` measures that alone,
without the whole fragments and the refetches, whose cost grows with every phone (for 512
players); the same script runs on af8f13d, where the publisher was one module, side by side.
Nothing goes over a network: CPU of the daphne processes and end-to-end latency are measured by
`bench/load.py`.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import random
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import event as engine  # sets up Django and the scratch database helpers
from django.conf import settings
from django.template.loader import render_to_string

from events import services, store
from events.models import Event, Registration
from helpers.forms import fresh_key
from house.read_model import sight
from live.fragments import board_html

try:
    from events.reads.board import board_view
    from events.reads.common import to_json
    from events.reads.player import player_state, player_states
    from live import protocol, targeting
except ImportError:  # the code before typed read models and the split publisher (af8f13d)
    from events.snapshots import (  # type: ignore[attr-defined,no-redef]
        board_view,
        player_snapshot,
        player_snapshots,
    )

    from live import publisher as protocol  # type: ignore[attr-defined,no-redef]
    from live import publisher as targeting  # type: ignore[attr-defined,no-redef]

    def to_json(model: Any) -> Any:  # type: ignore[misc]
        return model

    def _attributes(value: Any) -> Any:
        """A snapshot's dicts read as the read models' attributes."""
        if isinstance(value, dict):
            return SimpleNamespace(**{k: _attributes(v) for k, v in value.items()})
        if isinstance(value, list):
            return [_attributes(v) for v in value]
        return value

    def player_state(registration: Registration) -> Any:  # type: ignore[misc]
        return _attributes(player_snapshot(registration))

    def player_states(registrations: Any, table: Any) -> Any:  # type: ignore[misc]
        return player_snapshots(registrations, table)


def board_with_standings(event: Event) -> tuple[Any, Any]:
    """The board's data as its socket carries it, and the standings it shows."""
    view = board_view(event)
    return to_json(view.data), view.standings


THROTTLE_SECONDS = 1.5  # the old player page's refetch throttle

# The House page open: the owner's (House's part is rendered per sight: bench/live_roles.py).
OWNER = sight({"owner"})


def owner_group(event_id: int) -> str:
    return protocol.house_group(event_id, OWNER.name)


def seed(players: int) -> tuple[int, list[tuple[int, Any]]]:
    import load_seed

    (plan,) = load_seed.seed(events=1, players=players, tag="live")
    seated = []
    for p in [*plan.players, plan.marker]:
        registration = Registration.objects.select_related("player").get(pk=p.registration_id)
        seated.append((registration.pk, registration.player))
    return plan.event_id, seated


def act(rng: random.Random, seated: list[tuple[int, Any]]) -> int | None:
    """One change by a random player who can still make one; the registration it touched."""
    for _ in range(50):
        rid, user = rng.choice(seated)
        me = player_state(Registration.objects.select_related("event").get(pk=rid))
        step = me.next_step
        if step.code == "choose_start" and me.pending is not None:
            keep = me.pending.keep
            services.starting_selection_confirm(
                registration_id=rid, by=user, slots=list(range(keep))
            )
        elif step.code == "choose_win":
            services.win_choice_confirm(registration_id=rid, by=user, slot=rng.randint(0, 1))
        elif step.code == "report" and step.game is not None:
            services.result_submit(
                registration_id=rid,
                by=user,
                game=int(step.game),
                outcome=rng.choice(["win", "loss"]),
            )
        else:
            continue
        return rid
    return None


def pushed(event_id: int, rid: int, phones: int) -> tuple[float, dict[str, float]]:
    began = time.perf_counter()
    cpu = time.process_time()
    snapshots = targeting.change_snapshots(event_id, [rid])
    for snapshot in snapshots:  # as the publisher encodes each for the channel layer
        snapshot.message()
    publisher_cpu = time.process_time() - cpu
    publisher_wall = time.perf_counter() - began
    by_stream = {s.stream: s for s in snapshots}
    places = by_stream["places"]
    sizes = {}
    phone_frames = []
    for high, low in list(places.data["places"].values())[:phones]:
        own = {"high": high, "low": low, "ranked": places.data["ranked"], "final": False}
        frame = {"type": "snapshot", "stream": "places", "version": places.version, "data": own}
        phone_frames.append(len(json.dumps(frame)))
    spent = time.perf_counter() - began
    player_frame = len(json.dumps(by_stream["player"].frame()))
    # Every phone gets its places; the one whose state changed also its panel.
    sizes["phone"] = (sum(phone_frames) + player_frame) / max(phones, 1)
    sizes["phone_own_change"] = player_frame + statistics.mean(phone_frames)
    sizes["phone_other_change"] = statistics.mean(phone_frames)
    sizes["board"] = len(json.dumps(by_stream["board"].frame()))
    house_frame = next(s for s in snapshots if s.group == owner_group(event_id)).frame()
    sizes["house_alone"] = len(json.dumps(house_frame))
    sizes["house_parts"] = len(house_frame.get("parts") or {})
    sizes["house"] = sizes["house_alone"] + sizes["board"]
    sizes["publisher_cpu_ms"] = publisher_cpu * 1000
    sizes["publisher_ms"] = publisher_wall * 1000
    return spent, sizes


def house_table(event: Event) -> Any:
    """House's table as its socket carries it."""
    try:
        from house.read_model import house_table
    except ImportError:  # af8f13d
        from events.snapshots import house_snapshot  # type: ignore[attr-defined]

        return house_snapshot(event)
    return house_table(event).data()


def house_page_html(event: Event) -> str:
    """House's live part, as a House page's refetch rendered it."""
    from live.fragments import house_html

    try:
        from house.read_model import house_page
    except ImportError:  # af8f13d
        from house import selectors

        return house_html(event, selectors.dashboard(event))  # type: ignore[call-arg,attr-defined]
    return house_html(house_page(event).seen_by(OWNER))


def whole_house(event: Event) -> Any:
    """House's whole fragment and table, as sent before targeted updates."""
    table = house_table(event)
    return protocol.Snapshot(
        owner_group(event.pk), "house", event.version, table, html=house_page_html(event)
    )


def whole(event_id: int, rid: int) -> tuple[float, dict[str, float]]:
    """Before targeted updates: the board's and House's whole fragments and data, every change
    (the touched player's panel and the places as now)."""
    began = time.perf_counter()
    with store.consistent_read():
        event = Event.objects.get(pk=event_id)
        view = board_view(event)
        board = protocol.Snapshot(
            protocol.event_group(event_id),
            "board",
            event.version,
            to_json(view.data),
            html=board_html(event, view),
        )
        house = whole_house(event)
        touched = list(Registration.objects.filter(pk=rid))
        for r in touched:
            r.event = event
        own = player_snapshots(touched, view.standings)
        player = targeting.player(touched[0], own[rid])
        if view.standings is not None:
            targeting.places(event, view.standings)
        frames = [json.dumps(s.frame()) for s in (board, house, player)]
    spent = time.perf_counter() - began
    sizes = {"board": len(frames[0]), "house": len(frames[0]) + len(frames[1])}
    return spent, sizes


def refetched(
    event_id: int, rid: int, phones: int, share: float
) -> tuple[tuple[float, float, float], dict[str, float]]:
    """The old cost: data-only snapshots to the sockets, then each page's refetch. `share` is the
    fraction of changes a throttled phone refetches on (1 when changes are rarer than 1.5 s).
    The seconds spent: the sockets' snapshots, every phone's refetch, House's refetch."""
    began = time.perf_counter()
    with store.consistent_read():
        event = Event.objects.get(pk=event_id)
        board, table = board_with_standings(event)
        house = house_table(event)
        touched = list(Registration.objects.filter(pk=rid))
        for r in touched:
            r.event = event
        own = player_states(touched, table)
    sockets = time.perf_counter() - began
    board_bytes = len(json.dumps({"type": "update", "stream": "board", "data": board}))
    house_bytes = len(json.dumps({"type": "update", "stream": "house", "data": house}))
    player_bytes = len(
        json.dumps({"type": "update", "stream": "player", "data": to_json(own[rid])})
    )
    # Each phone's refetch: its own snapshot (with the event's standings) and its panel.
    refetch = []
    fetched_bytes = []
    for registration in Registration.objects.filter(event_id=event_id).order_by("pk")[:phones]:
        registration.event = event
        one = time.perf_counter()
        me = player_state(registration)
        html = render_to_string("web/_player.html", {"event": event, "me": me, "key": fresh_key()})
        refetch.append(time.perf_counter() - one)
        fetched_bytes.append(len(html))
    one = time.perf_counter()
    house_page_html(event)
    house_refetch = time.perf_counter() - one
    spent = (sockets, sum(refetch), house_refetch)
    sizes = {
        "phone": board_bytes + share * statistics.mean(fetched_bytes) + player_bytes / phones,
        "board": board_bytes,
        "house": board_bytes + house_bytes,
    }
    return spent, sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--players", type=int, default=128)
    parser.add_argument("--changes", type=int, default=40)
    parser.add_argument("--rate", type=float, default=5.0, help="writes/s in the event")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--database", default="bench_live_pages")
    parser.add_argument(
        "--profile", type=int, default=0, help="print the targeted path's N costliest functions"
    )
    parser.add_argument(
        "--publisher-only",
        action="store_true",
        help="measure the publisher's work per change alone (targeted), without the whole "
        "fragments and the refetches, whose cost grows with every phone (for 512 players)",
    )
    args = parser.parse_args()
    # CPU time: what the publisher spends, not its waits on the database.
    profile = cProfile.Profile(time.process_time) if args.profile else None
    settings.LIVE_UPDATES = "off"
    db = settings.DATABASES["default"]
    engine.create_scratch(args.database)
    try:
        db["NAME"] = args.database
        engine.prepare_scratch()
        event_id, seated = seed(args.players)
        rng = random.Random(args.seed)
        for rid, user in seated:  # every starting card chosen
            keep = Event.objects.get(pk=event_id).rules.starting
            services.starting_selection_confirm(
                registration_id=rid, by=user, slots=list(range(keep))
            )

        # A House page is open (the owner's), a board and every phone: their fragments are
        # rendered.
        def pages_open() -> None:
            targeting.house_listening(event_id, OWNER.name)
            if hasattr(targeting, "listening"):  # before, boards and phones were always rendered
                phones = (targeting.player_audience(rid, "en") for rid, _ in seated)
                targeting.listening(targeting.board_audience(event_id), *phones)

        pages_open()
        # The pages open: each starts from the whole board and House (what later updates build on).
        with store.consistent_read():
            opened = Event.objects.get(pk=event_id)
            targeting.board(opened)
            targeting.house(opened, OWNER)
        # A throttled phone refetches on one change in (rate x throttle), at most every change.
        share = min(1.0, 1.0 / (args.rate * THROTTLE_SECONDS))
        new_ms, whole_ms, old_ms, old_all_ms = [], [], [], []
        new_sizes: list[dict[str, float]] = []
        whole_sizes: list[dict[str, float]] = []
        old_sizes: list[dict[str, float]] = []
        for _ in range(args.changes):
            rid = act(rng, seated)
            if rid is None:
                break
            pages_open()
            if args.publisher_only:
                if profile:
                    profile.enable()
                spent, sizes = pushed(event_id, rid, args.players)
                if profile:
                    profile.disable()
                new_ms.append(spent * 1000)
                new_sizes.append(sizes)
                continue
            # Both ways on the same state, in turns first (the first reads a colder database).
            if len(new_ms) % 2:
                spent_whole, sizes_whole = whole(event_id, rid)
            if profile:
                profile.enable()
            spent, sizes = pushed(event_id, rid, args.players)
            if profile:
                profile.disable()
            if not len(new_ms) % 2:
                spent_whole, sizes_whole = whole(event_id, rid)
            new_ms.append(spent * 1000)
            new_sizes.append(sizes)
            whole_ms.append(spent_whole * 1000)
            whole_sizes.append(sizes_whole)
            (sockets, phones, house), sizes = refetched(event_id, rid, args.players, share)
            old_ms.append((sockets + share * phones + house) * 1000)
            old_all_ms.append((sockets + phones + house) * 1000)
            old_sizes.append(sizes)

        def med(rows: list[dict[str, float]], key: str) -> float:
            return statistics.median(row[key] for row in rows)

        print(f"{args.players} players, {len(new_ms)} changes, {args.rate} writes/s in the event")
        print(
            f"publisher per change (change_snapshots and the frames encoded), median: "
            f"{med(new_sizes, 'publisher_cpu_ms'):.1f} ms CPU, "
            f"{med(new_sizes, 'publisher_ms'):.1f} ms wall"
        )
        if profile:
            print(f"\nThe targeted path's {args.profile} costliest functions (cumulative):")
            pstats.Stats(profile).sort_stats(
                os.environ.get("PROFILE_SORT", "cumulative")
            ).print_stats(args.profile)
        if args.publisher_only:
            return
        print(
            f"| per change | targeted (now) | whole fragments | refetched at {args.rate}/s "
            "| refetched, every change |"
        )
        print("|---|---|---|---|---|")
        print(
            f"| server work, median ms | {statistics.median(new_ms):.1f} | "
            f"{statistics.median(whole_ms):.1f} | "
            f"{statistics.median(old_ms):.1f} | {statistics.median(old_all_ms):.1f} |"
        )
        for key in ("phone", "board", "house"):
            before = f"{med(whole_sizes, key):,.0f}" if key != "phone" else "(same)"
            print(
                f"| bytes to a {key} page, median | {med(new_sizes, key):,.0f} | {before} | "
                f"{med(old_sizes, key):,.0f} | |"
            )
        for key in ("board", "house"):
            mean = statistics.mean(row[key] for row in new_sizes)
            print(f"| bytes to a {key} page, mean | {mean:,.0f} | | | |")
        print(
            f"| House frame alone: bytes, median / mean | {med(new_sizes, 'house_alone'):,.0f} / "
            f"{statistics.mean(row['house_alone'] for row in new_sizes):,.0f} | | | |"
        )
        print(f"| House parts per change, median | {med(new_sizes, 'house_parts'):.0f} | | | |")
        print(
            f"| phone: bytes when the change is its own / another's | "
            f"{med(new_sizes, 'phone_own_change'):,.0f} / "
            f"{med(new_sizes, 'phone_other_change'):,.0f} | | | |"
        )
        print(
            f"ratio of server work (refetched at rate / pushed): "
            f"{statistics.median(old_ms) / statistics.median(new_ms):.2f}"
        )
    finally:
        engine.drop_scratch(args.database)


if __name__ == "__main__":
    main()
