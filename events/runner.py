"""The transaction runner: every state change runs as one short transaction that locks the event
(or the scope above events it concerns: a series), checks who acts, applies the change, chains its
audit entries and stores the answer under the idempotency key.

Each state change is one function decorated with `action`: it takes the `Change` and keyword
arguments, and returns its answer (a frozen dataclass of `events.answers`).

A retry with the same key returns the first answer, refusals included, and changes nothing; the same
key with different content is refused (422). Work outside the database (websocket messages, pushes,
email) is queued with `Change.after_commit` and runs only once the transaction has committed.

A change may concern the scope above events (a series) rather than an event: the layer above
installs it (`use_scope_above`): how to lock it, the roles its staff hold, how to chain its audit
entries. The engine names none of it. One lock order everywhere: the scopes a change locks, in id
order, before any event.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Concatenate, Protocol, cast, get_origin

from django.db import transaction
from django.db.models import Exists, Model, QuerySet
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from audit.models import AuditEntry
from audit.writer import PendingEntry, chain
from events import changes, store
from events.answers import Answer, as_json, from_json
from events.errors import (
    ERRORS_BY_CODE,
    DomainError,
    EventIsFinalized,
    IdempotencyConflict,
    Invalid,
    NotAllowed,
    OrganizationSuspended,
)
from events.limits import ID_MAX, REASON_LENGTH, TEXT_LENGTH, check_text, text_problem
from events.models import Event, IdempotencyRecord, Phase, Registration
from events.progress import Progress
from helpers.errors import no_such
from staff import roles as staff
from staff.models import Membership, scope_type
from staff.scopes import Scope

SYSTEM = "system"

# Set inside `together`: each change runs in a savepoint of the one transaction it opened.
_together: ContextVar[bool] = ContextVar("together", default=False)


@contextmanager
def together() -> Iterator[None]:
    """Several state changes, of one event or several, in one transaction: all of them commit or
    none does (an account's deletion relabels it in each of its events). The caller changes the
    events in primary key order, as every lock of several rows is taken."""
    with transaction.atomic(durable=True):
        token = _together.set(True)
        try:
            yield
        finally:
            _together.reset(token)


class ScopeAbove(Protocol):
    """A scope above events whose staff hold roles in each of its events: a series, and above
    it an organization, whose staff hold theirs in each of its series too. Each lives in its own
    layer (seasons/apps.py, organizations/apps.py install them with `use_scope_above`), which
    keeps which events are in which scope: the engine names none of them. A change of the scope
    itself runs through this runner too (`action(..., above_of=...)`): the hook locks it, says
    which scopes it contains and chains its audit entries."""

    # How refusals name the scope: "Only House of this series can do that."
    noun: str
    # Its place in the chain, nearest to events first: a series 1, an organization 2.
    rank: int

    @property
    def model(self) -> type[Model]:
        """Its model (staff/models.py keeps its staff beside an event's)."""
        ...

    def exists(self, scope_id: int) -> bool:
        """Whether the scope is there."""
        ...

    def of_event(self, event_id: int) -> Model | None:
        """The scope an event is in, or None."""
        ...

    def place(self, event: Event, scope_id: int) -> None:
        """Put a new event (a draft, in its creation's transaction) in the scope."""
        ...

    def containing(self, model: type[Model], scope_id: int) -> QuerySet[Any, Any]:
        """The ids (one column) of the scopes of this kind that hold an event, or a scope of a
        kind nearer to events (`model`, `scope_id`): its staff's roles hold there
        (`roles_in` reads them with the scope's own staff in one query)."""
        ...

    def events(self, scope_id: int) -> QuerySet[Any, Any]:
        """The ids (one column) of the events the scope holds: their players know it."""
        ...

    def refused(self, model: type[Model], scope_id: int) -> QuerySet[Any, Any]:
        """The scopes of this kind holding it whose House is refused (a suspended
        organization), as `containing` names them: none for a kind that is never refused."""
        ...

    def shown_event(self, scope_id: int) -> Event | None:
        """The event the scope's display links show now, or None."""
        ...

    def member_left(
        self, change: Change, member: User, scope_id: int, leaving_as: str | None
    ) -> None:
        """A member just taken off the scope's staff (or leaving it, in `leaving_as`) leaves the
        staff of its events not yet finalized too, each in its own chain, in `change`."""
        ...

    def lock(self, scope_id: int) -> Any | None:
        """The scope's row, locked for the change (no key update); None when it is not there."""
        ...

    def record(self, scope: Any, entries: list[PendingEntry], moment: datetime) -> None:
        """Chain `entries` after the scope's last audit entry and save them with its new head
        (the scope locked by `lock`, or created in this change)."""
        ...


# The installed scopes above events, nearest to events first (`ScopeAbove.rank`).
_scopes_above: list[ScopeAbove] = []


def use_scope_above(scope: ScopeAbove) -> None:
    kept = [other for other in _scopes_above if other.model is not scope.model]
    _scopes_above[:] = sorted([*kept, scope], key=lambda each: each.rank)


def _above(model: type[Model] | None = None) -> ScopeAbove:
    """The installed scope above events of `model`, else the nearest to events (a series)."""
    for scope in _scopes_above:
        if model is None or scope.model is model:
            return scope
    raise RuntimeError("No scope above events is installed (use_scope_above).")


def _rank(model: type[Model]) -> int:
    return next((scope.rank for scope in _scopes_above if scope.model is model), 0)


def roles_in(user_id: int, model: type[Model], scope_id: int) -> frozenset[str]:
    """The roles a user holds in an event or a scope above events: its own staff's, and those
    of every scope above holding it (an event's series and organization, a series'
    organization), read in one query. None at all where a scope holding it refuses its House
    (a suspended organization). The one chain every guard and page asks through."""
    held = _memberships(user_id, model, scope_id)
    for scope in _scopes_above:
        held = held.exclude(Exists(scope.refused(model, scope_id)))
    return frozenset(held.order_by().values_list("role", flat=True).distinct())


def _memberships(user_id: int, model: type[Model], scope_id: int) -> QuerySet[Membership]:
    """A user's memberships in an event or a scope and in every scope holding it, refused or
    not."""
    held = Membership.objects.filter(
        scope_type=scope_type(model), scope_id=scope_id, user_id=user_id
    )
    for scope in _scopes_above:
        if scope.rank > _rank(model):
            held = held | Membership.objects.filter(
                scope_type=scope_type(scope.model),
                scope_id__in=scope.containing(model, scope_id),
                user_id=user_id,
            )
    return held


def staffed_above(model: type[Model], scope_id: int) -> bool:
    """Whether a scope holding this one (a series' organization) has staff: they hold their
    roles in it, so it is never without House when its own staff is empty."""
    return any(
        Membership.objects.filter(
            scope_type=scope_type(scope.model), scope_id__in=scope.containing(model, scope_id)
        ).exists()
        for scope in _scopes_above
        if scope.rank > _rank(model)
    )


def suspended_for(user: User | None, model: type[Model], scope_id: int) -> bool:
    """Whether `user` is staff in the chain of an event or a scope that a scope holding it
    refuses (a suspended organization): they are told so, where anyone else without a role is
    told the object is not there."""
    if user is None or not user.is_authenticated:
        return False
    refused = [scope.refused(model, scope_id) for scope in _scopes_above]
    return (
        any(each.exists() for each in refused) and _memberships(user.pk, model, scope_id).exists()
    )


def refuse_if_suspended(user: User | None, model: type[Model], scope_id: int) -> None:
    """The suspension's refusal (403 `organization_suspended`) to its staff; nothing to anyone
    else: a House page answers them 404 after this."""
    if suspended_for(user, model, scope_id):
        raise OrganizationSuspended()


def stranger_refusal(
    user: User | None, model: type[Model], scope_id: int, missing: str = ""
) -> DomainError | None:
    """The refusal of a House action (or read) asked by someone who holds no role in the event
    or scope (`model`, `scope_id`) nor in any scope holding it: to the staff of a suspended
    organization holding it, the suspension (403); to a stranger, the object's absence (404,
    "not found or not yours", as House's pages answer). None to one who knows it: a player of
    the event (of one of the scope's events, or staff of one), site staff; they are told
    House's words (403 `not_allowed`)."""
    if user is None or not user.is_authenticated:
        return None
    if suspended_for(user, model, scope_id):
        return OrganizationSuspended()
    if user.is_staff or user.is_superuser:
        return None
    played = Registration.objects.filter(player_id=user.pk)
    if model is Event:
        played = played.filter(event_id=scope_id)
    else:
        events = _above(model).events(scope_id)
        played = played.filter(event_id__in=events)
        # The staff of one of its events know it too.
        if Membership.objects.filter(
            user_id=user.pk, scope_type=scope_type(Event), scope_id__in=events
        ).exists():
            return None
    if played.exists():
        return None
    return no_such(missing or ("event" if model is Event else _above(model).noun))


def stranger_above(user: User | None, scope_id: int) -> DomainError | None:
    """`stranger_refusal` for the scope above events nearest to them (a series)."""
    return stranger_refusal(user, _above().model, scope_id) if _scopes_above else None


def scope_exists(scope_id: int) -> bool:
    """Whether the scope above events (a series) is there; never without its layer."""
    return bool(_scopes_above) and _scopes_above[0].exists(scope_id)


def member_left_above(change: Change, member: User, scope_id: int, left: bool) -> None:
    """A member taken off the staff of a scope above events (a series, an organization) leaves
    its events'."""
    _above(type(change.scope)).member_left(change, member, scope_id, change.role if left else None)


def scope_above(event_id: int) -> Model | None:
    """The scope above events an event is in (its series), or None; none without its layer."""
    return _scopes_above[0].of_event(event_id) if _scopes_above else None


def place_above(event: Event, scope_id: int) -> None:
    """Put a new event in a scope above events (a series), through the layer that keeps it."""
    if not _scopes_above:
        raise no_such("series")
    _scopes_above[0].place(event, scope_id)


def event_shown_above(scope_id: int) -> Event | None:
    """The event a display link of the scope above events shows now; none without its layer."""
    return _scopes_above[0].shown_event(scope_id) if _scopes_above else None


def roles_above(user_id: int, scope_id: int, model: type[Model] | None = None) -> frozenset[str]:
    """The roles a user holds in a scope above events (a series unless `model` says another),
    its own and those of the scopes above it; none without its layer."""
    if not _scopes_above:
        return frozenset()
    return roles_in(user_id, _above(model).model, scope_id)


def scope_roles(
    user: User | None, scope_id: int, model: type[Model] | None = None
) -> frozenset[str]:
    """The roles `user` holds in a scope above events (a series unless `model` says another);
    a superuser is owner."""
    if user is None or not user.is_authenticated or not user.is_active:
        return frozenset()
    if user.is_superuser:
        return frozenset({staff.Role.OWNER.value})
    return roles_above(user.pk, scope_id, model)


_ONLY_HOUSE_OF = {
    "series": gettext_lazy("Only House of this series can do that."),
    "organization": gettext_lazy("Only House of this organization can do that."),
}


def scope_refusal(
    roles: frozenset[str],
    power: str,
    refused: str | Promise = "",
    model: type[Model] | None = None,
) -> NotAllowed:
    """Why roles in a scope above events do not allow `power`: none held (`refused`, or "Only
    House of this series can do that."), or one without this power."""
    held = staff.strongest(roles)
    noun = _above(model).noun
    if held is None:
        return NotAllowed(refused or _ONLY_HOUSE_OF.get(noun))
    return staff.role_refusal(noun, held, power)


def require_above(
    user: User | None,
    scope_id: int,
    power: str,
    refused: str | Promise = "",
    model: type[Model] | None = None,
) -> str:
    """The role in which `user` may do `power` in a scope above events (a series unless
    `model` says another; the rule table of staff/roles.py), or the refusal: the guard of a
    series' changes, and of the checks a change made of several steps runs before its first."""
    roles = scope_roles(user, scope_id, model)
    role = staff.acting_role(roles, power)
    if role is None:
        if not roles and (unknown := stranger_refusal(user, _above(model).model, scope_id)):
            raise unknown
        raise scope_refusal(roles, power, refused, model)
    return role


def roles_of(user: User | None, event_id: int) -> frozenset[str]:
    """The roles `user` holds in an event (its own, its series' and its organization's), read
    in one query; a superuser is owner."""
    if user is None or not user.is_authenticated or not user.is_active:
        return frozenset()
    if user.is_superuser:
        return frozenset({staff.Role.OWNER.value})
    return roles_in(user.pk, Event, event_id)


def may(user: User | None, event: Event, action: str) -> bool:
    """Whether `user` may perform the House action `action` in this event (staff/roles.py)."""
    return staff.acting_role(roles_of(user, event.pk), action) is not None


def is_house(user: User | None, event: Event) -> bool:
    """Staff of this event in any role (its own or its series'), or a superuser: House's pages
    open to them; what each may change is the rule table's (staff/roles.py)."""
    return staff.may_see(roles_of(user, event.pk), "house")


@dataclass
class Change:
    """One state change in progress: the locked event (or scope above events), who acts, the
    audit entries to write."""

    event: Event
    user: User | None
    _house: bool | None = None
    # The action's name (`action`): which House powers it needs (staff/roles.py).
    action: str = ""
    # The rule-table name the guard asks when it is not the action's own ("season_manage").
    power: str = ""
    # The refusal of an actor who holds no role, when not the runner's usual words.
    refused: str | Promise = ""
    # What a stranger to the event is told is not there: the event, or the registration named.
    missing: str = "event"
    # The scope above events this change concerns (a series), locked, instead of an event; the
    # change's own entries are chained in its audit. A placeholder `event` stands unsaved then.
    scope: Any = None
    # Every scope above events the change locked (before any event), by id, and the entries it
    # chains in each one's audit besides its own (`audit_above`).
    scopes: dict[int, Any] = field(default_factory=dict)
    scope_entries: dict[int, list[PendingEntry]] = field(default_factory=dict)
    _roles: frozenset[str] | None = None
    # The role named outside the rule table (`act_as`): site staff, a member leaving.
    _role: str | None = None
    now: datetime = field(default_factory=timezone.now)
    entries: list[PendingEntry] = field(default_factory=list)
    callbacks: list[Callable[[], None]] = field(default_factory=list)
    touched_labels: set[str] = field(default_factory=set)
    touches_everyone: bool = False
    # The offers this change made, told with the committed change (push reminds of each).
    offer_ids: list[int] = field(default_factory=list)
    # Registrations already read in this change, by label: their versions move without a lookup.
    known: dict[str, int] = field(default_factory=dict)
    # Progress read with a registration, before this change altered anything, by registration id.
    progress: dict[int, Progress] = field(default_factory=dict)
    # Registration fields saved at the end, with the players' versions, by registration id.
    saves: dict[int, tuple[Registration, tuple[str, ...]]] = field(default_factory=dict)

    @property
    def roles(self) -> frozenset[str]:
        """The actor's roles in this event, or in the scope the change concerns (asked once,
        only when needed)."""
        if self._roles is None:
            if self.scope is not None:
                self._roles = scope_roles(self.user, self.scope.pk, type(self.scope))
            else:
                self._roles = roles_of(self.user, self.event.pk)
        return self._roles

    @property
    def guarded(self) -> str:
        """The name the rule table is asked with (staff/roles.py)."""
        return self.power or self.action

    @property
    def role(self) -> str | None:
        """The role the actor acts in: the strongest of theirs that may perform this action."""
        if self._role is not None:
            return self._role
        return staff.acting_role(self.roles, self.guarded) if self.house else None

    def act_as(self, role: str) -> None:
        """The actor acts as House in `role`, which the service's own guard allowed outside the
        rule table: site staff changing an event's staff (`staff.SITE_STAFF`), a member leaving
        in their own role. Every House entry names the role it was made in."""
        self._house = True
        self._role = role

    @property
    def house(self) -> bool:
        """Whether the actor acts as House in this change: staff whose role may perform it."""
        if self._house is None:
            self._house = staff.acting_role(self.roles, self.guarded) is not None
        return self._house

    @house.setter
    def house(self, value: bool) -> None:
        self._house = value

    @property
    def actor(self) -> str:
        if self.user is None:
            return SYSTEM
        name = self.user.display_name or f"user {self.user.pk}"
        return f"House: {name}" if self.house else name

    @property
    def actor_kind(self) -> str:
        """Who acts, as the audit records it apart from the name (a name can read "system")."""
        return SYSTEM if self.user is None else "house" if self.house else "player"

    def audit(
        self,
        action: str,
        *,
        player: str | None = None,
        details: Mapping[str, Any] | None = None,
        reason: str | None = None,
        by_system: bool = False,
    ) -> None:
        if player is not None:
            self.touched_labels.add(player)
        self.entries.append(
            PendingEntry(
                actor=SYSTEM if by_system else self.actor,
                actor_kind=SYSTEM if by_system else self.actor_kind,
                actor_role=None if by_system else self.role,
                action=action,
                player=player,
                details=dict(details or {}),
                reason=reason or None,
            )
        )

    def audit_above(
        self, scope_id: int, action: str, *, details: Mapping[str, Any], power: str
    ) -> None:
        """An entry in the audit of a scope above events this change locked (a series an event
        is put in or taken out of), naming the role the actor holds there for `power`."""
        role = staff.acting_role(scope_roles(self.user, scope_id), power)
        house = role is not None
        name = "" if self.user is None else self.user.display_name or f"user {self.user.pk}"
        self.scope_entries.setdefault(scope_id, []).append(
            PendingEntry(
                actor=SYSTEM if self.user is None else f"House: {name}" if house else name,
                actor_kind=SYSTEM if self.user is None else "house" if house else "player",
                actor_role=role,
                action=action,
                player=None,
                details=dict(details),
                reason=None,
            )
        )

    def reach(self, event_id: int, action: str, apply: Callable[[Change], None]) -> None:
        """One event's part of this change of the scope above it (a series' staff change
        reaching its events): the event locked (after the scope: one lock order everywhere), its
        audit entries chained in its own chain, its live update told after the commit."""
        part = Change(event=_lock_event(event_id), user=self.user, action=action, now=self.now)
        apply(part)
        if part.entries:
            _record(part)
        for callback in part.callbacks:
            transaction.on_commit(callback)

    def know(self, registration: Registration) -> None:
        """Remember a registration read in this change (its label names it in the audit)."""
        self.known[registration.label] = registration.pk

    def after_commit(self, callback: Callable[[], None]) -> None:
        self.callbacks.append(callback)

    def offered(self, offer_id: int) -> None:
        """A new offer awaits the player's choice: say so with the committed change."""
        self.offer_ids.append(offer_id)

    def save_at_end(self, registration: Registration, *fields: str) -> None:
        """Save these fields of a registration when the change ends, with its version.

        For a change's last word on a player (nothing in the change reads them back).
        """
        _, before = self.saves.get(registration.pk, (registration, ()))
        self.saves[registration.pk] = (registration, tuple(dict.fromkeys((*before, *fields))))

    def require_house(self) -> None:
        if not self.house:
            raise self.refusal()

    def refusal(self) -> DomainError:
        """Why the actor may not do this as House: the object is not there for them (a stranger
        to it: `stranger_refusal`), no role, or one without this power."""
        if not self.roles and (unknown := self.stranger()):
            return unknown
        if self.scope is not None:
            return scope_refusal(self.roles, self.guarded, self.refused, type(self.scope))
        held = staff.strongest(self.roles)
        if held is None:
            return NotAllowed(self.refused or _("Only House can do that for this event."))
        return staff.role_refusal("event", held, self.guarded)

    def stranger(self) -> DomainError | None:
        """The refusal of an actor who holds no role here when they do not know the event or
        scope (`stranger_refusal`), else None."""
        if self.scope is not None:
            return stranger_refusal(self.user, type(self.scope), self.scope.pk)
        if self.event.pk is None:
            return None
        return stranger_refusal(self.user, Event, self.event.pk, self.missing)

    def refuse_if_finalized(self) -> None:
        if self.event.phase == Phase.FINALIZED:
            raise EventIsFinalized()


def fingerprint(action: str, event_id: int | None, request: Mapping[str, Any]) -> str:
    """What a retry must repeat exactly: the action, its event and its content."""
    content = json.dumps(
        {"action": action, "event": event_id, "request": request},
        sort_keys=True,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(content.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Normalised:
    """How an argument counts in the idempotency fingerprint, when not as it is given."""

    clean: Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class Earlier:
    """An argument that is not content: what an earlier step of a change made of several steps
    made (the event `series_next_event` created), which that step's own key already covers."""


# Text whose surrounding whitespace means nothing (a reason): the service strips it, so a retry
# that differs only in that whitespace is the same request.
Trimmed = Annotated[str, Normalised(str.strip)]

# Who acts and the key itself are not content: every other argument is.
NOT_CONTENT = ("by", "idempotency_key")


class Service[**P, A: Answer]:
    """A state change: the decorated function, run by `perform` under its event's lock.

    The function takes the `Change` first, then keyword arguments only, among them the actor `by`
    and `idempotency_key` (which the function itself ignores). The fingerprint a retry must match
    is every other argument, as given (a model instance as its primary key; `Normalised` ones
    cleaned first), so a new argument is part of it without anyone listing it.
    """

    def __init__(
        self,
        name: str,
        function: Callable[Concatenate[Change, P], A],
        *,
        registration_of: Callable[[Mapping[str, Any]], int] | None,
        creates_event: bool,
        above_of: Callable[[Mapping[str, Any]], Sequence[int]] | None = None,
        creates_scope: bool = False,
        power: str = "",
        refused: str | Promise = "",
        missing: str = "",
        scope_model: type[Model] | None = None,
    ) -> None:
        signature = inspect.signature(function, eval_str=True)
        change, *parameters = signature.parameters.values()
        given = {parameter.name for parameter in parameters}
        if change.kind is not change.POSITIONAL_OR_KEYWORD or any(
            parameter.kind is not parameter.KEYWORD_ONLY for parameter in parameters
        ):
            raise TypeError(f"{name}: the change first, then keyword-only arguments.")
        if not set(NOT_CONTENT) <= given:
            raise TypeError(f"{name}: takes `by` and `idempotency_key`.")
        answer: Any = signature.return_annotation
        if not (isinstance(answer, type) and issubclass(answer, Answer)):
            raise TypeError(f"{name}: answers with a dataclass of events.answers.")
        names_event = bool({"registration_id", "event_id"} & given) or registration_of is not None
        # A change named by a `scope` (staff.scopes.Scope): an event, or the scope above events,
        # as each call says (the staff's changes, one set for both).
        self.scoped = "scope" in given
        names_scope = above_of is not None or creates_scope or self.scoped
        if not (names_event or creates_event or names_scope):
            raise TypeError(
                f"{name}: names its event, its registration or its scope, or creates one."
            )
        functools.update_wrapper(self, function)
        self.signature = signature.replace(parameters=parameters)
        self.__signature__ = self.signature  # how it is called: without the change
        self.name = name
        self.function = function
        self.answer = cast("type[A]", answer)  # the return annotation, checked above
        self.content = {
            parameter.name: _cleaner(parameter.annotation)
            for parameter in parameters
            if parameter.name not in NOT_CONTENT and not _earlier(parameter.annotation)
        }
        self.registration_of = registration_of
        self.creates_event = creates_event
        self.above_of = above_of
        # A change of the scope above events itself, not of an event (a series' change).
        self.of_scope = not names_event and not creates_event and not self.scoped
        self.creates_scope = creates_scope
        self.power = power
        self.refused = refused
        self.missing = missing
        # The kind of scope above events `above_of` names, when not the nearest (a series).
        self.scope_model = scope_model

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> A:
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = bound.arguments
        # A scope's changes check their own text, each in its own words (seasons/services.py).
        _refuse_bad_input(arguments, text=not self.of_scope)
        registration_id = arguments.get("registration_id")
        if self.registration_of is not None:
            registration_id = self.registration_of(arguments)
        function = self.function
        scopes = () if self.above_of is None else tuple(self.above_of(arguments))
        event_id, of_scope, missing = arguments.get("event_id"), self.of_scope, self.missing
        scope_model = self.scope_model
        if self.scoped:
            event_id, scopes, of_scope, missing = _scoped(arguments["scope"], missing)
            scope_model = None if of_scope is False else arguments["scope"].model
        return perform(
            scope_model=scope_model,
            scopes=scopes,
            of_scope=of_scope,
            creates_scope=self.creates_scope,
            power=self.power,
            refused=self.refused,
            event_id=event_id,
            registration_id=registration_id,
            user=arguments["by"],
            action=self.name,
            request={name: clean(arguments[name]) for name, clean in self.content.items()},
            idempotency_key=arguments["idempotency_key"],
            apply=lambda change: function(change, *args, **kwargs),
            answer=self.answer,
            creates_event=self.creates_event,
            missing=missing
            or next((_ID_NAMES[n] for n in _ID_NAMES if arguments.get(n) is not None), "event"),
        )


def _scoped(scope: object, missing: str) -> tuple[int | None, tuple[int, ...], bool, str]:
    """What a change named by `scope` concerns: (its event, or none and the scope above events
    it is of), and what a refusal says is missing when it is not there."""
    if not isinstance(scope, Scope) or (scope.model is not Event and not _scopes_above):
        raise no_such(missing or "event")
    if scope.model is not Event and not any(kind.model is scope.model for kind in _scopes_above):
        raise no_such(missing or "event")
    noun = "event" if scope.model is Event else _above(scope.model).noun
    if isinstance(scope.id, bool) or not isinstance(scope.id, int) or not 0 < scope.id <= ID_MAX:
        raise no_such(noun)
    if scope.model is Event:
        return scope.id, (), False, missing or noun
    return None, (scope.id,), True, missing or noun


def action[**P, A: Answer](
    name: str,
    *,
    registration_of: Callable[[Mapping[str, Any]], int] | None = None,
    creates_event: bool = False,
    above_of: Callable[[Mapping[str, Any]], Sequence[int]] | None = None,
    creates_scope: bool = False,
    power: str = "",
    refused: str | Promise = "",
    missing: str = "",
    scope_model: type[Model] | None = None,
) -> Callable[[Callable[Concatenate[Change, P], A]], Service[P, A]]:
    """Make a function one state change, called `name` in idempotency records.

    The change concerns the event `event_id` names, or the event of the registration that
    `registration_id` (or `registration_of`, given the arguments) names; with `creates_event`
    and neither, the function creates the event and sets `change.event`.

    `above_of` gives, from the arguments, the scopes above events (series, or of `scope_model`:
    organizations) the change locks first, in id order: with no event named, the change
    concerns the first of them
    (`change.scope`), its entries chained in its audit; with `creates_scope`, the function
    creates the scope and sets `change.scope`. `power` is the name the rule table is asked with
    when not `name`, `refused` the refusal of an actor with no role, `missing` what a refusal
    says is missing when the scope is not there.
    """

    def decorate(function: Callable[Concatenate[Change, P], A]) -> Service[P, A]:
        return Service(
            name,
            function,
            registration_of=registration_of,
            creates_event=creates_event,
            above_of=above_of,
            creates_scope=creates_scope,
            power=power,
            refused=refused,
            missing=missing,
            scope_model=scope_model,
        )

    return decorate


# What each id names, for the refusal of one that cannot exist.
_ID_NAMES = {
    "review_id": "review",
    "registration_id": "registration",
    "event_id": "event",
    "link_id": "display link",
}


def _refuse_bad_input(arguments: Mapping[str, Any], *, text: bool = True) -> None:
    """What no service takes, whoever calls it: an id past the database's range, text with
    control characters, text longer than any field holds."""
    for name, value in arguments.items():
        if name in _ID_NAMES and value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= ID_MAX:
                raise no_such(_ID_NAMES[name])
        elif text and isinstance(value, str) and name != "idempotency_key":
            longest = REASON_LENGTH if name == "reason" else TEXT_LENGTH
            check_text(
                value, label=name.replace("_", " ").capitalize(), max_length=longest, multiline=True
            )


def _earlier(annotation: Any) -> bool:
    return get_origin(annotation) is Annotated and any(
        isinstance(extra, Earlier) for extra in annotation.__metadata__
    )


def _cleaner(annotation: Any) -> Callable[[Any], Any]:
    """How one argument is written into the fingerprint."""
    if get_origin(annotation) is Annotated:
        for extra in annotation.__metadata__:
            if isinstance(extra, Normalised):
                return extra.clean
    return _plain


def _plain(value: Any) -> Any:
    if isinstance(value, Scope):
        return str(value)
    return value.pk if isinstance(value, Model) else value


def perform[A: Answer](
    *,
    event_id: int | None = None,
    registration_id: int | None = None,
    user: User | None,
    action: str,
    request: Mapping[str, Any],
    idempotency_key: str | None,
    apply: Callable[[Change], A],
    answer: type[A],
    creates_event: bool = False,
    missing: str | None = None,
    scopes: Sequence[int] = (),
    of_scope: bool = False,
    creates_scope: bool = False,
    power: str = "",
    refused: str | Promise = "",
    scope_model: type[Model] | None = None,
) -> A:
    """Run one state change; `apply` returns the answer, a domain error refuses it.

    The change concerns `event_id`, or the event of `registration_id`, or (neither) a new event;
    or with `of_scope` the first of `scopes` above events (a series, or of `scope_model`), or a
    new one. The `scopes` are locked first, in id order.
    """
    key = (idempotency_key or "").strip() or None
    if key is not None and (user is None or len(key) > 200 or text_problem(key)):
        if of_scope and user is not None:
            raise Invalid(_("An Idempotency-Key has at most 200 plain characters."))
        raise Invalid(
            _("An Idempotency-Key needs a signed-in user and at most 200 plain characters.")
        )
    keyed = user if key is not None else None  # whose key, when there is one
    begin = functools.partial(
        _begin,
        event_id,
        registration_id,
        action,
        request,
        keyed,
        key,
        scopes,
        of_scope,
        scope_model,
    )
    try:
        with transaction.atomic(durable=not _together.get()):
            locked, print_, record = begin(missing)
            if record is None:
                missing = missing or ("registration" if registration_id is not None else "event")
                change = _change(
                    locked, user, action, power, refused, creates_event or of_scope, missing
                )
                _refuse_a_stranger(change, registration_id)
                return _apply(change, apply, keyed, key, print_, missing, creates_scope)
    except DomainError as refused:
        if keyed is None or key is None or _together.get():
            raise  # within `together`, the refusal rolls every change of it back
        error = refused
    else:
        return _replay(record, print_, answer)
    # The refusal rolled the change back. It is stored under its key in a transaction of its own,
    # under the same lock, unless a retry with the same key stored its outcome in between.
    with transaction.atomic(durable=True):
        print_, record = begin(missing)[1:]
        if record is None:
            IdempotencyRecord.objects.create(
                user=keyed,
                key=key,
                fingerprint=print_,
                answer=None,
                error_code=error.code,
                error_message=error.message,
            )
    if record is not None:
        return _replay(record, print_, answer)
    raise error


@dataclass(frozen=True, slots=True)
class _Locked:
    """What a change locked before it runs: its event (None for a new one or a scope's change),
    the scopes above events in id order, and the scope the change concerns."""

    event: Event | None
    scopes: dict[int, Any]
    scope: Any = None


def _change(
    locked: _Locked,
    user: User | None,
    action: str,
    power: str,
    refused: str | Promise,
    creates: bool,
    missing: str = "event",
) -> Change:
    """The change in progress over what `_begin` locked."""
    if locked.event is None and locked.scope is None:
        if not creates:
            raise no_such("event")
        # `apply` creates the event or scope; who acts there is the service's own guard.
        return Change(
            event=Event(), user=user, _house=False, action=action, power=power, scopes=locked.scopes
        )
    return Change(
        event=locked.event or Event(),
        user=user,
        action=action,
        power=power,
        refused=refused,
        missing=missing,
        scope=locked.scope,
        scopes=locked.scopes,
    )


def _refuse_a_stranger(change: Change, registration_id: int | None) -> None:
    """A registration that is neither the actor's own nor in an event where they hold a role
    answers as a missing one does (events/access.py), in every phase: also in a finalized
    event, whose refusal of every change would otherwise tell a stranger first that it is
    finalized and that the registration is there."""
    user = change.user
    if (
        registration_id is None
        or user is None
        or change.event.phase != Phase.FINALIZED
        or change.roles
        or Registration.objects.filter(pk=registration_id, player_id=user.pk).exists()
    ):
        return
    raise no_such("registration")


def _apply[A: Answer](
    change: Change,
    apply: Callable[[Change], A],
    keyed: User | None,
    key: str | None,
    print_: str,
    missing: str = "event",
    creates_scope: bool = False,
) -> A:
    """Make the change (inside `perform`'s transaction) and store its answer under the key."""
    event, user = change.event, change.user
    if event.pk is not None and (
        event.phase == Phase.DRAFT
        and not (change.roles or (user and user.is_staff))
        # An invitation to the staff names its event: its holder may answer it.
        and change.action != "staff_invitation_accept"
    ):
        # A draft is not public: to anyone else it answers as a missing one does.
        raise no_such(missing)
    answer = apply(change)
    if creates_scope and change.scope is not None:
        change.scopes[change.scope.pk] = change.scope
    stored = None
    if keyed is not None and key is not None:
        stored = IdempotencyRecord(user=keyed, key=key, fingerprint=print_, answer=as_json(answer))
    for scope_id, entries in sorted(change.scope_entries.items()):
        _above().record(change.scopes[scope_id], entries, change.now)
    if change.entries and change.scope is not None:
        _above(type(change.scope)).record(change.scope, change.entries, change.now)
        if stored is not None:
            stored.save()
    elif change.entries:
        _record(change, stored)  # on PostgreSQL, in the statement that writes the audit entries
    elif stored is not None:
        stored.save()
    for callback in change.callbacks:
        transaction.on_commit(callback)
    return answer


def _begin(
    event_id: int | None,
    registration_id: int | None,
    action: str,
    request: Mapping[str, Any],
    user: User | None,
    key: str | None,
    scope_ids: Sequence[int] = (),
    of_scope: bool = False,
    scope_model: type[Model] | None = None,
    missing: str | None = None,
) -> tuple[_Locked, str, IdempotencyRecord | None]:
    """Lock what the change concerns (the scopes above events first, in id order, then the
    event); its fingerprint; the record a first try left under the key."""
    scopes: dict[int, Any] = {}
    for scope_id in sorted(set(scope_ids)):
        row = _above(scope_model).lock(scope_id)
        if row is not None:
            scopes[scope_id] = row
    scope = None
    if of_scope and scope_ids:
        scope = scopes.get(scope_ids[0])
        if scope is None:
            raise no_such(missing or _above(scope_model).noun)
    if registration_id is not None:
        event: Event | None = _lock_event_of(registration_id)
    elif event_id is not None:
        event = _lock_event(event_id)
    else:
        event = None
    locked = _Locked(event=event, scopes=scopes, scope=scope)
    print_ = fingerprint(action, event.pk if event else None, request)
    if user is None or key is None:
        return locked, print_, None
    if event is None and scope is None:
        # A creation has no event to lock yet: its author's row serializes their retries. No key
        # update, so rows that name the author (the answer stored under the key) are not held
        # up by it: events and series are locked first, and an author's row never waits on them.
        User.objects.select_for_update(no_key=True).filter(pk=user.pk).exists()
    return locked, print_, IdempotencyRecord.objects.filter(user=user, key=key).first()


def stored_answer[A: Answer](
    user: User, key: str | None, action: str, request: Mapping[str, Any], answer: type[A]
) -> A | None:
    """The answer a first try of a change made of several steps (each a change of its own)
    stored under its key: replayed as it was, a conflicting content refused. None before it."""
    key = (key or "").strip() or None
    if key is None:
        return None
    record = IdempotencyRecord.objects.filter(user=user, key=key).first()
    return None if record is None else _replay(record, fingerprint(action, None, request), answer)


def _record(change: Change, stored: IdempotencyRecord | None = None) -> None:
    """Chain the audit entries, move the live versions on, and announce the change after commit."""
    event = change.event
    rows = chain(event, change.entries, change.now)
    event.version += 1
    known = change.known
    unknown = change.touched_labels - known.keys()
    touched = sorted(
        {known[label] for label in change.touched_labels if label in known} | change.saves.keys()
    )
    if change.touches_everyone or unknown:
        players = Registration.objects.filter(event=event).order_by()
        if not change.touches_everyone:
            players = players.filter(label__in=unknown)
        touched = sorted(set(touched) | set(players.values_list("pk", flat=True)))
    _write_together(change, rows, touched, stored)
    committed = changes.Committed(
        event.pk,
        tuple(touched),
        event.version,
        tuple(change.offer_ids),
        tuple(dict.fromkeys(entry.action for entry in change.entries)),
    )
    transaction.on_commit(lambda: changes.tell(committed))


# The fields a change saves at its end in the statement that ends it (both, together); any other
# goes in a statement of its own.
_SAVED_WITH_THE_VERSIONS = frozenset({"wild_rank", "revealed_at"})


def _write_together(
    change: Change,
    rows: list[AuditEntry],
    touched: list[int],
    stored: IdempotencyRecord | None,
) -> None:
    """The audit entries, the event's version and chain head, the players' versions (with the
    wilds revealed) and the answer stored under the idempotency key: one statement."""
    event = change.event
    wilds = []
    for registration, fields in change.saves.values():
        if _SAVED_WITH_THE_VERSIONS.intersection(fields):
            wilds.append(
                store.Wild(
                    registration.pk, registration.wild_rank, registration.revealed_at or change.now
                )
            )
        if others := [name for name in fields if name not in _SAVED_WITH_THE_VERSIONS]:
            registration.save(update_fields=others)
    store.write_change(
        event_id=event.pk,
        version=event.version,
        audit_seq=event.audit_seq,
        audit_hash=event.audit_hash,
        entries=[
            store.Entry(
                seq=row.seq,
                at=row.at,
                actor=row.actor,
                actor_kind=row.actor_kind,
                actor_role=row.actor_role,
                action=row.action,
                player=row.player,
                details=row.details,
                reason=row.reason,
                prev_hash=row.prev_hash,
                hash=row.hash,
            )
            for row in rows
        ],
        touched=touched,
        wilds=wilds,
        answer=None
        if stored is None
        else store.StoredAnswer(
            user_id=stored.user_id,
            key=stored.key,
            fingerprint=stored.fingerprint,
            answer=stored.answer,
        ),
        now=change.now,
    )


def _lock_event(event_id: int) -> Event:
    event = store.lock_event(event_id=event_id)
    if event is None:
        raise no_such("event")
    return event


def _lock_event_of(registration_id: int) -> Event:
    """Lock the event a registration belongs to (that never changes), in one statement."""
    event = store.lock_event_of_registration(registration_id=registration_id)
    if event is None:
        raise no_such("registration")
    return event


def _replay[A: Answer](record: IdempotencyRecord, print_: str, answer: type[A]) -> A:
    if record.fingerprint != print_:
        raise IdempotencyConflict()
    if record.error_code:
        raise ERRORS_BY_CODE.get(record.error_code, DomainError)(record.error_message)
    return from_json(answer, record.answer or {})
