"""The tenant isolation sweep's check that a request changed nothing (tests/tenants.py
`changed_since`): it hashes again only the tables PostgreSQL counted a write to during the
request, and says what the whole fingerprint says. A row inserted, updated or deleted inside the
sweep's savepoint is a changed table; reads are none, and leave no table to hash again; a write
that leaves the rows as they were (a row saved with its own values, a savepoint rolled back) is
no change."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client

from accounts.models import User
from tests.factories import make_user, rolled_back
from tests.tenants import changed_since, changed_tables, fingerprint, writes, written_since

pytestmark = pytest.mark.django_db


def as_the_view_counts() -> dict[str, int]:
    """The tables written to in this transaction, as `pg_stat_xact_user_tables` shows them."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_xact_user_tables"
            " WHERE schemaname = current_schema() AND n_tup_ins + n_tup_upd + n_tup_del > 0"
        )
        return dict(cursor.fetchall())


def test_a_row_updated_through_the_orm_is_a_changed_table() -> None:
    ann = make_user("Ann")
    before = fingerprint()
    with rolled_back():
        written = writes()
        ann.display_name = "Ann Again"
        ann.save(update_fields=["display_name"])
        assert written_since(written) == {"accounts_user"}
        assert changed_since(before, written) == ["accounts_user"]
        assert changed_tables(before, fingerprint()) == ["accounts_user"]
        assert writes() == as_the_view_counts()
    # The savepoint rolled back: the table was written to, and is as it was.
    assert written_since(written) == {"accounts_user"}
    assert changed_since(before, written) == []


@pytest.mark.parametrize("write", ["insert", "update", "delete", "raw update"])
def test_the_check_says_what_the_whole_fingerprint_says(write: str) -> None:
    ann, bob = make_user("Ann"), make_user("Bob")
    before = fingerprint()
    with rolled_back():
        written = writes()
        if write == "insert":
            make_user("Cy")
        elif write == "update":
            User.objects.filter(pk=bob.pk).update(display_name="Robert")
        elif write == "delete":
            ann.delete()
        else:
            with connection.cursor() as cursor:
                cursor.execute(
                    "UPDATE accounts_user SET display_name = 'Bobby' WHERE id = %s", [bob.pk]
                )
        changed = changed_since(before, written)
        assert changed, write
        assert "accounts_user" in changed
        assert changed == changed_tables(before, fingerprint())


def test_a_row_saved_with_its_own_values_is_no_change() -> None:
    ann = make_user("Ann")
    before = fingerprint()
    with rolled_back():
        written = writes()
        User.objects.filter(pk=ann.pk).update(display_name="Ann")
        assert written_since(written) == {"accounts_user"}  # counted as written
        assert changed_since(before, written) == []  # and unchanged


def test_reads_are_no_change_and_nothing_is_hashed_again() -> None:
    ann = make_user("Ann")
    client = Client()
    client.force_login(ann)
    for path in ("/", "/house/", "/me/history/"):  # anything a first visit makes, made here
        client.get(path)
    before = fingerprint()
    with rolled_back():
        written = writes()
        for path in ("/", "/house/", "/me/history/"):
            assert client.get(path).status_code == 200, path
        assert User.objects.get(pk=ann.pk).display_name == "Ann"
        assert written_since(written) == set()
        assert changed_since(before, written) == []
