"""Event lifecycle: create, edit, House members, registration switch, start, pool, finalize."""

from __future__ import annotations

import datetime
import zoneinfo
from collections.abc import Mapping, Sequence
from typing import Any, cast

from django.conf import settings
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from audit.heads import finalizing_head
from cards.stock import build_shoes, seed_hex, stock_size
from events import answers, limits, waitlist
from events.errors import (
    CapacityBelowField,
    FinalizationBlocked,
    Invalid,
    NotAllowed,
    NotFound,
    OrganizationSuspended,
    PaidEntriesExist,
    PoolLocked,
    PoolNotConfirmed,
    RegistrationIsClosed,
    RemainderPolicyRequired,
    WrongPhase,
    WrongState,
)
from events.formats import FORMATS
from events.limits import check_pool, check_text
from events.models import (
    EntryMode,
    Event,
    Phase,
    PoolAdjustment,
    RefundPolicy,
    Registration,
    RegistrationStatus,
)
from events.money import MINUS, dollars
from events.progress import blockers, final_standings, participants
from events.registration import deal_starting_offer
from events.registration_switch import close_registration, why_registration_cannot_open
from events.remainder_policy import lacks_remainder_policy, require_remainder_policy
from events.runner import (
    Change,
    action,
    place_above,
    require_above,
    roles_above,
    scope_exists,
    stranger_above,
)
from organizations.models import Organization, Venue
from organizations.services import refuse_past_cap
from payouts.allocation import allocate
from staff.roles import (
    Role,
    acting_role,
)

EDITABLE = (
    "name",
    "venue",
    "date",
    "time_zone",
    "format",
    "contribution",
    "extra_decks",
    "remainder_policy",
    "entry_mode",
    "sponsored_pool",
    "refund_policy",
    "minimum_age",
    # Registration ahead and the waitlist (events/waitlist.py).
    "registration_opens_at",
    "registration_closes_at",
    "capacity",
    "hold_minutes",
    "day_hold_minutes",
    "pay_ahead",
    # The board's and the printed sheets' language (blank: the deployment's).
    "language",
)

_WORDS = {
    "contribution": gettext_lazy("the contribution"),
    "remainder_policy": gettext_lazy("the remainder policy"),
    "entry_mode": gettext_lazy("the entry mode"),
}

# The settings event_created records only when they differ from these (older audits have none).
_DEFAULTS: dict[str, Any] = {
    "entry_mode": EntryMode.PAID.value,
    "sponsored_pool": 0,
    "refund_policy": RefundPolicy.CANCELLATIONS.value,
    "minimum_age": 0,
    "registration_opens_at": None,
    "registration_closes_at": None,
    "capacity": None,
    "hold_minutes": 30,
    "day_hold_minutes": 10,
    "pay_ahead": False,
    "language": "",
}


def _organization_of(arguments: Mapping[str, Any]) -> Sequence[int]:
    """The organization a new event is made in, locked first: its monthly cap counts in turn."""
    value = arguments.get("organization_id")
    if value is None:
        return []
    return [value] if isinstance(value, int) and not isinstance(value, bool) else [0]


