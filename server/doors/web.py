"""The browser door: ``sheepshead serve --web PORT`` serves the Textual client to a browser tab.

Built on textual-serve's pieces: its ``AppService`` runs one ``sheepshead join`` child per tab
(Textual's web driver, speaking over pipes) and its ``textual.js`` draws the terminal in the
page. The page itself is this module's own, not textual-serve's: that one links a web font from
the internet, and a LAN party may have none. This page names no other host: its script, style
sheet and font (Roboto Mono, shipped with textual-serve) come from this server, and its
addresses are relative to the one the browser used.

The player's name comes from ``?name=`` in the address; without one the page asks for it
before the game starts, and whether a card is played with one click or two (``--confirm-cards``,
the default here: in a browser one stray click would play a card).

Who the player is comes from a cookie (:data:`COOKIE`): a random secret the page sets once
(HttpOnly, SameSite=Strict, renewed by each page load). A tab's client gets a throwaway home
directory holding a player key derived from it (:func:`player_key_for`), so a browser is one
player across tabs and visits, in the standings like any other; the server stores only the
key's hash, as for every player key, and neither the cookie nor the key outlives the tab's
directory. The seat tokens of a browser that took a seat are kept beside the database
(``web-players/<hash of the cookie>.json``) and given to its next tab, so that a reload or a
server restart takes the player back to their seat. A tab without a valid cookie plays with no
player key, as it did before cookies.

A second tab of a browser whose seat tokens name a seat that another of its tabs holds, open
(that tab's client has the seat's connection, and its websocket is open), does not take the
seat silently: it asks first, as the SSH door asks a key's second window
(:data:`ANOTHER_WINDOW`, ``server.doors.kit``). A reload is not asked: the tab it replaces has
closed its websocket (the new tab waits for its end, :data:`TOKENS_WAIT`), so no open tab holds
the seat. Which tab's client holds a seat is told by the process at the other end of the seat's
connection (``SO_PEERCRED`` on the local socket). Meanwhile the holding tab is sent a websocket
ping: when it does not answer within :data:`LINK_CHECK` its link has dropped (the door's own
heartbeat notices that only after some 20 s), so it is closed and the seat comes without a
question.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import html
import json
import logging
import os
import re
import secrets
import shlex
import shutil
import tempfile
import time
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any, Final, Protocol
from urllib.parse import quote, urlencode

import textual_serve
from aiohttp import WSMsgType, web
from aiohttp.typedefs import Handler
from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

from client.session import DOOR_LOBBY_ONLY_ENV
from client.web_driver import DRIVER as WEB_DRIVER
from protocol.requests import DOOR_TOKENS_MAX
from server.doors.kit import (
    DEFAULT_NAME,
    LINK_CHECK,
    OTHER_WINDOW_GONE,
    SEAT_STAYS,
    DoorGate,
    DoorServer,
    another_window,
    child_environment,
    choice_of,
    client_command,
    player_name,
    tokens_named,
    wait_for_choice,
)
from server.net.limits import TokenBucket, client_address

if TYPE_CHECKING:
    from server.config import ServerConfig

log = logging.getLogger("sheepshead.web")

STATIC_DIR: Final = Path(textual_serve.__file__).parent / "static"
"""textual-serve's scripts, style sheet and fonts, served under ``/static/``."""

STOP_WAIT: Final = 3.0
"""Seconds a tab's client has to quit after the tab closed before it is killed."""
TOKENS_WAIT: Final = STOP_WAIT + 5.0
"""Seconds a new tab waits for its browser's ending tabs to keep their seat tokens: an ending
tab's client has ``STOP_WAIT`` to quit and is killed then; on a loaded machine (the client
runs niced) the whole stop took over 4 s, and the reload began without its seat."""

PAGE: Final = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Sheepshead</title>
<link rel="stylesheet" href="static/css/xterm.css">
<script src="static/js/textual.js"></script>
<style>
@font-face {
  font-family: "Roboto Mono";
  src: url("static/fonts/RobotoMono-VariableFont_wght.ttf") format("truetype");
  font-weight: 100 700;
}
html, body { margin: 0; height: 100%; background: #0c181f; color: #eee;
  font-family: "Roboto Mono", monospace; }
