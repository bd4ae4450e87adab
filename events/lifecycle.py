"""Event lifecycle: create, edit, House members, registration switch, start, pool, finalize."""

from __future__ import annotations

import datetime
import zoneinfo
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from accounts import revocation
from accounts.models import User
from audit.heads import finalizing_head
from cards.stock import build_shoes, seed_hex, stock_size
from events import answers, limits
from events.errors import (
    FinalizationBlocked,
    Invalid,
    NotAllowed,
    NotFound,
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
from events.runner import Change, action, place_above, roles_above, scope_above, scope_exists
from payouts.allocation import allocate
from staff import tasks as staff_tasks
from staff.invitations import check_acceptance, invited_address, new_token, void_pending
from staff.roles import (
    SITE_STAFF,
    Role,
    acting_role,
    appointed_role,
    role_on_acceptance,
    strongest,
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
)

_WORDS = {
    "contribution": "contribution",
    "remainder_policy": "remainder policy",
    "entry_mode": "entry mode",
}

# The settings event_created records only when they differ from these (older audits have none).
_DEFAULTS: dict[str, Any] = {
    "entry_mode": EntryMode.PAID.value,
    "sponsored_pool": 0,
    "refund_policy": RefundPolicy.CANCELLATIONS.value,
    "minimum_age": 0,
}


@action("event_create", creates_event=True)
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
    scope_above_id: int | None = None,
    idempotency_key: str | None = None,
) -> answers.EventCreated:
    """Site staff create an event in draft; they become its owner. In a series (`scope_above_id`:
    the series' "Next event" and championship; the series' layer keeps which events are in it,
    `events.runner.use_scope_above`), House of the series whose role may make its events
    create it too: its owner is the series' owner, through the series (an event of a series has
    no owner of its own: docs/decisions.md, "An event's owner in a series"), and the creator
    acts in their series role, which holds in every event of the series; site staff outside the
    series' staff are the event's director."""
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
    }
    if scope_above_id is None and not by.is_staff:
        raise NotAllowed("Only site staff create events.")
    member = by if scope_above_id is None else _creator_in_series(by, scope_above_id)
    event = change.event = Event.objects.create(**_clean_settings(given))
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
                key: getattr(event, key)
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


def _creator_in_series(by: User, series_id: int) -> User | None:
    """Who joins the staff of an event made in a series: nobody when the creator's series role
    may make the series' events (a director's and the owner's: `series_next_event`), since
    their series role holds in it; site staff outside that, as its director. The series' staff
    live with the series (seasons/), which installs them as the scope above events
    (`events.runner.use_scope_above`)."""
    if not scope_exists(series_id):
        raise NotFound("No such series.")
    if acting_role(roles_above(by.pk, series_id), "series_next_event") is not None:
        return None
    if by.is_staff:
        return by
    raise NotAllowed("Only site staff, or House of the series, create its events.")


@action("event_update")
def event_update(
    change: Change,
    *,
    event_id: int,
    by: User,
    changes: dict[str, Any],
    idempotency_key: str | None = None,
) -> answers.EventUpdated:
    """House edits the draft settings until the start (section 3)."""
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise Invalid(f"These settings cannot be edited: {', '.join(sorted(unknown))}.")
    change.require_house()
    change.refuse_if_finalized()
    event = change.event
    if event.phase not in (Phase.DRAFT, Phase.OPEN):
        raise WrongPhase("Settings can only change before the event starts.")
    current = {field: getattr(event, field) for field in EDITABLE}
    cleaned = _clean_settings({**current, **changes})
    if event.phase != Phase.DRAFT and lacks_remainder_policy(
        cleaned["contribution"], cleaned["remainder_policy"]
    ):
        # Registration has opened: paid entries may come at any moment, however the
        # contribution came to be above $0.
        raise RemainderPolicyRequired(
            "Registration has opened, so a paid event keeps its remainder policy: say how an "
            "indivisible High remainder will be handled before the contribution is above $0."
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
            f"Paid entries have been accepted: the {' and the '.join(_WORDS[f] for f in money)} "
            "can no longer change."
        )
    if cleaned["contribution"] != event.contribution:
        check_pool(cleaned["contribution"] * participants(event), what="That contribution")
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
    return answers.EventUpdated(event_id=event.pk, changed=sorted(diff))


