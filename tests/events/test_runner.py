"""The one shape of a state change (`events.runner.action`): what a retry must repeat, and how an
answer is stored under its key and replayed."""

from __future__ import annotations

import dataclasses
import datetime
import inspect
import types
import typing
from collections.abc import Iterator
from typing import Any

import pytest

from accounts.models import User
from cards.models import Offer, OfferKind
from events import changes, services
from events.answers import ALL_ANSWERS, Answer, StaffChanged, as_json, from_json
from events.errors import DomainError, IdempotencyConflict
from events.models import Event, IdempotencyRecord, Outcome, RegistrationStatus
from events.runner import Service
from staff.scopes import Scope
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

SERVICES: dict[str, Service[..., Any]] = {
    name: getattr(services, name) for name in services.__all__
}


def test_every_service_is_one_decorated_function_with_an_answer_of_its_own() -> None:
    assert all(isinstance(service, Service) for service in SERVICES.values())
    assert {service.name for service in SERVICES.values()} == set(SERVICES)
    kinds = [service.answer for service in SERVICES.values()]
    # Appointing and removing a staff member answer alike (the member, and the scope changed);
    # every other service has an answer of its own.
    shared = {
        name: service.answer
        for name, service in SERVICES.items()
        if kinds.count(service.answer) > 1
    }
    assert shared == {"house_member_add": StaffChanged, "house_member_remove": StaffChanged}
    assert len(set(kinds)) == len(kinds) - 1 == len(ALL_ANSWERS)
    assert set(kinds) == set(ALL_ANSWERS)


def test_the_fingerprint_is_every_argument_but_the_actor_and_the_key() -> None:
    for name, service in SERVICES.items():
        called_with = set(inspect.signature(service).parameters)
        assert {"by", "idempotency_key"} <= called_with, name
        assert "change" not in called_with, name
        assert set(service.content) == called_with - {"by", "idempotency_key"}, name
        assert set(service.content) == set(_cases_without_a_scene()[name][1]), (
            f"{name}: give each argument another value in `cases` below"
        )


class Scene:
    """Two events with one House, two players in the first, two open reviews, two spare users."""

    def __init__(self) -> None:
        table = make_table("league", players=2, start=True)
        other = make_table("league")
        other.event.staff.create(user=table.house)
        self.house: User = table.house
        self.event_id, self.other_event_id = table.event.pk, other.event.pk
        self.rid, self.other_rid = (table.rid(player) for player in table.players)
        self.users = (make_user("Una"), make_user("Vic"))
        self.reviews = tuple(
            services.review_open(registration_id=rid, by=self.house, reason="Check").review_id
            for rid in (self.rid, self.other_rid)
        )


