"""Every change to a series or a season, one function each; pages, the API and the commands call
these (docs/rules.md section 14).

Each runs as one short transaction that locks the series or season it changes and stores its
answer under the request's Idempotency-Key (a retry with the same key gets the first answer, the
same key with different content is refused). Events themselves change only through
`events.services`.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import zoneinfo
from collections.abc import Callable, Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import revocation
from accounts.models import User
from events import display, limits, runner
from events import services as events
from events.answers import Answer, as_json, from_json
from events.errors import IdempotencyConflict, Invalid, NotAllowed, NotFound, WrongPhase, WrongState
from events.lifecycle import remove_member
from events.limits import check_text, text_problem
from events.models import EntryMode, Event, IdempotencyRecord, Phase
from events.runner import is_house, roles_of
from seasons import answers, standings
from seasons.models import (
    ChampionshipInvitation,
    PlayerKey,
    Season,
    Series,
    SeriesEvent,
    series_id_of,
    series_of,
)
from seasons.points import Rules, RulesProblem
from seasons.reads import season_table
from staff import reads as staff_reads
from staff import roles as staff
from staff import tasks as staff_tasks
from staff.invitations import check_acceptance, invited_address, new_token, void_pending
from staff.roles import Role, appointed_role, role_on_acceptance

NAME_LENGTH = 120
DEFAULT_GAP = datetime.timedelta(days=7)  # "Next event": a week after the last one


def _once[A: Answer](
    *,
    by: User,
    idempotency_key: str | None,
    action: str,
    request: Mapping[str, Any],
    answer: type[A],
    run: Callable[[], A],
) -> A:
    """Run `run` in one transaction, its answer stored under the key (a retry replays it)."""
    key = (idempotency_key or "").strip() or None
    if key is not None and (len(key) > 200 or text_problem(key)):
        raise Invalid("An Idempotency-Key has at most 200 plain characters.")
    print_ = _fingerprint(action, request)
    with transaction.atomic(durable=True):
        if key is not None:
            # No key update: the rows that name the user (the answer stored under a key, in the
            # engine's changes too) are not held up by it (events.runner._begin).
            User.objects.select_for_update(no_key=True).filter(pk=by.pk).exists()
            record = IdempotencyRecord.objects.filter(user=by, key=key).first()
            if record is not None:
                if record.fingerprint != print_:
                    raise IdempotencyConflict()
                return from_json(answer, record.answer or {})
        result = run()
        if key is not None:
            IdempotencyRecord.objects.create(
                user=by, key=key, fingerprint=print_, answer=as_json(result)
            )
    return result


def _fingerprint(action: str, request: Mapping[str, Any]) -> str:
    content = json.dumps(
        {"action": action, "request": request}, sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(content.encode()).hexdigest()


def _replayed(by: User, key: str, action: str, request: Mapping[str, Any]) -> dict[str, Any] | None:
    """The answer a first try stored under the key, for a change made of several steps."""
    record = IdempotencyRecord.objects.filter(user=by, key=key).first()
    if record is None:
        return None
    if record.fingerprint != _fingerprint(action, request):
        raise IdempotencyConflict()
    return dict(record.answer or {})


def is_series_house(user: User | None, series: Series) -> bool:
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    return user.is_superuser or series.staff.filter(user_id=user.pk).exists()


def series_roles(user: User | None, series: Series) -> frozenset[str]:
    """The roles `user` holds in a series (events/staff.py); a superuser is owner."""
    if user is None or not user.is_authenticated or not user.is_active:
        return frozenset()
    if user.is_superuser:
        return frozenset({Role.OWNER.value})
    return frozenset(series.staff.filter(user_id=user.pk).values_list("role", flat=True))


def require_series_role(
    user: User | None,
    series: Series,
    action: str = "season_manage",
    refusal: str = "Only House of this series can do that.",
) -> None:
    """House of the series whose role may `action` (the rule table of events/staff.py): the
    seasons and the series' events are a director's; its staff, the owner's."""
    roles = series_roles(user, series)
    if staff.acting_role(roles, action) is not None:
        return
    if roles:
        raise NotAllowed(
            f"Your role in this series ({staff.strongest(roles)}) does not include that "
            f"({action.replace('_', ' ')})."
        )
    raise NotAllowed(refusal)


def _lock_series(series_id: object, by: User, action: str = "season_manage") -> Series:
    series = _locked_series(series_id)
    if series is None:
        raise NotFound("No such series.")
    require_series_role(by, series, action)
    return series


def _locked_series(series_id: object) -> Series | None:
    """The series, locked for the change. One lock order everywhere: a series before any of its
    events (`event_series_set`, `series_house_remove`), so no two changes wait on each other."""
    return Series.objects.select_for_update(no_key=True).filter(pk=_id(series_id, "series")).first()