@action("house_member_add")
def house_member_add(
    change: Change,
    *,
    event_id: int,
    by: User,
    member: User,
    role: str = Role.DIRECTOR,
    idempotency_key: str | None = None,
) -> answers.HouseMemberAdded:
    """Site staff, or the event's owner, appoint a staff member with a role (events/staff.py);
    a member appointed again takes the new role (the owner's is handed over with
    `ownership_transfer`)."""
    _site_staff_or_house(change, by, "Only site staff appoint House members.")
    change.refuse_if_finalized()
    role = appointed_role(role)
    held = change.event.staff.filter(user=member).first()
    if held is None:
        change.event.staff.create(user=member, role=role)
        change.audit("house_member_added", details={"member": member.display_name, "role": role})
    elif held.role != role:
        if held.role == Role.OWNER:
            raise NotAllowed("The owner stays owner until ownership is handed over.")
        held.role = role
        held.save(update_fields=["role"])
        change.audit("staff_role_set", details={"member": member.display_name, "role": role})
    return answers.HouseMemberAdded(event_id=change.event.pk, member=member.pk)


@action("house_member_remove")
def house_member_remove(
    change: Change,
    *,
    event_id: int,
    by: User,
    member: User,
    idempotency_key: str | None = None,
) -> answers.HouseMemberRemoved:
    """Site staff or the owner remove a staff member; a member may leave, in their own role. The
    owner is neither removed nor leaves, by anyone, before handing ownership over: an event
    always has one. Pending invitations to the member's address go with them."""
    leaving = member.pk == by.pk and bool(change.roles)
    if leaving and not change.house:
        change.act_as(strongest(change.roles) or SITE_STAFF)
    _site_staff_or_house(change, by, "Only site staff appoint House members.")
    change.refuse_if_finalized()
    held = change.event.staff.filter(user=member).first()
    if held is not None and held.role == Role.OWNER:
        raise NotAllowed(
            "The owner hands ownership over before leaving or being removed: an event keeps "
            "an owner."
        )
    if held is not None:
        remove_member(change, member)
    return answers.HouseMemberRemoved(event_id=change.event.pk, member=member.pk)


def remove_member(change: Change, member: User, **details: Any) -> None:
    """Take `member` off the event's own staff, in the change that holds the event's lock (theirs,
    or their series' removal reaching it): pending invitations to their address go too, and
    their open House sockets check their access after the commit."""
    change.event.staff.filter(user=member).delete()
    void_pending(change.event.staff_invitations.all(), member)
    change.audit("house_member_removed", details={"member": member.display_name, **details})
    # Registered now, so it runs before this change's live update: the socket closes first.
    event_id = change.event.pk
    transaction.on_commit(lambda: revocation.revoke(member.pk, event_id=event_id))


def _site_staff_or_house(change: Change, by: User, refusal: str) -> None:
    """The guard of an event's staff changes: House whose role may make it, or site staff, who
    hold no role in the event and act as site staff (their entries say so)."""
    if change.house:
        return
    if by.is_staff:
        change.act_as(SITE_STAFF)
        return
    raise change.refusal() if change.roles else NotAllowed(refusal)


@action("ownership_transfer")
def ownership_transfer(
    change: Change,
    *,
    event_id: int,
    by: User,
    member: User,
    idempotency_key: str | None = None,
) -> answers.OwnershipTransferred:
    """The owner (or site staff) hands the event's ownership to a staff member; the former
    owner stays on as director. The event keeps exactly one owner."""
    _site_staff_or_house(change, by, "Only the owner hands ownership over.")
    change.refuse_if_finalized()
    if scope_above(change.event.pk) is not None:
        raise WrongState(
            "This event's owner is its series' owner: hand the series over instead "
            "(an event of a series has no owner of its own)."
        )
    held = change.event.staff.filter(user=member).first()
    if held is None:
        raise NotAllowed("Ownership goes to a member of the event's staff: appoint them first.")
    if held.role != Role.OWNER:
        change.event.staff.filter(role=Role.OWNER).update(role=Role.DIRECTOR)
        held.role = Role.OWNER
        held.save(update_fields=["role"])
        change.audit("ownership_transferred", details={"member": member.display_name})
    return answers.OwnershipTransferred(event_id=change.event.pk, owner=member.pk)