@action(
    "event_create",
    creates_event=True,
    above_of=_organization_of,
    scope_model=Organization,
)
def event_create(
    change: Change,
    *,
    by: User,
    name: str,
    date: datetime.date,
    format: str,
    contribution: int = 0,
    extra_decks: int = 1,
    remainder_policy: str = "",
    venue: str = "",
    time_zone: str = "UTC",
    entry_mode: str = EntryMode.PAID.value,
    sponsored_pool: int = 0,
    refund_policy: str = RefundPolicy.CANCELLATIONS.value,
    minimum_age: int = 0,
    registration_opens_at: datetime.datetime | None = None,
    registration_closes_at: datetime.datetime | None = None,
    capacity: int | None = None,
    hold_minutes: int = 30,
    day_hold_minutes: int = 10,
    pay_ahead: bool = False,
    language: str = "",
    scope_above_id: int | None = None,
    organization_id: int | None = None,
    venue_id: int | None = None,
    idempotency_key: str | None = None,
) -> answers.EventCreated:
    """Site staff create an event in draft; they become its owner. In a series (`scope_above_id`:
    the series' "Next event" and championship; the series' layer keeps which events are in it,
    `events.runner.use_scope_above`), House of the series whose role may make its events
    create it too: its owner is the series' owner, through the series (an event of a series has
    no owner of its own: docs/decisions.md, "An event's owner in a series"), and the creator
    acts in their series role, which holds in every event of the series; site staff outside the
    series' staff are the event's director. In an organization (`organization_id`), its owner
    and directors create it, their organization role holding in it; the operator's monthly cap
    counted, at one of its venues (`venue_id`) whose name and time zone it takes."""
    given: dict[str, Any] = {
        "name": name,
        "venue": venue,
        "date": date,
        "time_zone": time_zone,
        "format": format,
        "contribution": contribution,
        "extra_decks": extra_decks,
        "remainder_policy": remainder_policy,
        "entry_mode": entry_mode,
        "sponsored_pool": sponsored_pool,
        "refund_policy": refund_policy,
        "minimum_age": minimum_age,
        "registration_opens_at": registration_opens_at,
        "registration_closes_at": registration_closes_at,
        "capacity": capacity,
        "hold_minutes": hold_minutes,
        "day_hold_minutes": day_hold_minutes,
        "pay_ahead": pay_ahead,
        "language": language,
    }
    organization = _organization_for(change, by, organization_id, scope_above_id)
    place = _venue_of(organization, venue_id)
    if place is not None:
        given.update(venue=place.name, time_zone=place.time_zone)
    if organization is not None and scope_above_id is None:
        member = None  # their organization role holds in it
    elif scope_above_id is None and not by.is_staff:
        raise NotAllowed(_("Only site staff, or House of an organization, create events."))
    else:
        member = by if scope_above_id is None else _creator_in_series(by, scope_above_id)
    cleaned = _clean_settings(given)
    if organization is not None:
        cleaned.update(organization=organization, place=place)
    event = change.event = Event.objects.create(**cleaned)
    if scope_above_id is not None:
        place_above(event, scope_above_id)
    role = Role.OWNER if scope_above_id is None else Role.DIRECTOR
    if member is not None:
        event.staff.create(user=member, role=role)
    change.house = True
    change.audit(
        "event_created",
        details={
            "name": event.name,
            "format": event.format,
            "contribution": event.contribution,
            "extra_decks": event.extra_decks,
            "venue": event.venue,
            "date": event.date.isoformat(),
            "time_zone": event.time_zone,
            **{
                key: _plain(getattr(event, key))
                for key, default in _DEFAULTS.items()
                if getattr(event, key) != default
            },
        },
    )
    if member is not None:
        details = {"member": member.display_name}
        change.audit(
            "house_member_added",
            details=details if role == Role.OWNER else {**details, "role": role},
        )
    return answers.EventCreated(event_id=event.pk)


def _organization_for(
    change: Change, by: User, organization_id: int | None, series_id: int | None
) -> Organization | None:
    """The organization a new event is made in, guarded: its owner or a director (the rule
    table's `event_create`), never while suspended, within the operator's monthly cap. An
    event of a series is in the series' organization."""
    if organization_id is None and series_id is not None:
        organization = Organization.objects.filter(series=series_id).first()
        if organization is not None:
            refuse_past_cap(organization, change.now)
        return organization
    if organization_id is None:
        return None
    organization = change.scopes.get(organization_id)
    if organization is None:
        raise NotFound(_("No such organization."))
    if organization.suspended:
        raise OrganizationSuspended()
    require_above(by, organization.pk, "event_create", model=Organization)
    refuse_past_cap(organization, change.now)
    return cast(Organization, organization)


def _venue_of(organization: Organization | None, venue_id: int | None) -> Venue | None:
    """One of the organization's own venues (another's answers as a missing one)."""
    if venue_id is None:
        return None
    venue = (
        Venue.objects.filter(pk=venue_id, organization=organization).first()
        if organization is not None and isinstance(venue_id, int)
        else None
    )
    if venue is None:
        raise NotFound(_("No such venue."))
    return venue


