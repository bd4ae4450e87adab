"""The standby copies on the House dashboard and Tonight (house.copies, standby.state)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse

from standby import snapshots, state
from standby.state import Copy
from tests.factories import make_table
from tests.house.support import house_client, url
from tests.standby.support import forget_everything

ONLY_COPY = "No standby copy: this laptop holds the only copy of the night."


@pytest.fixture(autouse=True)
def no_copies() -> Iterator[None]:
    forget_everything()
    yield
    forget_everything()


def copy(name: str, copy_state: state.State, **fields: object) -> Copy:
    values: dict[str, object] = {
        "where": "/media/usb/night" if name == "folder" else "192.168.1.21",
        "synchronous": copy_state == "in_step",
        "seconds_behind": None,
        "reason": "",
        "reported_at": datetime.now(UTC),
    }
    values.update(fields)
    return Copy(name=name, state=copy_state, **values)  # type: ignore[arg-type]


def pages(client, table) -> tuple[str, str]:
    house = house_client(client, table)
    dashboard = house.get(url("dashboard", table.event.pk)).content.decode()
    tonight = house.get(reverse("house:tonight")).content.decode()
    return dashboard, tonight


@pytest.mark.django_db
def test_without_a_copy_the_dashboard_says_this_laptop_holds_the_only_one(client, settings):
    settings.STANDBY_DIR = ""
    dashboard, tonight = pages(client, make_table(players=2, start=True))
    assert ONLY_COPY in dashboard
    assert ONLY_COPY not in tonight
    assert 'id="standby-panel"' in tonight and 'data-live-socket="/ws/house/standby/"' in tonight


@pytest.mark.django_db
def test_a_configured_copy_not_yet_reported_shows_nothing(client, settings):
    settings.STANDBY_DIR = "/media/usb/night"
    dashboard, tonight = pages(client, make_table(players=2, start=True))
    for page in (dashboard, tonight):
        assert ONLY_COPY not in page and "standby-copy" not in page


@pytest.mark.django_db
def test_it_shows_each_copy_in_plain_words(client, settings):
    settings.STANDBY_DIR = "/media/usb/night"
    state.report(copy("folder", "in_step"))
    state.report(copy("laptop", "behind", synchronous=False, seconds_behind=6.6))
    dashboard, tonight = pages(client, make_table(players=2, start=True))
    for page in (dashboard, tonight):
        assert "Standby folder" in page and "/media/usb/night" in page and "In step" in page
        assert "Every commit waits until it is written here too." in page
        assert "Second laptop" in page and "Behind by 7 s" in page
        assert 'role="alert"' not in page.split('id="standby-panel"')[1].split("</div>")[0]


@pytest.mark.django_db
def test_a_lost_copy_is_a_prominent_warning(client, settings):
    settings.STANDBY_DIR = "/media/usb/night"
    state.report(copy("folder", "lost", reason="The disk is full."))
    dashboard, tonight = pages(client, make_table(players=2, start=True))
    for page in (dashboard, tonight):
        panel = page.split('id="standby-panel"')[1].split("</section>")[0]
        assert "Lost: The disk is full." in panel
        assert 'role="alert"' in panel and "state-lost" in panel
        assert "Commits no longer wait for it; the event goes on." in panel


@pytest.mark.django_db
def test_a_copy_whose_keeper_stopped_reporting_reads_as_lost(client, settings):
    settings.STANDBY_DIR = "/media/usb/night"
    long_ago = datetime.now(UTC) - state.SILENT_AFTER - timedelta(seconds=1)
    state.report(copy("folder", "in_step", reported_at=long_ago))
    dashboard, _ = pages(client, make_table(players=2, start=True))
    assert "Lost: Its keeper stopped reporting." in dashboard


@pytest.mark.django_db
def test_the_panel_shows_no_private_data(client, settings):
    table = make_table(players=2, start=True)
    state.report(copy("folder", "in_step"))
    dashboard, _ = pages(client, table)
    panel = dashboard.split('id="standby-panel"')[1].split("</div>")[0]
    assert "@" not in panel


@pytest.mark.django_db
def test_it_shows_the_last_snapshot_or_why_there_is_none(client, settings, tmp_path):
    settings.STANDBY_DIR = str(tmp_path / "stick-pulled")
    table = make_table(players=2, start=True)
    table.event.time_zone = "America/Chicago"
    table.event.save(update_fields=["time_zone"])
    at = datetime(2026, 12, 5, 2, 14, tzinfo=UTC)  # 20:14 in Chicago
    snapshots.take(event_id=table.event.pk, step="started", now=at)
    dashboard, tonight = pages(client, table)
    for page in (dashboard, tonight):
        panel = page.split('id="standby-panel"')[1].split("</section>")[0]
        assert f"No snapshot at the start of {table.event.name}" in panel
        assert "20:14" in panel and "stick-pulled is not there." in panel
    assert ONLY_COPY not in dashboard

    settings.STANDBY_DIR = str(tmp_path)
    taken = snapshots.take(event_id=table.event.pk, step="finalized", now=at)
    assert taken.path is not None
    dashboard, _ = pages(client, table)
    panel = dashboard.split('id="standby-panel"')[1].split("</section>")[0]
    assert f"Snapshot at the finalization of {table.event.name}, 20:14" in panel
    assert f"snapshots/{taken.path.name}" in panel and "No snapshot" not in panel


@pytest.mark.django_db
def test_a_snapshot_that_went_to_another_standby_folder_is_not_shown(client, settings, tmp_path):
    old, new = tmp_path / "last-night", tmp_path / "tonight"
    old.mkdir()
    new.mkdir()
    settings.STANDBY_DIR = str(old)
    table = make_table(players=2, start=True)
    taken = snapshots.take(event_id=table.event.pk, step="finalized")
    assert taken.path is not None
    dashboard, _ = pages(client, table)
    assert f"snapshots/{taken.path.name}" in dashboard

    for configured in (str(new), ""):
        settings.STANDBY_DIR = configured
        dashboard, tonight = pages(client, table)
        for page in (dashboard, tonight):
            assert taken.path.name not in page and "Snapshot at" not in page