@action("staff_invite")
def staff_invite(
    change: Change,
    *,
    event_id: int,
    by: User,
    email: str,
    role: str = Role.DIRECTOR,
    idempotency_key: str | None = None,
) -> answers.StaffInvited:
    """The owner (or site staff) invites someone to the staff by email, with a role; the answer
    holds the token to hand over (docs/decisions.md, "Roles")."""
    _site_staff_or_house(change, by, "Only the owner invites staff.")
    change.refuse_if_finalized()
    role = appointed_role(role)
    invitation = change.event.staff_invitations.create(
        email=invited_address(email),
        role=role,
        token=new_token(),
        invited_by=by,
    )
    change.audit("staff_invited", details={"invitation": invitation.pk, "role": role})
    pk = invitation.pk

    def email_it() -> None:
        staff_tasks.send_staff_invitation.delay(pk)

    change.after_commit(email_it)
    return answers.StaffInvited(
        event_id=change.event.pk,
        invitation_id=invitation.pk,
        role=role,
        token=invitation.token,
    )


@action("staff_invitation_accept")
def staff_invitation_accept(
    change: Change,
    *,
    event_id: int,
    by: User,
    token: str,
    idempotency_key: str | None = None,
) -> answers.StaffInvitationAccepted:
    """A signed-in user whose email the invitation names joins the staff in its role, once."""
    change.refuse_if_finalized()
    invitation = (
        change.event.staff_invitations.select_for_update().filter(token=token.strip()).first()
    )
    if invitation is None:
        raise NotFound("No such invitation.")
    check_acceptance(
        invitation.accepted_at,
        invitation.email,
        by,
        created_at=invitation.created_at,
        now=change.now,
    )
    invitation.accepted_at = change.now
    invitation.save(update_fields=["accepted_at"])
    held = change.event.staff.filter(user=by).first()
    role = invitation.role if held is None else role_on_acceptance(held.role, invitation.role)
    change.act_as(role)  # they join, and the audit names the role they joined in
    if held is None:
        change.event.staff.create(user=by, role=role)
        change.audit(
            "house_member_added",
            details={"member": by.display_name, "role": role, "invitation": invitation.pk},
        )
    elif role != held.role:
        held.role = role
        held.save(update_fields=["role"])
        change.audit("staff_role_set", details={"member": by.display_name, "role": role})
    return answers.StaffInvitationAccepted(event_id=change.event.pk, role=role)


@action("staff_invitation_cancel")
def staff_invitation_cancel(
    change: Change,
    *,
    event_id: int,
    by: User,
    invitation_id: int,
    idempotency_key: str | None = None,
) -> answers.StaffInvitationCancelled:
    """The owner (or site staff) withdraws a pending invitation: its link stops working and the
    email it named is no longer kept."""
    _site_staff_or_house(change, by, "Only the owner invites staff.")
    change.refuse_if_finalized()
    invitation = change.event.staff_invitations.select_for_update().filter(pk=invitation_id).first()
    if invitation is None:
        raise NotFound("No such invitation.")
    if invitation.accepted_at is not None:
        raise WrongState("This invitation has already been accepted: remove the member instead.")
    invitation.delete()
    change.audit("staff_invitation_cancelled", details={"invitation": invitation_id})
    return answers.StaffInvitationCancelled(event_id=change.event.pk, invitation_id=invitation_id)


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
        raise RegistrationIsClosed("Registration is already closed.")
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
        raise WrongPhase("Only an open event can start.")
    players = list(
        event.registrations.filter(status=RegistrationStatus.CHECKED_IN).order_by("check_in_order")
    )
    if len(players) < 2:
        raise WrongPhase("Starting needs at least two checked-in players.")
    require_remainder_policy(event, before="starting a paid event")
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
        raise Invalid(f"At most {limits.MAX_ADJUSTMENTS} adjustments at a time.")
    cleaned = [_clean_adjustment(amount, explanation) for amount, explanation in adjustments]
    change.require_house()
    change.refuse_if_finalized()
    event = change.event
    if event.phase != Phase.STARTED:
        raise WrongPhase("The pool is confirmed after the event starts.")
    if event.registration_open:
        raise RegistrationIsClosed("Close registration before confirming the pool.")
    if event.pool_confirmed:
        raise PoolLocked()
    if event.contribution == 0 and not event.sponsored and cleaned:
        raise WrongState("A free event has no cash pool to adjust.")
    count = participants(event)
    # Paid entry: the contributions; free entry: the pool the sponsor puts up (docs/decisions.md).
    base = event.sponsored_pool if event.sponsored else event.contribution * count
    earlier = list(event.adjustments.order_by("id").values_list("amount", "explanation"))
    in_force = earlier + cleaned
    pool = base + sum(amount for amount, _ in in_force)
    check_pool(pool, what="These adjustments")
    if pool < 0:
        raise WrongState(f"The adjustments would make the pool negative ({dollars(pool)}).")
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
        raise WrongPhase("Only a started event can be finalized.")
    problems = blockers(event)
    if problems:
        raise FinalizationBlocked("Finalization is blocked: " + " ".join(problems))
    if not event.pool_confirmed or event.confirmed_pool is None:
        raise PoolNotConfirmed("Confirm the pool before finalizing.")
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
    name = check_text(values["name"] or "", label="The name", max_length=limits.NAME_LENGTH)
    if not name:
        raise Invalid("An event needs a name of 1 to 120 characters.")
    if values["format"] not in FORMATS:
        *others, last = FORMATS
        raise Invalid(f"Unknown format {values['format']!r}: use {', '.join(others)} or {last}.")
    contribution = values["contribution"]
    if (
        isinstance(contribution, bool)
        or not isinstance(contribution, int)
        or not 0 <= contribution <= limits.MAX_CONTRIBUTION
    ):
        raise Invalid(
            f"The contribution is a whole number of dollars from $0 to "
            f"${limits.MAX_CONTRIBUTION:,}."
        )
    extra = values["extra_decks"]
    if (
        isinstance(extra, bool)
        or not isinstance(extra, int)
        or not 0 <= extra <= limits.MAX_EXTRA_DECKS
    ):
        raise Invalid(f"Extra decks is a whole number from 0 to {limits.MAX_EXTRA_DECKS}.")
    date = values["date"]
    if isinstance(date, str):
        try:
            date = datetime.date.fromisoformat(date)
        except ValueError:
            raise Invalid(f"{date!r} is not a date (YYYY-MM-DD).") from None
    if not isinstance(date, datetime.date):
        raise Invalid("The event needs a date.")
    time_zone = (
        check_text(
            values["time_zone"] or "", label="The time zone", max_length=limits.TIME_ZONE_LENGTH
        )
        or "UTC"
    )
    try:
        zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise Invalid(f"Unknown time zone {time_zone!r}.") from None
    return {
        "name": name,
        "venue": check_text(
            values["venue"] or "", label="The venue", max_length=limits.VENUE_LENGTH
        ),
        "date": date,
        "time_zone": time_zone,
        "format": values["format"],
        "contribution": contribution,
        "extra_decks": extra,
        "remainder_policy": check_text(
            values["remainder_policy"] or "",
            label="The remainder policy",
            max_length=limits.POLICY_LENGTH,
            multiline=True,
        ),
        **_clean_entry_settings(values, contribution),
    }


