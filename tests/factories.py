"""Build event state through the real services (plain rows only for users)."""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.db import connection, transaction

from accounts.models import User
from cards.models import CardState, DealtCard, Offer
from events import answers, services
from events.formats import FORMATS, Format
from events.models import Event, Registration

_numbers = itertools.count(1)


def make_user(name: str | None = None, *, staff: bool = False) -> User:
    number = next(_numbers)
    return User.objects.create_user(
        email=f"user{number}@example.com",
        password="correct horse battery staple",
        display_name=name or f"Player {number}",
        is_staff=staff,
    )


@dataclass
class Table:
    """An event with its House user and players, built through the services."""

    event: Event
    house: User
    players: list[User] = field(default_factory=list)

    def refresh(self) -> Event:
        self.event.refresh_from_db()
        return self.event

    def registration(self, player: User) -> Registration:
        return Registration.objects.get(event=self.event, player=player)

    def rid(self, player: User) -> int:
        return self.registration(player).pk

    def register(self, player: User) -> int:
        return int(services.player_register(event_id=self.event.pk, by=player).registration_id)

    def check_in(self, player: User) -> None:
        services.player_check_in(registration_id=self.rid(player), by=self.house)

    def join(self, name: str | None = None) -> User:
        player = make_user(name)
        self.players.append(player)
        self.register(player)
        self.check_in(player)
        return player

    def start(self) -> None:
        services.event_start(event_id=self.event.pk, by=self.house)

    def choose_start(
        self, player: User, slots: list[int] | None = None
    ) -> answers.StartingSelectionConfirmed:
        rules = self.event.rules
        return services.starting_selection_confirm(
            registration_id=self.rid(player),
            by=player,
            slots=slots if slots is not None else list(range(rules.starting)),
        )

    def report(
        self, player: User, game: int, outcome: str, **extra: str
    ) -> answers.ResultSubmitted:
        return services.result_submit(
            registration_id=self.rid(player),
            by=player,
            game=game,
            outcome=outcome,
            opponent=extra.get("opponent", ""),
            score=extra.get("score", ""),
        )

    def win(self, player: User, game: int) -> list[str]:
        """Report a win; the face-up cards it offers."""
        offered = self.report(player, game, "win").offered
        assert offered is not None
        return offered

    def choose_win(self, player: User, slot: int = 0) -> answers.WinChoiceConfirmed:
        return services.win_choice_confirm(registration_id=self.rid(player), by=player, slot=slot)

    def play_out(self, player: User, outcomes: str | None = None) -> None:
        """Choose the starting cards (if any) and report every game ('w'/'l' per game)."""
        rules = self.event.rules
        if (
            rules.offered
            and Offer.objects.filter(
                registration=self.registration(player), kind="starting", resolved_at__isnull=True
            ).exists()
        ):
            self.choose_start(player)
        done = self.registration(player).results.count()
        plan = outcomes or "l" * rules.games
        for game in range(done + 1, rules.games + 1):
            outcome = "win" if plan[game - 1] == "w" else "loss"
            self.report(player, game, outcome)
            if outcome == "win":
                self.choose_win(player)

    def kept(self, player: User) -> list[str]:
        return list(
            DealtCard.objects.filter(registration=self.registration(player), state=CardState.KEPT)
            .order_by("kept_index")
            .values_list("card", flat=True)
        )


def make_table(
    format: str = "league",
    *,
    players: int = 0,
    contribution: int = 10,
    start: bool = False,
    extra_decks: int = 1,
) -> Table:
    house = make_user("House", staff=True)
    event_id = services.event_create(
        by=house,
        name="Thursday League",
        date=datetime.date(2026, 12, 3),
        format=format,
        contribution=contribution,
        extra_decks=extra_decks,
        remainder_policy="Unallocated dollars roll into the next event.",
    ).event_id
    services.registration_open(event_id=event_id, by=house)
    table = Table(event=Event.objects.get(pk=event_id), house=house)
    for _ in range(players):
        table.join()
    if start:
        table.start()
        table.refresh()
    return table


# A format no event plays: its Win offers three cards, of which the player keeps one. Registered
# for a test by `format_registered`, it shows that a format's shape is stated once.
THREE_CARD_WIN = Format(
    name="three-card-win",
    label="Three-card Win",
    offered=3,
    starting=1,
    games=3,
    win_offered=3,
    automatic_reveal=True,
)


@contextmanager
def format_registered(rules: Format) -> Iterator[Format]:
    """`rules` in the registry the engine reads, for one test in a transaction of its own.

    The events table checks that an event's format is known (`event_format_known`, from the
    formats the code ships); the check is widened to `rules` by DDL in the test's transaction, so
    it is back as migrated when the test's transaction rolls back.
    """
    assert rules.name not in FORMATS
    assert connection.in_atomic_block, "use django_db without transaction=True"
    FORMATS[rules.name] = rules
    names = ", ".join(f"'{name}'" for name in FORMATS)
    with connection.cursor() as cursor:
        cursor.execute(
            "ALTER TABLE events_event DROP CONSTRAINT event_format_known,"
            f" ADD CONSTRAINT event_format_known CHECK (format IN ({names}))"
        )
    try:
        yield rules
    finally:
        del FORMATS[rules.name]


@contextmanager
def rolled_back() -> Iterator[None]:
    """What the block writes is undone when it ends (a savepoint rolled back, inside the test's
    transaction): a scene built once meets each case as it was built, as a fresh one would, at
    the cost of one savepoint instead of the services that build it again. The block is marked
    as Django's TestCase marks its own (the one per test, and `setUpTestData`'s), so the
    services' durable blocks run inside it as they do inside the test's."""
    assert connection.in_atomic_block, "use django_db without transaction=True"
    block = transaction.atomic()
    block._from_testcase = True  # type: ignore[attr-defined]
    with block:
        yield
        transaction.set_rollback(True)