def _lock_season(season_id: object, by: User) -> Season:
    season = Season.objects.select_for_update().filter(pk=_id(season_id, "season")).first()
    if season is None:
        raise NotFound("No such season.")
    require_series_role(
        by, season.series, refusal="Only House of this season's series can do that."
    )
    return season


def _id(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63:
        raise NotFound(f"No such {what}.")
    return value


def _name(value: object, what: str) -> str:
    name = check_text(value, label=f"The {what}'s name", max_length=NAME_LENGTH)
    if not name:
        raise Invalid(f"A {what} needs a name of 1 to {NAME_LENGTH} characters.")
    return name


def _time_zone(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise Invalid("The time zone must be an IANA name such as Europe/Amsterdam.")
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise Invalid(f"Unknown time zone {value!r}: use an IANA name.") from None
    return value


def _rules(raw: object) -> Rules:
    try:
        return Rules.from_dict({} if raw is None else raw)
    except RulesProblem as problem:
        raise Invalid(str(problem)) from None


def _date(value: object, what: str) -> datetime.date:
    if isinstance(value, datetime.datetime) or not isinstance(value, datetime.date):
        if isinstance(value, str):
            try:
                return datetime.date.fromisoformat(value)
            except ValueError:
                pass
        raise Invalid(f"{what} must be a date (YYYY-MM-DD).")
    return value


# Series -------------------------------------------------------------------------------------------


def series_create(
    *,
    by: User,
    name: str,
    venue: str = "",
    time_zone: str = "UTC",
    idempotency_key: str | None = None,
) -> answers.SeriesCreated:
    """Site staff open a series; they become its first House member."""

    def run() -> answers.SeriesCreated:
        if not by.is_staff:
            raise NotAllowed("Only site staff create series.")
        series = Series.objects.create(
            name=_name(name, "series"),
            venue=check_text(venue, label="The venue", max_length=NAME_LENGTH),
            time_zone=_time_zone(time_zone),
        )
        series.staff.create(user=by, role=Role.OWNER)
        return answers.SeriesCreated(series_id=series.pk)

    return _once(
        by=by,
        idempotency_key=idempotency_key,
        action="series_create",
        request={"name": name, "venue": venue, "time_zone": time_zone},
        answer=answers.SeriesCreated,
        run=run,
    )


def series_house_add(
    *,
    series_id: int,
    by: User,
    member: User,
    role: str = Role.DIRECTOR,
    idempotency_key: str | None = None,
) -> answers.SeriesHouseChanged:
    """The series' owner appoints a staff member with a role, House for every event of the
    series; a member appointed again takes the new role (the owner's is handed over with
    `series_ownership_transfer`)."""

    def run() -> answers.SeriesHouseChanged:
        series = _lock_series(series_id, by, "series_house_add")
        wanted = appointed_role(role)
        held = series.staff.filter(user=member).first()
        if held is None:
            if not member.is_active:
                raise NotFound("No such account.")
            series.staff.create(user=member, role=wanted)
        elif held.role != wanted:
            if held.role == Role.OWNER:
                raise NotAllowed("The owner stays owner until ownership is handed over.")
            held.role = wanted
            held.save(update_fields=["role"])
        return _house_of(series)

    return _once(
        by=by,
        idempotency_key=idempotency_key,
        action="series_house_add",
        request={"series_id": series_id, "member": member.pk, "role": role},
        answer=answers.SeriesHouseChanged,
        run=run,
    )


def series_house_remove(
    *, series_id: int, by: User, member: User, idempotency_key: str | None = None
) -> answers.SeriesHouseChanged:
    """The owner removes a staff member; any other member may leave (remove themself). The
    owner hands ownership over first: a series always has one."""

    def run() -> answers.SeriesHouseChanged:
        leaving = member.pk == by.pk
        series = _lock_series(series_id, by, "series_house_remove") if not leaving else None
        if series is None:  # a member leaves of their own accord
            series = _locked_series(series_id)
            if series is None:
                raise NotFound("No such series.")
            if not series_roles(by, series):
                raise NotAllowed("Only House of this series can do that.")
        if series.staff.exclude(user=member).count() == 0:
            raise WrongState("A series keeps at least one House member.")
        held = series.staff.filter(user=member).first()
        if held is not None and held.role == Role.OWNER:
            raise NotAllowed("The owner hands ownership over first: a series keeps an owner.")
        if held is not None:
            _remove_everywhere(series, member, by, held.role if leaving else None)
        return _house_of(series)

    return _once(
        by=by,
        idempotency_key=idempotency_key,
        action="series_house_remove",
        request={"series_id": series_id, "member": member.pk},
        answer=answers.SeriesHouseChanged,
        run=run,
    )


def _remove_everywhere(series: Series, member: User, by: User, leaving_as: str | None) -> None:
    """Take `member` off the series' staff and off the staff of each of its events not yet
    finalized (a finalized event changes no more), each event locked after the series, in id
    order, its removal in its own audit chain; their pending invitations to the series and to
    those events go too, and their open sockets check their access after the commit
    (docs/decisions.md, "Removal from a series")."""
    series.staff.filter(user=member).delete()
    void_pending(series.staff_invitations.all(), member)
    reached = (
        Event.objects.filter(series=series, staff__user=member)
        .exclude(phase=Phase.FINALIZED)
        .order_by("pk")
        .values_list("pk", flat=True)
    )

    def remove(change: runner.Change) -> None:
        if leaving_as is not None:
            change.act_as(leaving_as)
        remove_member(change, member, series=series.pk)

    for event_id in list(reached):
        runner.perform_within(
            event_id=event_id, user=by, action="house_member_remove", apply=remove
        )
    # Every socket of theirs in the series' events checks its access again (accounts.revocation).
    series_id = series.pk
    transaction.on_commit(lambda: revocation.revoke(member.pk, series_id=series_id))


def series_ownership_transfer(
    *, series_id: int, by: User, member: User, idempotency_key: str | None = None
) -> answers.SeriesOwnershipTransferred:
    """The owner hands the series' ownership to a member of its staff, who becomes owner while
    the former owner stays on as director: the series keeps exactly one owner."""

    def run() -> answers.SeriesOwnershipTransferred:
        series = _lock_series(series_id, by, "series_ownership_transfer")
        held = series.staff.filter(user=member).first()
        if held is None:
            raise NotAllowed("Ownership goes to a member of the series' staff: appoint them first.")
        if held.role != Role.OWNER:
            series.staff.filter(role=Role.OWNER).update(role=Role.DIRECTOR)
            held.role = Role.OWNER
            held.save(update_fields=["role"])
        return answers.SeriesOwnershipTransferred(series_id=series.pk, owner=member.pk)

    return _once(
        by=by,
        idempotency_key=idempotency_key,
        action="series_ownership_transfer",
        request={"series_id": series_id, "member": member.pk},
        answer=answers.SeriesOwnershipTransferred,
        run=run,
    )


def series_staff_invite(
    *,
    series_id: int,
    by: User,
    email: str,
    role: str = Role.DIRECTOR,
    idempotency_key: str | None = None,
) -> answers.SeriesStaffInvited:
    """The owner invites someone to the series' staff by email, with a role: the link is emailed
    after the commit, and the answer holds the token to hand over."""

    def run() -> answers.SeriesStaffInvited:
        series = _lock_series(series_id, by, "series_staff_invite")
        wanted = appointed_role(role)
        invitation = series.staff_invitations.create(
            email=invited_address(email),
            role=wanted,
            token=new_token(),
            invited_by=by,
        )
        pk = invitation.pk
        transaction.on_commit(lambda: staff_tasks.send_staff_invitation.delay(pk))
        return answers.SeriesStaffInvited(
            series_id=series.pk, invitation_id=invitation.pk, role=wanted, token=invitation.token
        )

    return _once(
        by=by,
        idempotency_key=idempotency_key,
        action="series_staff_invite",
        request={"series_id": series_id, "email": email, "role": role},
        answer=answers.SeriesStaffInvited,
        run=run,
    )


def series_staff_invitation_accept(
    *, series_id: int, by: User, token: str, idempotency_key: str | None = None
) -> answers.SeriesStaffInvitationAccepted:
    """A signed-in user whose email the invitation names joins the series' staff in its role,
    once; a member already on the staff takes its role (never the owner, who stays owner)."""

    def run() -> answers.SeriesStaffInvitationAccepted:
        if not by.is_authenticated or not by.is_active:
            raise NotAllowed("Sign in to accept an invitation.")
        series = _locked_series(series_id)
        if series is None:
            raise NotFound("No such invitation.")
        invitation = (
            series.staff_invitations.select_for_update()
            .filter(token=token.strip() if isinstance(token, str) else "")
            .first()
        )
        if invitation is None:
            raise NotFound("No such invitation.")
        now = timezone.now()
        check_acceptance(
            invitation.accepted_at, invitation.email, by, created_at=invitation.created_at, now=now
        )
        invitation.accepted_at = now
        invitation.save(update_fields=["accepted_at"])
        held = series.staff.filter(user=by).first()
        if held is None:
            role = invitation.role
            series.staff.create(user=by, role=role)
        else:
            role = role_on_acceptance(held.role, invitation.role)
            if role != held.role:
                held.role = role
                held.save(update_fields=["role"])
        return answers.SeriesStaffInvitationAccepted(series_id=series.pk, role=role)

    return _once(
        by=by,
        idempotency_key=idempotency_key,
        action="series_staff_invitation_accept",
        request={"series_id": series_id, "token": token},
        answer=answers.SeriesStaffInvitationAccepted,
        run=run,
    )


def series_staff_invitation_cancel(
    *, series_id: int, by: User, invitation_id: int, idempotency_key: str | None = None
) -> answers.SeriesStaffInvitationCancelled:
    """The owner withdraws a pending invitation to the series' staff: its row and the email it
    named are deleted, and its link stops working (as an event's: `staff_invitation_cancel`)."""

    def run() -> answers.SeriesStaffInvitationCancelled:
        series = _lock_series(series_id, by, "series_staff_invitation_cancel")
        invitation = (
            series.staff_invitations.select_for_update()
            .filter(pk=_id(invitation_id, "invitation"))
            .first()
        )
        if invitation is None:
            raise NotFound("No such invitation.")
        if invitation.accepted_at is not None:
            raise WrongState(
                "This invitation has already been accepted: remove the member instead."
            )
        invitation.delete()
        return answers.SeriesStaffInvitationCancelled(
            series_id=series.pk, invitation_id=invitation_id
        )

    return _once(
        by=by,
        idempotency_key=idempotency_key,
        action="series_staff_invitation_cancel",
        request={"series_id": series_id, "invitation_id": invitation_id},
        answer=answers.SeriesStaffInvitationCancelled,
        run=run,
    )


def series_defaults_set(
    *,
    series_id: int,
    by: User,
    entry_mode: str | None = None,
    minimum_age: int | None = None,
    idempotency_key: str | None = None,
) -> answers.SeriesDefaultsSaved:
    """The owner or a director sets the defaults the series' events take when they are made or
    put in the series as drafts: the entry mode and the age players confirm (0: none). Events
    already in the series keep their own settings."""

    def run() -> answers.SeriesDefaultsSaved:
        series = _lock_series(series_id, by, "series_defaults_set")
        fields = []
        if entry_mode is not None:
            if entry_mode not in EntryMode.values:
                raise Invalid(f"The entry mode is {' or '.join(EntryMode.values)}.")
            series.entry_mode = entry_mode
            fields.append("entry_mode")
        if minimum_age is not None:
            if (
                isinstance(minimum_age, bool)
                or not isinstance(minimum_age, int)
                or not 0 <= minimum_age <= 99
            ):
                raise Invalid("The minimum age is a whole number from 0 (none asked) to 99.")
            series.minimum_age = minimum_age
            fields.append("minimum_age")
        if fields:
            series.save(update_fields=fields)
        return answers.SeriesDefaultsSaved(
            series_id=series.pk, entry_mode=series.entry_mode, minimum_age=series.minimum_age
        )

    return _once(
        by=by,
        idempotency_key=idempotency_key,
        action="series_defaults_set",
        request={"series_id": series_id, "entry_mode": entry_mode, "minimum_age": minimum_age},
        answer=answers.SeriesDefaultsSaved,
        run=run,
    )


def series_defaults(series: Series, last: Event | None = None) -> dict[str, Any]:
    """The entry settings a new event of the series takes: the series' entry mode and age; a
    free-entry event takes no contribution, and the sponsored pool is each night's own (the
    last event's when it was free entry too, else $0 until House states it)."""
    sponsored = series.entry_mode == EntryMode.SPONSORED
    return {
        "entry_mode": series.entry_mode,
        "minimum_age": series.minimum_age,
        "contribution": 0 if sponsored or last is None else last.contribution,
        "sponsored_pool": (
            last.sponsored_pool
            if sponsored and last is not None and last.entry_mode == EntryMode.SPONSORED
            else 0
        ),
    }


def _defaults_to_apply(series: Series, event: Event) -> dict[str, Any]:
    """What a draft put in the series changes to take its defaults (nothing when it has them)."""
    changes: dict[str, Any] = {}
    if event.entry_mode != series.entry_mode:
        changes["entry_mode"] = series.entry_mode
        if series.entry_mode == EntryMode.SPONSORED:
            changes["contribution"] = 0
        else:
            changes["sponsored_pool"] = 0
    if event.minimum_age != series.minimum_age:
        changes["minimum_age"] = series.minimum_age
    return changes


def _house_of(series: Series) -> answers.SeriesHouseChanged:
    names = list(
        series.staff.order_by("user__display_name", "user__pk").values_list(
            "user__display_name", flat=True
        )
    )
    return answers.SeriesHouseChanged(series_id=series.pk, house=names)


def event_series_set(
    *, event_id: int, series_id: int | None, by: User, idempotency_key: str | None = None
) -> answers.EventSeriesSet:
    """House puts an event in a series (or takes it out) before it starts; a started event stays
    in its series (docs/rules.md section 14.1). A draft put in a series takes the series'
    defaults (`series_defaults_set`), changed by `event_update` so its audit says so."""
    moved: list[Series] = []  # the series a draft was put in, by this call (not a replay)

    def run() -> answers.EventSeriesSet:
        # One lock order everywhere: the series (the event's and the target, in id order), then
        # the event; its series is read first without a lock, and a move in between is refused.
        pk = _id(event_id, "event")
        was = series_id_of(pk)
        ids = sorted({i for i in (was, series_id) if isinstance(i, int) and 0 < i < 2**63})
        locked = {
            row.pk: row
            for row in Series.objects.select_for_update(no_key=True)
            .filter(pk__in=ids)
            .order_by("pk")
        }
        event = Event.objects.select_for_update(no_key=True).filter(pk=pk).first()
        house = event is not None and is_house(by, event)
        if event is None or (event.phase == Phase.DRAFT and not (house or by.is_staff)):
            raise NotFound("No such event.")  # a draft is not public (events.runner)
        if series_id_of(event.pk) != was:
            raise WrongState("The event moved to another series meanwhile: try again.")
        roles = roles_of(by, event.pk)
        if staff.acting_role(roles, "event_series_set") is None:
            if roles:
                raise NotAllowed(
                    f"Your role in this event ({staff.strongest(roles)}) does not include that "
                    "(event series set)."
                )
            raise NotAllowed("Only House of this event can move it.")
        target = None
        if series_id is not None:
            target = locked.get(_id(series_id, "series"))
            if target is None:
                raise NotFound("No such series.")
            require_series_role(by, target, "season_manage")
        if was == (None if target is None else target.pk):
            return answers.EventSeriesSet(event_id=event.pk, series_id=was)
        if event.phase in (Phase.STARTED, Phase.FINALIZED):
            raise WrongPhase("The event has started: it stays in its series.")
        if was is not None:
            require_series_role(
                by,
                locked[was],
                refusal="Only House of its series can take an event out of it.",
            )
        owner_before = _owner_of(event)
        if target is None:
            SeriesEvent.objects.filter(event=event).delete()
        else:
            SeriesEvent.objects.update_or_create(event=event, defaults={"series": target})
        runner.perform_within(
            event_id=event.pk,
            user=by,
            action="event_series_set",
            apply=lambda change: _ownership_follows(change, owner_before, target),
        )
        if target is not None and event.phase == Phase.DRAFT:
            moved.append(target)
        return answers.EventSeriesSet(
            event_id=event.pk, series_id=None if target is None else target.pk
        )

    answer = _once(
        by=by,
        idempotency_key=idempotency_key,
        action="event_series_set",
        request={"event_id": event_id, "series_id": series_id},
        answer=answers.EventSeriesSet,
        run=run,
    )
    if moved:
        event = Event.objects.get(pk=answer.event_id)
        changes = _defaults_to_apply(moved[0], event)
        if changes and event.phase == Phase.DRAFT:
            key = (idempotency_key or "").strip() or None
            events.event_update(
                event_id=event.pk,
                by=by,
                changes=changes,
                idempotency_key=None if key is None else f"{key}:defaults",
            )
    return answer


def _owner_of(event: Event) -> User | None:
    """Who owns the event: the series' owner for an event of a series, else its own owner."""
    return staff_reads.owner(series_of(event.pk) or event)


def _ownership_follows(change: runner.Change, owner: User | None, target: Series | None) -> None:
    """An event put in a series is owned by the series' owner: its own owner stays as director.
    An event taken out of one keeps the owner it had, now as its own (docs/decisions.md, "An
    event's owner in a series"). Recorded in the event's audit chain."""
    event = change.event
    own = event.staff.filter(role=Role.OWNER).select_related("user").first()
    if target is not None and own is not None:
        own.role = Role.DIRECTOR
        own.save(update_fields=["role"])
        change.audit(
            "staff_role_set",
            details={"member": own.user.display_name, "role": Role.DIRECTOR, "series": target.pk},
        )
    elif target is None and own is None and owner is not None:
        held = event.staff.filter(user=owner).first()
        if held is None:
            event.staff.create(user=owner, role=Role.OWNER)
            change.audit(
                "house_member_added", details={"member": owner.display_name, "role": Role.OWNER}
            )
        else:
            held.role = Role.OWNER
            held.save(update_fields=["role"])
            change.audit("ownership_transferred", details={"member": owner.display_name})


def series_next_event(
    *,
    series_id: int,
    by: User,
    date: datetime.date | None = None,
    idempotency_key: str | None = None,
) -> answers.NextEventCreated:
    """Create the series' next event from its last one's settings, a week later unless a date
    is given; a draft, as any new event (docs/rules.md section 14.1). A series with no event yet
    gets its first from the series' own settings and defaults, dated today at its venue."""
    key = (idempotency_key or "").strip() or None
    request = {"series_id": series_id, "date": date}
    if key is not None and (first := _replayed(by, key, "series_next_event", request)):
        return from_json(answers.NextEventCreated, first)
    series = Series.objects.filter(pk=_id(series_id, "series")).first()
    if series is None:
        raise NotFound("No such series.")
    require_series_role(by, series)
    last = Event.objects.filter(series=series).exclude(championship_of__isnull=False).first()
    when = next_event_date(series, last) if date is None else _date(date, "The date")
    created = events.event_create(
        by=by,
        **next_event_settings(series, last, when),
        scope_above_id=series.pk,
        idempotency_key=None if key is None else f"{key}:event",
    )
    return _once(
        by=by,
        idempotency_key=key,
        action="series_next_event",
        request=request,
        answer=answers.NextEventCreated,
        run=lambda: answers.NextEventCreated(
            series_id=series.pk, event_id=created.event_id, date=when.isoformat()
        ),
    )


# The dates and names "Next event" gives (docs/decisions.md, "Series pages") --------------------

FIRST_FORMAT = "league"  # a series' first event, before House chooses in its settings
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_NIGHT_DATE = re.compile(r" · (?:" + "|".join(_MONTHS) + r") \d{1,2}, \d{4}$")


def series_today(series: Series) -> datetime.date:
    """Today at the series' venue: the day every date a series page offers starts from, so a
    night in Chicago is never dated by the day it already is in UTC."""
    return timezone.localdate(timezone=zoneinfo.ZoneInfo(series.time_zone))


def next_event_date(series: Series, last: Event | None) -> datetime.date:
    """The date "Next event" gives when House gives none: a week after the series' last event,
    or today at the venue for its first."""
    return series_today(series) if last is None else last.date + DEFAULT_GAP


def next_season_start(series: Series) -> datetime.date:
    """The first day the series page offers a new season: today at the venue, or the day after
    the series' latest season when that one is still running, since seasons never overlap."""
    today = series_today(series)
    latest = Season.objects.filter(series=series).order_by("-ends_on").first()
    if latest is None or latest.ends_on < today:
        return today
    return latest.ends_on + datetime.timedelta(days=1)


def night_name(name: str, when: datetime.date) -> str:
    """A night's name: the series' (or last night's, without its date) and its own date, so
    the nights of a series are told apart in every list: "Thursday League · Dec 10, 2026"."""
    base = _NIGHT_DATE.sub("", name).strip() or name.strip()
    suffix = f" · {_MONTHS[when.month - 1]} {when.day}, {when.year}"
    return base[: limits.NAME_LENGTH - len(suffix)].rstrip() + suffix


def next_event_settings(series: Series, last: Event | None, when: datetime.date) -> dict[str, Any]:
    """The settings of the series' next event: the last event's, or for a series' first event
    its own venue and time zone, League, $0 and one extra deck; the series' defaults either way."""
    if last is None:
        return {
            "name": night_name(series.name, when),
            "date": when,
            "format": FIRST_FORMAT,
            "venue": series.venue,
            "time_zone": series.time_zone,
            **series_defaults(series),
        }
    return {
        "name": night_name(last.name, when),
        "date": when,
        "format": last.format,
        "extra_decks": last.extra_decks,
        "remainder_policy": last.remainder_policy,
        "venue": last.venue or series.venue,
        "time_zone": last.time_zone,
        "refund_policy": last.refund_policy,
        **series_defaults(series, last),
    }


# Display links ------------------------------------------------------------------------------------


def series_display_link_create(
    *, series_id: int, by: User, label: str, idempotency_key: str | None = None
) -> answers.SeriesDisplayLinkCreated:
    """House of the series (owner or director) makes a display link that shows the series'
    current event and follows it to the next one (events/display.py); its address is in the
    answer, shown this once. A series has no audit chain: the link's row records who made it."""

    def run() -> answers.SeriesDisplayLinkCreated:
        series = _lock_series(series_id, by, "display_link_create")
        link, token = display.new_link(by=by, label=label, scope=series)
        return answers.SeriesDisplayLinkCreated(
            series_id=series.pk,
            link_id=link.pk,
            label=link.label,
            path=display.display_path(token),
        )

    return _once(
        by=by,
        idempotency_key=idempotency_key,
        action="series_display_link_create",
        request={"series_id": series_id, "label": label},
        answer=answers.SeriesDisplayLinkCreated,
        run=run,
    )


def series_display_link_revoke(
    *, series_id: int, by: User, link_id: int, idempotency_key: str | None = None
) -> answers.SeriesDisplayLinkRevoked:
    """House of the series (owner or director) revokes one of its display links: its page and
    open sockets end (a link revoked already stays as it was)."""

    def run() -> answers.SeriesDisplayLinkRevoked:
        series = _lock_series(series_id, by, "display_link_revoke")
        link = (
            series.display_links.select_for_update().filter(pk=_id(link_id, "display link")).first()
        )
        if link is None:
            raise NotFound("No such display link.")
        if display.revoke(link, by=by, now=timezone.now()):
            transaction.on_commit(lambda: display.tell_revoked(link.pk))
        return answers.SeriesDisplayLinkRevoked(series_id=series.pk, link_id=link.pk)

    return _once(
        by=by,
        idempotency_key=idempotency_key,
        action="series_display_link_revoke",
        request={"series_id": series_id, "link_id": link_id},
        answer=answers.SeriesDisplayLinkRevoked,
        run=run,
    )


# Seasons ------------------------------------------------------------------------------------------


def season_create(
    *,
    series_id: int,
    by: User,
    name: str,
    starts_on: datetime.date,
    ends_on: datetime.date,
    rules: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> answers.SeasonSaved:
    """House of a series opens a season with its dates and points rules (defaults for the keys
    not given). Events already finalized within its dates count at once, and lock its rules."""

    def run() -> answers.SeasonSaved:
        series = _lock_series(series_id, by)
        first, last = _dates(starts_on, ends_on)
        _refuse_overlap(series, first, last, None)
        season = Season.objects.create(
            series=series,
            name=_name(name, "season"),
            starts_on=first,
            ends_on=last,
            rules=_rules(rules).as_dict(),
        )
        return _saved(season)

    saved = _once(
        by=by,
        idempotency_key=idempotency_key,
        action="season_create",
        request={
            "series_id": series_id,
            "name": name,
            "starts_on": starts_on,
            "ends_on": ends_on,
            "rules": rules,
        },
        answer=answers.SeasonSaved,
        run=run,
    )
    season = Season.objects.get(pk=saved.season_id)
    if standings.catch_up(season):
        season.refresh_from_db()
        return _saved(season)
    return saved


def season_update(
    *,
    season_id: int,
    by: User,
    name: str | None = None,
    starts_on: datetime.date | None = None,
    ends_on: datetime.date | None = None,
    rules: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> answers.SeasonSaved:
    """House changes a season's name, dates or rules. The rules lock at the first finalized event;
    the dates may never leave out an event that has started in the season."""

    def run() -> answers.SeasonSaved:
        season = _lock_season(season_id, by)
        if rules is not None:
            new_rules = _rules(rules).as_dict()
            if new_rules != season.rules:
                if season.locked_at is not None or season.results.exists():
                    raise WrongState(
                        "The season's rules are locked: an event of the season is finalized."
                    )
                season.rules = new_rules
        first, last = _dates(starts_on or season.starts_on, ends_on or season.ends_on)
        if (first, last) != (season.starts_on, season.ends_on):
            _refuse_overlap(season.series, first, last, season.pk)
            left_out = (
                Event.objects.filter(
                    series=season.series_id,
                    phase__in=[Phase.STARTED, Phase.FINALIZED],
                    date__gte=season.starts_on,
                    date__lte=season.ends_on,
                )
                .exclude(date__gte=first, date__lte=last)
                .exclude(championship_of__isnull=False)
                .order_by("date")
                .first()
            )
            if left_out is not None:
                raise WrongState(
                    f"Those dates leave out {left_out.name} of {left_out.date.isoformat()}, "
                    "which has started in this season."
                )
            season.starts_on, season.ends_on = first, last
        if name is not None:
            season.name = _name(name, "season")
        season.save(update_fields=["name", "starts_on", "ends_on", "rules"])
        return _saved(season)

    saved = _once(
        by=by,
        idempotency_key=idempotency_key,
        action="season_update",
        request={
            "season_id": season_id,
            "name": name,
            "starts_on": starts_on,
            "ends_on": ends_on,
            "rules": rules,
        },
        answer=answers.SeasonSaved,
        run=run,
    )
    return _counted_at_once(saved)


def _counted_at_once(saved: answers.SeasonSaved) -> answers.SeasonSaved:
    """A season whose days now hold finalized events of its series counts them at once, not
    when its export is next downloaded (docs/rules.md section 14.2)."""
    season = Season.objects.get(pk=saved.season_id)
    if standings.catch_up(season):
        season.refresh_from_db()
        return _saved(season)
    return saved


def _dates(starts_on: object, ends_on: object) -> tuple[datetime.date, datetime.date]:
    first, last = _date(starts_on, "The first date"), _date(ends_on, "The last date")
    if last < first:
        # 409 rather than 400: with one date given, the other is the season's own (its state).
        raise WrongState("A season ends on or after the day it starts.")
    return first, last


def _refuse_overlap(
    series: Series, first: datetime.date, last: datetime.date, season_id: int | None
) -> None:
    """An event counts in one season of its series: seasons of a series do not overlap."""
    others = Season.objects.filter(series=series, starts_on__lte=last, ends_on__gte=first)
    other = (others if season_id is None else others.exclude(pk=season_id)).first()
    if other is not None:
        raise WrongState(
            f"Those dates overlap {other.name} ({other.starts_on.isoformat()} to "
            f"{other.ends_on.isoformat()}): a series' seasons do not overlap."
        )


def _saved(season: Season) -> answers.SeasonSaved:
    return answers.SeasonSaved(
        season_id=season.pk,
        locked=season.locked_at is not None,
        counted_events=season.results.values("event_id").distinct().count(),
    )


def championship_create(
    *,
    season_id: int,
    by: User,
    date: datetime.date,
    idempotency_key: str | None = None,
) -> answers.ChampionshipCreated:
    """At the season's end, House creates its championship from the series' last event's
    settings, opens its registration and invites the qualified players, who see the invitation
    first (docs/rules.md section 14.6)."""
    key = (idempotency_key or "").strip() or None
    request = {"season_id": season_id, "date": date}
    if key is not None and (first := _replayed(by, key, "championship_create", request)):
        return from_json(answers.ChampionshipCreated, first)
    season = Season.objects.filter(pk=_id(season_id, "season")).select_related("series").first()
    if season is None:
        raise NotFound("No such season.")
    require_series_role(
        by, season.series, refusal="Only House of this season's series can do that."
    )
    when = _date(date, "The championship's date")
    if season.championship_id is not None:
        raise WrongState("The season already has its championship.")
    today = timezone.localdate(timezone=zoneinfo.ZoneInfo(season.series.time_zone))
    if today < season.ends_on:
        raise WrongState(f"The season runs until {season.ends_on.isoformat()}.")
    if when <= season.ends_on:  # dated after the season (docs/rules.md section 14.6)
        raise WrongState("The championship comes after the season's last day.")
    last = Event.objects.filter(series=season.series).exclude(championship_of__isnull=False).first()
    if last is None:
        raise WrongState("The series has no event to copy the settings of.")
    qualified = [row for row in season_table(season).rows if row.qualified]
    created = events.event_create(
        by=by,
        name=f"{season.name} Championship",
        date=when,
        format=last.format,
        extra_decks=last.extra_decks,
        remainder_policy=last.remainder_policy,
        venue=last.venue or season.series.venue,
        time_zone=last.time_zone,
        refund_policy=last.refund_policy,
        **series_defaults(season.series, last),
        scope_above_id=season.series_id,
        idempotency_key=None if key is None else f"{key}:event",
    )

    def run() -> answers.ChampionshipCreated:
        locked = _lock_season(season_id, by)
        if locked.championship_id not in (None, created.event_id):
            raise WrongState("The season already has its championship.")
        SeriesEvent.objects.update_or_create(
            event_id=created.event_id, defaults={"series": locked.series}
        )
        locked.championship_id = created.event_id
        try:
            locked.save(update_fields=["championship"])
        except IntegrityError:
            raise WrongState("That event is already a championship.") from None
        users = {
            key.user_id: key
            for key in PlayerKey.objects.filter(public_id__in=[r.player_id for r in qualified])
        }
        by_public = {key.public_id: user_id for user_id, key in users.items()}
        ChampionshipInvitation.objects.bulk_create(
            [
                ChampionshipInvitation(
                    season=locked, player_id=by_public[row.player_id], rank=row.rank
                )
                for row in qualified
                # A deleted account keeps its place in the table, but no one is left to invite.
                if row.player_id in by_public
            ],
            ignore_conflicts=True,
        )
        return answers.ChampionshipCreated(
            season_id=locked.pk,
            event_id=created.event_id,
            invited=[row.player_id for row in qualified if row.player_id in by_public],
        )

    answer = _once(
        by=by,
        idempotency_key=idempotency_key,
        action="championship_create",
        request=request,
        answer=answers.ChampionshipCreated,
        run=run,
    )
    events.registration_open(
        event_id=answer.event_id,
        by=by,
        idempotency_key=None if key is None else f"{key}:open",
    )
    return answer


__all__ = [
    "championship_create",
    "event_series_set",
    "season_create",
    "season_update",
    "series_create",
    "series_defaults_set",
    "series_house_add",
    "series_house_remove",
    "series_next_event",
    "series_ownership_transfer",
    "series_staff_invitation_accept",
    "series_staff_invite",
]
