"""A night built through the services for walking the permission table (staff/roles.py): one
account per staff role, a player, a display link, and a state in which House's pages offer
nearly every action. It holds no tests itself."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.urls import resolve

from accounts.models import User
from events import services
from events.models import Event
from house.read_model import HOUSE_FORMS
from ledger import services as ledger
from staff import roles as staff
from staff.scopes import Scope
from tests.factories import Table, make_table, make_user

ROLES = ("owner", "director", "cashier", "scorer")
# Who holds no staff role: a display link's laptop (no account), a player, a visitor.
OTHERS = ("display", "player", "anonymous")

# What only the night's money shows, on the pages and in the live parts.
MONEY = (
    'id="cash-box-expected"',  # the cash box
    "Collected:",  # the status header's entry money
    'id="pool-ledger"',  # the ledger's figure beside the pool
    "collected</span>",  # Tonight's row
    "Collected (entry money held",  # the results sheet
)


@dataclass
class Night:
    table: Table
    people: dict[str, User]
    link: str  # the display link's address
    link_id: int
    review_id: int

    @property
    def event_id(self) -> int:
        return self.table.event.pk

    def rid(self, index: int) -> int:
        return self.table.rid(self.table.players[index])


def night() -> Night:
    """A started $10 event of five players: a Win to choose, a starting selection to make, a
    game to report, a review to resolve, a complete hand, an entry paid in cash, and a sixth
    player waitlisted past the event's capacity."""
    table = make_table(players=5, contribution=10, start=True)
    house = table.house
    first, second, third, fourth, fifth = table.players
    table.choose_start(first)
    table.win(first, 1)  # a Win's choice waits
    table.choose_start(third)
    table.report(third, 1, "loss")  # game 2 to report
    table.choose_start(fourth)
    review = services.review_open(
        registration_id=table.rid(fourth), by=house, reason="Scoreholio disagrees."
    )
    table.play_out(fifth)  # a complete hand
    ledger.entry_payment(
        event_id=table.event.pk, registration_id=table.rid(third), by=house, method="cash"
    )
    # A player in line for a place (events/waitlist.py): the places are all held, so a late
    # registration waits, and House's page offers to promote or remove them.
    Event.objects.filter(pk=table.event.pk).update(capacity=len(table.players))
    table.refresh()
    services.player_register(event_id=table.event.pk, by=make_user("Waiting"))
    people = {"owner": house}
    for role in ("director", "cashier", "scorer"):
        people[role] = make_user(role.capitalize())
        services.house_member_add(
            scope=Scope.of(table.event), by=house, member=people[role], role=role
        )
    people["player"] = second
    link = services.display_link_create(scope=Scope.of(table.event), by=house, label="Bar")
    table.refresh()
    return Night(table, people, link.path, link.link_id, review.review_id)


def offered(html: str) -> set[str]:
    """The House actions a page's or a fragment's forms and dialog buttons perform."""
    found = set()
    for address in re.findall(r'(?:action|data-url)="(/[^"?#]*)', html):
        match = resolve(address)
        name = f"{match.namespace}:{match.url_name}"
        if name in HOUSE_FORMS:
            found.add(HOUSE_FORMS[name])
    return found


def allowed(role: str, actions: set[str]) -> set[str]:
    """Those of `actions` the table lets `role` do."""
    return {action for action in actions if staff.may(role, action)}


def shows_money(html: str) -> bool:
    return any(mark in html for mark in MONEY)