def _creator_in_series(by: User, series_id: int) -> User | None:
    """Who joins the staff of an event made in a series: nobody when the creator's series role
    may make the series' events (a director's and the owner's: `series_next_event`), since
    their series role holds in it; site staff outside that, as its director. The series' staff
    live with the series (seasons/), which installs them as the scope above events
    (`events.runner.use_scope_above`)."""
    if not scope_exists(series_id):
        raise NotFound(_("No such series."))
    roles = roles_above(by.pk, series_id)
    if acting_role(roles, "series_next_event") is not None:
        return None
    if by.is_staff:
        return by
    if not roles and (unknown := stranger_above(by, series_id)):
        raise unknown  # a stranger to the series is told it is not there
    raise NotAllowed(_("Only site staff, or House of the series, create its events."))


@action("event_update")
def event_update(
    change: Change,
    *,
    event_id: int,
    by: User,
    changes: dict[str, Any],
    idempotency_key: str | None = None,
) -> answers.EventUpdated:
    """House edits the draft settings until the start (section 3); the board's language, which
    changes nothing of the game, until the event is finalized."""
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise Invalid(
            _("These settings cannot be edited: %(choices)s.")
            % {"choices": ", ".join(sorted(unknown))}
        )
    change.require_house()
    change.refuse_if_finalized()
    event = change.event
    if event.phase not in (Phase.DRAFT, Phase.OPEN):
        moved = {name for name, value in changes.items() if value != getattr(event, name)}
        if moved - {"language"}:
            raise WrongPhase(_("Settings can only change before the event starts."))
        language = _language(changes.get("language", event.language))
        if language == event.language:
            return answers.EventUpdated(event_id=event.pk, changed=[])
        was, event.language = event.language, language
        event.save(update_fields=["language"])
        change.audit("event_updated", details={"changes": {"language": [was, language]}})
        return answers.EventUpdated(event_id=event.pk, changed=["language"])
    current = {field: getattr(event, field) for field in EDITABLE}
    cleaned = _clean_settings({**current, **changes})
    if event.phase != Phase.DRAFT and lacks_remainder_policy(
        cleaned["contribution"], cleaned["remainder_policy"]
    ):
        # Registration has opened: paid entries may come at any moment, however the
        # contribution came to be above $0.
        raise RemainderPolicyRequired(
            _(
                "Registration has opened, so a paid event keeps its remainder policy: say how an "
                "indivisible High remainder will be handled before the contribution is above $0."
            )
        )
    if event.pool_confirmed and cleaned["contribution"] != event.contribution:
        raise PoolLocked()
    if event.pool_confirmed and cleaned["sponsored_pool"] != event.sponsored_pool:
        raise PoolLocked()
    money = [
        f
        for f in ("contribution", "remainder_policy", "entry_mode")
        if cleaned[f] != current[f]
        # A policy announced where there was none (an event from before the rule) locks nothing
        # that players paid for.
        and not (f == "remainder_policy" and not current[f].strip())
    ]
    if money and event.registrations.filter(paid=True).exists():
        # The rules: the remainder policy is announced before paid entries are accepted.
        raise PaidEntriesExist(
            _("Paid entries have been accepted: %(settings)s can no longer change.")
            % {"settings": get_text_list([str(_WORDS[f]) for f in money], _("and"))}
        )
    if cleaned["contribution"] != event.contribution:
        check_pool(cleaned["contribution"] * participants(event), what=_("That contribution"))
    capacity = cleaned["capacity"]
    if capacity is not None and capacity != event.capacity:
        held = waitlist.places_held(event)
        if capacity < held:
            # Refused rather than sending players back to the waitlist (docs/decisions.md,
            # "Capacity and the waitlist").
            raise CapacityBelowField(
                _(
                    "%(held)s players already hold a place: the capacity cannot go below "
                    "%(held)s. Remove registrations first if the field must be smaller."
                )
                % {"held": held}
            )
    diff = {
        field: [_plain(current[field]), _plain(value)]
        for field, value in cleaned.items()
        if value != current[field]
    }
    for field in diff:
        setattr(event, field, cleaned[field])
    if diff:
        event.save(update_fields=list(diff))
        change.audit("event_updated", details={"changes": diff})
    if "capacity" in diff:
        # A capacity raised (or lifted) offers the places it adds, in this change.
        waitlist.fill(change)
    return answers.EventUpdated(event_id=event.pk, changed=sorted(diff))


