"""What a House section shows is its part of House's page, and its key is that part's digest.

Each section's template (and each row's, entry's and checklist item's) is rendered from its own
part of `house.read_model.HousePage` alone; here it is also rendered from the whole page's
context: the two must agree, or the template reads something its part (and so its key) does not
cover, which a pushed update would then never bring.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template.loader import render_to_string

from events import services, store
from house.read_model import HousePage, house_page, part_context, sight
from live import protocol, targeting
from live.fragments import (
    CHECK_IN_ROW,
    CHECK_ITEM,
    HOUSE_SECTIONS,
    PLAYER_ROW,
    compact,
    house_cut,
    house_html,
)
from tests.factories import Table, make_table, make_user

pytestmark = pytest.mark.django_db

KEYS = re.compile(r'(value|data-key)="[0-9a-f]{32}"')


def shown(html: str) -> str:
    """HTML without its fresh idempotency keys, which differ at every render."""
    return KEYS.sub("", compact(html))


def assert_parts_cover_their_templates(page: HousePage) -> None:
    whole = page.context()
    everything = shown(house_html(page))
    pieces = {piece.id: shown(piece.render()) for piece in house_cut(page).pieces}
    for id, name, template in HOUSE_SECTIONS:
        part = getattr(page.sections, name)
        alone = shown(render_to_string(template, part_context(part)))
        assert alone == shown(render_to_string(template, whole)), id
        if id in pieces:
            assert pieces[id] == alone and alone in everything, id
    facts = part_context(page.row_facts)
    for row in page.players:
        alone = shown(render_to_string(PLAYER_ROW, {**facts, "p": row}))
        assert alone == shown(render_to_string(PLAYER_ROW, {**whole, "p": row}))
        assert alone in everything
    for entry in page.check_in:
        alone = shown(render_to_string(CHECK_IN_ROW, {**facts, "p": entry}))
        assert alone == shown(render_to_string(CHECK_IN_ROW, {**whole, "p": entry}))
        assert alone in everything
    for item in page.checklist:
        alone = shown(render_to_string(CHECK_ITEM, {"item": item}))
        assert alone == shown(render_to_string(CHECK_ITEM, {**whole, "item": item}))


def test_each_house_section_is_rendered_from_its_own_part_alone_through_an_event() -> None:
    table: Table = make_table(players=3)
    event = table.event
    assert_parts_cover_their_templates(house_page(table.refresh()))
    waiting = make_user()
    table.register(waiting)
    services.self_check_in_switch(event_id=event.pk, by=table.house, enabled=True)
    services.announcement_send(event_id=event.pk, by=table.house, text="Boards 3 and 4")
    assert_parts_cover_their_templates(house_page(table.refresh()))
    table.start()
    first, second, third = table.players
    table.choose_start(first)
    table.choose_start(second)
    table.win(second, 1)
    services.review_open(registration_id=table.rid(third), by=table.house, reason="Check the board")
    assert_parts_cover_their_templates(house_page(table.refresh()))
    services.registration_close(event_id=event.pk, by=table.house)
    table.choose_win(second)
    table.play_out(first)
    assert_parts_cover_their_templates(house_page(table.refresh()))


def test_a_house_page_read_for_some_rows_shows_them_as_the_whole_page_does() -> None:
    table = make_table(players=3, start=True)
    table.choose_start(table.players[0])
    event = table.refresh()
    rid = table.rid(table.players[0])
    whole = house_page(event)
    items: dict[int, tuple[str, ...]] = {}
    for item in whole.checklist:
        if item.anchor.startswith("player-"):
            pk = int(item.anchor.removeprefix("player-"))
            items[pk] = (*items.get(pk, ()), item.id)
    some = house_page(event, rows=[rid], item_ids=items)
    assert [row.registration_id for row in some.players] == [rid]
    assert some.players[0].steady() == next(
        p.steady() for p in whole.players if p.registration_id == rid
    )
    assert some.players_order == whole.players_order
    assert some.check_in_order == whole.check_in_order
    assert some.checklist_order == whole.checklist_order
    assert set(some.checklist) < set(whole.checklist)
    assert some.sections == whole.sections and some.row_facts == whole.row_facts


def test_after_each_change_house_is_sent_what_a_page_read_now_shows(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update reads only the rows that moved; the page that applies it holds, piece by piece,
    what a page loaded now shows."""
    settings.LIVE_UPDATES = "off"  # each change is delivered here, by hand
    table = make_table(players=4, start=True)
    first, second, third, fourth = table.players
    event = table.refresh()
    owner = sight(["owner"])
    group = protocol.house_group(event.pk, owner.name)
    targeting.house_listening(event.pk, owner.name)
    with store.consistent_read():
        targeting.house(table.refresh(), owner)
    read: list[Any] = []  # the rows each House read asked for (None: every row)

    def reading(event: Any, **kwargs: Any) -> HousePage:
        read.append(kwargs.get("rows"))
        return house_page(event, **kwargs)

    monkeypatch.setattr(targeting, "house_page", reading)

    def deliver(player: Any) -> dict[str, Any]:
        read.clear()
        (house,) = [
            s for s in targeting.change_snapshots(event.pk, [table.rid(player)]) if s.group == group
        ]
        frame = house.frame()
        assert read == [{table.rid(player)}]
        fresh = house_cut(house_page(table.refresh()).seen_by(owner))
        record = targeting._last_shown(group, table.refresh())[frame["version"]]
        assert record["keys"] == {piece.id: piece.key for piece in fresh.pieces}
        assert record["lists"] == {id: list(ids) for id, ids in fresh.lists.items()}
        return frame

    for player in table.players:
        frame = deliver(player) if table.choose_start(player) else {}
        assert "base" in frame
        rows = [row["registration_id"] for row in frame["data"]["players"]]
        assert rows == [table.rid(player)]
    table.win(first, 1)
    deliver(first)
    table.choose_win(first)
    deliver(first)
    table.report(second, 1, "loss")
    deliver(second)
    services.review_open(registration_id=table.rid(third), by=table.house, reason="Board 3")
    frame = deliver(third)
    assert f"house-row-{table.rid(fourth)}" not in frame["parts"]
