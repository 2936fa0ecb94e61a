"""LAN discovery without the network: the TXT record both ways, the picker screen (Pilot), and
what `serve` announces on which address."""

from __future__ import annotations

import socket

import pytest
from textual.widgets import DataTable, Static
from zeroconf.asyncio import AsyncServiceInfo

from client import discover, join
from client.discover import FoundServer, from_txt, table_text
from client.screens.servers import PickerApp, ServerPicker
from protocol.discovery import SERVICE_TYPE, txt_record
from server.net.announce import instance_label, should_announce

DEN = FoundServer("Basement Den", "192.168.1.20", 7453, 2, 7, 1)
ATTIC = FoundServer("Attic", "192.168.1.31", 7000, 0, 0, 1)


def test_the_txt_record_goes_through_dns_sd_encoding_and_back() -> None:
    info = AsyncServiceInfo(
        SERVICE_TYPE,
        f"Basement Den.{SERVICE_TYPE}",
        addresses=[socket.inet_aton("192.168.1.20")],
        port=7453,
        properties=txt_record("Basement Den", 2, 7),
        server="den.local.",
    )
    # The wire form: length-prefixed key=value strings, as avahi-browse -r shows them.
    assert info.text == b"\x03v=1\x11name=Basement Den\x08tables=2\x09players=7"
    # A browser decodes the TXT bytes it receives the same way.
    decoded = AsyncServiceInfo(SERVICE_TYPE, info.name, properties=info.text)
    found = from_txt(info.name, info.parsed_addresses(), 7453, decoded.properties)
    assert found == DEN


def test_a_txt_record_with_missing_or_bad_counts_still_names_the_server() -> None:
    found = from_txt(f"Cellar.{SERVICE_TYPE}", ["10.0.0.9"], 7453, {b"tables": b"many"})
    assert found == FoundServer("Cellar", "10.0.0.9", 7453, None, None, None)
    assert from_txt(f"v6.{SERVICE_TYPE}", ["fe80::1"], 7453, {}) is None
    assert "?" in table_text([found])


def test_only_servers_other_machines_can_reach_announce() -> None:
    assert should_announce("0.0.0.0") and should_announce("192.168.1.20")
    assert should_announce("den.example")
    for loopback in ("127.0.0.1", "127.1.2.3", "::1", "localhost"):
        assert not should_announce(loopback)
    assert len(instance_label("x" * 80).encode()) == 63
    assert instance_label("a.b") == "a b"


def test_servers_prints_aligned_columns() -> None:
    lines = table_text([ATTIC, DEN]).splitlines()
    assert lines[0].split() == ["NAME", "ADDRESS", "TABLES", "PLAYERS"]
    assert lines[2].startswith("Basement Den  192.168.1.20:7453")
    assert len({len(line) for line in lines}) == 1


async def test_the_picker_lists_the_servers_and_enter_joins_the_highlighted_one() -> None:
    app = PickerApp([ATTIC, DEN])
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, ServerPicker)
        grid = screen.query_one(DataTable)
        assert grid.row_count == 2
        assert [str(c) for c in grid.get_row_at(1)] == ["Basement Den", DEN.target, "2", "7"]
        hint = str(screen.query_one("#picker-hint", Static).render())
        assert "2 servers found" in hint
        await pilot.press("down", "enter")
    assert app.return_value == DEN


async def test_with_one_server_the_picker_asks_before_joining() -> None:
    app = PickerApp([DEN])
    async with app.run_test(size=(80, 24)) as pilot:
        hint = str(app.screen.query_one("#picker-hint", Static).render())
        assert f"One server found: join Basement Den at {DEN.target}?" in hint
        await pilot.press("escape")
    assert app.return_value is None
    app = PickerApp([DEN])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
    assert app.return_value == DEN


def test_join_without_an_address_says_how_to_give_one_when_nothing_answers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def nothing(seconds: float = 2.0) -> list[FoundServer]:
        return []

    monkeypatch.setattr(discover, "browse", nothing)
    assert join.pick_server() == 1
    err = capsys.readouterr().err
    assert "no sheepshead server answered" in err and "sheepshead join HOST[:PORT]" in err