@action("registration_open")
def registration_open(
    change: Change,
    *,
    event_id: int,
    by: User,
    idempotency_key: str | None = None,
) -> answers.RegistrationOpened:
    """Open registration; opening a draft event opens the event too."""
    change.require_house()
    change.refuse_if_finalized()
    event = change.event
    refusal = why_registration_cannot_open(event)
    if refusal is not None:
        raise refusal
    fields = ["registration_open"]
    event.registration_open = True
    if event.phase == Phase.DRAFT:
        event.phase = Phase.OPEN
        fields.append("phase")
    event.save(update_fields=fields)
    change.audit("registration_opened", details={"remainder_policy": event.remainder_policy})
    # Places freed while registration was closed go to the players in line.
    waitlist.fill(change)
    return answers.RegistrationOpened(event_id=event.pk, registration_open=True)


@action("registration_close")
def registration_close(
    change: Change,
    *,
    event_id: int,
    by: User,
    idempotency_key: str | None = None,
) -> answers.RegistrationClosed:
    change.require_house()
    change.refuse_if_finalized()
    if not change.event.registration_open:
        raise RegistrationIsClosed(_("Registration is already closed."))
    close_registration(change)
    return answers.RegistrationClosed(event_id=change.event.pk, registration_open=False)


@action("event_start")
def event_start(
    change: Change, *, event_id: int, by: User, idempotency_key: str | None = None
) -> answers.EventStarted:
    """Size and lock the stock from the checked-in players, then deal the starting offers."""
    change.require_house()
    change.refuse_if_finalized()
    event = change.event
    if event.phase != Phase.OPEN:
        raise WrongPhase(_("Only an open event can start."))
    players = list(
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN).order_by("check_in_order")
    )
    if len(players) < 2:
        raise WrongPhase(_("Starting needs at least two checked-in players."))
    require_remainder_policy(event, before=_("starting a paid event"))
    rules = event.rules
    size = stock_size(players=len(players), reserve=rules.reserve, extra_decks=event.extra_decks)
    event.commitment = build_shoes(event.pk, size)
    change.touches_everyone = True
    event.phase = Phase.STARTED
    event.started_at = change.now
    event.supported_places = size.supported_places
    event.save(update_fields=["commitment", "phase", "started_at", "supported_places"])
    change.audit(
        "event_started",
        details={
            "decks": size.decks,
            "house_decks": size.house_decks,
            "reserve_per_place": rules.reserve,
            "supported_places": size.supported_places,
            "commitment": event.commitment,
            "players": len(players),
        },
    )
    for registration in players:
        deal_starting_offer(change, registration)
    return answers.EventStarted(
        event_id=event.pk,
        decks=size.decks,
        supported_places=size.supported_places,
        commitment=event.commitment,
    )


