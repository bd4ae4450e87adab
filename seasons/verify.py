"""The independent season verifier (docs/rules.md section 14.7): a season export and the audit
exports of its events, nothing else.

Each audit is checked in full by audit.verify (chain, shuffle, hands, places, awards, signed
head); its places are then the ones that verifier recomputed. The season's events must be
exactly the audits given, each with the head its audit carries and the audit's players mapped to
public ids; every player's points, total, counted events, rank and qualification are recomputed
with seasons.points and compared. Pure Python, no Django: it stops at the first disagreement.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from audit.verify import (
    AuditProblem,
    check_extends,
    check_places,
    read_json,
    read_result,
    verify,
)
from seasons.points import (
    Finish,
    Rules,
    RulesProblem,
    Scored,
    Total,
    event_points,
    season_total,
    table,
)


class SeasonProblem(Exception):
    """The first thing in the season that its audits do not bear out, as a plain sentence."""


@dataclass(frozen=True, slots=True)
class SeasonVerdict:
    ok: bool
    checked: tuple[str, ...]
    problem: str | None = None


def verify_season(
    season_text: str | bytes,
    audits: Mapping[str, str | bytes],
    public_key: Ed25519PublicKey | None = None,
) -> SeasonVerdict:
    """Check a season export against the audit exports (file name: text) of its events."""
    checked: list[str] = []
    try:
        _verify(season_text, audits, public_key, checked)
    except SeasonProblem as problem:
        return SeasonVerdict(ok=False, checked=tuple(checked), problem=str(problem))
    return SeasonVerdict(ok=True, checked=tuple(checked))


def _json(text: str | bytes, what: str) -> Any:
    try:
        return read_json(text, what)
    except AuditProblem as problem:
        raise SeasonProblem(str(problem)) from None


def _verify(
    season_text: str | bytes,
    audits: Mapping[str, str | bytes],
    public_key: Ed25519PublicKey | None,
    checked: list[str],
) -> None:
    document = _json(season_text, "The season file")
    if not isinstance(document, dict):
        raise SeasonProblem("The season file is not an object with season, events and standings.")
    season, events, standings = (document.get(key) for key in ("season", "events", "standings"))
    if (
        not isinstance(season, dict)
        or not isinstance(events, list)
        or not isinstance(standings, list)
    ):
        raise SeasonProblem(
            "The season file needs a season object, an events list and a standings list."
        )
    try:
        rules = Rules.from_dict(season.get("rules"))
    except RulesProblem as problem:
        raise SeasonProblem(f"The season's rules: {problem}") from None
    checked.append(f"rules: {json.dumps(rules.as_dict(), separators=(',', ':'))}")

    finishes = _audited_finishes(audits, public_key, checked)
    listed: dict[int, Mapping[str, Any]] = {}
    for index, event in enumerate(events):
        if not isinstance(event, dict) or not _is_int(event.get("event_id")):
            raise SeasonProblem(f"events[{index}] has no whole-number event_id.")
        if event["event_id"] in listed:
            raise SeasonProblem(f"Event {event['event_id']} is listed twice in the season.")
        listed[event["event_id"]] = event
    for event_id in sorted(listed):
        if event_id not in finishes:
            raise SeasonProblem(
                f"Event {event_id} is in the season, but no audit file for it was given."
            )
    for event_id in sorted(finishes):
        if event_id not in listed:
            raise SeasonProblem(
                f"The audit of event {event_id} was given, but the season does not list it."
            )

    scores: dict[str, list[Scored]] = defaultdict(list)
    extended = 0
    for event_id in sorted(listed):
        audited = finishes[event_id]
        event = listed[event_id]
        # The season may have been exported before a payout or a relabelling that the audit
        # holds: its head is then an earlier head the audit's chain extends (docs/audit.md,
        # "Earlier heads"), and a relabelled player is followed to their last label.
        try:
            extension = check_extends(
                audited.document,
                event.get("head"),
                public_key,
                f"Event {event_id}: the season's head",
                final=True,
            )
        except AuditProblem as problem:
            raise SeasonProblem(
                f"Event {event_id}: the season's head does not match the head of its audit, "
                f"nor an earlier head its chain extends: {problem}"
            ) from None
        if extension.head.seq < audited.head_seq:
            extended += 1
        elif event.get("head") != audited.head:
            raise SeasonProblem(
                f"Event {event_id}: the season's head does not match the head of its audit."
            )
        players = event.get("players")
        if not isinstance(players, dict) or not all(
            isinstance(value, str) and value for value in players.values()
        ):
            raise SeasonProblem(f"Event {event_id}: players is not a map of labels to player ids.")
        players = _followed(event_id, players, extension.relabelled)
        date = _event_date(event_id, event.get("date"), audited.date)
        for label in sorted(set(audited.finishes) - set(players)):
            raise SeasonProblem(
                f"Event {event_id}: {label} played, but has no player_id in the season."
            )
        for label in sorted(set(players) - set(audited.finishes)):
            raise SeasonProblem(
                f"Event {event_id}: {label} is mapped, but did not play in its audit."
            )
        for label, finish in audited.finishes.items():
            scores[players[label]].append(
                Scored(
                    event_id=event_id,
                    points=event_points(rules, finish),
                    eligible=finish.eligible,
                    high_first=finish.eligible and finish.high_place == 1,
                    date=date,
                )
            )
    later = (
        f" ({extended} an earlier head that its audit's chain extends, with entries after it "
        "that change no card, place or award)"
        if extended
        else ""
    )
    checked.append(f"events: {len(listed)} finalized events, each head matching its audit{later}")

    totals: dict[str, Total] = {
        player: season_total(rules, played) for player, played in scores.items()
    }
    written: dict[str, Mapping[str, Any]] = {}
    for index, row in enumerate(standings):
        if not isinstance(row, dict) or not isinstance(row.get("player_id"), str):
            raise SeasonProblem(f"standings[{index}] has no player_id.")
        if row["player_id"] in written:
            raise SeasonProblem(f"{row['player_id']} is in the standings twice.")
        written[row["player_id"]] = row
    for player in sorted(set(totals) - set(written)):
        raise SeasonProblem(f"{player} played in the season, but is not in the standings.")
    for player in sorted(set(written) - set(totals)):
        raise SeasonProblem(f"{player} is in the standings, but played in none of the audits.")
    names = {player: str(row.get("display_name", "")) for player, row in written.items()}
    for standing in table(rules, totals, names):
        row = written[standing.player]
        for key, expected in (
            ("total", standing.total),
            ("events", standing.events),
            ("counted", list(standing.counted)),
            ("rank", standing.rank),
            ("qualified", standing.qualified),
        ):
            if row.get(key) != expected or isinstance(row.get(key), bool) != isinstance(
                expected, bool
            ):
                raise SeasonProblem(
                    f"{standing.player} ({names[standing.player]}): {key} is {row.get(key)!r}, "
                    f"but the audits give {expected!r}."
                )
    checked.append(
        f"standings: {len(totals)} players' totals, counted events, ranks and qualification "
        "recomputed from the audits"
    )


@dataclass(frozen=True, slots=True)
class AuditedEvent:
    document: object  # the audit export, verified
    head: object  # its signed head
    head_seq: int  # where its chain ends
    date: object  # its event block's date
    finishes: dict[str, Finish]


DATE = re.compile(r"\d{4}-\d\d-\d\d")


def _followed(
    event_id: int, players: Mapping[str, str], renamed: Mapping[str, str]
) -> dict[str, str]:
    """The season's map of labels to player ids, with the labels the audit relabelled followed to
    their last label; one player id holds one label per event."""
    followed: dict[str, str] = {}
    holder: dict[str, str] = {}
    for label, player_id in players.items():
        if player_id in holder:
            raise SeasonProblem(
                f"Event {event_id}: {player_id} is mapped to two labels, {holder[player_id]!r} "
                f"and {label!r}: a player plays an event once."
            )
        holder[player_id] = label
        current = renamed.get(label, label)
        if current in followed:
            raise SeasonProblem(f"Event {event_id}: the label {current!r} is mapped twice.")
        followed[current] = player_id
    return followed


def _event_date(event_id: int, listed: object, audited: object) -> str:
    """The event's date, which orders equal event totals: the audit's event block says it (its
    verifier checked it against the chain), and the season must agree."""
    date = audited if audited is not None else listed
    if not isinstance(date, str) or not DATE.fullmatch(date):
        raise SeasonProblem(f"Event {event_id} has no date (YYYY-MM-DD).")
    if listed != date:
        raise SeasonProblem(
            f"Event {event_id}: the season dates it {listed!r}, but its audit says {date!r}."
        )
    return date


def _audited_finishes(
    audits: Mapping[str, str | bytes], public_key: Ed25519PublicKey | None, checked: list[str]
) -> dict[int, AuditedEvent]:
    found: dict[int, AuditedEvent] = {}
    for name, text in audits.items():
        document = _json(text, f"The audit file {name}")
        verdict = verify(document, public_key)
        if not verdict.ok:
            raise SeasonProblem(f"The audit file {name} does not verify: {verdict.problem}")
        if not verdict.finalized:
            raise SeasonProblem(f"The audit file {name} is of an event not yet finalized.")
        event_id = document["event"].get("id")
        if not _is_int(event_id):
            raise SeasonProblem(f"The audit file {name} has no event id.")
        if event_id in found:
            raise SeasonProblem(f"Two audit files are of event {event_id}.")
        try:
            result = read_result(document["result"])
            places = check_places(result)
        except AuditProblem as problem:  # verify() passed, so this cannot happen; say it anyway
            raise SeasonProblem(f"The audit file {name}: {problem}") from None
        found[event_id] = AuditedEvent(
            document=document,
            head=document.get("head"),
            head_seq=len(document["entries"]),
            date=document["event"].get("date"),
            finishes={
                player.player: Finish(
                    eligible=player.status == "eligible",
                    high_place=places.high_place(player.player)
                    if player.status == "eligible"
                    else None,
                    low_place=places.low_place(player.player)
                    if player.status == "eligible"
                    else None,
                )
                for player in result.players
            },
        )
    checked.append(f"audits: {len(found)} audit files verify in full")
    return found


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


__all__ = ["SeasonProblem", "SeasonVerdict", "verify_season"]
