"""`payment_mark`: House records who paid their contribution; the collected total; and the lock
on the contribution and the remainder policy once a paid entry exists (the rules: the policy is
announced before paid entries are accepted)."""

from __future__ import annotations

from functools import partial

import pytest

from events import services
from events.check_in import collected
from events.errors import (
    EventIsFinalized,
    NotFound,
    PaidEntriesExist,
    RemainderPolicyRequired,
    WrongState,
)
from events.models import Event
from tests.events.support import finalized_table, last
from tests.factories import make_table, make_user
from tests.refusals import refused


@pytest.mark.django_db
def test_it_marks_a_player_paid_and_counts_the_dollars_collected():
    table = make_table(players=2, contribution=15)
    ann, bob = table.players
    answer = services.payment_mark(registration_id=table.rid(ann), by=table.house, paid=True)
    assert (answer.paid, answer.collected) == (True, 15)
    answer = services.payment_mark(registration_id=table.rid(bob), by=table.house, paid=True)
    assert answer.collected == 30
    entry = last(table.event, "payment_marked")
    assert (entry.actor, entry.actor_kind, entry.player) == (
        "House: House",
        "house",
        bob.display_name,
    )
    assert entry.details == {"version": 1, "paid": True, "amount": 15}
    answer = services.payment_mark(registration_id=table.rid(ann), by=table.house, paid=False)
    assert (answer.paid, answer.collected) == (False, 15)
    assert collected(table.refresh()) == 15


@pytest.mark.django_db
def test_marking_it_as_it_is_writes_nothing():
    table = make_table(players=1)
    (ann,) = table.players
    services.payment_mark(registration_id=table.rid(ann), by=table.house, paid=True)
    seq = table.refresh().audit_seq
    services.payment_mark(registration_id=table.rid(ann), by=table.house, paid=True)
    assert table.refresh().audit_seq == seq


@pytest.mark.django_db
def test_players_and_other_house_cannot_mark_payments():
    table = make_table(players=2)
    ann, bob = table.players
    for who in (ann, bob, make_table().house):
        refused(
            NotFound,
            table.event,
            partial(services.payment_mark, registration_id=table.rid(ann), by=who, paid=True),
        )


@pytest.mark.django_db
def test_a_free_event_and_a_cancelled_registration_take_no_payment():
    free = make_table(players=1, contribution=0)
    refused(
        WrongState,
        free.event,
        lambda: services.payment_mark(
            registration_id=free.rid(free.players[0]), by=free.house, paid=True
        ),
    )
    table = make_table()
    cat = make_user("Cat")
    rid = table.register(cat)
    services.registration_cancel(registration_id=rid, by=cat)
    refused(
        WrongState,
        table.event,
        lambda: services.payment_mark(registration_id=rid, by=table.house, paid=True),
    )


@pytest.mark.django_db
def test_a_finalized_event_refuses_payment_changes():
    table = finalized_table()
    refused(
        EventIsFinalized,
        table.event,
        lambda: services.payment_mark(
            registration_id=table.rid(table.players[0]), by=table.house, paid=True
        ),
    )


@pytest.mark.django_db
def test_a_paid_entry_locks_the_contribution_and_the_remainder_policy():
    table = make_table(contribution=10)
    ann = make_user("Ann")
    table.register(ann)
    # Before any paid entry both may change.
    services.event_update(event_id=table.event.pk, by=table.house, changes={"contribution": 12})
    services.payment_mark(registration_id=table.rid(ann), by=table.house, paid=True)
    error = refused(
        PaidEntriesExist,
        table.event,
        lambda: services.event_update(
            event_id=table.event.pk, by=table.house, changes={"contribution": 20}
        ),
    )
    assert "contribution" in error.message
    error = refused(
        PaidEntriesExist,
        table.event,
        lambda: services.event_update(
            event_id=table.event.pk,
            by=table.house,
            changes={"remainder_policy": "The remainder goes to the bar tab."},
        ),
    )
    assert "remainder policy" in error.message
    # Other settings, and the same values sent again (a form sends every field), still save.
    answer = services.event_update(
        event_id=table.event.pk,
        by=table.house,
        changes={"name": "Friday League", "contribution": 12},
    )
    assert answer.changed == ["name"]
    # Unmarking the only paid entry (a mistake) lifts the lock.
    services.payment_mark(registration_id=table.rid(ann), by=table.house, paid=False)
    services.event_update(event_id=table.event.pk, by=table.house, changes={"contribution": 20})
    assert table.refresh().contribution == 20


