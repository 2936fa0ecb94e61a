"""A connection to a sheepshead server: handshake, requests, events, reconnect. No Textual.

The TUI and the bot runner share it::

    session = Session(host, port, name="Ann", token_store=TokenStore.default())
    welcome = await session.connect()          # dial + hello; ServerError or OSError
    reply = await session.request("create_table", name="t", preset="seed")
    history = await session.history()          # the match so far (None: an older server)
    await session.act({"action": "play", "card": "QC"})   # quotes the last your_turn's seq
    message = await session.events.get()       # state, your_turn, hand_over, match_over, chat,
                                               # notice, errors without id, and the session's
                                               # own {"type": "connection", "status": ...} and
                                               # {"type": "table_lost", ...}
    await session.close()

When the connection drops (and ``reconnect`` is on) the session dials again with exponential
backoff, 0.25 s doubling to 8 s, and says hello with the seat token it was given, so the server
seats it again and sends a fresh snapshot; a spectator asks to ``watch`` its table again (with
the password it watched it with). Tokens are kept in a :class:`TokenStore` so that a
restarted client takes its seat back too: the store is read at the session's start only
(until its first ``welcome``), and only the token it filed or offered is removed from it, so
two clients of one name and config directory (two terminals, at two tables) do not take each
other's seat at a reconnect nor forget each other's token at a leave. When the server no
longer takes the session back where it was (the seat's token is refused, the table closed or
has no room for one more spectator) the session is at no table and says so with a
``table_lost`` event (see :meth:`Session.table_lost_event`), never silently. So does a seat
that another client of the player took over with its token (``replaced``: a second window, a
second SSH session of the same key): this session then dials again at no table, in the
lobby, and leaves the stored token to the client that has the seat now.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import logging
import os
import tempfile
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any, Final, Literal, cast, overload

from protocol.events import (
    BotAdded,
    HintReply,
    HistoryPage,
    Joined,
    OkReply,
    ReviewReply,
    StandingsReply,
    State,
    TableCreated,
    TableList,
    Watching,
    Welcome,
    YourTurn,
)
from protocol.framing import FrameDecoder, FrameError, Message, encode
from protocol.version import PROTOCOL_VERSION

__all__ = ["ConnectionLost", "ServerError", "Session", "Status", "TokenStore"]

log = logging.getLogger("sheepshead.client")

Status = Literal["connecting", "connected", "reconnecting", "closed"]
"""Where the session stands."""

_NO_RETRY = frozenset({"version_unsupported"})
"""Errors after which dialling again cannot help."""

REPLACED = "replaced"
"""The error (no id) a connection gets when another client took over its seat with the seat's
token: the session goes on at no table (``table_lost``), without that token."""

HISTORY_RETRIES = 100
"""Pages of ``history`` asked for again after ``rate_limited`` before :meth:`Session.history`
gives up (the server answers two a second once its burst is spent: a 1,000-hand match is
some fifty pages)."""
HISTORY_RETRY_WAIT = 0.6
"""Seconds before a ``rate_limited`` page of ``history`` is asked for again."""


class ServerError(Exception):
    """The server refused a request: ``code`` (stable, snake_case) and ``message`` (for people).

    ``reply`` is the whole error map when there was one.
    """

    def __init__(self, code: str, message: str, reply: Mapping[str, Any] | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.reply: Message = dict(reply or {})

    def in_words(self) -> str:
        """The refusal as a command says it to people: the message, then the code.

        >>> ServerError("no_such_table", "No open table has the id 'nosuch'").in_words()
        "No open table has the id 'nosuch' (no_such_table)"
        """
        return f"{self.message} ({self.code})"


class ConnectionLost(ServerError, ConnectionError):
    """The connection went away before the reply came (code ``connection_lost``)."""

    def __init__(self, message: str = "The connection to the server was lost") -> None:
        super().__init__("connection_lost", message)


class TokenStore:
    """Seat tokens on disk: ``{"host:port": {name: token}}`` in one JSON file (mode 0600).

    Writes go to a temporary file in the same directory that then replaces the old one, so a
    crash never leaves a half-written file.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @classmethod
    def default(cls) -> TokenStore:
        """``tokens.json`` in the client's config directory (:func:`client.config.config_dir`,
        which ``SHEEPSHEAD_CONFIG_DIR`` moves); under an SSH door that checked the seat token
        (:data:`DOOR_SEAT_TOKEN_ENV` set), a :class:`DoorTokenStore`."""
        from client.config import config_dir

        path = config_dir() / "tokens.json"
        checked = os.environ.get(DOOR_SEAT_TOKEN_ENV)
        return cls(path) if checked is None else DoorTokenStore(path, checked)

    def load(self) -> dict[str, dict[str, str]]:
        """Everything stored (an unreadable or malformed file counts as empty)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        out: dict[str, dict[str, str]] = {}
        for server, names in data.items():
            if isinstance(server, str) and isinstance(names, dict):
                out[server] = {
                    n: t for n, t in names.items() if isinstance(n, str) and isinstance(t, str)
                }
        return out

    def get(self, server: str, name: str) -> str | None:
        """The token stored for ``name`` on ``server`` ("host:port")."""
        return self.load().get(server, {}).get(name)

    def put(self, server: str, name: str, token: str) -> None:
        """Store a token."""
        data = self.load()
        data.setdefault(server, {})[name] = token
        self._save(data)

    def remove(self, server: str, name: str, token: str | None = None) -> None:
        """Forget a token (nothing happens when there is none); with ``token``, only if the
        stored one is that (another client may have filed its own since)."""
        data = self.load()
        names = data.get(server)
        if names is None or name not in names or token not in (None, names[name]):
            return
        del names[name]
        if not names:
            del data[server]
        self._save(data)

    def _save(self, data: Mapping[str, Any]) -> None:
        directory = self.path.parent
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".tokens-", suffix=".tmp", dir=directory)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


DOOR_SEAT_TOKEN_ENV: Final = "SHEEPSHEAD_DOOR_SEAT_TOKEN"
"""Set by the SSH door for its client: the SHA-256 (hex, :func:`token_digest`) of the seat
token the player's home held when the door checked whether another window holds that seat
(empty: none). See :class:`DoorTokenStore`."""


DOOR_FINGERPRINT_ENV: Final = "SHEEPSHEAD_DOOR_FINGERPRINT"
"""Set by the SSH door for its client: the player's SSH key fingerprint (``SHA256:...``, public),
which the server tags their standings row with (PROTOCOL.md §10.1): the standings say which
row is theirs (:func:`client.screens.standings.own_rows`)."""


DOOR_LOBBY_ONLY_ENV: Final = "SHEEPSHEAD_DOOR_LOBBY_ONLY"
"""Set to ``1`` by a door for a window the player opened in the lobby beside a seat that
another of their windows holds (``l`` at the door's question, ``server.doors.kit.another_window``):
its client takes no seat back by itself (``SheepsheadApp(take_back=False)``). Its player key is the
player's, so for a minute it took that seat back at the first listing that showed it away (the
other window's link dropped, or the player closed it to reconnect): the window opened only to
browse had the seat, the one reconnected was told it plays in another window."""


def token_digest(token: str) -> str:
    """What :data:`DOOR_SEAT_TOKEN_ENV` holds for ``token`` (the token itself stays out of the
    environment)."""
    return hashlib.sha256(token.encode()).hexdigest()


class DoorTokenStore(TokenStore):
    """The seat tokens of a client an SSH door started: it takes a seat back only with the
    token the door checked (its digest ``checked``; none when empty) or one this client filed
    itself. The client reads its token a second or so after the door looked (its start-up):
    another window of the key that sat down in between filed a token the door never asked
    about, and this client took that window's seat over without a question. Such a token is
    not offered, and the client opens the lobby (the other window keeps its seat)."""

    def __init__(self, path: str | os.PathLike[str], checked: str) -> None:
        super().__init__(path)
        self.checked = checked
        self.filed: set[str] = set()

    def get(self, server: str, name: str) -> str | None:
        """The stored token, if the door checked it or this client filed it."""
        token = super().get(server, name)
        if token is None or token in self.filed or token_digest(token) == self.checked:
            return token
        return None

    def put(self, server: str, name: str, token: str) -> None:
        """Store a token, and offer it from now on."""
        self.filed.add(token)
        super().put(server, name, token)


class Session:
    """One player's (or bot's, or spectator's) connection to a server; see the module doc."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        name: str,
        kind: Literal["human", "bot"] = "human",
        client_name: str = "sheepshead/0.1",
        token_store: TokenStore | None = None,
        reconnect: bool = True,
        min_backoff: float = 0.25,
        max_backoff: float = 8.0,
        connect_timeout: float = 10.0,
        request_timeout: float | None = 30.0,
        player_key: str | None = None,
        local_socket: str | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.name = name
        """The name asked for; after connecting, the name the server cleaned it to."""
        self.requested_name = name
        self.kind = kind
        self.client_name = client_name
        self.token_store = token_store
        self.reconnect = reconnect
        self.min_backoff = min_backoff
        self.max_backoff = max_backoff
        self.connect_timeout = connect_timeout
        self.request_timeout = request_timeout
        self.player_key = player_key
        """Sent in hello so the server knows this player again (None: no identity)."""
        self.local_socket = local_socket
        """A Unix socket path to dial instead of ``host:port`` (the server's doors use it)."""
        self.events: asyncio.Queue[Message] = asyncio.Queue()
        self.status: Status = "closed"
        self.table: str | None = None
        self.seat: int | None = None
        self.last_state: State | None = None
        self.last_turn: YourTurn | None = None
        self.welcome: Welcome | None = None
        self.token: str | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, tuple[str, asyncio.Future[Message]]] = {}
        self._writer: asyncio.StreamWriter | None = None
        self._read_task: asyncio.Task[None] | None = None
        self._reconnect_task: asyncio.Task[None] | None = None
        self._send_lock = asyncio.Lock()
        self._closing = False
        self._hello_token: str | None = None
        self._watch_password: str | None = None
        """The password the table being watched was watched with: a reconnect's ``watch``
        sends it again (kept in memory only, as the seat token is)."""
        self._away_from: tuple[str, int | None] | None = None
        """(table, seat or None for a spectator) where the session was when its connection
        dropped, until it is back there or has said (``table_lost``) that it is not."""
        self._seat_refused: tuple[str, int | None] | None = None
        """A seat whose token the reconnect's hello sent and the welcome did not take back: the
        server's ``bad_token`` error that follows becomes its ``table_lost`` event."""

    @property
    def server_key(self) -> str:
        """The TokenStore key of this server, ``"host:port"``."""
        return f"{self.host}:{self.port}"

    # ------------------------------------------------------------------ public

    async def connect(self) -> Welcome:
        """Dial and say hello; returns the ``welcome``. Raises ServerError or OSError."""
        self._closing = False
        self._set_status("connecting")
        try:
            welcome = await self._open()
        except BaseException:
            self._set_status("closed")
            raise
        self._set_status("connected")
        return welcome

    # The reply's type follows from the request's (protocol.events builds the same types on
    # the server), so what a caller reads of it is checked against what the server sends.
    @overload
    async def request(self, type: Literal["list_tables"], **fields: Any) -> TableList: ...
    @overload
    async def request(self, type: Literal["create_table"], **fields: Any) -> TableCreated: ...
    @overload
    async def request(self, type: Literal["join"], **fields: Any) -> Joined: ...
    @overload
    async def request(self, type: Literal["watch"], **fields: Any) -> Watching: ...
    @overload
    async def request(self, type: Literal["add_bot"], **fields: Any) -> BotAdded: ...
    @overload
    async def request(self, type: Literal["history"], **fields: Any) -> HistoryPage: ...
    @overload
    async def request(self, type: Literal["hint"], **fields: Any) -> HintReply: ...
    @overload
    async def request(self, type: Literal["review"], **fields: Any) -> ReviewReply: ...
    @overload
    async def request(self, type: Literal["standings"], **fields: Any) -> StandingsReply: ...
    @overload
    async def request(self, type: str, **fields: Any) -> OkReply: ...
    async def request(self, type: str, **fields: Any) -> OkReply:
        """Send a request and return its ``ok`` reply; ServerError for an ``error`` reply."""
        reply = await self._call(type, fields)
        self._after_reply(type, fields, reply)
        return cast(OkReply, reply)

    async def act(self, action: Mapping[str, Any], *, seq: int | None = None) -> OkReply:
        """Answer a ``your_turn`` with ``action`` (a §5 action map).

        ``seq`` is the seq of the prompt being answered; pass it when answering a prompt taken
        from :attr:`events` (the queue can lag behind what the session has already received, and
        quoting the prompt's own seq lets the server refuse an answer that is out of date with
        ``stale``). Without it the seq of the latest prompt received is quoted.
        """
        if seq is None and self.last_turn is not None:
            seq = self.last_turn["seq"]
        elif seq is None and self.last_state is not None:
            seq = self.last_state["seq"]
        elif seq is None:
            seq = 0
        return await self.request("action", seq=seq, action=dict(action))

    async def history(
        self, table: str | None = None, *, match: int | None = None
    ) -> HistoryPage | None:
        """The finished hands of the current match at ``table`` (default: yours), every page
        (with ``match``: of that match of the table, as :meth:`history_pages` asks).

        One reply map: ``table``, ``match``, ``hands`` (all pages joined, in order) and the
        first page's ``lines``. None when the server is older and does not know ``history``
        (``unknown_type``); any other refusal raises ServerError. A long match takes more
        pages than the server answers at once (``rate_limited``, PROTOCOL.md §9): the page is
        asked for again a moment later, up to :data:`HISTORY_RETRIES` times.
        """
        return await self.history_range(table=table, match=match)

    async def history_range(
        self,
        start: int = 0,
        stop: int | None = None,
        *,
        table: str | None = None,
        match: int | None = None,
        retries: int = HISTORY_RETRIES,
        retry_wait: float = HISTORY_RETRY_WAIT,
        max_wait: float | None = None,
    ) -> HistoryPage | None:
        """The finished hands ``start`` to ``stop`` (not included; None: the last one) of the
        current match at ``table`` (default: yours; ``match``: that match of the table, as
        :meth:`history_pages` asks), in as few pages as cover them.

        One reply map as :meth:`history`'s, whose ``hands`` hold no hand from ``stop`` on
        (``lines`` only when ``start`` is 0). None for a server that does not know ``history``;
        any other refusal raises ServerError, and the pages already in are dropped (a caller
        that keeps them reads :meth:`history_pages`). The ``rate_limited`` retries are
        :meth:`history_pages`'.
        """
        merged: HistoryPage | None = None
        try:
            async for page in self.history_pages(
                start,
                stop,
                table=table,
                match=match,
                retries=retries,
                retry_wait=retry_wait,
                max_wait=max_wait,
            ):
                if merged is None:
                    merged = page.copy()
                    merged["hands"] = list(page["hands"])
                else:
                    merged["hands"] += page["hands"]
        except ServerError as exc:
            if exc.code == "unknown_type" and merged is None:
                return None
            raise
        assert merged is not None  # history_pages yields at least one page or raises
        merged["next"] = None
        return merged

    async def history_pages(
        self,
        start: int = 0,
        stop: int | None = None,
        *,
        table: str | None = None,
        match: int | None = None,
        retries: int = HISTORY_RETRIES,
        retry_wait: float = HISTORY_RETRY_WAIT,
        max_wait: float | None = None,
    ) -> AsyncIterator[HistoryPage]:
        """Each page of the finished hands ``start`` to ``stop`` (not included; None: the last
        one) of the current match at ``table`` (default: yours), as it comes in: at least one,
        the first from ``start``, each without a hand from ``stop`` on.

        ``match`` asks for that match of the table instead (0, then +1 per rematch, as a
        page's ``match`` numbers them; PROTOCOL.md ``history``): a match the table never had is
        refused (``bad_request``), and a server older than the field ignores it and answers
        with the current match, so a caller compares each page's ``match`` with the one asked.

        A caller keeps what came before a failure: a refusal (ServerError, ``unknown_type``
        from a server that does not know ``history``), a lost connection (ConnectionLost) or a
        timeout (TimeoutError) is raised after the pages already yielded. A page refused as
        ``rate_limited`` is asked for again after ``retry_wait`` seconds, the wait doubling
        while the same page is refused, up to ``max_wait`` (None: it stays ``retry_wait``; the
        server's error tells no wait, and a refusal adds to the debt its allowance must refill
        first, §9); after ``retries`` refusals in all the last one is raised.
        """
        fields: dict[str, str | int] = {} if table is None else {"table": table}
        if match is not None:
            fields["match"] = match
        wait = retry_wait
        while True:
            try:
                reply = await self.request("history", **fields, start=start)
            except ServerError as exc:
                if exc.code == "rate_limited" and retries > 0:
                    retries -= 1
                    await asyncio.sleep(wait)
                    wait = min(wait * 2, max_wait) if max_wait is not None else retry_wait
                    continue
                raise
            wait = retry_wait
            page = reply.copy()
            page["hands"] = [
                h for h in reply.get("hands") or [] if stop is None or h["hand"] < stop
            ]
            following = reply.get("next")
            last = (
                not isinstance(following, int)
                or following <= start
                or (stop is not None and following >= stop)
            )
            if last:
                page["next"] = None
            yield page
            if last:
                return
            assert isinstance(following, int)
            start = following

    async def close(self) -> None:
        """Close for good (no reconnect); pending requests fail with ConnectionLost."""
        self._closing = True
        if self._reconnect_task is not None:
            self._reconnect_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reconnect_task
            self._reconnect_task = None
        await self._drop_connection()
        self._fail_pending(ConnectionLost("The session was closed"))
        self._set_status("closed")

    # ------------------------------------------------------------------ connection

    async def _open(self) -> Welcome:
        """Dial and say hello with this session's seat token; until the session has been
        welcomed once (its start: a restarted client's way back), the stored one if it has
        none. A reconnect never reads the store: what another client of the same name and
        config directory filed there (another terminal, seated at another table) is that
        client's seat, which this one, in the lobby, took over at its next reconnect (and
        once another client had taken this one's seat over with the stored token, a fight
        over it)."""
        dial = (
            asyncio.open_connection(self.host, self.port)
            if self.local_socket is None
            else asyncio.open_unix_connection(self.local_socket)
        )
        reader, writer = await asyncio.wait_for(dial, self.connect_timeout)
        self._writer = writer
        self._read_task = asyncio.create_task(self._read_loop(reader, writer))
        token = self.token
        if token is None and self.token_store is not None and self.welcome is None:
            token = self.token_store.get(self.server_key, self.requested_name)
        hello: dict[str, object] = {
            "version": PROTOCOL_VERSION,
            "client": self.client_name,
            "kind": self.kind,
            "name": self.requested_name,
        }
        if token:
            hello["token"] = token
        if self.player_key:
            hello["player_key"] = self.player_key
        self._hello_token = token
        try:
            return cast(Welcome, await self._call("hello", hello, timeout=self.connect_timeout))
        except BaseException:
            await self._drop_connection()
            raise

    def _welcomed(self, welcome: Welcome) -> None:
        """Take in the welcome before anything after it (the snapshot) is handled."""
        self.welcome = welcome
        self.name = str(welcome.get("name", self.requested_name))
        away, self._away_from = self._away_from, None
        if welcome.get("table") is not None:
            self.token = self._hello_token
            self.table = welcome["table"]
            self.seat = welcome.get("seat")
        else:
            if away is not None and away[1] is not None:
                # A seat not taken back: the server follows the welcome with bad_token, which
                # says why (the session sent the token it was seated with).
                self._seat_refused = away
            elif away is not None:
                self._away_from = away  # a spectator: the reconnect asks to watch it again
            # This connection is at no table (a watcher's always, a seat's whose token was
            # refused): a table kept from the last connection would stop the reconnect from
            # watching it again, and the watcher's table would freeze.
            self.table = None
            self.seat = None
            if self._hello_token:
                self._forget_token()
        self._set_status("connected")

    async def _drop_connection(self) -> None:
        writer, self._writer = self._writer, None
        task, self._read_task = self._read_task, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _read_loop(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        decoder = FrameDecoder()
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                for item in decoder.feed(data):
                    if isinstance(item, FrameError):
                        log.warning("bad frame from the server: %s", item)
                        if item.fatal:
                            return
                        continue
                    self._receive(item, writer)
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()  # the server is done with us: release the socket at once
            if self._writer is writer:
                self._lost()

    def _receive(self, msg: Message, writer: asyncio.StreamWriter) -> None:
        kind = msg.get("type")
        msg_id = msg.get("id")
        if kind in ("ok", "error", "welcome") and msg_id in self._pending:
            _, future = self._pending.pop(msg_id)
            if kind == "welcome":
                self._welcomed(cast(Welcome, msg))
            if not future.done():
                if kind == "error":
                    future.set_exception(
                        ServerError(str(msg.get("code")), str(msg.get("message", "")), msg)
                    )
                else:
                    future.set_result(msg)
            return
        if kind == "error" and msg_id is None and self._refuse_hello(msg):
            return
        if kind == "ping":
            writer.write(encode({"type": "pong"}))
            return
        if kind == "state":
            self.last_state = cast(State, msg)
            self.table = msg.get("table")
            self.seat = msg.get("seat")
            self.last_turn = None
        elif kind == "your_turn":
            self.last_turn = cast(YourTurn, msg)
        elif kind == "error" and msg.get("code") == "bad_token":
            self._forget_token()
            refused, self._seat_refused = self._seat_refused, None
            if refused is not None:
                msg = self.table_lost_event(refused, "bad_token", str(msg.get("message", "")))
        elif kind == "notice" and msg.get("code") == "table_closed":
            self._left_table()
        elif kind == "error" and msg.get("code") == REPLACED and msg_id is None:
            moved = self._seat_moved()
            if moved is not None:
                msg = self.table_lost_event(moved, REPLACED, str(msg.get("message", "")))
        elif kind == "error" and msg.get("code") in _NO_RETRY:
            self._closing = True  # another client has the seat now: do not fight over it
        self.events.put_nowait(msg)

    def _seat_moved(self) -> tuple[str, int | None] | None:
        """Another client took over this session's seat (``replaced``; the server closes this
        connection next): forget the table and the token in memory, but not the stored token,
        which is the other client's now; the reconnect that follows is at no table. Returns
        (table, seat) where the session was, or None if it was at none."""
        where = (self.table, self.seat) if self.table is not None else None
        self.table = None
        self.seat = None
        self.last_state = None
        self.last_turn = None
        self._watch_password = None
        self.token = None
        return where

    def _refuse_hello(self, msg: Message) -> bool:
        """Fail a hello still waiting with ``msg``, an error the server sent before reading it
        (``too_many_connections`` has no id to quote): what the player reads is why, not that
        the connection then closed. False when no hello waits."""
        for request_id, (request_type, future) in list(self._pending.items()):
            if request_type == "hello" and not future.done():
                del self._pending[request_id]
                code, text = str(msg.get("code")), str(msg.get("message", ""))
                future.set_exception(ServerError(code, text, msg))
                return True
        return False

    def _lost(self) -> None:
        self._writer = None
        if self.table is not None:
            self._away_from = (self.table, self.seat)
        self._fail_pending(ConnectionLost())
        if self._closing or self.status != "connected":
            if self.status == "connected":
                self._set_status("closed")
            return
        if not self.reconnect:
            self._set_status("closed")
            return
        self._set_status("reconnecting")
        self._reconnect_task = asyncio.create_task(self._reconnect_loop())

    async def _reconnect_loop(self) -> None:
        delay = self.min_backoff
        while not self._closing:
            await asyncio.sleep(delay)
            try:
                await self._open()
            except ServerError as exc:
                if exc.code in _NO_RETRY:
                    self._closing = True
                    break
            except (OSError, TimeoutError) as exc:
                log.debug("reconnect failed: %s", exc)
            else:
                if self._reconnect_task is asyncio.current_task():
                    self._reconnect_task = None
                self._set_status("connected")
                await self._watch_again()
                return
            delay = min(delay * 2, self.max_backoff)
        if self._reconnect_task is asyncio.current_task():
            self._reconnect_task = None
        self._set_status("closed")

    async def _watch_again(self) -> None:
        """After a reconnect, watch the table this spectator watched; a refusal (no room for
        one more spectator, the table closed, ...) or no answer is told as ``table_lost``."""
        away = self._away_from
        if away is None or away[1] is not None or self.table is not None:
            return
        try:
            await self.request("watch", table=away[0], password=self._watch_password)
        except ConnectionLost:
            return  # dropped again: the next reconnect asks again (_away_from is kept)
        except ServerError as exc:
            refusal = (exc.code, exc.message)
        except TimeoutError:
            refusal = ("timeout", "The server did not answer")
        else:
            self._away_from = None
            return
        self._away_from = None
        self._watch_password = None
        self.events.put_nowait(self.table_lost_event(away, *refusal))

    @staticmethod
    def table_lost_event(where: tuple[str, int | None], code: str, message: str) -> Message:
        """The session's own event for a place the reconnect did not get back: ``table`` and
        ``seat`` (None: watching) where it was, and the refusal's ``code`` and ``message``
        (``bad_token`` for a seat; the ``watch`` refusal's for a spectator)."""
        table, seat = where
        return {
            "type": "table_lost",
            "table": table,
            "seat": seat,
            "code": code,
            "message": message,
        }

    # ------------------------------------------------------------------ requests

    async def _call(
        self, type: str, fields: Mapping[str, Any], *, timeout: float | None = None
    ) -> Message:
        writer = self._writer
        if writer is None:
            raise ConnectionLost("Not connected to the server")
        request_id = next(self._ids)
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = (type, future)
        message = {**fields, "type": type, "id": request_id}
        try:
            async with self._send_lock:
                writer.write(encode(message))
                await writer.drain()
        except (OSError, RuntimeError) as exc:
            self._pending.pop(request_id, None)
            raise ConnectionLost(f"Sending to the server failed: {exc}") from exc
        try:
            return await asyncio.wait_for(future, timeout or self.request_timeout)
        finally:
            self._pending.pop(request_id, None)

    def _after_reply(self, type: str, fields: Mapping[str, Any], reply: Mapping[str, Any]) -> None:
        if type in ("create_table", "join"):
            self.table = reply.get("table")
            self.seat = reply.get("seat")
            token = reply.get("token")
            if isinstance(token, str):
                self.token = token
                if self.token_store is not None:
                    self.token_store.put(self.server_key, self.requested_name, token)
        elif type == "watch":
            self.table = reply.get("table")
            self.seat = None
            password = fields.get("password")
            self._watch_password = password if isinstance(password, str) else None
        elif type == "leave":
            self._left_table()

    def _left_table(self) -> None:
        self.table = None
        self.seat = None
        self._watch_password = None
        self.last_state = None
        self.last_turn = None
        self._forget_token()

    def _forget_token(self) -> None:
        """Forget this session's seat token, and the stored one if it is still this
        session's: another client of the same name and config directory (another terminal,
        at another table) may have filed its own since, which a leave here deleted (a restart
        of that client then found no seat to take back)."""
        mine = self.token or self._hello_token
        self.token = None
        if self.token_store is not None and mine is not None:
            try:
                self.token_store.remove(self.server_key, self.requested_name, mine)
            except OSError as exc:
                log.warning("cannot update the token store: %s", exc)

    def _fail_pending(self, exc: ServerError) -> None:
        pending, self._pending = self._pending, {}
        for _, future in pending.values():
            if not future.done():
                future.set_exception(exc)

    def _set_status(self, status: Status) -> None:
        if status == self.status:
            return
        self.status = status
        self.events.put_nowait({"type": "connection", "status": status})