def cases(s: Scene) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Each service's arguments (besides `by`), and another value for each of them."""
    e, e2, r, r2 = s.event_id, s.other_event_id, s.rid, s.other_rid
    u, u2 = s.users
    return {
        "event_create": (
            {
                "name": "Friday",
                "date": datetime.date(2026, 12, 4),
                "format": "league",
                "contribution": 0,
                "extra_decks": 1,
                "remainder_policy": "",
                "venue": "",
                "time_zone": "UTC",
                "entry_mode": "paid",
                "sponsored_pool": 0,
                "refund_policy": "cancellations",
                "minimum_age": 0,
                "registration_opens_at": None,
                "registration_closes_at": None,
                "capacity": None,
                "hold_minutes": 30,
                "day_hold_minutes": 10,
                "pay_ahead": False,
                "language": "",
                "scope_above_id": None,
                "organization_id": None,
                "venue_id": None,
            },
            {
                "name": "Saturday",
                "date": datetime.date(2026, 12, 5),
                "format": "switch",
                "contribution": 5,
                "extra_decks": 2,
                "remainder_policy": "Rolls over.",
                "venue": "Hall",
                "time_zone": "Europe/London",
                "entry_mode": "sponsored",
                "sponsored_pool": 100,
                "refund_policy": "withdrawals",
                "minimum_age": 21,
                "registration_opens_at": datetime.datetime(2026, 11, 20, tzinfo=datetime.UTC),
                "registration_closes_at": datetime.datetime(2026, 12, 4, tzinfo=datetime.UTC),
                "capacity": 64,
                "hold_minutes": 45,
                "day_hold_minutes": 5,
                "pay_ahead": True,
                "language": "fr",
                "scope_above_id": 7,
                "organization_id": 3,
                "venue_id": 9,
            },
        ),
        "event_update": (
            {"event_id": e, "changes": {"venue": "Hall"}},
            {"event_id": e2, "changes": {"venue": "Barn"}},
        ),
        "house_member_add": (
            {"scope": Scope(Event, e), "member": u, "role": "director"},
            {"scope": Scope(Event, e2), "member": u2, "role": "cashier"},
        ),
        "house_member_remove": (
            {"scope": Scope(Event, e), "member": u},
            {"scope": Scope(Event, e2), "member": u2},
        ),
        "ownership_transfer": (
            {"scope": Scope(Event, e), "member": u},
            {"scope": Scope(Event, e2), "member": u2},
        ),
        "staff_invite": (
            {"scope": Scope(Event, e), "email": "a@example.com", "role": "cashier"},
            {"scope": Scope(Event, e2), "email": "b@example.com", "role": "scorer"},
        ),
        "staff_invitation_accept": (
            {"scope": Scope(Event, e), "token": "a"},
            {"scope": Scope(Event, e2), "token": "b"},
        ),
        "staff_invitation_cancel": (
            {"scope": Scope(Event, e), "invitation_id": 1},
            {"scope": Scope(Event, e2), "invitation_id": 2},
        ),
        "registration_open": ({"event_id": e}, {"event_id": e2}),
        "registration_close": ({"event_id": e}, {"event_id": e2}),
        "event_start": ({"event_id": e}, {"event_id": e2}),
        "pool_confirm": (
            {"event_id": e, "adjustments": [(-5, "Refund")]},
            {"event_id": e2, "adjustments": [(-6, "Refund")]},
        ),
        "event_finalize": ({"event_id": e}, {"event_id": e2}),
        "player_register": (
            {"event_id": e, "age_confirmed": False},
            {"event_id": e2, "age_confirmed": True},
        ),
        "participant_add": ({"event_id": e, "player": u}, {"event_id": e2, "player": u2}),
        "registration_cancel": ({"registration_id": r}, {"registration_id": r2}),
        "player_check_in": ({"registration_id": r}, {"registration_id": r2}),
        "check_in_undo": ({"registration_id": r}, {"registration_id": r2}),
        "wild_reveal": ({"registration_id": r}, {"registration_id": r2}),
        "player_withdraw": (
            {"registration_id": r, "reason": "Left"},
            {"registration_id": r2, "reason": "Hurt"},
        ),
        "access_reset": (
            {"registration_id": r, "reason": "Lost phone"},
            {"registration_id": r2, "reason": "New phone"},
        ),
        "starting_selection_confirm": (
            {"registration_id": r, "slots": [0], "reason": "Assist"},
            {"registration_id": r2, "slots": [1], "reason": "Help"},
        ),
        "result_submit": (
            {
                "registration_id": r,
                "game": 1,
                "outcome": "loss",
                "opponent": "Bo",
                "score": "21-15",
                "reason": "Assist",
            },
            {
                "registration_id": r2,
                "game": 2,
                "outcome": "win",
                "opponent": "Cy",
                "score": "21-3",
                "reason": "Help",
            },
        ),
        "win_choice_confirm": (
            {"registration_id": r, "slot": 0, "offer_id": 1, "reason": "Assist"},
            {"registration_id": r2, "slot": 1, "offer_id": 2, "reason": "Help"},
        ),
        "result_correct": (
            {"registration_id": r, "game": 1, "outcome": "win", "reason": "Scoreholio"},
            {"registration_id": r2, "game": 2, "outcome": "loss", "reason": "Both teams"},
        ),
        "review_open": (
            {"registration_id": r, "reason": "Check"},
            {"registration_id": r2, "reason": "Look"},
        ),
        "review_resolve": (
            {"review_id": s.reviews[0], "reason": "Fine"},
            {"review_id": s.reviews[1], "reason": "Checked"},
        ),
        "self_check_in_switch": (
            {"event_id": e, "enabled": True},
            {"event_id": e2, "enabled": False},
        ),
        "self_check_in": (
            {"event_id": e, "code": "ABCDEF", "register": False, "age_confirmed": False},
            {"event_id": e2, "code": "GHJKMN", "register": True, "age_confirmed": True},
        ),
        "check_in_all": ({"event_id": e}, {"event_id": e2}),
        "payment_mark": (
            {"registration_id": r, "paid": True},
            {"registration_id": r2, "paid": False},
        ),
        "announcement_send": (
            {"event_id": e, "text": "Round 2 at 8:30"},
            {"event_id": e2, "text": "Food is here"},
        ),
        "display_link_create": (
            {"scope": Scope(Event, e), "label": "Projector by the bar"},
            {"scope": Scope(Event, e2), "label": "Door screen"},
        ),
        "display_link_revoke": (
            {"scope": Scope(Event, e), "link_id": 1},
            {"scope": Scope(Event, e2), "link_id": 2},
        ),
        "place_claim": ({"registration_id": r}, {"registration_id": r2}),
        "waitlist_promote": (
            {"registration_id": r, "reason": "Regular"},
            {"registration_id": r2, "reason": "Early"},
        ),
        "registration_remove": (
            {"registration_id": r, "reason": "Duplicate"},
            {"registration_id": r2, "reason": "Asked"},
        ),
    }


def _cases_without_a_scene() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """The same table with placeholders, to read its argument names without a database."""
    scene = Scene.__new__(Scene)
    scene.event_id = scene.other_event_id = scene.rid = scene.other_rid = 0
    scene.users = (None, None)  # type: ignore[assignment]
    scene.reviews = (0, 0)
    return cases(scene)


