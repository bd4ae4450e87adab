"""The transaction runner: every state change runs as one short transaction that locks the event,
checks who acts, applies the change, chains its audit entries and stores the answer under the
idempotency key.

Each state change is one function decorated with `action`: it takes the `Change` and keyword
arguments, and returns its answer (a frozen dataclass of `events.answers`).

A retry with the same key returns the first answer, refusals included, and changes nothing; the same
key with different content is refused (422). Work outside the database (websocket messages, pushes,
email) is queued with `Change.after_commit` and runs only once the transaction has committed.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Concatenate, Protocol, cast, get_origin

from django.db import transaction
from django.db.models import Model, QuerySet
from django.utils import timezone

from accounts.models import User
from audit.models import AuditEntry
from audit.writer import PendingEntry, chain
from events import changes, staff, store
from events.answers import Answer, as_json, from_json
from events.errors import (
    ERRORS_BY_CODE,
    DomainError,
    EventIsFinalized,
    IdempotencyConflict,
    Invalid,
    NotAllowed,
    NotFound,
)
from events.limits import ID_MAX, REASON_LENGTH, TEXT_LENGTH, check_text, text_problem
from events.models import Event, EventStaff, IdempotencyRecord, Phase, Registration
from events.progress import Progress

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
    """The scope above events whose staff hold roles in each of its events: a series. It lives in
    a layer on top of the engine (seasons/apps.py installs it with `use_scope_above`): the engine
    imports none of it and names none of it."""

    def exists(self, scope_id: int) -> bool:
        """Whether the scope is there."""
        ...

    def roles(self, user_id: int, scope_id: int) -> QuerySet[Any, tuple[str]]:
        """The roles the user holds in the scope, as rows of one `role` column (the engine
        reads them together with the event's own staff in one query)."""
        ...


_scopes_above: list[ScopeAbove] = []


def use_scope_above(scope: ScopeAbove) -> None:
    _scopes_above[:] = [scope]


def scope_exists(scope_id: int) -> bool:
    """Whether the scope above events (a series) is there; never without its layer."""
    return bool(_scopes_above) and _scopes_above[0].exists(scope_id)


def roles_above(user_id: int, scope_id: int) -> frozenset[str]:
    """The roles a user holds in the scope above events (a series); none without its layer."""
    if not _scopes_above:
        return frozenset()
    return frozenset(role for (role,) in _scopes_above[0].roles(user_id, scope_id))


def roles_of(user: User | None, event_id: int, series_id: int | None) -> frozenset[str]:
    """The roles `user` holds in an event (its own and its series'); a superuser is owner."""
    if user is None or not user.is_authenticated or not user.is_active:
        return frozenset()
    if user.is_superuser:
        return frozenset({staff.Role.OWNER.value})

    held = EventStaff.objects.filter(user_id=user.pk, event_id=event_id).values_list("role")
    if series_id is not None and _scopes_above:
        # The series' staff live with the series (seasons/), which installs them as the scope above.
        held = held.union(_scopes_above[0].roles(user.pk, series_id))
    return frozenset(role for (role,) in held)


def may(user: User | None, event: Event, action: str) -> bool:
    """Whether `user` may perform the House action `action` in this event (events/staff.py)."""
    return staff.acting_role(roles_of(user, event.pk, event.series_id), action) is not None


def is_house(user: User | None, event: Event) -> bool:
    """Staff of this event in any role (its own or its series'), or a superuser: House's pages
    open to them; what each may change is the rule table's (events/staff.py)."""
    return staff.may_see(roles_of(user, event.pk, event.series_id), "house")


@dataclass
class Change:
    """One state change in progress: the locked event, who acts, the audit entries to write."""

    event: Event
    user: User | None
    _house: bool | None = None
    # The action's name (`action`): which House powers it needs (events/staff.py).
    action: str = ""
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
        """The actor's roles in this event (asked once, only when needed)."""
        if self._roles is None:
            self._roles = roles_of(self.user, self.event.pk, self.event.series_id)
        return self._roles

    @property
    def role(self) -> str | None:
        """The role the actor acts in: the strongest of theirs that may perform this action."""
        if self._role is not None:
            return self._role
        return staff.acting_role(self.roles, self.action) if self.house else None

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
            self._house = staff.acting_role(self.roles, self.action) is not None
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

    def refusal(self) -> NotAllowed:
        """Why the actor may not do this as House: no role, or one without this power."""
        held = staff.strongest(self.roles)
        if held is None:
            return NotAllowed("Only House can do that for this event.")
        return NotAllowed(
            f"Your role in this event ({held}) does not include that "
            f"({self.action.replace('_', ' ')})."
        )

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
        if not (
            {"registration_id", "event_id"} & given or registration_of is not None or creates_event
        ):
            raise TypeError(f"{name}: names its event, its registration, or creates an event.")
        functools.update_wrapper(self, function)
        self.signature = signature.replace(parameters=parameters)
        self.__signature__ = self.signature  # how it is called: without the change
        self.name = name
        self.function = function
        self.answer = cast("type[A]", answer)  # the return annotation, checked above
        self.content = {
            parameter.name: _cleaner(parameter.annotation)
            for parameter in parameters
            if parameter.name not in NOT_CONTENT
        }
        self.registration_of = registration_of
        self.creates_event = creates_event

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> A:
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = bound.arguments
        _refuse_bad_input(arguments)
        registration_id = arguments.get("registration_id")
        if self.registration_of is not None:
            registration_id = self.registration_of(arguments)
        function = self.function
        return perform(
            event_id=arguments.get("event_id"),
            registration_id=registration_id,
            user=arguments["by"],
            action=self.name,
            request={name: clean(arguments[name]) for name, clean in self.content.items()},
            idempotency_key=arguments["idempotency_key"],
            apply=lambda change: function(change, *args, **kwargs),
            answer=self.answer,
            creates_event=self.creates_event,
            missing=next(
                (_ID_NAMES[n] for n in _ID_NAMES if arguments.get(n) is not None), "event"
            ),
        )


def action[**P, A: Answer](
    name: str,
    *,
    registration_of: Callable[[Mapping[str, Any]], int] | None = None,
    creates_event: bool = False,
) -> Callable[[Callable[Concatenate[Change, P], A]], Service[P, A]]:
    """Make a function one state change, called `name` in idempotency records.

    The change concerns the event `event_id` names, or the event of the registration that
    `registration_id` (or `registration_of`, given the arguments) names; with `creates_event`
    and neither, the function creates the event and sets `change.event`.
    """

    def decorate(function: Callable[Concatenate[Change, P], A]) -> Service[P, A]:
        return Service(name, function, registration_of=registration_of, creates_event=creates_event)

    return decorate


# What each id names, for the refusal of one that cannot exist.
_ID_NAMES = {
    "review_id": "review",
    "registration_id": "registration",
    "event_id": "event",
    "link_id": "display link",
}


def _refuse_bad_input(arguments: Mapping[str, Any]) -> None:
    """What no service takes, whoever calls it: an id past the database's range, text with
    control characters, text longer than any field holds."""
    for name, value in arguments.items():
        if name in _ID_NAMES and value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= ID_MAX:
                raise NotFound(f"No such {_ID_NAMES[name]}.")
        elif isinstance(value, str) and name != "idempotency_key":
            longest = REASON_LENGTH if name == "reason" else TEXT_LENGTH
            check_text(
                value, label=name.replace("_", " ").capitalize(), max_length=longest, multiline=True
            )


def _cleaner(annotation: Any) -> Callable[[Any], Any]:
    """How one argument is written into the fingerprint."""
    if get_origin(annotation) is Annotated:
        for extra in annotation.__metadata__:
            if isinstance(extra, Normalised):
                return extra.clean
    return _plain


def _plain(value: Any) -> Any:
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
) -> A:
    """Run one state change; `apply` returns the answer, a domain error refuses it.

    The change concerns `event_id`, or the event of `registration_id`, or (neither) a new event.
    """
    key = (idempotency_key or "").strip() or None
    if key is not None and (user is None or len(key) > 200 or text_problem(key)):
        raise Invalid("An Idempotency-Key needs a signed-in user and at most 200 plain characters.")
    keyed = user if key is not None else None  # whose key, when there is one
    try:
        with transaction.atomic(durable=not _together.get()):
            event, print_, record = _begin(event_id, registration_id, action, request, keyed, key)
            if record is None:
                missing = missing or ("registration" if registration_id is not None else "event")
                return _apply(
                    event, user, apply, creates_event, keyed, key, print_, missing, action
                )
    except DomainError as refused:
        if keyed is None or key is None or _together.get():
            raise  # within `together`, the refusal rolls every change of it back
        error = refused
    else:
        return _replay(record, print_, answer)
    # The refusal rolled the change back. It is stored under its key in a transaction of its own,
    # under the same lock, unless a retry with the same key stored its outcome in between.
    with transaction.atomic(durable=True):
        event, print_, record = _begin(event_id, registration_id, action, request, keyed, key)
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