#terminal { position: absolute; inset: 0; }
.notice { position: absolute; inset: 0; display: flex; align-items: center;
  justify-content: center; flex-direction: column; z-index: 10; background: #0c181f; }
.notice form, .notice p { font-size: 18px; text-align: center; max-width: 44em;
  padding: 0 1em; }
.notice input, .notice button { font: inherit; padding: 8px 14px; margin: 8px; }
.notice .problem { color: #ffb347; }
#closed { display: none; }
body.-closed #closed { display: flex; }
body .textual-terminal { opacity: 0; }
body.-first-byte .textual-terminal { opacity: 1; }
</style>
</head>
<body>
$content
</body>
</html>
"""
"""The page (``$content``: the name form, or the terminal)."""

COOKIE: Final = "sheepshead_player"
"""The browser door's player cookie: 32 random bytes, base64url (43 characters)."""

_COOKIE_VALUE = re.compile(r"[A-Za-z0-9_-]{43}")

PLAYERS_DIR: Final = "web-players"
"""The directory (in the data directory) keeping each browser's seat tokens, by its cookie."""

TOKENS_FILE: Final = "tokens.json"
"""The client's seat tokens (``client.session.TokenStore``), in its config directory."""

RESTARTING: Final = 1012
"""The close code of every tab when the server stops (``Service Restart``); its reason says
what :data:`SHUTTING_DOWN` says."""

SHUTTING_DOWN: Final = (
    "The server is shutting down (or restarting): this page reconnects once it is back "
    "(a seat you hold is kept)."
)
"""Why every tab closes when the server stops: the page read "The game has ended.", as if the
match were over, while the SSH door's players were told to connect again."""

REFUSED: Final = 1013
"""The close code of a tab the doors refuse (``Try Again Later``); its reason says why."""

SEAT_ELSEWHERE: Final = 4000
"""The close code of a tab closed because of where its player's seat is: ``q`` at
:data:`ANOTHER_WINDOW` (the reason: :data:`SEAT_STAYS`), or a tab holding a seat that did not
answer while another tab of its browser asked for it (:data:`DROPPED`)."""

ANOTHER_WINDOW: Final = another_window("(another tab of this browser)", "close")
"""Asked in a new tab whose client would take over, with its browser's seat tokens, a seat
another tab of the browser holds, open (the SSH door's question, ``server.doors.kit``).
``{table}`` is the table's name, ``{seat}`` the seat."""

DROPPED: Final = "This tab did not answer: its seat moved to another tab."
"""The close reason of a tab whose seat another tab took because it did not answer a ping."""

ONE_CLICK: Final = "one-click"
"""The last part of a tab's websocket address when a click plays a card at once."""

NAME_FORM: Final = """<div class="notice">
<form method="get" action="">
<p>Sheepshead: five-handed, in your browser.</p>
$problem
<label>Your name <input name="name" maxlength="24" autofocus required></label>
<button type="submit">Play</button>
<p><input type="hidden" name="confirm" value="0">
<label><input type="checkbox" name="confirm" value="1" checked>
Play a card with two clicks (choose it, then click it again)</label></p>
</form>
</div>"""
"""The name form (``$problem``: why the name given was not taken, or nothing)."""

NO_NAME: Final = "Your name needs a letter or a digit: {name} has none."
"""The name form's word for a ``?name=`` with nothing to make a name of (it played as
"Player"; a blank one showed the form again without a word). ``{name}``: what was given."""

TEXTUAL_JS_QUERY: Final = ("delay", "ping")
"""The page address's parameters textual.js reads itself: ``delay`` held the terminal for
ever (and threw), ``ping`` fetched any address, on any host, before it connected. An address
with them is redirected to the one without."""

MISSING: Final = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Sheepshead: no page here</title>
<style>
body { margin: 0; height: 100vh; display: flex; flex-direction: column; align-items: center;
  justify-content: center; background: #0c181f; color: #eee; font: 18px monospace; }
a { color: inherit; }
</style>
</head>
<body>
<p>There is no page at this address.</p>
<p><a href="$home">The game is here.</a></p>
</body>
</html>
"""
"""What an address with no page shows (aiohttp's was a bare "404: Not Found"), a page of its
own that loads nothing: ``$home`` is the door's first page, relative to the address asked, so
that it holds behind a proxy that serves the door under a path of its own."""

LOST: Final = (
    "The connection to the server was lost (the server stopped, or the network dropped). "
    "A seat you hold is kept: this page reconnects by itself once the server answers."
)
"""What the page says when its websocket ends without a close (code 1006: the server was
killed, or the network or the laptop dropped): it said "The game has ended." and "Play
again", as if the match were over."""

NOT_BACK: Final = "The server does not answer yet: this page tries again every few seconds."
"""What the page says while it waits for the server to answer before it reloads: "Try again"
reloaded at once, and a server still down showed the browser's own error page, with no way
back but the address bar."""

ABNORMAL: Final = 1006
"""The close code a browser reports for a websocket that ended without a close frame."""

RECONNECT_AFTER: Final = 10
"""Seconds a tab must have been open before a lost connection (:data:`ABNORMAL`) reloads it by
itself: one that drops sooner (a proxy that does not pass websockets, say) shows its button
only, so a page cannot reload in a loop, each time spending a door start."""

TERMINAL: Final = """<div class="notice" id="closed">
<p>The game has ended.</p>
<button type="button">Play again</button>
</div>
<div id="terminal" class="textual-terminal" data-session-websocket-url="$ws"
 data-font-size="$size"></div>
<script>
const PageSocket = window.WebSocket;
const closedText = document.querySelector("#closed p");
const closedButton = document.querySelector("#closed button");
const pause = (ms) => new Promise((done) => setTimeout(done, ms));
async function answers() {
  try {
    const reply = await fetch(window.location.href, { method: "HEAD", cache: "no-store" });
    return reply.ok;
  } catch (error) {
    return false;
  }
}
let retrying = false;
async function reloadWhenUp(delay) {
  if (retrying) return;
  retrying = true;
  for (;;) {
    if (delay) await pause(delay);
    if (await answers()) {
      window.location.reload();
      return;
    }
    closedText.textContent = $not_back;
    delay = Math.min(Math.max(2 * delay, 2000), 10000);
  }
}
closedButton.addEventListener("click", async () => {
  if (await answers()) window.location.reload();
  else reloadWhenUp(2000);
});
window.WebSocket = class extends PageSocket {
  constructor(...args) {
    super(...args);
    let openedAt = 0;
    this.waiting = [];
    this.addEventListener("open", () => {
      openedAt = Date.now();
      for (const data of this.waiting.splice(0)) super.send(data);
    });
    this.addEventListener("close", (event) => {
      if (event.code === $abnormal) {
        closedText.textContent = $lost;
        closedButton.textContent = "Reconnect";
        if (openedAt && Date.now() - openedAt > $reconnect_after * 1000) reloadWhenUp(2000);
      } else if (event.reason) {
        closedText.textContent = event.reason;
        if (event.code !== $seat_elsewhere) closedButton.textContent = "Try again";
        if (event.code === $restarting) reloadWhenUp(2 * $stop_wait * 1000);
      }
    });
  }
  send(data) {
    // textual.js sends the focus (and any key typed) before the socket is open, which threw
    // "Still in CONNECTING state" and lost it; after the close, it threw at every key.
    if (this.readyState === PageSocket.CONNECTING) this.waiting.push(data);
    else if (this.readyState === PageSocket.OPEN) super.send(data);
  }
};
const startTerminal = window.onload;
window.onload = async (event) => {
  const font = document.fonts.load('${size}px "Roboto Mono"');
  await Promise.race([font, new Promise((done) => setTimeout(done, 3000))]).catch(() => {});
  if (startTerminal) startTerminal(event);
  const keys = document.querySelector("#terminal textarea");
  if (keys) keys.focus();
};
</script>"""
"""The terminal page. textual.js makes the terminal when the page has loaded (``window.onload``)
and sizes it in cells measured in the font there is by then: before the page's own font had
loaded, a fallback's, whose rows are shorter (18 px where Roboto Mono's are 21 at 16 px), so the
terminal had too few rows at first (540 of 700 px) and too many, past the window, after a resize
measured again. The page starts it once the font is in (or after 3 s without it). textual.js
also never focuses the terminal: the keys a player typed before clicking into the page went
nowhere, so the page does; what textual.js sends before the websocket is open waits for it.

How the tab's websocket ends decides what the page says where the game would say it has ended:
its close's reason when it has one (a tab the doors refuse, :data:`REFUSED`; the server
stopping, :data:`RESTARTING`; the seat elsewhere, :data:`SEAT_ELSEWHERE`), :data:`LOST` when
it ended without a close (:data:`ABNORMAL`). Its button, and the page by itself after a lost
connection or a restart, reload only once a ``HEAD`` of the page answers (:data:`NOT_BACK`
meanwhile)."""


_PAGE_WORDS: Final = {
    "not_back": json.dumps(NOT_BACK),
    "lost": json.dumps(LOST),
    "abnormal": str(ABNORMAL),
    "reconnect_after": str(RECONNECT_AFTER),
    "seat_elsewhere": str(SEAT_ELSEWHERE),
    "restarting": str(RESTARTING),
    "stop_wait": str(int(STOP_WAIT)),
}
"""What :data:`TERMINAL` says and the close codes it tells apart, for its template."""


class _TabService(AppService):
    """textual-serve's app service with the door's environment instead of the server's."""

    def __init__(
        self,
        command: str,
        home: Path,
        keyed: bool,
        *,
        lobby_only: bool = False,
        server_wait: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(command, **kwargs)
        self.home = home
        self.server_wait = server_wait
        """As :attr:`WebDoor.server_wait`."""
        self.keyed = keyed
        self.lobby_only = lobby_only
        """Opened with ``l`` beside a seat another tab holds: its client takes no seat back by
        itself (:data:`client.session.DOOR_LOBBY_ONLY_ENV`)."""

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        env = child_environment(self.home, server_wait=self.server_wait)
        env.update(
            TEXTUAL_DRIVER=WEB_DRIVER,
            TEXTUAL_FPS="60",
            TEXTUAL_COLOR_SYSTEM="truecolor",
            TERM_PROGRAM="textual",
            COLUMNS=str(width),
            ROWS=str(height),
        )
        if not self.keyed:
            env["SHEEPSHEAD_PLAYER_KEY"] = "off"
        if self.lobby_only:
            env[DOOR_LOBBY_ONLY_ENV] = "1"
        return env


class WebDoor:
    """The HTTP listener of a running :class:`server.app.Server` (in this process or another:
    :class:`server.doors.kit.DoorServer`); see the module docstring."""

    def __init__(
        self,
        server: DoorServer,
        socket_path: str,
        gate: DoorGate,
        data_dir: Path | None = None,
        server_wait: float = 0.0,
    ) -> None:
        self.server = server
        self.server_wait = server_wait
        """Seconds a tab's child started while the server is down waits for it (doors in a
        process of their own: ``server.doors.child.SERVER_WAIT_ENV``); 0: it does not."""
        self.data_dir = data_dir
        """Where a browser's seat tokens are kept between its tabs (None: nowhere)."""
        self.socket_path = socket_path
        self.gate = gate
        self.port = 0
        self.services: set[AppService] = set()
        self._tabs: dict[AppService, web.WebSocketResponse] = {}
        """Each running tab's websocket, to tell it why it closes when the server stops."""
        self._asking: set[web.WebSocketResponse] = set()
        """The websockets of the tabs at :data:`ANOTHER_WINDOW` (no client yet), as above."""
        self._browsers: dict[str, set[_Tab]] = {}
        """Each browser's tabs by cookie, until their tokens are kept. A new tab of that
        browser waits for those whose websocket is closed (ending: their client quitting), and
        asks before it takes a seat one of those open holds."""
        self._closing: set[asyncio.Future[bool]] = set()
        """Closes of tabs that did not answer (:meth:`_ask_where`), until they are done."""
        self._runner: web.AppRunner | None = None
        self._downloads = DownloadManager()
        self._style: str | None = None
        self._stopping = False
        """Set by :meth:`stop`: a tab opened meanwhile is refused as the open ones are closed
        (the page reloads once the server answers, and the stopping one still did)."""

    def application(self) -> web.Application:
        """The aiohttp application: the page, its websocket, the static files."""
        app = web.Application(middlewares=[self.metered])
        app.add_routes(
            [
                web.get("/", self.index),
                web.get("/ws/{name}", self.websocket),
                web.get("/ws/{name}/" + ONE_CLICK, self.websocket),
                web.get("/static/css/xterm.css", self.style_sheet),
                web.get("/favicon.ico", self.no_icon),
                web.static("/static", STATIC_DIR),
            ]
        )
        return app

    @web.middleware
    async def metered(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Every request draws on its address's allowance: past it, 429 at once. The door
        shares the game's event loop, and a loop of requests for the 300 kB script kept it
        busy."""
        address = client_address(request.remote)
        now = time.monotonic()
        if not self.server.allowance(address, now).web_requests.take(now):
            self.server.log_refusal(address, "web: too many requests")
            return web.Response(
                status=429, text="Too many requests; slow down.", headers={"Retry-After": "1"}
            )
        try:
            return await handler(request)
        except web.HTTPNotFound:
            home = "../" * (request.path.count("/") - 1) or "./"
            page = Template(MISSING).substitute(home=html.escape(home))
            return web.Response(status=404, text=page, content_type="text/html", charset="utf-8")

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (OSError when it cannot)."""
        self._runner = web.AppRunner(self.application(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        try:
            await site.start()
        except BaseException:
            await self._runner.cleanup()
            self._runner = None
            raise
        server = site._server
        sockets = getattr(server, "sockets", None) or ()
        self.port = sockets[0].getsockname()[1] if sockets else port
        log.info("web door on %s:%d", host, self.port)

    async def stop(self) -> None:
        """Close every tab's client and stop listening."""
        self._stopping = True
        tabs = [*self._tabs.values(), *self._asking]
        if tabs:
            # First, so that each page shows why (a client stopped first closes its tab
            # with nothing to say); a tab that never answers the close is not waited for.
            closes = (t.close(code=RESTARTING, message=SHUTTING_DOWN.encode()) for t in tabs)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*closes, return_exceptions=True), STOP_WAIT)
        await asyncio.gather(*(self._stop(s) for s in list(self.services)), return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def style_sheet(self, request: web.Request) -> web.Response:
        """xterm's style sheet without its comments (which name the sites it came from: this
        page names no other host at all)."""
        if self._style is None:
            text = (STATIC_DIR / "css" / "xterm.css").read_text(encoding="utf-8")
            self._style = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        return web.Response(text=self._style, content_type="text/css", charset="utf-8")

    async def no_icon(self, request: web.Request) -> web.Response:
        """Browsers ask for an icon; there is none (an empty answer, not a logged 404)."""
        return web.Response(status=204)

    async def index(self, request: web.Request) -> web.Response:
        """The page: the name form, or the terminal for ``?name=`` (``&confirm=0``: a click
        plays a card). It sets the player cookie, or renews it."""
        if any(key in request.query for key in TEXTUAL_JS_QUERY):
            kept = [(k, v) for k, v in request.query.items() if k not in TEXTUAL_JS_QUERY]
            # Relative, so that it holds behind a proxy ("?" alone was sent as no address).
            raise web.HTTPFound("./" + (f"?{urlencode(kept)}" if kept else ""))
        name = request.query.get("name", "").strip()
        if not name or (
            player_name(name) == DEFAULT_NAME and DEFAULT_NAME.casefold() not in name.casefold()
        ):
            problem = ""
            if "name" in request.query:
                given = json.dumps(name) if name else "the one given"
                problem = f'<p class="problem">{html.escape(NO_NAME.format(name=given))}</p>'
            content = Template(NAME_FORM).substitute(problem=problem)
        else:
            size = request.query.get("fontsize", "16")
            scheme = "wss" if request.secure else "ws"  # behind a TLS proxy
            path = f"/ws/{quote(player_name(name), safe='')}"
            if request.query.getall("confirm", ["1"])[-1] == "0":
                path += "/" + ONE_CLICK
            content = Template(TERMINAL).substitute(
                ws=html.escape(f"{scheme}://{request.host}{path}"),
                size=str(int(size)) if size.isdigit() and 6 <= int(size) <= 40 else "16",
                **_PAGE_WORDS,
            )
        page = Template(PAGE).substitute(content=content)
        response = web.Response(text=page, content_type="text/html", charset="utf-8")
        cookie = player_cookie(request)
        # A SameSite=Strict cookie is not sent with a link followed from another site: a
        # fresh one then would replace the browser's own (the tab's websocket, same-site, still
        # carries that one).
        if cookie is not None or request.headers.get("Sec-Fetch-Site") != "cross-site":
            response.set_cookie(
                COOKIE,
                cookie or secrets.token_urlsafe(32),
                max_age=self.server.config.web_cookie_days * 86400,
                path="/",
                httponly=True,
                samesite="Strict",
                secure=request.secure,
            )
        return response

    async def _refuse(
        self,
        request: web.Request,
        socket: web.WebSocketResponse,
        refusal: str,
        code: int = REFUSED,
    ) -> web.StreamResponse:
        """Open the tab's websocket only to close it with ``refusal`` as the reason (``code``:
        1013, try again later, or :data:`RESTARTING` while the server stops), which the page
        shows (:data:`TERMINAL`): a refused upgrade's status and text (it was a 503) never
        reach the page's script, and the player read only "The game has ended". No start is
        spent, no client started."""
        try:
            await socket.prepare(request)
        except (web.HTTPException, ConnectionError, RuntimeError):
            return socket
        await socket.close(code=code, message=refusal.encode()[:123])
        return socket

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        """One tab: a client child, driven over the websocket until either side ends.

        A request that is no websocket upgrade gets a 400 and spends nothing: a door start
        is spent only for a session, and a loop of plain GETs from four addresses had spent
        the whole server's allowance, so that nobody could start a session at either door."""
        address = client_address(request.remote)
        config = self.server.config
        # The tab answers pings through :func:`_relay` (autoping off), so a tab that holds a
        # seat can be asked whether its link is up (:meth:`_ask_where`).
        socket = web.WebSocketResponse(
            heartbeat=15, autoping=False, max_msg_size=config.web_message_max
        )
        if not socket.can_prepare(request).ok:
            # One line a second at most (with the count): a loop of them must not fill the log.
            self.server.log_refusal(address, "web: a GET of /ws is no websocket upgrade (400)")
            return web.Response(status=400, text="This address is the game's websocket.")
        if self._stopping:
            return await self._refuse(request, socket, SHUTTING_DOWN, RESTARTING)
        refusal = self.gate.admit(address)
        if refusal is not None:
            self.server.log_refusal(address, f"web: {refusal}")
            return await self._refuse(request, socket, refusal)
        try:
            await socket.prepare(request)
        except (web.HTTPException, ConnectionError, RuntimeError) as exc:
            log.info("web %s: the websocket upgrade failed (%s)", address, exc)
            self.gate.release(address, refund=True)
            return socket
        home = Path(tempfile.mkdtemp(prefix="sheepshead-web-"))
        service: _TabService | None = None
        cookie: str | None = None
        tab = _Tab(socket)
        budget = _TabBudget(config, time.monotonic())
        try:
            name = player_name(request.match_info.get("name", ""))
            size = (_size(request.query.get("width"), 80), _size(request.query.get("height"), 24))
            command = client_command(self.socket_path, name, self.server.port, config)
            if not request.path.endswith("/" + ONE_CLICK):
                command.append("--confirm-cards")
            cookie = player_cookie(request)
            if cookie is not None:
                _keep_player_key(home, player_key_for(cookie))
                # A reload opens the new tab while the last one is still ending: its client
                # quits, then its tokens are kept. They are what this tab must start with.
                # A tab whose websocket is closed is ending, though its handler may not have
                # got that far yet (a busy server); one still open is another tab, not waited.
                tabs = self._browsers.setdefault(cookie, set())
                leaving = [asyncio.ensure_future(t.ended.wait()) for t in tabs if t.socket.closed]
                tabs.add(tab)
                if leaving:
                    await asyncio.wait(leaving, timeout=TOKENS_WAIT)
                    for waiter in leaving:
                        waiter.cancel()
                held = await self._held_by_another_tab(cookie, name, tab)
                source: Path | None = None
                if held is not None:
                    holder, table, seat, source = held
                    choice, size = await self._ask_where(tab, budget, size, holder, table, seat)
                    if choice == "gone":
                        return socket
                    if choice == "quit":
                        reason = SEAT_STAYS.strip().encode()
                        await socket.close(code=SEAT_ELSEWHERE, message=reason)
                        return socket
                    tab.side = choice == "lobby"
                if not tab.side:
                    self._restore_tokens(home, cookie, source)
            service = _TabService(
                "exec " + shlex.join(command),
                home,
                cookie is not None,
                lobby_only=tab.side,
                server_wait=self.server_wait,
                write_bytes=socket.send_bytes,
                write_str=socket.send_str,
                close=socket.close,
                download_manager=self._downloads,
            )
            self.services.add(service)
            self._tabs[service] = socket
            tab.service = service
            await service.start(*size)
            log.info("web %s: %s playing", address, name)
            ending = await _relay(socket, service, budget, tab.pong)
            if ending:
                log.info("web %s: %s's tab closed: %s", address, name, ending)
        except asyncio.CancelledError:
            await socket.close()
        except Exception:
            log.exception("web %s: the tab failed", address)
        finally:
            try:
                if service is not None:
                    await self._stop(service)
                self.gate.release(address)
                if cookie is not None and not tab.side:
                    self._keep_tokens(home, cookie)
                shutil.rmtree(home, ignore_errors=True)
            finally:
                tab.ended.set()
                if cookie is not None:
                    tabs = self._browsers.get(cookie, set())
                    tabs.discard(tab)
                    if not tabs:
                        self._browsers.pop(cookie, None)
        return socket

    async def _held_by_another_tab(
        self, cookie: str, name: str, tab: _Tab
    ) -> tuple[_Tab, str, int, Path] | None:
        """The tab of the browser with ``cookie`` (other than ``tab``) whose client holds the
        seat that one of the browser's seat tokens names for ``name``, with its websocket open;
        that table's name and seat; and the tokens file that names it (the one a tab taking the
        seat starts with). Else None: no token, a seat that is away, or one whose client's tab
        is closed or ending (a reload: the tab it replaces), which the new tab takes back as
        before. The server says whose client holds each seat (``DoorServer.held_seats``: one
        question for every source's tokens).

        The tokens looked at are the ones the browser's last ended tab kept and the ones each
        of its open tabs' clients hold now: a browser's first tab keeps its tokens only when it
        ends, so a second tab opened beside it, never reloaded, was not asked. It went to the
        lobby with the player's key, whose take-back took the seat when the first tab was
        reloaded: the reloaded tab was told its seat plays in another window, and the tab
        opened to look at the lobby had it."""
        from client.session import TokenStore

        sources: list[Path] = []
        kept = self._tokens_of(cookie)
        if kept is not None:
            sources.append(kept)
        others = [other for other in self._browsers.get(cookie, ()) if other is not tab]
        sources += [_live_tokens(o.service.home) for o in others if o.service is not None]
        named = [(s, token) for s in sources for token in tokens_named(TokenStore(s).load(), name)]
        del named[DOOR_TOKENS_MAX:]  # what one question may carry: 16 tabs' and the kept file's
        seats = await self.server.held_seats([token for _, token in named])
        for (source, _), found in zip(named, seats, strict=True):
            if found is None:
                continue
            for other in others:
                process = other.service._process if other.service is not None else None
                pid = process.pid if process is not None else None
                if pid is not None and pid == found["pid"] and not other.socket.closed:
                    return other, found["name"], found["seat"], source
        return None

    async def _ask_where(
        self,
        tab: _Tab,
        budget: _TabBudget,
        size: tuple[int, int],
        holder: _Tab,
        table: str,
        seat: int,
    ) -> tuple[str, tuple[int, int]]:
        """Ask in ``tab`` where the seat ``holder`` holds goes (:data:`ANOTHER_WINDOW`):
        "take", "lobby", "quit", or "gone" (the tab closed first), and the terminal's size by
        then (``size`` at first). Meanwhile ``holder`` is sent a ping: when it does not answer
        within :data:`LINK_CHECK`, its link has dropped, so it is closed and the seat comes
        here without a question, as it did before there was one."""
        socket = tab.socket
        answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        keys = _Question(answer, size)
        self._asking.add(socket)
        question = ANOTHER_WINDOW.format(table=table, seat=seat)
        reader: asyncio.Task[str] | None = None
        try:
            await socket.send_bytes(question.encode())
            reader = asyncio.create_task(_relay(socket, keys, budget, tab.pong))
            reader.add_done_callback(lambda _: _settle(answer, "gone"))

            async def closed() -> None:
                log.info("web: a tab holding a seat does not answer: closed, the seat moves")
                close = holder.socket.close(code=SEAT_ELSEWHERE, message=DROPPED.encode())
                task = asyncio.ensure_future(close)
                self._closing.add(task)
                task.add_done_callback(self._closing.discard)
                await socket.send_bytes(OTHER_WINDOW_GONE.encode())

            choice = await wait_for_choice(answer, _dropped(holder), closed)
        except ConnectionError:
            choice = "gone"
        finally:
            self._asking.discard(socket)
            if reader is not None and not reader.done():
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader
        return choice, keys.size

    def _tokens_of(self, cookie: str) -> Path | None:
        """Where the seat tokens of the browser with ``cookie`` are kept (None: nowhere)."""
        if self.data_dir is None:
            return None
        digest = hashlib.sha256(cookie.encode("ascii")).hexdigest()[:32]
        return self.data_dir / PLAYERS_DIR / f"{digest}.json"

    def _restore_tokens(self, home: Path, cookie: str, source: Path | None = None) -> None:
        """Give a tab's client the seat tokens its browser's last tab held (or those in
        ``source``: another open tab's, whose seat this tab takes), so that a reload or a
        restart takes the player back to their seat (before, each tab began with none: a
        reloaded tab sat as "Eve 2" in another free seat, and Eve's stayed away)."""
        kept = source or self._tokens_of(cookie)
        if kept is None or not kept.is_file():
            return
        try:
            target = _live_tokens(home)
            target.write_bytes(kept.read_bytes())
            target.chmod(0o600)
        except OSError:
            log.exception("web: cannot restore a browser's seat tokens")

    def _keep_tokens(self, home: Path, cookie: str) -> None:
        """Keep an ended tab's seat tokens for its browser's next tab. Only a browser that
        took a seat has any (its client wrote them), so a fresh cookie per tab leaves nothing
        behind; one that has its file kept is replaced by the newest tab's."""
        tokens = _live_tokens(home)
        kept = self._tokens_of(cookie)
        if kept is None or not tokens.is_file():
            return
        try:
            kept.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            partial = kept.with_name(f"{kept.name}.{secrets.token_hex(4)}")
            partial.write_bytes(tokens.read_bytes())
            partial.chmod(0o600)
            partial.replace(kept)
        except OSError:
            log.exception("web: cannot keep a browser's seat tokens")

    async def _stop(self, service: AppService) -> None:
        """Ask a tab's client to quit; kill it if it does not."""
        if service not in self.services:
            return
        self.services.discard(service)
        self._tabs.pop(service, None)
        process = service._process
        deadline = asyncio.get_running_loop().time() + STOP_WAIT
        with contextlib.suppress(Exception):
            await asyncio.wait_for(service.stop(), STOP_WAIT)
        if process is not None:
            # The wait is on the process itself: textual-serve's reader task swallows its
            # cancellation, so the stop above "returns" at the timeout with the client still
            # running, and a client that never quit (stuck, or stopped) was waited for for
            # ever: its seat stayed connected, its tokens unkept, and the browser's next tab
            # began without them after TOKENS_WAIT, in the lobby.
            remaining = max(0.0, deadline - asyncio.get_running_loop().time())
            try:
                await asyncio.wait_for(asyncio.shield(process.wait()), remaining)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
            await process.wait()
            if process.stdin is not None:
                process.stdin.close()  # the last pipe: the process's transport closes with it


class _Tab:
    """One tab, from its websocket's opening until its client has ended and its tokens are
    kept (:attr:`ended`)."""

    __slots__ = ("ended", "pong", "service", "side", "socket")

    def __init__(self, socket: web.WebSocketResponse) -> None:
        self.socket = socket
        self.ended = asyncio.Event()
        """Set once the tab's client has ended and its seat tokens are kept."""
        self.pong = asyncio.Event()
        """Set when the browser answers a ping (:func:`_dropped`)."""
        self.service: _TabService | None = None
        """The tab's client, once started."""
        self.side = False
        """Opened in the lobby beside a seat another tab holds (``l`` at
        :data:`ANOTHER_WINDOW`): no seat tokens given, and none kept from it."""


class _Keys(Protocol):
    """Where :func:`_relay` passes a tab's keys, sizes and focus: its client (textual-serve's
    ``AppService``), or the door's question (:class:`_Question`)."""

    async def send_bytes(self, data: bytes) -> bool:
        """Keys typed."""

    async def set_terminal_size(self, width: int, height: int) -> None:
        """The terminal's new size."""

    async def blur(self) -> None:
        """The tab lost the focus."""

    async def focus(self) -> None:
        """The tab has the focus."""


class _Question:
    """A tab's keys while the door asks where its seat goes (:data:`ANOTHER_WINDOW`): the
    first one that answers sets ``answer``; the terminal's latest size is kept for the client
    started after."""

    def __init__(self, answer: asyncio.Future[str], size: tuple[int, int]) -> None:
        self.answer = answer
        self.size = size

    async def send_bytes(self, data: bytes) -> bool:
        """Keys typed: an answer, or nothing."""
        choice = choice_of(data)
        if choice is not None and not self.answer.done():
            self.answer.set_result(choice)
        return True

    async def set_terminal_size(self, width: int, height: int) -> None:
        """Kept for the client."""
        self.size = (width, height)

    async def blur(self) -> None:
        """Nothing to do."""

    async def focus(self) -> None:
        """Nothing to do."""


class _TabBudget:
    """What one tab may send: messages and bytes per second, as the game port meters a
    connection (``ServerConfig.web_message_rate``, ``web_byte_rate``). Past it a message is
    dropped; a tab whose debt reaches a whole burst is flooding, and is closed."""

    __slots__ = ("bytes", "messages")

    def __init__(self, config: ServerConfig, now: float) -> None:
        self.messages = TokenBucket(config.web_message_rate, config.web_message_burst, now)
        self.bytes = TokenBucket(config.web_byte_rate, config.web_byte_burst, now)

    def take(self, size: int, now: float) -> bool:
        """Whether a message of ``size`` bytes may be read (both buckets pay either way)."""
        counted = self.messages.take(now)
        return self.bytes.take(now, size) and counted

    @property
    def exhausted(self) -> bool:
        """Whether the tab has ignored a whole burst of dropped messages."""
        return self.messages.exhausted or self.bytes.exhausted


FLOODING: Final = 1008
"""The close code of a tab that sends past its budget (policy violation)."""


async def _relay(
    socket: web.WebSocketResponse, service: _Keys, budget: _TabBudget, pong: asyncio.Event
) -> str:
    """Pass the browser's keys, resizes and focus changes to the client (or the question)
    until the tab goes; answer its pings, and set ``pong`` at each of its answers to one; why
    the server closed it, if it did (else "")."""
    async for message in socket:
        if message.type == WSMsgType.ERROR:
            # aiohttp has closed it already: 1009 for a message over ``web_message_max``, told
            # by its header before any of it was read.
            return f"{message.data} (code {socket.close_code})"
        if message.type not in _METERED:
            continue
        if not budget.take(len(message.data), time.monotonic()):
            if budget.exhausted:
                await socket.close(code=FLOODING, message=b"too many messages: slow down")
                return f"too many messages (code {FLOODING})"
            continue
        if message.type == WSMsgType.PING:
            await socket.pong(message.data)
            continue
        if message.type == WSMsgType.PONG:
            pong.set()
            continue
        if message.type != WSMsgType.TEXT:
            continue
        try:
            envelope = json.loads(message.data)
            kind, data = envelope[0], envelope[1] if len(envelope) > 1 else None
        except (ValueError, TypeError, IndexError, KeyError, RecursionError):
            continue  # RecursionError: "[[[[..." within the size limit, past the parser's stack
        if kind == "stdin" and isinstance(data, str):
            await service.send_bytes(data.encode("utf-8"))
        elif kind == "resize" and isinstance(data, dict):
            await service.set_terminal_size(
                _size(data.get("width"), 80), _size(data.get("height"), 24)
            )
        elif kind == "ping":
            await socket.send_json(["pong", data])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()
    return ""


_METERED: Final = (WSMsgType.TEXT, WSMsgType.BINARY, WSMsgType.PING, WSMsgType.PONG)
"""The messages a tab's budget pays for (pings and their answers too: aiohttp answered pings
unmetered before the door took them over)."""


async def _dropped(tab: _Tab) -> bool:
    """Whether ``tab``'s browser does not answer a websocket ping within :data:`LINK_CHECK`
    (browsers answer pings by themselves, whatever the page does)."""
    tab.pong.clear()
    try:
        await tab.socket.ping()
        await asyncio.wait_for(tab.pong.wait(), LINK_CHECK)
    except (TimeoutError, ConnectionError, RuntimeError):
        return True
    return False


def _settle(answer: asyncio.Future[str], result: str) -> None:
    """Give ``answer`` its ``result`` unless it has one."""
    if not answer.done():
        answer.set_result(result)


def player_cookie(request: web.Request) -> str | None:
    """The request's player cookie, if it has a well-formed one."""
    value = request.cookies.get(COOKIE, "")
    return value if _COOKIE_VALUE.fullmatch(value) else None


def player_key_for(cookie: str) -> str:
    """The player key of the browser with this cookie (a hash of it: the key a tab's client
    sends, whose own hash is what the server stores).

    >>> player_key_for("A" * 43) == player_key_for("A" * 43) != player_key_for("B" * 43)
    True
    """
    return hashlib.sha256(b"sheepshead web player\0" + cookie.encode("ascii")).hexdigest()


def _live_tokens(home: Path) -> Path:
    """Where the client of the tab with the throwaway ``home`` keeps its seat tokens."""
    from client.config import APP_NAME

    return home / "config" / APP_NAME / TOKENS_FILE


def _keep_player_key(home: Path, key: str) -> None:
    """Put ``key`` where the tab's client reads its player key (``client.config.player_key``,
    under ``XDG_CONFIG_HOME``), readable by its owner only."""
    from client.config import APP_NAME, PLAYER_KEY_FILE

    folder = home / "config" / APP_NAME
    folder.mkdir(parents=True, mode=0o700)
    fd = os.open(folder / PLAYER_KEY_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(key + "\n")


def _size(value: object, default: int) -> int:
    """A terminal dimension from the browser, within 10-500 (else ``default``)."""
    try:
        number = int(str(value))
    except ValueError:
        return default
    return number if 10 <= number <= 500 else default