@action("pool_confirm")
def pool_confirm(
    change: Change,
    *,
    event_id: int,
    by: User,
    adjustments: Sequence[tuple[int, str]] = (),
    idempotency_key: str | None = None,
) -> answers.PoolConfirmed:
    """House confirms the final pool: base plus every adjustment in force, never negative."""
    if len(adjustments) > limits.MAX_ADJUSTMENTS:
        raise Invalid(
            _("At most %(max_adjustments)s adjustments at a time.")
            % {"max_adjustments": limits.MAX_ADJUSTMENTS}
        )
    cleaned = [_clean_adjustment(amount, explanation) for amount, explanation in adjustments]
    change.require_house()
    change.refuse_if_finalized()
    event = change.event
    if event.phase != Phase.STARTED:
        raise WrongPhase(_("The pool is confirmed after the event starts."))
    if event.registration_open:
        raise RegistrationIsClosed(_("Close registration before confirming the pool."))
    if event.pool_confirmed:
        raise PoolLocked()
    if event.contribution == 0 and not event.sponsored and cleaned:
        raise WrongState(_("A free event has no cash pool to adjust."))
    count = participants(event)
    # Paid entry: the contributions; free entry: the pool the sponsor puts up (docs/decisions.md).
    base = event.sponsored_pool if event.sponsored else event.contribution * count
    earlier = list(event.adjustments.order_by("id").values_list("amount", "explanation"))
    in_force = earlier + cleaned
    pool = base + sum(amount for amount, _ in in_force)
    check_pool(pool, what=_("These adjustments"))
    if pool < 0:
        raise WrongState(
            _("The adjustments would make the pool negative (%(pool)s).") % {"pool": dollars(pool)}
        )
    PoolAdjustment.objects.bulk_create(
        PoolAdjustment(event=event, amount=a, explanation=e, created_by=change.actor)
        for a, e in cleaned
    )
    event.pool_confirmed = True
    event.confirmed_pool = pool
    fields = ["pool_confirmed", "confirmed_pool"]
    if event.pool_first_confirmed_at is None:
        event.pool_first_confirmed_at = change.now
        fields.append("pool_first_confirmed_at")
    event.save(update_fields=fields)
    change.audit(
        "pool_confirmed",
        details={
            "pool": pool,
            "base": base,
            "contribution": event.contribution,
            "participants": count,
            "adjustments": [{"amount": a, "explanation": e} for a, e in in_force],
            **({"sponsored": event.sponsored_pool} if event.sponsored else {}),
        },
    )
    return answers.PoolConfirmed(event_id=event.pk, pool=pool, base=base)


@action("event_finalize")
def event_finalize(
    change: Change,
    *,
    event_id: int,
    by: User,
    idempotency_key: str | None = None,
) -> answers.EventFinalized:
    """Lock the event: compute places and awards, store them, reveal the seed."""
    change.require_house()
    change.refuse_if_finalized()
    event = change.event
    if event.phase != Phase.STARTED:
        raise WrongPhase(_("Only a started event can be finalized."))
    problems = blockers(event)
    if problems:
        raise FinalizationBlocked(
            _("Finalization is blocked: %(blockers)s") % {"blockers": " ".join(problems)}
        )
    if not event.pool_confirmed or event.confirmed_pool is None:
        raise PoolNotConfirmed(_("Confirm the pool before finalizing."))
    result = final_standings(event)
    split = allocate(event.confirmed_pool, result.high_winners(), result.low_winners())
    registrations = list(event.registrations.filter(status__in=["checked_in", "withdrawn"]))
    for registration in registrations:
        registration.high_place = result.high_place(registration.pk)
        registration.low_place = result.low_place(registration.pk)
        registration.award = split.awards.get(registration.pk, 0)
    Registration.objects.bulk_update(registrations, ["high_place", "low_place", "award"])
    event.phase = Phase.FINALIZED
    event.finalized_at = change.now
    change.touches_everyone = True
    event.unallocated = split.unallocated
    event.save(update_fields=["phase", "finalized_at", "unallocated"])
    labels = {r.pk: r.label for r in registrations}
    change.audit(
        "event_finalized",
        details={
            "seed": seed_hex(event.pk),
            "pool": event.confirmed_pool,
            "unallocated": split.unallocated,
            "awards": {labels[pk]: dollars for pk, dollars in split.awards.items()},
            # Signed before this entry exists: the chain up to the entry before it, as final.
            "head": finalizing_head(event, change.now),
        },
    )
    return answers.EventFinalized(event_id=event.pk, unallocated=split.unallocated)


