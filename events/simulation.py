"""A whole event played through the services, for `manage.py simulate_event` and benchmarks.

Results and choices are drawn from the given seed; the shuffle still uses a fresh secret seed.
With four or more players the event includes a late entry, a withdrawal, a corrected result with
its review resolved, and a House selection for an abandoned win choice.
"""

from __future__ import annotations

import datetime
import random
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from accounts.models import User
from events import services
from events.models import Event, Registration, RegistrationStatus


class Night(Protocol):
    """What a layer on top records as House would, told at three moments of the simulated event
    (the ledger's `ledger.simulation.LedgerNight`, handed over with `record_nights_with`: the
    engine imports none of it)."""

    def checked_in(self, event_id: int, house: User, registration_ids: list[int]) -> None: ...

    def withdrawn(self, event_id: int, house: User, registration_id: int, amount: int) -> None: ...

    def finalized(self, event_id: int, house: User) -> None: ...


# What `manage.py simulate_event` records beside the event, as House would: a layer on top hands
# it over when it is installed (the ledger's night of money, `ledger.apps`).
_recorded_night: Callable[[], Night] | None = None


def record_nights_with(night: Callable[[], Night]) -> None:
    global _recorded_night
    _recorded_night = night


def recorded_night() -> Night | None:
    """A new recorder of what House does at each moment, from the layer that handed one over."""
    return _recorded_night() if _recorded_night is not None else None


@dataclass
class Simulation:
    format: str
    players: int
    seed: int
    contribution: int = 10
    # A season plays the same people night after night (seasons/simulation.py): its House, the
    # players who came tonight, tonight's date, and what to do with the new event (its series).
    house: User | None = None
    users: Sequence[User] | None = None
    date: datetime.date | None = None
    created: Callable[[int], None] | None = None
    # Or the event is made in a scope above events (a series, by its House) and at one of its
    # organization's venues.
    scope_above_id: int | None = None
    venue_id: int | None = None
    night: Night | None = None
    refund_policy: str = "cancellations"

    def run(self) -> dict[str, Any]:
        if self.players < 2:
            raise ValueError("An event needs at least two players.")
        rng = random.Random(self.seed)
        tag = uuid.uuid4().hex[:10]
        house = self.house or User.objects.create_user(
            email=f"house-{tag}@sim.invalid", display_name="Sim House", is_staff=True
        )
        users = list(self.users or ()) or [
            User.objects.create_user(email=f"p{n}-{tag}@sim.invalid", display_name=f"Player {n}")
            for n in range(1, self.players + 1)
        ]
        event_id = services.event_create(
            by=house,
            name=f"Simulated {self.format} event",
            date=self.date or datetime.date.today(),
            format=self.format,
            contribution=self.contribution,
            remainder_policy="An indivisible High remainder goes to next event's pool.",
            venue="Simulation",
            refund_policy=self.refund_policy,
            scope_above_id=self.scope_above_id,
            venue_id=self.venue_id,
        ).event_id
        if self.created is not None:
            self.created(event_id)
        services.registration_open(event_id=event_id, by=house)
        twists = self.players >= 4
        on_time = users[:-1] if twists else users
        late = users[-1] if twists else None
        for user in on_time:
            registration_id = services.player_register(event_id=event_id, by=user).registration_id
            services.player_check_in(registration_id=registration_id, by=house)
        services.event_start(event_id=event_id, by=house)
        if late is not None:
            registration_id = services.player_register(event_id=event_id, by=late).registration_id
            services.player_check_in(registration_id=registration_id, by=house)

        event = Event.objects.get(pk=event_id)
        registrations = list(event.registrations.order_by("check_in_order"))
        if self.night is not None:
            self.night.checked_in(event_id, house, [r.pk for r in registrations])
        rules = event.rules
        for registration in registrations:
            if rules.offered:
                assert registration.player is not None
                slots = rng.sample(range(rules.offered), rules.starting)
                services.starting_selection_confirm(
                    registration_id=registration.pk, by=registration.player, slots=slots
                )

        abandoned = registrations[1] if twists else None
        corrected = registrations[2] if twists else None
        leaving = registrations[-2] if twists else None
        for game in range(1, rules.games + 1):
            for registration in registrations:
                self._play(registration, game, rng, house, abandoned, corrected, leaving)
        if event.rules.automatic_reveal is False:
            for registration in event.registrations.filter(status=RegistrationStatus.CHECKED_IN):
                services.wild_reveal(registration_id=registration.pk, by=house)

        event.refresh_from_db()
        if event.registration_open:
            services.registration_close(event_id=event_id, by=house)
        adjustments: list[tuple[int, str]] = []
        if twists and self.contribution:
            assert leaving is not None
            adjustments.append((-self.contribution, f"Refund to {leaving.label}: left early"))
            if self.night is not None:
                self.night.withdrawn(event_id, house, leaving.pk, self.contribution)
        confirmed = services.pool_confirm(event_id=event_id, by=house, adjustments=adjustments)
        finalized = services.event_finalize(event_id=event_id, by=house)
        if self.night is not None:
            self.night.finalized(event_id, house)
        awards = {
            r.label: r.award
            for r in Event.objects.get(pk=event_id).registrations.filter(award__gt=0)
        }
        return {
            "event_id": event_id,
            "format": self.format,
            "players": self.players,
            "pool": confirmed.pool,
            "unallocated": finalized.unallocated,
            "awards": awards,
        }

    def _play(
        self,
        registration: Registration,
        game: int,
        rng: random.Random,
        house: User,
        abandoned: Registration | None,
        corrected: Registration | None,
        leaving: Registration | None,
    ) -> None:
        registration.refresh_from_db()
        if registration.status != RegistrationStatus.CHECKED_IN:
            return
        player = registration.player
        assert player is not None
        if registration == leaving and game == 3:
            services.player_withdraw(
                registration_id=registration.pk, by=house, reason="Left the venue early"
            )
            return
        outcome = "win" if registration == abandoned and game == 2 else rng.choice(["win", "loss"])
        answer = services.result_submit(
            registration_id=registration.pk, by=player, game=game, outcome=outcome
        )
        if outcome == "win":
            offered = len(answer.offered or ())
            if registration == abandoned and game == 2:
                services.win_choice_confirm(
                    registration_id=registration.pk,
                    by=house,
                    slot=rng.randrange(offered),
                    reason="Player walked away without choosing",
                )
            else:
                services.win_choice_confirm(
                    registration_id=registration.pk, by=player, slot=rng.randrange(offered)
                )
        if registration == corrected and game == 1:
            flipped = "loss" if answer.result == "win" else "win"
            review = services.result_correct(
                registration_id=registration.pk,
                by=house,
                game=1,
                outcome=flipped,
                reason="Scoreholio shows the other result",
            )
            services.review_resolve(
                review_id=review.review_id, by=house, reason="Checked with both teams"
            )


def simulate(
    *,
    format: str,
    players: int,
    seed: int,
    contribution: int = 10,
    night: Night | None = None,
) -> dict[str, Any]:
    """Play the event; with `night`, a layer on top records what House would at each moment, and
    withdrawals are refunded (the event's refund policy says so)."""
    return Simulation(
        format=format,
        players=players,
        seed=seed,
        contribution=contribution,
        night=night,
        refund_policy="withdrawals" if night is not None else "cancellations",
    ).run()