def _clean_entry_settings(values: dict[str, Any], contribution: int) -> dict[str, Any]:
    """Entry mode, sponsored pool, refund policy and the age players confirm."""
    mode = values.get("entry_mode", EntryMode.PAID.value)
    if mode not in EntryMode.values:
        raise Invalid(f"The entry mode is {' or '.join(EntryMode.values)}.")
    sponsored = values.get("sponsored_pool", 0)
    if (
        isinstance(sponsored, bool)
        or not isinstance(sponsored, int)
        or not 0 <= sponsored <= limits.MAX_SPONSORED_POOL
    ):
        raise Invalid(
            f"The sponsored pool is a whole number of dollars from $0 to "
            f"${limits.MAX_SPONSORED_POOL:,}."
        )
    # Each value is valid alone; together they conflict (409, as other settings that conflict).
    if mode == EntryMode.SPONSORED and contribution:
        raise WrongState("A free-entry event takes no contribution: its pool is sponsored.")
    if mode == EntryMode.PAID and sponsored:
        raise WrongState(
            "A sponsored pool is for a free-entry event; a paid event's pool is its entries."
        )
    policy = values.get("refund_policy", RefundPolicy.CANCELLATIONS.value)
    if policy not in RefundPolicy.values:
        raise Invalid(f"The refund policy is {', '.join(RefundPolicy.values)}.")
    age = values.get("minimum_age", 0)
    if isinstance(age, bool) or not isinstance(age, int) or not 0 <= age <= 99:
        raise Invalid("The minimum age is a whole number from 0 (none asked) to 99.")
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
            "Each adjustment is a signed whole number of dollars, not zero, "
            f"from {MINUS}${limits.MAX_ADJUSTMENT:,} to ${limits.MAX_ADJUSTMENT:,}."
        )
    text = check_text(
        explanation or "",
        label="An adjustment's explanation",
        max_length=limits.EXPLANATION_LENGTH,
        multiline=True,
    )
    if not text:
        raise Invalid("Each adjustment needs an explanation.")
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
