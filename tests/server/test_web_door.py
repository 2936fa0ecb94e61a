"""The browser door over loopback: its page names no other host, and its websocket runs a real
client child until the lobby shows."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import signal
from collections.abc import AsyncIterator
from html.parser import HTMLParser
from pathlib import Path
from string import Template
from typing import Any
from urllib.parse import urljoin, urlsplit

import aiohttp
import pytest

from client.session import DOOR_LOBBY_ONLY_ENV
from client.web_driver import DRIVER as WEB_DRIVER
from server.app import Server
from server.doors import web as web_module
from server.doors.host import Doors
from server.doors.kit import SEAT_STAYS
from server.doors.web import (
    COOKIE,
    REFUSED,
    RESTARTING,
    SHUTTING_DOWN,
    TERMINAL,
    player_key_for,
)
from server.net.connection import peer_pid
from server.storage.standings import identity_of
from tests.server.support import running_server
from tests.server.test_ssh_door import START, gone, plain, until

_URL = re.compile(r"(?:[a-z][a-z0-9+.-]*:)?//((?:[a-z0-9-]+\.)+[a-z0-9-]+(?::\d+)?)", re.I)
"""An absolute or scheme-relative address naming a host (name or IPv4); group 1 is the host."""


@contextlib.asynccontextmanager
async def web_door(tmp_path: Path, **overrides: Any) -> AsyncIterator[tuple[Server, Doors, str]]:
    # The tabs' clients run at the test workers' priority: niced (the default 10) beside three
    # busy workers on two cores, one took over a minute to start and stop, and a reload waited
    # that long for it. That the door nices them is tests/server/test_door_kit.py's to check.
    overrides.setdefault("door_child_nice", 0)
    async with running_server(**overrides) as server:
        doors = Doors(server, tmp_path / "data", web_port=0)
        await doors.start("127.0.0.1")
        assert doors.web is not None
        try:
            yield server, doors, f"http://127.0.0.1:{doors.web.port}"
        finally:
            await doors.stop()


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.links.append(value)


def outside_hosts(text: str, own: str) -> set[str]:
    """Hosts other than ``own`` that ``text`` names."""
    return {host for host in _URL.findall(text) if host != own}


async def test_the_page_and_its_assets_name_no_outside_host(tmp_path: Path) -> None:
    async with web_door(tmp_path) as (_, _, base), aiohttp.ClientSession() as http:
        own = urlsplit(base).netloc
        async with http.get(base + "/") as reply:
            form = await reply.text()
        assert reply.status == 200 and 'name="name"' in form  # no name yet: asked for
        async with http.get(base + "/?name=Ann") as reply:
            page = await reply.text()
        assert f'data-session-websocket-url="ws://{own}/ws/Ann"' in page
        parser = _Links()
        parser.feed(page)
        assets = [*parser.links, *re.findall(r'url\("([^"]+)"\)', page)]
        assert len(assets) == 3  # the style sheet, the script, the font
        for text in (form, page):
            assert outside_hosts(text, own) == set()
        for link in assets:
            async with http.get(urljoin(base + "/", link)) as reply:
                assert reply.status == 200, link
                body = await reply.read()
            if link.endswith((".css", ".js")):
                assert outside_hosts(body.decode("utf-8"), own) == set(), link


async def test_a_tab_drives_a_client_to_the_lobby_and_its_end_ends_the_child(
    tmp_path: Path,
) -> None:
    async with web_door(tmp_path) as (server, doors, base), aiohttp.ClientSession() as http:
        assert doors.web is not None
        ws = await http.ws_connect(f"{base}/ws/Ann%20B?width=80&height=24")
        data = b""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + START
        while "Sheepshead lobby" not in plain(data) or "you are Ann B" not in plain(data):
            assert loop.time() < deadline, plain(data)[-500:]
            message = await ws.receive(timeout=START)
            if message.type == aiohttp.WSMsgType.BINARY:
                data += message.data
            elif message.type == aiohttp.WSMsgType.TEXT:
                continue
            else:
                pytest.fail(f"the websocket ended: {message}")
        await ws.send_json(["resize", {"width": 100, "height": 30}])
        await ws.send_json(["ping", "x"])
        while True:
            message = await ws.receive(timeout=START)
            if message.type == aiohttp.WSMsgType.TEXT and message.json() == ["pong", "x"]:
                break
        (service,) = doors.web.services
        process = service._process
        assert process is not None and process.returncode is None
        # Its client writes glyphs every browser has (tests/client/test_web_glyphs.py).
        assert service._build_environment()["TEXTUAL_DRIVER"] == WEB_DRIVER
        assert doors.gate.per_address["127.0.0.1"] == 1
        names = [c.name for c in server.connections]
        assert names == ["Ann B"]
        await ws.close()
        await until(lambda: gone(process.pid) and not doors.web.services)  # type: ignore[union-attr]
        await until(lambda: not doors.gate.per_address and not server.connections)


async def refused(http: aiohttp.ClientSession, url: str) -> tuple[int | None, str]:
    """Open a tab the door refuses: the code it is closed with, and the reason (what the page
    shows), before any screen."""
    async with http.ws_connect(url) as tab:
        message = await tab.receive(timeout=START)
        assert message.type == aiohttp.WSMsgType.CLOSE, message
        return tab.close_code, str(message.extra or "")


def terminal_page() -> str:
    """The terminal page's content as the door fills it in (its script's words and codes)."""
    return Template(TERMINAL).substitute(ws="ws://x/ws/Ann", size="16", **web_module._PAGE_WORDS)


def test_the_page_shows_why_a_tab_was_refused() -> None:
    """The page's script hears the close's reason of a refused tab and shows it where the game
    would say it has ended (JavaScript is not run here: the page's own part is checked)."""
    page = terminal_page()
    assert "} else if (event.reason) {" in page
    assert "closedText.textContent = event.reason" in page
    assert REFUSED not in (web_module.ABNORMAL, web_module.SEAT_ELSEWHERE)


async def test_the_per_address_limit_holds_for_tabs(tmp_path: Path) -> None:
    async with (
        web_door(tmp_path, door_sessions_per_address=1) as (_, doors, base),
        aiohttp.ClientSession() as http,
    ):
        first = await http.ws_connect(f"{base}/ws/Ann?width=80&height=24")
        code, reason = await refused(http, f"{base}/ws/Bob?width=80&height=24")
        assert code == REFUSED and "Too many sessions from your address (1 open)" in reason
        assert "serve --limit door_sessions_per_address=N" in reason  # the host can raise it
        assert doors.gate.per_address["127.0.0.1"] == 1
        await first.close()
        await until(lambda: not doors.gate.per_address)


async def test_tabs_opened_and_closed_in_a_loop_are_refused_once_the_start_allowance_is_spent(
    tmp_path: Path,
) -> None:
    """Each tab starts a client process (some 0.4 s of CPU): one address opening and closing
    tabs in a loop kept both cores busy. Past ``door_start_burst`` new tabs it is refused with
    a reason, while the sessions it has open are far below the per-address cap."""
    # A refill of one start every 1000 s: however slow the machine, none comes back meanwhile.
    async with (
        web_door(tmp_path, door_start_burst=2.0, door_start_rate=0.001) as (_, doors, base),
        aiohttp.ClientSession() as http,
    ):
        for name in ("Ann", "Bob"):
            tab = await http.ws_connect(f"{base}/ws/{name}?width=80&height=24")
            await tab.close()
            await until(lambda: not doors.gate.per_address)
        code, reason = await refused(http, f"{base}/ws/Cy?width=80&height=24")
        assert code == REFUSED and "Too many new sessions from your address" in reason
        assert "serve --limit door_start_burst=N" in reason
        assert not doors.gate.per_address  # the refused one was not counted
        async with http.get(f"{base}/ws/Cy?width=80&height=24") as again:
            assert "Too many new sessions from your address" not in await again.text()


async def test_plain_gets_of_the_websocket_spend_no_start_and_log_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A GET of ``/ws/x`` without an upgrade spent a door start before the upgrade failed
    (and logged two tracebacks): four addresses doing it drained the server's whole allowance
    and nobody could start a session. It is a 400 now, one log line, nothing spent."""
    caplog.set_level(logging.INFO)
    async with (
        web_door(tmp_path, door_start_burst=2.0) as (_, doors, base),
        aiohttp.ClientSession() as http,
    ):
        for _ in range(4):
            async with http.get(f"{base}/ws/x?width=80&height=24") as plain_get:
                assert plain_get.status == 400
        for name in ("Ann", "Bob"):  # the whole burst is still there
            tab = await http.ws_connect(f"{base}/ws/{name}?width=80&height=24")
            await tab.close()
            await until(lambda: not doors.gate.per_address)
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    lines = [r for r in caplog.records if "no websocket upgrade" in r.getMessage()]
    assert len(lines) == 1  # one line a second at most, with the count


async def test_requests_past_the_address_allowance_get_429(tmp_path: Path) -> None:
    """The door shares the game's event loop: a loop of requests (the 300 kB script, say) is
    answered 429 past ``web_request_burst``, cheaply, with no page or file sent."""
    async with (
        web_door(tmp_path, web_request_burst=3.0, web_request_rate=0.01) as (_, _, base),
        aiohttp.ClientSession() as http,
    ):
        statuses = []
        for _ in range(5):
            async with http.get(f"{base}/static/js/textual.js") as reply:
                statuses.append(reply.status)
                if reply.status == 429:
                    assert reply.headers["Retry-After"] == "1"
                    assert "Too many requests" in await reply.text()
        assert statuses == [200, 200, 200, 429, 429]


async def _until_closed(ws: aiohttp.ClientWebSocketResponse) -> tuple[list[Any], str]:
    """The pongs a tab got before the server closed it, and the reason it gave."""
    pongs = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START
    while True:
        assert loop.time() < deadline, f"not closed after {len(pongs)} pongs"
        message = await ws.receive(timeout=START)
        if message.type == aiohttp.WSMsgType.TEXT and message.data.startswith('["pong"'):
            pongs.append(message.json()[1])
        elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            return pongs, str(message.extra or "")


async def test_a_venues_players_all_load_the_page_at_once(tmp_path: Path) -> None:
    """Every player at a club evening opens the page from the venue's one address in the
    same moment: the name form, the page, its three assets, the icon and the websocket's
    upgrade, seven requests each. At the old ``web_request_burst`` (60) the ninth player's
    script or font got 429 and the page stayed blank."""
    players = 16  # three tables less a seat or two, or two and their watchers
    async with web_door(tmp_path) as (_, _, base), aiohttp.ClientSession() as http:
        async with http.get(base + "/?name=Ann") as reply:
            parser = _Links()
            parser.feed(await reply.text())
        assets = [*parser.links, "static/fonts/RobotoMono-VariableFont_wght.ttf"]
        # The websocket's address without an upgrade (400): metered as the upgrade is, and
        # no client starts.
        load = ["/", "/?name=Ann", *("/" + a for a in assets), "/favicon.ico", "/ws/Ann"]
        assert len(load) == 7

        async def status(path: str) -> int:
            async with http.get(base + path) as reply:
                await reply.read()
                return reply.status

        statuses = await asyncio.gather(*(status(p) for p in load * players))
        assert 429 not in statuses


async def test_a_message_over_the_size_limit_closes_the_tab_unread(tmp_path: Path) -> None:
    """A 3.7 MB ``ping`` was parsed and echoed on the game's loop (and the server's memory
    grew by 110 MB for four tabs). Past ``web_message_max`` the tab is closed with 1009."""
    async with (
        web_door(tmp_path, web_message_max=4096) as (_, doors, base),
        aiohttp.ClientSession() as http,
    ):
        ws = await http.ws_connect(f"{base}/ws/Ann?width=80&height=24", max_msg_size=0)
        # Within the limit but nested past the JSON parser's stack: ignored as any message
        # that is no envelope (it ended the tab, with a RecursionError traceback in the log).
        await ws.send_str("[" * 2000)
        await ws.send_json(["ping", "small"])
        await ws.send_json(["ping", "x" * 5000])
        assert (await _until_closed(ws))[0] == ["small"]
        assert ws.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
        await until(lambda: not doors.gate.per_address and not doors.web.services)  # type: ignore[union-attr]


async def test_a_tab_sending_past_its_message_rate_is_dropped_then_closed(tmp_path: Path) -> None:
    """Like a game connection: past the burst messages are dropped, and a tab whose debt
    reaches a whole burst is closed (1008, with the reason)."""
    async with (
        web_door(tmp_path, web_message_rate=0.01, web_message_burst=5.0) as (_, doors, base),
        aiohttp.ClientSession() as http,
    ):
        ws = await http.ws_connect(f"{base}/ws/Ann?width=80&height=24")
        for number in range(20):
            await ws.send_json(["ping", number])
        pongs, reason = await _until_closed(ws)
        assert pongs == [0, 1, 2, 3, 4] and "too many messages" in reason
        assert ws.close_code == 1008
        await until(lambda: not doors.gate.per_address and not doors.web.services)  # type: ignore[union-attr]


def _cookie_of(reply: aiohttp.ClientResponse) -> str | None:
    morsel = reply.cookies.get(COOKIE)
    return None if morsel is None else morsel.value


async def test_the_page_sets_a_player_cookie_and_a_bad_one_gets_a_fresh_one(
    tmp_path: Path,
) -> None:
    async with web_door(tmp_path) as (_, _, base):
        async with aiohttp.ClientSession() as http, http.get(base + "/") as reply:
            assert reply.status == 200
            fresh = _cookie_of(reply)
            header = reply.headers["Set-Cookie"]
        assert fresh is not None and len(fresh) == 43
        assert "HttpOnly" in header and "SameSite=Strict" in header and "Max-Age=" in header
        for bad in ("x", "A" * 42 + "!", "A" * 44, '"' + "A" * 43 + '"', ""):
            headers = {"Cookie": f"{COOKIE}={bad}"}
            async with (
                aiohttp.ClientSession() as http,
                http.get(base + "/?name=Ann", headers=headers) as reply,
            ):
                assert reply.status == 200, bad
                renewed = _cookie_of(reply)
            assert renewed is not None and len(renewed) == 43 and renewed not in (bad, fresh)
        good = {"Cookie": f"{COOKIE}={fresh}"}
        async with aiohttp.ClientSession() as http, http.get(base + "/", headers=good) as reply:
            assert _cookie_of(reply) == fresh  # renewed, not replaced
        cross = {**good, "Sec-Fetch-Site": "cross-site"}
        cross.pop("Cookie")
        async with aiohttp.ClientSession() as http, http.get(base + "/", headers=cross) as reply:
            assert reply.status == 200 and "Set-Cookie" not in reply.headers


async def test_tabs_with_one_cookie_are_one_player_and_other_cookies_others(
    tmp_path: Path,
) -> None:
    """A browser tab had nowhere to keep a player key, so browser players were nobody in the
    standings. The cookie gives each browser a player key of its own."""
    ann, bob = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    async with web_door(tmp_path) as (server, doors, base):
        tabs = []
        for cookie, name in ((ann, "Ann"), (ann, "Ann2"), (bob, "Bob"), (None, "Cy")):
            http = aiohttp.ClientSession(cookies={COOKIE: cookie} if cookie is not None else None)
            tabs.append((http, await http.ws_connect(f"{base}/ws/{name}?width=80&height=24")))
        # Connected and greeted: a connection has its name once its hello is in.
        names = ["Ann", "Ann2", "Bob", "Cy"]
        await until(lambda: sorted(str(c.name) for c in server.connections) == names)
        identity = {c.name: c.identity for c in server.connections}
        assert identity["Ann"] == identity["Ann2"] == identity_of(player_key_for(ann))
        assert identity["Bob"] == identity_of(player_key_for(bob)) != identity["Ann"]
        assert identity["Cy"] is None  # no cookie: no player key
        assert doors.web is not None
        commands = sorted(service.command for service in doors.web.services)
        assert all("--confirm-cards" in command for command in commands)
        for http, ws in tabs:
            await ws.close()
            await http.close()
        await until(lambda: not doors.gate.per_address)


async def test_the_name_form_offers_one_click_play(tmp_path: Path) -> None:
    async with web_door(tmp_path) as (_, doors, base), aiohttp.ClientSession() as http:
        own = urlsplit(base).netloc
        async with http.get(base + "/") as reply:
            assert 'type="checkbox" name="confirm" value="1" checked' in await reply.text()
        async with http.get(base + "/?name=Ann&confirm=0") as reply:
            assert f'"ws://{own}/ws/Ann/one-click"' in await reply.text()
        async with http.get(base + "/?name=Ann&confirm=0&confirm=1") as reply:
            assert f'"ws://{own}/ws/Ann"' in await reply.text()
        ws = await http.ws_connect(f"{base}/ws/Ann/one-click?width=80&height=24")
        await until(lambda: bool(doors.web and doors.web.services))
        assert doors.web is not None
        ((service),) = doors.web.services
        assert "--confirm-cards" not in service.command
        await ws.close()
        await until(lambda: not doors.gate.per_address)


async def test_the_terminal_has_the_keyboard_without_a_click(tmp_path: Path) -> None:
    # Before, keys typed after the name form (Enter, c) went nowhere until a click: the
    # terminal's input (xterm's textarea) was never focused.
    async with web_door(tmp_path) as (_, _doors, base), aiohttp.ClientSession() as http:
        async with http.get(base + "/?name=Ann") as reply:
            page = await reply.text()
        assert 'document.querySelector("#terminal textarea")' in page
        assert "keys.focus()" in page


async def test_the_terminal_starts_once_its_font_is_loaded(tmp_path: Path) -> None:
    # Before, textual.js opened the terminal on load and measured its cells in a fallback font
    # (Roboto Mono not loaded yet: 18 px rows where it has 21): in chromium at 1000x700 the
    # terminal filled 540 px, and after a resize it ran past the window (798 of 700 px). The
    # page now holds textual.js's start (window.onload) until the page's font has loaded, in
    # the size the terminal uses.
    async with (
        web_door(tmp_path) as (_, _doors, base),
        aiohttp.ClientSession() as http,
        http.get(base + "/?name=Ann&fontsize=18") as reply,
    ):
        page = await reply.text()
    family = re.search(r'@font-face \{\s*font-family: "([^"]+)"', page)
    assert family is not None
    load = page.find(f"document.fonts.load('18px \"{family.group(1)}\"')")
    hold = page.find("const startTerminal = window.onload;")
    start = page.find("startTerminal(event)")
    assert 0 < page.find('src="static/js/textual.js"') < hold < load < start
    assert page.find("keys.focus()") > start  # the terminal's input exists only once started


async def test_a_reloaded_tab_gets_the_seat_tokens_of_its_browsers_last_tab(
    tmp_path: Path,
) -> None:
    """A tab's client began with no seat tokens: a reload (or a server restart) put the player
    in the lobby, and joining again sat them as "Eve 2" in another seat while theirs stayed
    away. The tokens a tab's client wrote go to the next tab of the same browser, not to
    another browser's."""
    eve, other = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    tokens = b'{"127.0.0.1:1": {"t1": "secret"}}'
    async with web_door(tmp_path) as (_, doors, base):
        web = doors.web
        assert web is not None

        async def tab(cookie: str) -> tuple[aiohttp.ClientSession, Any, Path]:
            http = aiohttp.ClientSession(cookies={COOKIE: cookie})
            ws = await http.ws_connect(f"{base}/ws/Eve?width=80&height=24")
            await until(lambda: len(web.services) == 1)
            (service,) = web.services
            return http, ws, service.home  # type: ignore[attr-defined]

        http, ws, home = await tab(eve)
        (home / "config" / "sheepshead" / "tokens.json").write_bytes(tokens)  # it sat
        await ws.close()
        await http.close()
        await until(lambda: not web.services and not home.exists())
        for cookie, expected in ((other, None), (eve, tokens)):
            http, ws, home = await tab(cookie)
            path = home / "config" / "sheepshead" / "tokens.json"
            assert (path.read_bytes() if path.exists() else None) == expected
            await ws.close()
            await http.close()
            await until(lambda: not web.services)