def _clean_settings(values: dict[str, Any]) -> dict[str, Any]:
    name = check_text(values["name"] or "", label=_("The name"), max_length=limits.NAME_LENGTH)
    if not name:
        raise Invalid(_("An event needs a name of 1 to 120 characters."))
    if values["format"] not in FORMATS:
        *others, last = FORMATS
        raise Invalid(
            _("Unknown format %(format)s: use %(choices)s or %(last)s.")
            % {"format": repr(values["format"]), "choices": ", ".join(others), "last": last}
        )
    contribution = values["contribution"]
    if (
        isinstance(contribution, bool)
        or not isinstance(contribution, int)
        or not 0 <= contribution <= limits.MAX_CONTRIBUTION
    ):
        raise Invalid(
            _("The contribution is a whole number of dollars from $0 to $%(max_contribution)s.")
            % {"max_contribution": f"{limits.MAX_CONTRIBUTION:,}"}
        )
    extra = values["extra_decks"]
    if (
        isinstance(extra, bool)
        or not isinstance(extra, int)
        or not 0 <= extra <= limits.MAX_EXTRA_DECKS
    ):
        raise Invalid(
            _("Extra decks is a whole number from 0 to %(max_extra_decks)s.")
            % {"max_extra_decks": limits.MAX_EXTRA_DECKS}
        )
    date = values["date"]
    if isinstance(date, str):
        try:
            date = datetime.date.fromisoformat(date)
        except ValueError:
            raise Invalid(
                _("%(date)s is not a date (YYYY-MM-DD).") % {"date": repr(date)}
            ) from None
    if not isinstance(date, datetime.date):
        raise Invalid(_("The event needs a date."))
    time_zone = (
        check_text(
            values["time_zone"] or "", label=_("The time zone"), max_length=limits.TIME_ZONE_LENGTH
        )
        or "UTC"
    )
    try:
        zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise Invalid(
            _("Unknown time zone %(time_zone)s.") % {"time_zone": repr(time_zone)}
        ) from None
    return {
        "name": name,
        "venue": check_text(
            values["venue"] or "", label=_("The venue"), max_length=limits.VENUE_LENGTH
        ),
        "date": date,
        "time_zone": time_zone,
        "format": values["format"],
        "contribution": contribution,
        "extra_decks": extra,
        "remainder_policy": check_text(
            values["remainder_policy"] or "",
            label=_("The remainder policy"),
            max_length=limits.POLICY_LENGTH,
            multiline=True,
        ),
        **_clean_entry_settings(values, contribution),
        **_clean_registration_settings(values),
        "language": _language(values.get("language")),
    }


def _language(value: object) -> str:
    """One of the shipped languages (settings.LANGUAGES), or blank for the deployment's."""
    code = "" if value is None else value
    if not isinstance(code, str) or (code and code not in dict(settings.LANGUAGES)):
        codes = ", ".join(code for code, _name in settings.LANGUAGES)
        raise Invalid(
            _("The language is one of %(codes)s, or empty for the venue's.") % {"codes": codes}
        )
    return code


def _clean_registration_settings(values: dict[str, Any]) -> dict[str, Any]:
    """The registration window, the capacity and the holds (events/waitlist.py)."""
    opens = _moment(values.get("registration_opens_at"), _("The registration's opening"))
    closes = _moment(values.get("registration_closes_at"), _("The registration's closing"))
    if opens is not None and closes is not None and closes <= opens:
        # Each moment is valid alone; together they conflict (409, as other settings that do).
        raise WrongState(
            _("Registration closes after it opens: set the closing after the opening.")
        )
    capacity = values.get("capacity")
    if capacity is not None and (
        isinstance(capacity, bool)
        or not isinstance(capacity, int)
        or not 1 <= capacity <= limits.MAX_CAPACITY
    ):
        raise Invalid(
            _(
                "The capacity is a whole number of players from 1 to %(max_capacity)s, or empty "
                "for no cap."
            )
            % {"max_capacity": f"{limits.MAX_CAPACITY:,}"}
        )
    holds = {}
    for name, words in (("hold_minutes", _("The hold")), ("day_hold_minutes", _("The day's hold"))):
        minutes = values.get(name, _DEFAULTS[name])
        if (
            isinstance(minutes, bool)
            or not isinstance(minutes, int)
            or not 1 <= minutes <= limits.MAX_HOLD_MINUTES
        ):
            raise Invalid(
                _("%(words)s is a whole number of minutes from 1 to %(max_hold_minutes)s.")
                % {"words": words, "max_hold_minutes": limits.MAX_HOLD_MINUTES}
            )
        holds[name] = minutes
    pay_ahead = values.get("pay_ahead", False)
    if not isinstance(pay_ahead, bool):
        raise Invalid(_("Paying ahead is true or false."))
    return {
        "registration_opens_at": opens,
        "registration_closes_at": closes,
        "capacity": capacity,
        **holds,
        "pay_ahead": pay_ahead,
    }