def perform_within(
    *, event_id: int, user: User | None, action: str, apply: Callable[[Change], None]
) -> None:
    """One event's part of a change made over several events (a series' staff change reaching
    its events), inside the caller's transaction: the event locked (after the series, which the
    caller holds: one lock order everywhere), its audit entries chained, its live update told
    after the commit. The caller stores the answer under its idempotency key."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError(
            "perform_within runs inside the transaction of the change it is part of."
        )
    change = Change(event=_lock_event(event_id), user=user, action=action)
    apply(change)
    if change.entries:
        _record(change)
    for callback in change.callbacks:
        transaction.on_commit(callback)


def _apply[A: Answer](
    event: Event | None,
    user: User | None,
    apply: Callable[[Change], A],
    creates_event: bool,
    keyed: User | None,
    key: str | None,
    print_: str,
    missing: str = "event",
    action: str = "",
) -> A:
    """Make the change (inside `perform`'s transaction) and store its answer under the key."""
    if event is None:
        if not creates_event:
            raise NotFound("No such event.")
        change = Change(event=Event(), user=user, _house=False, action=action)  # `apply` creates it
    else:
        change = Change(event=event, user=user, action=action)
        if (
            event.phase == Phase.DRAFT
            and not (change.roles or (user and user.is_staff))
            # An invitation to the staff names its event: its holder may answer it.
            and action != "staff_invitation_accept"
        ):
            # A draft is not public: to anyone else it answers as a missing one does.
            raise NotFound(f"No such {missing}.")
    answer = apply(change)
    stored = None
    if keyed is not None and key is not None:
        stored = IdempotencyRecord(user=keyed, key=key, fingerprint=print_, answer=as_json(answer))
    if change.entries:
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
) -> tuple[Event | None, str, IdempotencyRecord | None]:
    """Lock what the change concerns; its fingerprint; the record a first try left under the key."""
    if registration_id is not None:
        event: Event | None = _lock_event_of(registration_id)
    elif event_id is not None:
        event = _lock_event(event_id)
    else:
        event = None
    print_ = fingerprint(action, event.pk if event else None, request)
    if user is None or key is None:
        return event, print_, None
    if event is None:
        # A creation has no event to lock yet: its author's row serializes their retries. No key
        # update, so rows that name the author (the answer stored under the key) are not held
        # up by it: events and series are locked first, and an author's row never waits on them.
        User.objects.select_for_update(no_key=True).filter(pk=user.pk).exists()
    return event, print_, IdempotencyRecord.objects.filter(user=user, key=key).first()


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
        raise NotFound("No such event.")
    return event


def _lock_event_of(registration_id: int) -> Event:
    """Lock the event a registration belongs to (that never changes), in one statement."""
    event = store.lock_event_of_registration(registration_id=registration_id)
    if event is None:
        raise NotFound("No such registration.")
    return event


def _replay[A: Answer](record: IdempotencyRecord, print_: str, answer: type[A]) -> A:
    if record.fingerprint != print_:
        raise IdempotencyConflict()
    if record.error_code:
        raise ERRORS_BY_CODE.get(record.error_code, DomainError)(record.error_message)
    return from_json(answer, record.answer or {})
