"""The Django admin is for site staff only, and its sign-in is allauth's (rate-limited) one."""

from __future__ import annotations

import logging

import pytest
from django.test import Client

from events import services
from staff.scopes import Scope
from tests.factories import make_table, make_user

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # tests/factories.make_user's


def signed_in(user: object) -> Client:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    return client


def test_it_sends_a_visitor_to_the_allauth_sign_in() -> None:
    client = Client()
    response = client.get("/admin/")
    assert response.status_code == 302
    assert response["Location"] == "/admin/login/?next=/admin/"
    response = client.get(response["Location"])
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/?next=%2Fadmin%2F"


def test_it_refuses_a_house_member_who_is_not_staff(caplog: pytest.LogCaptureFixture) -> None:
    table = make_table()
    member = make_user("Door House")
    services.house_member_add(scope=Scope.of(table.event), by=table.house, member=member)
    assert table.event.staff.filter(user=member).exists()
    client = signed_in(member)
    caplog.set_level(logging.INFO, logger="syndicate.security")
    for path in ("/admin/", "/admin/events/event/", f"/admin/events/event/{table.event.pk}/"):
        response = client.get(path, follow=True)
        assert response.status_code == 403, path
        assert response.redirect_chain[-1][0].startswith("/admin/login/?next=")
    logged = [r.getMessage() for r in caplog.records if r.name == "syndicate.security"]
    assert len(logged) == 3
    assert all("status=403 code=forbidden action=admin-login" in line for line in logged)
    assert all(f"user={member.pk}" in line for line in logged)


def test_it_refuses_a_player() -> None:
    assert signed_in(make_user()).get("/admin/", follow=True).status_code == 403


def test_it_lets_site_staff_in_through_the_allauth_sign_in() -> None:
    staff = make_user("Staff", staff=True)
    client = Client()
    response = client.post(
        "/accounts/login/?next=/admin/", {"login": staff.email, "password": PASSWORD}
    )
    assert response.status_code == 302
    assert response["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200
    assert client.get("/admin/login/?next=/admin/events/event/")["Location"] == (
        "/admin/events/event/"
    )


def test_the_admin_sign_in_form_no_longer_checks_passwords() -> None:
    staff = make_user("Staff", staff=True)
    client = Client()
    response = client.post("/admin/login/", {"username": staff.email, "password": PASSWORD})
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert "_auth_user_id" not in client.session


def test_it_does_not_redirect_off_site() -> None:
    client = signed_in(make_user("Staff", staff=True))
    for target in ("https://evil.example/", "//evil.example/admin/", "javascript:alert(1)"):
        response = client.get("/admin/login/", {"next": target})
        assert response["Location"] == "/admin/", target