def _moment(value: object, words: str) -> datetime.datetime | None:
    """A moment with its time zone (ISO 8601 text, or a datetime), or None."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = datetime.datetime.fromisoformat(value)
        except ValueError:
            raise Invalid(
                _("%(words)s is not a moment (ISO 8601, with its time zone).") % {"words": words}
            ) from None
    if not isinstance(value, datetime.datetime) or value.utcoffset() is None:
        raise Invalid(_("%(words)s is a moment with its time zone (ISO 8601).") % {"words": words})
    return value


def _clean_entry_settings(values: dict[str, Any], contribution: int) -> dict[str, Any]:
    """Entry mode, sponsored pool, refund policy and the age players confirm."""
    mode = values.get("entry_mode", EntryMode.PAID.value)
    if mode not in EntryMode.values:
        raise Invalid(_('The entry mode is "paid" or "sponsored".'))
    sponsored = values.get("sponsored_pool", 0)
    if (
        isinstance(sponsored, bool)
        or not isinstance(sponsored, int)
        or not 0 <= sponsored <= limits.MAX_SPONSORED_POOL
    ):
        raise Invalid(
            _("The sponsored pool is a whole number of dollars from $0 to $%(max_sponsored_pool)s.")
            % {"max_sponsored_pool": f"{limits.MAX_SPONSORED_POOL:,}"}
        )
    # Each value is valid alone; together they conflict (409, as other settings that conflict).
    if mode == EntryMode.SPONSORED and contribution:
        raise WrongState(_("A free-entry event takes no contribution: its pool is sponsored."))
    if mode == EntryMode.PAID and sponsored:
        raise WrongState(
            _("A sponsored pool is for a free-entry event; a paid event's pool is its entries.")
        )
    policy = values.get("refund_policy", RefundPolicy.CANCELLATIONS.value)
    if policy not in RefundPolicy.values:
        raise Invalid(
            _("The refund policy is %(choices)s.") % {"choices": ", ".join(RefundPolicy.values)}
        )
    age = values.get("minimum_age", 0)
    if isinstance(age, bool) or not isinstance(age, int) or not 0 <= age <= 99:
        raise Invalid(_("The minimum age is a whole number from 0 (none asked) to 99."))
    return {
        "entry_mode": mode,
        "sponsored_pool": sponsored,
        "refund_policy": policy,
        "minimum_age": age,
    }


def _clean_adjustment(amount: object, explanation: object) -> tuple[int, str]:
    if (
        isinstance(amount, bool)
        or not isinstance(amount, int)
        or amount == 0
        or abs(amount) > limits.MAX_ADJUSTMENT
    ):
        raise Invalid(
            _(
                "Each adjustment is a signed whole number of dollars, not zero, from "
                "%(minus)s$%(max_adjustment)s to $%(max_adjustment)s."
            )
            % {"minus": MINUS, "max_adjustment": f"{limits.MAX_ADJUSTMENT:,}"}
        )
    text = check_text(
        explanation or "",
        label=_("An adjustment's explanation"),
        max_length=limits.EXPLANATION_LENGTH,
        multiline=True,
    )
    if not text:
        raise Invalid(_("Each adjustment needs an explanation."))
    return amount, text


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime.date) else value


def formats_summary() -> list[dict[str, Any]]:
    """The formats as pages and the API describe them."""
    return [
        {
            "name": str(f.name),
            "label": f.label,
            "offered": f.offered,
            "starting": f.starting,
            "games": f.games,
            "kept": f.kept,
            "reserve": f.reserve,
        }
        for f in FORMATS.values()
    ]