async def test_a_tab_is_told_the_server_is_restarting_and_the_page_says_it(
    tmp_path: Path,
) -> None:
    """A server restart left the browser player reading "The game has ended." and "Play
    again", as if the match were over, while SSH players were told to connect again in a
    minute and that their seat is kept."""
    assert f"event.code === {RESTARTING}) reloadWhenUp(" in terminal_page()
    async with web_door(tmp_path) as (_, doors, base), aiohttp.ClientSession() as http:
        web = doors.web
        assert web is not None
        ws = await http.ws_connect(f"{base}/ws/Eve?width=80&height=24")
        await until(lambda: len(web.services) == 1)
        stopping = asyncio.ensure_future(doors.stop())
        ended = (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED)
        while (message := await ws.receive(timeout=START)).type not in ended:
            pass
        await stopping
        assert (ws.close_code, message.extra) == (RESTARTING, SHUTTING_DOWN)


async def test_a_reload_gets_the_tokens_of_the_tab_it_replaces_while_that_one_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reload opens the new tab while the old one is still ending (its client quitting):
    the new tab started before the old one's tokens were kept, and began with none. A client
    that does not quit (here: stopped) is killed after ``STOP_WAIT``: it was waited for for
    ever (textual-serve's stop swallows the timeout's cancel), its seat stayed connected and
    every new tab of the browser began without its tokens, in the lobby."""
    # What is checked is that the new tab waits for the old one, not how long that takes: on
    # a loaded machine the old tab's niced client took more than the door's 8 s to stop.
    monkeypatch.setattr(web_module, "TOKENS_WAIT", 120.0)
    monkeypatch.setattr(web_module, "STOP_WAIT", 0.5)
    eve = secrets.token_urlsafe(32)
    tokens = b'{"127.0.0.1:1": {"t1": "secret"}}'
    async with (
        web_door(tmp_path) as (_, doors, base),
        aiohttp.ClientSession(cookies={COOKIE: eve}) as http,
    ):
        web = doors.web
        assert web is not None
        old = await http.ws_connect(f"{base}/ws/Eve?width=80&height=24")
        await until(lambda: len(web.services) == 1)
        (service,) = web.services
        first = service.home  # type: ignore[attr-defined]
        (first / "config" / "sheepshead" / "tokens.json").write_bytes(tokens)  # it sat
        await until(lambda: service._process is not None)
        stuck = service._process
        assert stuck is not None
        os.kill(stuck.pid, signal.SIGSTOP)  # a client that will not quit by itself
        await old.close()
        new = await http.ws_connect(f"{base}/ws/Eve?width=80&height=24")

        def homes() -> list[Path]:
            return [s.home for s in web.services if s.home != first]  # type: ignore[attr-defined]

        await until(lambda: bool(homes()))
        assert (homes()[0] / "config" / "sheepshead" / "tokens.json").read_bytes() == tokens
        assert stuck.returncode == -signal.SIGKILL
        await new.close()
        await until(lambda: not web.services)


class _TabScreen:
    """A tab's websocket read in the background (which also answers the door's pings, as a
    browser does): its terminal output, searchable without escapes, and how it closed."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.data = b""
        self.closed: tuple[int | None, str] | None = None
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            message = await self.ws.receive()
            if message.type == aiohttp.WSMsgType.BINARY:
                self.data += message.data
            elif message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                self.closed = (self.ws.close_code, str(message.extra or ""))
                return
            elif message.type == aiohttp.WSMsgType.ERROR:
                self.closed = (None, str(message.data))
                return

    async def wait_for(self, text: str, since: int = 0) -> None:
        """Until ``text`` shows after byte ``since`` of the output."""
        await until(lambda: text in plain(self.data[since:]), timeout=START)

    async def create_table(self, name: str) -> None:
        """From the lobby, c then Enter: a table made by ``name`` (the tab's player), until the
        tab shows it."""
        await self.wait_for("No tables yet")
        await self.ws.send_json(["stdin", "c"])
        await self.wait_for("New table")
        await self.ws.send_json(["stdin", "\r"])
        await self.wait_for(f"{name}'s table")

    def deaf(self) -> None:
        """Stop reading: pings go unanswered, as from a tab whose link dropped."""
        self._task.cancel()

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        await self.ws.close()


