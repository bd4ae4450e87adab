"""Every change to a series or a season, one function each; pages, the API and the commands call
these (docs/rules.md section 14).

Each runs through the engine's runner (`events.runner.action`), as an event's changes do: one
short transaction that locks the series (before any of its events), guards the actor's role in it
(staff/roles.py), chains its audit entries in the series' own audit (docs/audit.md, "A series'
audit") and stores its answer under the request's Idempotency-Key (a retry with the same key gets
the first answer, refusals included; the same key with different content is refused). The series
is the runner's scope above events (seasons/scope.py). Events themselves change only through
`events.services`.
"""

from __future__ import annotations

import datetime
import re
import zoneinfo
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, TypeGuard

from django.conf import settings
from django.db import IntegrityError
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from events import limits, runner
from events import services as events
from events.errors import (
    Invalid,
    NotAllowed,
    NotFound,
    OrganizationSuspended,
    WrongPhase,
    WrongState,
)
from events.limits import check_text
from events.models import EntryMode, Event, Phase
from events.runner import Change, Earlier, action
from helpers.errors import no_such
from organizations.models import Organization, Venue
from seasons import answers, standings
from seasons.models import (
    MAX_CAPACITY,
    MAX_HOLD_MINUTES,
    MAX_OPENS_DAYS_BEFORE,
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
from staff import roles as staff_roles
from staff.roles import SITE_STAFF, Role

NAME_LENGTH = 120
DEFAULT_GAP = datetime.timedelta(days=7)  # "Next event": a week after the last one

# The refusal of a season's change to someone who holds no role in its series.
SEASON_REFUSAL = gettext_lazy("Only House of this season's series can do that.")
# The rule-table name of the seasons and the series' events: a director's and the owner's.
SEASON_MANAGE = "season_manage"


def is_series_house(user: User | None, series: Series) -> bool:
    """Whether `user` is House of the series: a role in it or in its organization (the
    runner's one chain of scopes), a superuser's included."""
    return staff_roles.may_see(runner.scope_roles(user, series.pk), "house")


def series_roles(user: User | None, series: Series) -> frozenset[str]:
    """The roles `user` holds in a series (staff/roles.py); a superuser is owner."""
    return runner.scope_roles(user, series.pk)


def require_series_role(
    user: User | None,
    series: Series,
    action: str = SEASON_MANAGE,
    refusal: str = "Only House of this series can do that.",
) -> None:
    """House of the series whose role may `action`: the runner's guard of a series' changes
    (`events.runner.require_above`), for the pages that show a form only to those it serves."""
    runner.require_above(user, series.pk, action, refusal)


def _the_series(arguments: Mapping[str, Any]) -> Sequence[int]:
    """The series a change names, locked by the runner before anything else."""
    return (_id(arguments["series_id"], "series"),)


def _series_of_season(arguments: Mapping[str, Any]) -> Sequence[int]:
    """The series of the season a change names (a season never moves to another series)."""
    season_id = _id(arguments["season_id"], "season")
    series_id = Season.objects.filter(pk=season_id).values_list("series_id", flat=True).first()
    if series_id is None:
        raise NotFound(_("No such season."))
    return (series_id,)


def _id(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63:
        raise no_such(what)
    return value


def _name(value: object, what: str) -> str:
    label, needed = {
        "series": (
            _("The series' name"),
            _("A series needs a name of 1 to %(length)s characters."),
        ),
        "season": (
            _("The season's name"),
            _("A season needs a name of 1 to %(length)s characters."),
        ),
    }[what]
    name = check_text(value, label=label, max_length=NAME_LENGTH)
    if not name:
        raise Invalid(needed % {"length": NAME_LENGTH})
    return name


def _time_zone(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise Invalid(_("The time zone must be an IANA name such as Europe/Amsterdam."))
    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise Invalid(
            _("Unknown time zone %(zone)s: use an IANA name.") % {"zone": repr(value)}
        ) from None
    return value


def _rules(raw: object) -> Rules:
    try:
        return Rules.from_dict({} if raw is None else raw)
    except RulesProblem as problem:
        # The rules' module is pure (anyone recomputes a season with it): its English sentence is
        # said here in the reader's language.
        said = _(problem.template)
        raise Invalid(said % problem.params if problem.params else said) from None


def _date(value: object, what: str) -> datetime.date:
    if isinstance(value, datetime.datetime) or not isinstance(value, datetime.date):
        if isinstance(value, str):
            try:
                return datetime.date.fromisoformat(value)
            except ValueError:
                pass
        raise Invalid(_("%(what)s must be a date (YYYY-MM-DD).") % {"what": what})
    return value


# Series -------------------------------------------------------------------------------------------


def _organization_of(arguments: Mapping[str, Any]) -> Sequence[int]:
    """The organization a new series is made in, locked first."""
    value = arguments.get("organization_id")
    if value is None:
        return []
    return [value] if isinstance(value, int) and not isinstance(value, bool) else [0]


@action(
    "series_create",
    creates_scope=True,
    above_of=_organization_of,
    scope_model=Organization,
    missing="organization",
)
def series_create(
    change: Change,
    *,
    by: User,
    name: str,
    venue: str = "",
    time_zone: str = "UTC",
    organization_id: int | None = None,
    venue_id: int | None = None,
    idempotency_key: str | None = None,
) -> answers.SeriesCreated:
    """Site staff open a series; they become its owner. Its audit starts with the series and
    its first staff member, both made as site staff. In an organization (`organization_id`), its
    owner or a director opens it, at one of its venues (`venue_id`, whose name and time zone
    it takes): their organization role holds in it, so it starts with no staff of its own."""
    organization: Organization | None = change.scope
    role = SITE_STAFF
    if organization is not None:
        if organization.suspended:
            raise OrganizationSuspended()
        role = runner.require_above(by, organization.pk, "series_create", model=Organization)
    elif not by.is_staff:
        raise NotAllowed(_("Only site staff create series."))
    if venue_id is not None:
        place = Venue.objects.filter(pk=venue_id, organization=organization).first()
        if organization is None or place is None:
            raise NotFound(_("No such venue."))
        venue, time_zone = place.name, place.time_zone
    series = Series.objects.create(
        name=_name(name, "series"),
        venue=check_text(venue, label=_("The venue"), max_length=NAME_LENGTH),
        time_zone=_time_zone(time_zone),
        **({} if organization is None else {"organization": organization}),
    )
    change.scope = series
    change.act_as(role)
    change.audit(
        "series_created",
        details={"name": series.name, "venue": series.venue, "time_zone": series.time_zone},
    )
    if organization is None:
        series.staff.create(user=by, role=Role.OWNER)
        change.audit("house_member_added", details={"member": by.display_name, "role": Role.OWNER})
    return answers.SeriesCreated(series_id=series.pk)


class Unchanged:
    """A default `series_defaults_set` is not asked to change (None clears the clearable ones)."""

    def __repr__(self) -> str:  # how it counts in the idempotency fingerprint
        return "<unchanged>"


UNCHANGED = Unchanged()


@action("series_defaults_set", above_of=_the_series)
def series_defaults_set(
    change: Change,
    *,
    series_id: int,
    by: User,
    entry_mode: str | None = None,
    minimum_age: int | None = None,
    capacity: int | Unchanged | None = UNCHANGED,
    hold_minutes: int | None = None,
    day_hold_minutes: int | None = None,
    pay_ahead: bool | None = None,
    registration_opens_days_before: int | Unchanged | None = UNCHANGED,
    registration_closes_time: datetime.time | Unchanged | None = UNCHANGED,
    language: str | None = None,
    idempotency_key: str | None = None,
) -> answers.SeriesDefaultsSaved:
    """The owner or a director sets the defaults the series' events take when they are made or
    put in the series as drafts: the entry mode, the age players confirm (0: none), and
    registration ahead: capacity (None: no cap), hold times, paying ahead and the window as
    offsets from each event's date (None: no bound). Events already in the series keep their
    own settings."""
    change.require_house()
    series: Series = change.scope
    wanted: dict[str, Any] = {}
    if entry_mode is not None:
        if entry_mode not in EntryMode.values:
            raise Invalid(_('The entry mode is "paid" or "sponsored".'))
        wanted["entry_mode"] = entry_mode
    if minimum_age is not None:
        wanted["minimum_age"] = _whole_in(
            minimum_age, 0, 99, _("The minimum age is a whole number from 0 (none asked) to 99.")
        )
    if not isinstance(capacity, Unchanged):
        wanted["capacity"] = (
            None
            if capacity is None
            else _whole_in(
                capacity,
                1,
                MAX_CAPACITY,
                _(
                    "The capacity is a whole number of players from 1 to %(max_capacity)s, or "
                    "empty for no cap."
                )
                % {"max_capacity": f"{MAX_CAPACITY:,}"},
            )
        )
    for name, value, words in (
        ("hold_minutes", hold_minutes, _("The hold before the event's day")),
        ("day_hold_minutes", day_hold_minutes, _("The hold on the event's day")),
    ):
        if value is not None:
            wanted[name] = _whole_in(
                value,
                1,
                MAX_HOLD_MINUTES,
                _("%(words)s is 1 to %(most)s minutes.")
                % {"words": words, "most": MAX_HOLD_MINUTES},
            )
    if pay_ahead is not None:
        if not isinstance(pay_ahead, bool):
            raise Invalid(_("Paying ahead is true or false."))
        wanted["pay_ahead"] = pay_ahead
    if not isinstance(registration_opens_days_before, Unchanged):
        wanted["registration_opens_days_before"] = (
            None
            if registration_opens_days_before is None
            else _whole_in(
                registration_opens_days_before,
                0,
                MAX_OPENS_DAYS_BEFORE,
                _(
                    "Registration opens 0 to %(most)s days before the event, or empty for when "
                    "House opens it."
                )
                % {"most": MAX_OPENS_DAYS_BEFORE},
            )
        )
    if not isinstance(registration_closes_time, Unchanged):
        if registration_closes_time is not None and not isinstance(
            registration_closes_time, datetime.time
        ):
            raise Invalid(_("Registration closes at a time of day (HH:MM), or empty for no bound."))
        wanted["registration_closes_time"] = registration_closes_time
    if language is not None:
        if language and language not in dict(settings.LANGUAGES):
            codes = ", ".join(code for code, _ in settings.LANGUAGES)
            raise Invalid(f"The language is one of {codes}, or empty for the venue's.")
        wanted["language"] = language
    diff = {name: value for name, value in wanted.items() if getattr(series, name) != value}
    for name, value in diff.items():
        setattr(series, name, value)
    if diff:
        series.save(update_fields=sorted(diff))
        change.audit(
            "series_defaults_set",
            details={
                "changes": {
                    name: value.isoformat(timespec="minutes")
                    if isinstance(value, datetime.time)
                    else value
                    for name, value in diff.items()
                }
            },
        )
    return answers.SeriesDefaultsSaved(
        series_id=series.pk,
        entry_mode=series.entry_mode,
        minimum_age=series.minimum_age,
        capacity=series.capacity,
        hold_minutes=series.hold_minutes,
        day_hold_minutes=series.day_hold_minutes,
        pay_ahead=series.pay_ahead,
        registration_opens_days_before=series.registration_opens_days_before,
        registration_closes_time=(
            None
            if series.registration_closes_time is None
            else series.registration_closes_time.isoformat(timespec="minutes")
        ),
        language=series.language,
    )


def _whole_in(value: object, low: int, high: int, message: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Invalid(message)
    return value


def series_defaults(series: Series, last: Event | None = None) -> dict[str, Any]:
    """The entry settings a new event of the series takes: the series' entry mode and age; a
    free-entry event takes no contribution, and the sponsored pool is each night's own (the
    last event's when it was free entry too, else $0 until House states it)."""
    sponsored = series.entry_mode == EntryMode.SPONSORED
    return {
        "entry_mode": series.entry_mode,
        "minimum_age": series.minimum_age,
        "language": series.language,
        "contribution": 0 if sponsored or last is None else last.contribution,
        "sponsored_pool": (
            last.sponsored_pool
            if sponsored and last is not None and last.entry_mode == EntryMode.SPONSORED
            else 0
        ),
    }


def registration_defaults(series: Series, date: datetime.date, time_zone: str) -> dict[str, Any]:
    """The registration settings an event of the series on `date` at a venue in `time_zone`
    takes: capacity, hold times, paying ahead, and the window the series' offsets give: opening
    at midnight `registration_opens_days_before` days before the date, closing at
    `registration_closes_time` on it (docs/decisions.md, "Series defaults")."""
    zone = zoneinfo.ZoneInfo(time_zone)
    days = series.registration_opens_days_before
    closes = series.registration_closes_time
    return {
        "capacity": series.capacity,
        "hold_minutes": series.hold_minutes,
        "day_hold_minutes": series.day_hold_minutes,
        "pay_ahead": series.pay_ahead,
        "registration_opens_at": (
            None
            if days is None
            else datetime.datetime.combine(
                date - datetime.timedelta(days=days), datetime.time(0), tzinfo=zone
            )
        ),
        "registration_closes_at": (
            None if closes is None else datetime.datetime.combine(date, closes, tzinfo=zone)
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
    for name, value in registration_defaults(series, event.date, event.time_zone).items():
        if getattr(event, name) != value:
            changes[name] = value
    return changes


def _series_around(arguments: Mapping[str, Any]) -> Sequence[int]:
    """The series an event is in (read before any lock) and the one it is put in: both locked,
    in id order, before the event (one lock order everywhere); a move in between is refused."""
    event_id = arguments["event_id"]
    was = series_id_of(event_id) if _is_id(event_id) else None
    return [i for i in (was, arguments["series_id"]) if _is_id(i)]


def _is_id(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63


def event_series_set(
    *, event_id: int, series_id: int | None, by: User, idempotency_key: str | None = None
) -> answers.EventSeriesSet:
    """House puts an event in a series (or takes it out) before it starts; a started event stays
    in its series (docs/rules.md section 14.1). A draft put in a series takes the series'
    defaults (`series_defaults_set`), changed by `event_update` so its audit says so."""
    was = series_id_of(event_id) if _is_id(event_id) else None
    answer = _event_series_set(
        event_id=event_id, series_id=series_id, by=by, idempotency_key=idempotency_key
    )
    if answer.series_id is not None and answer.series_id != was:
        event = Event.objects.get(pk=answer.event_id)
        series = Series.objects.get(pk=answer.series_id)
        changes = _defaults_to_apply(series, event)
        if changes and event.phase == Phase.DRAFT:
            key = (idempotency_key or "").strip() or None
            events.event_update(
                event_id=event.pk,
                by=by,
                changes=changes,
                idempotency_key=None if key is None else f"{key}:defaults",
            )
    return answer


@action(
    "event_series_set",
    above_of=_series_around,
    refused=gettext_lazy("Only House of this event can move it."),
)
def _event_series_set(
    change: Change,
    *,
    event_id: int,
    series_id: int | None,
    by: User,
    idempotency_key: str | None = None,
) -> answers.EventSeriesSet:
    """The move itself: the series locked (the event's and the target, in id order), then the
    event; each series' audit records the event put in or taken out."""
    event = change.event
    source = series_id_of(event.pk)
    if source is not None and source not in change.scopes:
        raise WrongState(_("The event moved to another series meanwhile: try again."))
    change.require_house()
    target: Series | None = None
    if series_id is not None:
        target = change.scopes.get(_id(series_id, "series"))
        if target is None:
            raise NotFound(_("No such series."))
        runner.require_above(by, target.pk, SEASON_MANAGE)
        if target.organization_id != event.organization_id:
            # One House may run two organizations: their nights and seasons stay apart.
            raise Invalid(
                _(
                    "This series belongs to another organization: an event joins a series of its "
                    "own organization."
                )
            )
    if source == (None if target is None else target.pk):
        return answers.EventSeriesSet(event_id=event.pk, series_id=source)
    if event.phase in (Phase.STARTED, Phase.FINALIZED):
        raise WrongPhase(_("The event has started: it stays in its series."))
    if source is not None:
        runner.require_above(
            by, source, SEASON_MANAGE, "Only House of its series can take an event out of it."
        )
    owner_before = _owner_of(event)
    if target is None:
        SeriesEvent.objects.filter(event=event).delete()
    else:
        SeriesEvent.objects.update_or_create(event=event, defaults={"series": target})
    _ownership_follows(change, owner_before, target)
    shown = {"event": event.pk, "name": event.name, "date": event.date.isoformat()}
    if source is not None:
        change.audit_above(source, "event_taken_out_of_series", details=shown, power=SEASON_MANAGE)
    if target is not None:
        change.audit_above(target.pk, "event_put_in_series", details=shown, power=SEASON_MANAGE)
    return answers.EventSeriesSet(
        event_id=event.pk, series_id=None if target is None else target.pk
    )


def _owner_of(event: Event) -> User | None:
    """Who owns the event: the series' owner for an event of a series, else its own owner."""
    return staff_reads.owner(series_of(event.pk) or event)


def _ownership_follows(change: Change, owner: User | None, target: Series | None) -> None:
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
    gets its first from the series' own settings and defaults, dated today at its venue.

    Two steps, each a change of its own under its own key: the event made (`event_create`, in
    the event's audit), then the series' audit records it; a retry replays the whole."""
    key = (idempotency_key or "").strip() or None
    request = {"series_id": series_id, "date": date}
    first = runner.stored_answer(by, key, "series_next_event", request, answers.NextEventCreated)
    if first is not None:
        return first
    series = Series.objects.filter(pk=_id(series_id, "series")).first()
    if series is None:
        raise NotFound(_("No such series."))
    runner.require_above(by, series.pk, SEASON_MANAGE)
    last = Event.objects.filter(series=series).exclude(championship_of__isnull=False).first()
    when = next_event_date(series, last) if date is None else _date(date, _("The date"))
    created = events.event_create(
        by=by,
        **next_event_settings(series, last, when),
        scope_above_id=series.pk,
        idempotency_key=None if key is None else f"{key}:event",
    )
    return _next_event_made(
        series_id=series_id,
        by=by,
        date=date,
        made=(created.event_id, when.isoformat()),
        idempotency_key=key,
    )


@action("series_next_event", above_of=_the_series, power=SEASON_MANAGE)
def _next_event_made(
    change: Change,
    *,
    series_id: int,
    by: User,
    date: datetime.date | None,
    made: Annotated[tuple[int, str], Earlier()],
    idempotency_key: str | None = None,
) -> answers.NextEventCreated:
    """The series' audit records the event "Next event" made (`series_next_event`)."""
    change.require_house()
    event_id, when = made
    change.audit("next_event_created", details={"event": event_id, "date": when})
    return answers.NextEventCreated(series_id=change.scope.pk, event_id=event_id, date=when)


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
            **registration_defaults(series, when, series.time_zone),
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
        **registration_defaults(series, when, last.time_zone),
    }


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
    saved = _season_create(
        series_id=series_id,
        by=by,
        name=name,
        starts_on=starts_on,
        ends_on=ends_on,
        rules=rules,
        idempotency_key=idempotency_key,
    )
    return _counted_at_once(saved)


@action("season_create", above_of=_the_series, power=SEASON_MANAGE)
def _season_create(
    change: Change,
    *,
    series_id: int,
    by: User,
    name: str,
    starts_on: datetime.date,
    ends_on: datetime.date,
    rules: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> answers.SeasonSaved:
    change.require_house()
    series: Series = change.scope
    first, last = _dates(starts_on, ends_on)
    _refuse_overlap(series, first, last, None)
    season = Season.objects.create(
        series=series,
        name=_name(name, "season"),
        starts_on=first,
        ends_on=last,
        rules=_rules(rules).as_dict(),
    )
    change.audit(
        "season_created",
        details={
            "season": season.pk,
            "name": season.name,
            "starts_on": first.isoformat(),
            "ends_on": last.isoformat(),
            "rules": season.rules,
        },
    )
    return _saved(season)


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
    saved = _season_update(
        season_id=season_id,
        by=by,
        name=name,
        starts_on=starts_on,
        ends_on=ends_on,
        rules=rules,
        idempotency_key=idempotency_key,
    )
    return _counted_at_once(saved)


@action("season_update", above_of=_series_of_season, power=SEASON_MANAGE, refused=SEASON_REFUSAL)
def _season_update(
    change: Change,
    *,
    season_id: int,
    by: User,
    name: str | None = None,
    starts_on: datetime.date | None = None,
    ends_on: datetime.date | None = None,
    rules: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> answers.SeasonSaved:
    change.require_house()
    season = Season.objects.select_for_update().get(pk=season_id)
    diff: dict[str, Any] = {}
    if rules is not None:
        new_rules = _rules(rules).as_dict()
        if new_rules != season.rules:
            if season.locked_at is not None or season.results.exists():
                raise WrongState(
                    _("The season's rules are locked: an event of the season is finalized.")
                )
            season.rules = diff["rules"] = new_rules
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
                _("Those dates leave out %(name)s of %(date)s, which has started in this season.")
                % {"name": left_out.name, "date": left_out.date.isoformat()}
            )
        if first != season.starts_on:
            diff["starts_on"] = first.isoformat()
        if last != season.ends_on:
            diff["ends_on"] = last.isoformat()
        season.starts_on, season.ends_on = first, last
    if name is not None:
        season.name = _name(name, "season")
        if season.name != Season.objects.values_list("name", flat=True).get(pk=season.pk):
            diff["name"] = season.name
    season.save(update_fields=["name", "starts_on", "ends_on", "rules"])
    if diff:
        change.audit("season_updated", details={"season": season.pk, "changes": diff})
    return _saved(season)


def _counted_at_once(saved: answers.SeasonSaved) -> answers.SeasonSaved:
    """A season whose days now hold finalized events of its series counts them at once, not
    when its export is next downloaded (docs/rules.md section 14.2)."""
    season = Season.objects.get(pk=saved.season_id)
    if standings.catch_up(season):
        season.refresh_from_db()
        return _saved(season)
    return saved


def _dates(starts_on: object, ends_on: object) -> tuple[datetime.date, datetime.date]:
    first, last = _date(starts_on, _("The first date")), _date(ends_on, _("The last date"))
    if last < first:
        # 409 rather than 400: with one date given, the other is the season's own (its state).
        raise WrongState(_("A season ends on or after the day it starts."))
    return first, last


def _refuse_overlap(
    series: Series, first: datetime.date, last: datetime.date, season_id: int | None
) -> None:
    """An event counts in one season of its series: seasons of a series do not overlap."""
    others = Season.objects.filter(series=series, starts_on__lte=last, ends_on__gte=first)
    other = (others if season_id is None else others.exclude(pk=season_id)).first()
    if other is not None:
        raise WrongState(
            _(
                "Those dates overlap %(name)s (%(starts)s to %(ends)s): a series' seasons do "
                "not overlap."
            )
            % {
                "name": other.name,
                "starts": other.starts_on.isoformat(),
                "ends": other.ends_on.isoformat(),
            }
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
    first (docs/rules.md section 14.6).

    Three steps, each a change of its own under its own key: the event made (in its audit), the
    season given its championship (in the series' audit), its registration opened."""
    key = (idempotency_key or "").strip() or None
    request = {"season_id": season_id, "date": date}
    first = runner.stored_answer(
        by, key, "championship_create", request, answers.ChampionshipCreated
    )
    if first is not None:
        return first
    season = Season.objects.filter(pk=_id(season_id, "season")).select_related("series").first()
    if season is None:
        raise NotFound(_("No such season."))
    runner.require_above(by, season.series_id, SEASON_MANAGE, SEASON_REFUSAL)
    when = _date(date, _("The championship's date"))
    if season.championship_id is not None:
        raise WrongState(_("The season already has its championship."))
    today = timezone.localdate(timezone=zoneinfo.ZoneInfo(season.series.time_zone))
    if today < season.ends_on:
        raise WrongState(
            _("The season runs until %(date)s.") % {"date": season.ends_on.isoformat()}
        )
    if when <= season.ends_on:  # dated after the season (docs/rules.md section 14.6)
        raise WrongState(_("The championship comes after the season's last day."))
    last = Event.objects.filter(series=season.series).exclude(championship_of__isnull=False).first()
    if last is None:
        raise WrongState(_("The series has no event to copy the settings of."))
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
        **registration_defaults(season.series, when, last.time_zone),
        scope_above_id=season.series_id,
        idempotency_key=None if key is None else f"{key}:event",
    )
    answer = _championship_made(
        season_id=season_id,
        by=by,
        date=date,
        made=created.event_id,
        qualified=tuple((row.player_id, row.rank) for row in qualified),
        idempotency_key=key,
    )
    events.registration_open(
        event_id=answer.event_id,
        by=by,
        idempotency_key=None if key is None else f"{key}:open",
    )
    return answer


@action(
    "championship_create",
    above_of=_series_of_season,
    power=SEASON_MANAGE,
    refused=SEASON_REFUSAL,
)
def _championship_made(
    change: Change,
    *,
    season_id: int,
    by: User,
    date: datetime.date,
    made: Annotated[int, Earlier()],
    qualified: Annotated[tuple[tuple[str, int], ...], Earlier()],
    idempotency_key: str | None = None,
) -> answers.ChampionshipCreated:
    """The season takes the event made as its championship and invites the qualified players;
    the series' audit records it (the players counted, not named)."""
    change.require_house()
    locked = Season.objects.select_for_update().get(pk=season_id)
    if locked.championship_id not in (None, made):
        raise WrongState(_("The season already has its championship."))
    SeriesEvent.objects.update_or_create(event_id=made, defaults={"series": locked.series})
    locked.championship_id = made
    try:
        locked.save(update_fields=["championship"])
    except IntegrityError:
        raise WrongState(_("That event is already a championship.")) from None
    users = {
        key.user_id: key
        for key in PlayerKey.objects.filter(public_id__in=[player for player, _ in qualified])
    }
    by_public = {key.public_id: user_id for user_id, key in users.items()}
    ChampionshipInvitation.objects.bulk_create(
        [
            ChampionshipInvitation(season=locked, player_id=by_public[player], rank=rank)
            for player, rank in qualified
            # A deleted account keeps its place in the table, but no one is left to invite.
            if player in by_public
        ],
        ignore_conflicts=True,
    )
    invited = [player for player, _ in qualified if player in by_public]
    change.audit(
        "championship_created",
        details={"season": locked.pk, "event": made, "invited": len(invited)},
    )
    return answers.ChampionshipCreated(season_id=locked.pk, event_id=made, invited=invited)


__all__ = [
    "championship_create",
    "event_series_set",
    "season_create",
    "season_update",
    "series_create",
    "series_defaults_set",
    "series_next_event",
]