# House announces the remainder policy before accepting any paid entry, however the contribution
# came to be above $0 (`events.remainder_policy`): every guard refuses with one code.


@pytest.mark.django_db
def test_the_remainder_policy_cannot_be_cleared_once_registration_has_opened():
    """Scenario (a): close registration, clear the policy, mark players paid. Clearing is refused
    whether registration is open or closed, before the start and after it."""
    table = make_table(players=2, contribution=10)
    clear = partial(
        services.event_update,
        event_id=table.event.pk,
        by=table.house,
        changes={"remainder_policy": ""},
    )
    refused(RemainderPolicyRequired, table.event, clear)
    services.registration_close(event_id=table.event.pk, by=table.house)
    error = refused(RemainderPolicyRequired, table.event, clear)
    assert error.code == "remainder_policy_required"
    assert error.status == 409
    assert "remainder policy" in error.message


@pytest.mark.django_db
def test_a_free_event_cannot_become_paid_without_a_remainder_policy_after_registration_opened():
    """Scenario (b): raise a free event's contribution after registration closed, then mark
    players paid. The raise is refused unless the policy comes with it."""
    table = make_table(players=2, contribution=0)
    assert table.event.remainder_policy  # the factory's; a free event needs none
    services.event_update(event_id=table.event.pk, by=table.house, changes={"remainder_policy": ""})
    services.registration_close(event_id=table.event.pk, by=table.house)
    raise_to = partial(services.event_update, event_id=table.event.pk, by=table.house)
    refused(RemainderPolicyRequired, table.event, lambda: raise_to(changes={"contribution": 10}))
    answer = raise_to(changes={"contribution": 10, "remainder_policy": "It rolls over."})
    assert answer.changed == ["contribution", "remainder_policy"]
    services.payment_mark(registration_id=table.rid(table.players[0]), by=table.house, paid=True)


@pytest.mark.django_db
def test_a_paid_entry_is_refused_without_a_remainder_policy():
    """However the policy went missing (an event from before the rule, written straight into the
    database), no payment is marked until House announces one; unmarking stays possible."""
    table = make_table(players=2, contribution=10)
    ann, bea = table.players
    services.payment_mark(registration_id=table.rid(ann), by=table.house, paid=True)
    Event.objects.filter(pk=table.event.pk).update(remainder_policy="")
    error = refused(
        RemainderPolicyRequired,
        table.event,
        lambda: services.payment_mark(registration_id=table.rid(bea), by=table.house, paid=True),
    )
    assert "before accepting a paid entry" in error.message
    services.payment_mark(registration_id=table.rid(ann), by=table.house, paid=False)
    # Announcing the policy where there was none is no change to what players paid for.
    services.event_update(
        event_id=table.event.pk, by=table.house, changes={"remainder_policy": "It rolls over."}
    )
    services.payment_mark(registration_id=table.rid(bea), by=table.house, paid=True)
    assert collected(table.refresh()) == 10


@pytest.mark.django_db
def test_a_paid_event_cannot_start_without_a_remainder_policy():
    """Starting accepts the checked-in players' entries: a paid event needs its policy first."""
    table = make_table(players=2, contribution=10)
    Event.objects.filter(pk=table.event.pk).update(remainder_policy="  ")
    error = refused(
        RemainderPolicyRequired,
        table.event,
        lambda: services.event_start(event_id=table.event.pk, by=table.house),
    )
    assert "before starting a paid event" in error.message
    Event.objects.filter(pk=table.event.pk).update(contribution=0)
    services.event_start(event_id=table.event.pk, by=table.house)  # a free event needs none
    assert table.refresh().phase == "started"