async def test_a_second_tab_asks_before_it_takes_the_seat_and_a_reload_is_not_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A browser's second tab took the seat of its first one, open and in play, without a
    word (the browser's tabs share its seat tokens). Now it asks, as the SSH door asks a key's
    second window: ``q`` closes it, ``l`` opens the lobby and leaves the seat where it is,
    ``t`` moves it (the first tab says so, in the lobby); a tab holding the seat that answers
    no ping is closed and the seat comes without a question. A reload is not asked: the tab
    it replaces has closed its websocket."""
    monkeypatch.setattr(web_module, "LINK_CHECK", 0.5)
    eve = secrets.token_urlsafe(32)
    async with (
        web_door(tmp_path) as (server, doors, base),
        aiohttp.ClientSession(cookies={COOKIE: eve}) as http,
    ):
        web = doors.web
        assert web is not None

        async def tab() -> _TabScreen:
            return _TabScreen(await http.ws_connect(f"{base}/ws/Eve?width=80&height=24"))

        async def client_started(before: set[Any]) -> Any:
            """The client a tab started, once it has (``before``: the clients there were)."""
            await until(lambda: bool(web.services - before))
            (started,) = web.services - before
            await until(lambda: started._process is not None)
            return started

        def holder_pid() -> int | None:
            peer = table.seats[0].peer
            return peer_pid(getattr(peer, "transport", None))

        first = await tab()
        first_client = await client_started(set())
        await first.create_table("Eve")
        await until(lambda: any(t.seats[0].name == "Eve" for t in server.lobby.tables.values()))
        (table,) = server.lobby.tables.values()
        await until(lambda: table.seats[0].peer is not None)
        home = first_client.home
        await until(lambda: (home / "config" / "sheepshead" / "tokens.json").exists())
        await first.close()  # a reload: the new tab opens while the old one ends
        reloaded = await tab()
        held = await client_started({first_client})
        await reloaded.wait_for("Eve's table")
        await until(lambda: holder_pid() == held._process.pid)
        assert "take the seat here" not in plain(reloaded.data)

        quitter = await tab()
        await quitter.wait_for("another tab of this browser")
        assert len(web.services) == 1  # no client meanwhile
        await quitter.ws.send_json(["stdin", "q"])
        await until(lambda: quitter.closed is not None)
        assert quitter.closed == (web_module.SEAT_ELSEWHERE, SEAT_STAYS.strip())

        lobby = await tab()
        await lobby.wait_for("take the seat here")
        await lobby.ws.send_json(["stdin", "l"])
        side_client = await client_started({held})
        side = side_client.home
        assert not (side / "config" / "sheepshead" / "tokens.json").exists()
        # Its client takes no seat back by itself (the same player key): the SSH door's test
        # shows what it did when the seat's tab dropped.
        assert side_client._build_environment().get(DOOR_LOBBY_ONLY_ENV) == "1"
        assert DOOR_LOBBY_ONLY_ENV not in held._build_environment()
        assert holder_pid() == held._process.pid
        await lobby.close()  # (its client has only begun: each one is some 0.7 s of CPU)
        await until(lambda: len(web.services) == 1)

        since = len(reloaded.data)
        taker = await tab()
        await taker.wait_for("take the seat here")
        await taker.ws.send_json(["stdin", "t"])
        taken = await client_started({held})
        await until(lambda: holder_pid() == taken._process.pid)
        await reloaded.wait_for("another window", since=since)
        await reloaded.wait_for("Sheepshead lobby", since=since)

        taker.deaf()  # its link drops: it answers no ping
        last = await tab()
        await last.wait_for("does not answer")
        assert "take the seat here" in plain(last.data)
        moved = await client_started({held, taken})
        kept = moved.home / "config" / "sheepshead" / "tokens.json"
        assert kept.exists()  # it takes the seat with the token, as after `t`
        await until(lambda: taken not in web.services, timeout=10)  # the deaf tab: closed
        for screen in (reloaded, taker, last):
            await screen.close()
        await until(lambda: not web.services)


async def test_a_second_tab_beside_a_first_never_reloaded_asks_and_t_takes_the_seat(
    tmp_path: Path,
) -> None:
    """A browser's first tab keeps its seat tokens only when it ends, so a second tab opened
    beside it (never reloaded) was not asked: it went to the lobby with the player's key,
    whose take-back took the seat when the first tab was then reloaded (the reloaded tab was
    told its seat plays in another window). The door reads the open tabs' tokens too: the
    second tab asks, and ``t`` starts its client with the first tab's token."""
    eve = secrets.token_urlsafe(32)
    async with (
        web_door(tmp_path) as (server, doors, base),
        aiohttp.ClientSession(cookies={COOKIE: eve}) as http,
    ):
        web = doors.web
        assert web is not None

        async def tab() -> _TabScreen:
            return _TabScreen(await http.ws_connect(f"{base}/ws/Eve?width=80&height=24"))

        first = await tab()
        await until(lambda: len(web.services) == 1)
        (held,) = web.services
        await first.create_table("Eve")
        await until(lambda: any(t.seats[0].peer is not None for t in server.lobby.tables.values()))
        (table,) = server.lobby.tables.values()
        await until(lambda: (held.home / "config" / "sheepshead" / "tokens.json").exists())

        second = await tab()
        await until(
            lambda: any(s in plain(second.data) for s in ("take the seat here", "Sheepshead lobby"))
        )
        assert "take the seat here" in plain(second.data)
        assert len(web.services) == 1  # no client while it asks
        await second.ws.send_json(["stdin", "t"])
        await until(lambda: len(web.services) == 2)
        (taken,) = web.services - {held}
        assert (taken.home / "config" / "sheepshead" / "tokens.json").exists()
        await until(lambda: taken._process is not None)

        def holder_pid() -> int | None:
            return peer_pid(getattr(table.seats[0].peer, "transport", None))

        await until(lambda: holder_pid() == taken._process.pid)
        await first.wait_for("another window")
        for screen in (first, second):
            await screen.close()
        await until(lambda: not web.services)


async def test_a_lost_connection_reads_as_lost_and_the_page_reloads_once_the_server_answers(
    tmp_path: Path,
) -> None:
    """A server killed (or a network dropped) under an open tab: the page said "The game has
    ended." and "Play again", and its button reloaded at once: with the server still down, the
    browser's own error page. Now a websocket that ends without a close (1006) says the
    connection was lost and the seat kept; the button, and the page by itself after a lost
    connection or a restart, reload only once a HEAD of the page answers (checked here: the
    door answers one). What textual.js sends before the socket opens waits for it (it threw
    "Still in CONNECTING state" and the focus, or a key, was lost)."""
    page = terminal_page()
    lost = f"if (event.code === {web_module.ABNORMAL}) {{"
    assert lost in page and json.dumps(web_module.LOST) in page[page.find(lost) :]
    assert json.dumps(web_module.NOT_BACK) in page
    answers = page.find('fetch(window.location.href, { method: "HEAD", cache: "no-store" })')
    assert 0 < answers < page.find("window.location.reload()")
    assert page.count("window.location.reload()") == 2  # both after answers()
    assert page.count("if (await answers()) window.location.reload()") == 1
    assert "if (this.readyState === PageSocket.CONNECTING) this.waiting.push(data);" in page
    async with (
        web_door(tmp_path) as (_, _doors, base),
        aiohttp.ClientSession() as http,
        http.head(base + "/?name=Ann") as reply,
    ):
        assert reply.status == 200


async def test_a_tab_opened_while_the_server_stops_is_told_so_and_starts_no_client(
    tmp_path: Path,
) -> None:
    """The stopping door still listens while it closes its tabs (up to ``STOP_WAIT`` for a tab
    that does not answer the close), and a tab opened then started a client that the stop
    cut at once. It is refused as the open tabs were closed (1012, the reason, so the page
    reloads once the server is back), before the door's gate: no place taken, no client.
    (That window is a few milliseconds here: the flag is set as :meth:`WebDoor.stop` sets it
    first.)"""
    async with web_door(tmp_path) as (_, doors, base), aiohttp.ClientSession() as http:
        web = doors.web
        assert web is not None
        web._stopping = True
        assert await refused(http, f"{base}/ws/Ann?width=80&height=24") == (
            RESTARTING,
            SHUTTING_DOWN,
        )
        assert not web.services and not doors.gate.per_address
        web._stopping = False
        await web.stop()
        assert web._stopping


async def test_a_bad_page_address_gets_a_word_not_a_blank_page_or_a_guess(tmp_path: Path) -> None:
    """A name with nothing to make a name of played as "Player" (a blank one showed the form
    again without a word); ``?delay=`` (read by textual.js) left a blank page that never
    connected, and ``?ping=`` had it fetch any address first; an address with no page read a
    bare "404: Not Found". Now: the form says why, the two are dropped by a redirect, and a
    page of its own (loading nothing) leads to the game."""
    no_name = web_module.NO_NAME.split(":")[0]
    async with web_door(tmp_path) as (_, _doors, base), aiohttp.ClientSession() as http:
        own = urlsplit(base).netloc
        async with http.get(base + "/") as reply:
            assert 'name="name"' in (page := await reply.text()) and no_name not in page
        for query, shown in (("!!!", "&quot;!!!&quot;"), ("%20%20", "the one given")):
            async with http.get(f"{base}/?name={query}") as reply:
                page = await reply.text()
            assert reply.status == 200 and 'name="name"' in page and "/ws/" not in page
            assert f"{no_name}: {shown} has none." in page
        async with http.get(base + "/?name=Player!") as reply:
            assert "/ws/Player" in await reply.text()
        for query, location in (
            ("?name=Ann&delay=1", "./?name=Ann"),
            ("?ping=http://elsewhere.example/&name=Ann&confirm=0", "./?name=Ann&confirm=0"),
            ("?delay=1", "./"),
        ):
            async with http.get(base + "/" + query, allow_redirects=False) as reply:
                assert (reply.status, reply.headers["Location"]) == (302, location), query
        for path, home in (("/play", "./"), ("/a/b", "../"), ("/ws", "./")):
            async with http.get(base + path) as reply:
                page = await reply.text()
            assert reply.status == 404 and reply.content_type == "text/html", path
            assert f'<a href="{home}">' in page and "There is no page" in page
            assert "<script" not in page and "<link" not in page
            assert outside_hosts(page, own) == set()