def _outcome(call: Any) -> Answer | DomainError:
    try:
        answer: Answer = call()
    except DomainError as refused:
        return refused
    return answer


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_a_retry_that_differs_in_any_argument_is_refused(name: str) -> None:
    scene = Scene()
    service = SERVICES[name]
    arguments, others = cases(scene)[name]
    for argument, other in others.items():
        key = f"{name}-{argument}"

        def call(key: str = key, **changed: Any) -> Answer:
            return service(by=scene.house, idempotency_key=key, **{**arguments, **changed})

        first = _outcome(call)
        # The same request again is the first one (its answer, or its refusal).
        again = _outcome(call)
        if isinstance(first, DomainError):
            assert type(again) is type(first) and again.message == first.message, (argument, again)
        else:
            assert type(again) is type(first) and again == first, argument
        # Any argument changed is other content under the same key: 422.
        with pytest.raises(IdempotencyConflict):
            call(**{argument: other})
        assert IdempotencyRecord.objects.filter(user=scene.house, key=key).count() == 1


def test_whitespace_around_a_reason_is_not_other_content() -> None:
    scene = Scene()
    first = services.review_open(
        registration_id=scene.rid, by=scene.house, reason="Check", idempotency_key="pause"
    )
    again = services.review_open(
        registration_id=scene.rid, by=scene.house, reason="  Check ", idempotency_key="pause"
    )
    assert again == first
    with pytest.raises(IdempotencyConflict):
        services.review_open(
            registration_id=scene.rid, by=scene.house, reason="Checks", idempotency_key="pause"
        )


def _sample(hint: Any, present: bool) -> Any:
    """A value of a field's type (None for an optional one when not `present`)."""
    if typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        if not present:
            return None
        (hint,) = (arg for arg in typing.get_args(hint) if arg is not types.NoneType)
    if typing.get_origin(hint) is list:
        return ["As", "Td"]
    samples = {
        int: 7,
        str: "Kh",
        bool: True,
        Outcome: Outcome.WIN,
        RegistrationStatus: RegistrationStatus.CHECKED_IN,
    }
    return samples[hint]


@pytest.mark.parametrize("present", [True, False], ids=["every-field", "optional-fields-none"])
def test_every_answer_round_trips_through_its_idempotency_record(present: bool) -> None:
    user = make_user()
    for kind in ALL_ANSWERS:
        hints = typing.get_type_hints(kind, include_extras=True)
        answer = kind(
            **{f.name: _sample(hints[f.name], present) for f in dataclasses.fields(kind)}  # type: ignore[arg-type]
        )
        IdempotencyRecord.objects.create(
            user=user, key=kind.__name__, fingerprint="-", answer=as_json(answer)
        )
        stored = IdempotencyRecord.objects.get(user=user, key=kind.__name__).answer
        assert stored is not None
        assert from_json(kind, stored) == answer, kind
        assert type(from_json(kind, stored)) is kind
        # An optional field the answer does not have is left out, not written as null.
        optional = {f.name for f in dataclasses.fields(kind) if f.default is None}  # type: ignore[arg-type]
        assert set(stored) == {f.name for f in dataclasses.fields(kind)} - (  # type: ignore[arg-type]
            set() if present else optional
        )


def test_a_replayed_answer_is_the_dataclass_first_answered() -> None:
    table = make_table("league", players=2, start=True)
    ann = table.players[0]
    table.choose_start(ann)
    first = services.result_submit(
        registration_id=table.rid(ann), by=ann, game=1, outcome="win", idempotency_key="g1"
    )
    again = services.result_submit(
        registration_id=table.rid(ann), by=ann, game=1, outcome="win", idempotency_key="g1"
    )
    assert type(again) is type(first)
    assert again == first and first.offered is not None and first.card is None
    assert IdempotencyRecord.objects.get(user=ann, key="g1").answer == as_json(first)


@pytest.fixture
def committed() -> Iterator[list[changes.Committed]]:
    """The changes `events.changes` tells its listeners of, as live pages and push hear them."""
    heard: list[changes.Committed] = []
    changes.subscribe(heard.append)
    try:
        yield heard
    finally:
        changes._listeners.remove(heard.append)


def test_a_committed_change_names_the_offers_it_made(
    committed: list[changes.Committed], django_capture_on_commit_callbacks: Any
) -> None:
    table = make_table("league", players=2)
    player = table.players[0]

    with django_capture_on_commit_callbacks(execute=True):
        table.start()
    starting = Offer.objects.filter(registration__event=table.event, kind=OfferKind.STARTING)
    assert committed[-1].offer_ids == tuple(sorted(starting.values_list("pk", flat=True)))

    with django_capture_on_commit_callbacks(execute=True):
        table.choose_start(player)
        table.report(player, 1, "loss")
        table.report(player, 2, "win")
    win = Offer.objects.get(registration=table.registration(player), kind=OfferKind.WIN)
    assert [change.offer_ids for change in committed[-3:]] == [(), (), (win.pk,)]
    assert win.reminder_due_at == win.offered_at + datetime.timedelta(seconds=180)
