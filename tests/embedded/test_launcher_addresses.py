"""`make run` for phones at a venue: the addresses it prints and the environment it gives the
processes it starts (syndicate/launcher.py). The whole launcher with HOST=0.0.0.0 runs in
test_launcher.py."""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path

import pytest

from syndicate.launcher import (
    lan_addresses,
    phone_addresses,
    print_addresses,
    venue_environment,
)


def test_the_lan_addresses_are_this_machines_own_ipv4_and_never_loopback() -> None:
    for address in lan_addresses():
        ip = ipaddress.ip_address(address)
        assert ip.version == 4 and not ip.is_loopback and not ip.is_link_local
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.bind((address, 0))  # only an address of this machine binds


def test_the_address_of_the_default_route_is_among_them() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("198.51.100.1", 9))  # UDP: picks the route, sends nothing
        except OSError:
            pytest.skip("this machine has no IPv4 route")
        own = sock.getsockname()[0]
    assert own in lan_addresses()


def test_phones_reach_every_lan_address_only_when_it_listens_beyond_loopback() -> None:
    assert phone_addresses("0.0.0.0") == lan_addresses()
    assert phone_addresses("::") == lan_addresses()
    for loopback in ("127.0.0.1", "127.0.1.1", "localhost", "::1"):
        assert phone_addresses(loopback) == []
    assert phone_addresses("192.168.1.20") == ["192.168.1.20"]
    assert phone_addresses("poker-laptop.lan") == ["poker-laptop.lan"]


def test_it_sets_the_public_address_hosts_and_origins_for_the_lan() -> None:
    added = venue_environment(
        {}, port=8106, addresses=["192.168.1.20", "10.0.0.7"], browse_host="127.0.0.1"
    )
    assert added == {
        "SITE_URL": "http://192.168.1.20:8106",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost,192.168.1.20,10.0.0.7",
        "DJANGO_CSRF_TRUSTED_ORIGINS": "http://192.168.1.20:8106,http://10.0.0.7:8106",
    }


def test_it_leaves_what_the_environment_sets() -> None:
    environ = {
        "SITE_URL": "https://poker.example.com",
        "DJANGO_ALLOWED_HOSTS": "poker.example.com",
        "DJANGO_CSRF_TRUSTED_ORIGINS": "https://poker.example.com",
    }
    assert venue_environment(environ, port=8106, addresses=["192.168.1.20"], browse_host="") == {}
    partly = venue_environment(
        {"SITE_URL": "https://poker.example.com"},
        port=8106,
        addresses=["192.168.1.20"],
        browse_host="127.0.0.1",
    )
    assert "SITE_URL" not in partly and "192.168.1.20" in partly["DJANGO_ALLOWED_HOSTS"]


def test_on_loopback_only_the_public_address_follows_the_port() -> None:
    added = venue_environment({}, port=8106, addresses=[], browse_host="127.0.0.1")
    assert added == {"SITE_URL": "http://127.0.0.1:8106"}


def test_it_prints_the_public_links_and_every_address_phones_reach(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SITE_URL", "http://192.168.1.20:8106")
    print_addresses("127.0.0.1", 8106, 4, tmp_path, False, lan=["192.168.1.20", "10.0.0.7"])
    printed = capsys.readouterr().out
    assert "  Board:           http://192.168.1.20:8106/board/4/" in printed
    assert "  http://192.168.1.20:8106/\n  http://10.0.0.7:8106/\n" in printed
    assert "This laptop also at http://127.0.0.1:8106/." in printed
    assert "no push notifications" in printed
    assert "127.0.0.1:8106/board" not in printed


def test_it_says_when_no_phone_can_reach_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SITE_URL", "http://127.0.0.1:8106")
    print_addresses("127.0.0.1", 8106, 4, tmp_path, False, lan=[])
    assert "No network address found" in capsys.readouterr().out
    print_addresses("127.0.0.1", 8106, 4, tmp_path, False, lan=None)
    printed = capsys.readouterr().out
    assert "  Board:           http://127.0.0.1:8106/board/4/" in printed
    assert "No network address" not in printed and "Phones on" not in printed
