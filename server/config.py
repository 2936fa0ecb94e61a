"""The server's configuration: every limit, pace and size a server runs with, in one frozen
record that the CLI fills from its options and every layer below reads."""

from __future__ import annotations

import os
from dataclasses import dataclass

from protocol.framing import MAX_FRAME_DEFAULT


@dataclass(frozen=True)
class ServerConfig:
    """Everything a server can be told; every limit has a safe default."""

    host: str = "127.0.0.1"
    """Address to listen on (``0.0.0.0``: every IPv4 interface)."""
    port: int = 7453
    """TCP port (0: any free port; ``Server.port`` tells which)."""
    db_path: str | os.PathLike[str] | None = None
    """SQLite file; None keeps everything in memory (lost at exit)."""
    bot_delay: float = 0.0
    """Seconds a server bot waits before acting, so people can follow."""
    default_bot: str | None = None
    """Strategy for bots added without one and for stand-ins (None: heuristic, else random)."""
    hand_pause: float = 2.0
    """Seconds between the end of a hand and the next deal."""
    trick_pause: float = 1.5
    """Seconds after a trick's fifth card (not the hand's last) before the next leader is
    prompted or a bot leads, so people see the finished trick (0 in tournaments, benchmarks)."""
    over_table_ttl: float = 600.0
    """Seconds a table whose match is over stays open (listed, seats and tokens kept) for a
    rematch or players coming back; then it closes."""
    grace: float = 60.0
    """Default seconds a disconnected player's seat waits before a bot plays it."""
    max_frame: int = MAX_FRAME_DEFAULT
    """Largest frame accepted (bigger: frame_too_large, then the connection is closed) or sent.

    Each request type has a much smaller limit of its own (``protocol.requests.REQUEST_SIZES``):
    a frame over it is dropped undecoded, and its reply still carries the request's id."""
    handshake_timeout: float = 10.0
    """Seconds a new connection has to send hello."""
    ping_interval: float = 30.0
    """Seconds without any frame after which the server sends ping."""
    idle_timeout: float = 60.0
    """Seconds without any frame after which the connection is closed."""
    rate: float = 20.0
    """Messages per second a connection may send on average."""
    burst: float = 40.0
    """Messages a connection may send at once (the token bucket's size)."""
    chat_rate: float = 1.0
    """Chat lines per second a connection may send on average."""
    chat_burst: float = 5.0
    """Chat lines a connection may send at once."""
    history_rate: float = 2.0
    """``history`` requests per second a connection may send on average: each unpacks and
    packs up to a frame of hands (some 0.4 ms for twenty), and a client needs a few pages
    when it (re)connects."""
    history_burst: float = 10.0
    """``history`` requests a connection may send at once."""
    history_earlier_hands: int = 8
    """Hands a page of an earlier match's ``history`` (its ``match`` field) holds at most:
    each is read from the store and replayed to rebuild its result, some 0.16 ms a hand, ten
    times a hand of the current match's page, so a page of 8 costs about what a full page of
    the current match does (a runner fetching hands it missed pages on with ``next``)."""
    standings_rate: float = 1.0
    """``standings`` requests per second a connection may send on average: each reads a row per
    player (or the tallies of the matches ended since its ``since``) in the standings thread."""
    standings_burst: float = 5.0
    """``standings`` requests a connection may send at once."""
    match_end_rate: float = 1 / 30
    """Matches per second the hosts from one IP address may end early on average (``end_match``,
    or leaving a match so that its table closes); past it ``end_match``, ``start`` and
    ``rematch`` get ``rate_limited``. Each ended match stores its hands' tallies and results,
    and a table looping ``end_match`` and ``rematch`` ends thousands a minute (docs/security.md,
    "On disk")."""
    match_end_burst: float = 10.0
    """Matches the hosts from one IP address may end early at once."""
    byte_rate: float = 8192.0
    """Request bytes per second a connection may send on average.

    Decoding and checking a request costs time in proportion to its size, so a count of
    messages alone does not bound what a client can make the server do."""
    byte_burst: float = 16384.0
    """Request bytes a connection may send at once.

    Also the most decoding one read of a connection's socket can cost: four of the largest
    requests (4 KiB ``create_table`` frames of empty lists, about 2 ms each to decode)."""
    address_byte_rate: float = 32768.0
    """Request bytes per second all the connections from one IP address may send on average
    (beyond it requests are dropped, but no connection is closed: others may share the
    address). Without it, reconnecting would refill a client's byte allowance."""
    address_byte_burst: float = 32768.0
    """Request bytes all the connections from one IP address may send at once."""
    password_rate: float = 2.0
    """Table password checks per second one IP address may cause (each is an scrypt hash)."""
    password_burst: float = 10.0
    """Table password checks one IP address may cause at once."""
    new_identity_rate: float = 1 / 60
    """Player keys per second, on average, that the server starts remembering for one IP address
    (a new ``identities`` row each, kept for good, when the key first takes a seat): one a
    minute. Past it a new key still plays, but is not counted in the standings (``notice {code:
    "not_counted"}``); a key the server knows is never refused."""
    new_identity_burst: float = 100.0
    """New player keys one IP address may have remembered at once: a LAN party behind one NAT,
    every player new to the server."""
    max_connections: int = 1000
    """Connections open at once, in total."""
    max_per_address: int = 32
    """Connections open at once from one IP address: three tables of five and their watchers
    behind one NAT (a pub, a club room), with room for a dropped laptop's old connection, which
    stays open until ``idle_timeout``; one address still holds at most 32 of
    ``max_connections``."""
    connection_rate: float = 5.0
    """New connections per second one IP address may open on average (more are refused with
    too_many_connections): each costs an accept, a hello and a fresh message allowance."""
    connection_burst: float = 30.0
    """New connections one IP address may open at once (a LAN party behind one NAT)."""
    max_tables: int = 500
    """Tables open at once."""
    door_sessions: int = 100
    """Sessions open at once through the SSH and browser doors together (each one is a client
    process on the server's machine, tens of MB: README.md, "Hosting over SSH")."""
    door_sessions_per_address: int = 16
    """Door sessions open at once from one IP address (past it the player is told so, and that
    the host may raise it: ``serve --limit door_sessions_per_address=N``).

    A club evening comes from one address (a pub's or a club room's NAT): two tables of five
    and two watchers are 12 sessions, and a dropped laptop's or a reloaded tab's old session
    still holds its place until the door sees it gone (an SSH connection's keepalive: up to
    2 minutes; a tab's client: up to ``server.doors.web.STOP_WAIT``), so 16. A third table
    from one address needs the host's ``--limit``. The old 4 refused the fifth player: not
    one table could sit down. Each session is a client process of some 50 MB, so one address
    holds at most 800 MB and 16 of the ``door_sessions`` (100): seven addresses are needed
    to fill the doors, where 4 needed 25 (docs/security.md, "The SSH door")."""
    door_start_rate: float = 0.2
    """New door sessions one IP address may start per second on average (each starts a client
    process, some 0.4 s of CPU: a browser tab opened and closed in a loop kept both cores
    busy)."""
    door_start_burst: float = 20.0
    """New door sessions one IP address may start at once: a club evening's 16 sessions
    (``door_sessions_per_address``) arriving together, and four reloads or reconnects; then
    one every 5 s (``door_start_rate``). The burst adds a one-off 20 starts (some 8 s of
    CPU) to what an address churning sessions costs; per hour it is the rate that counts
    (720 starts)."""
    door_start_rate_total: float = 2.0
    """New door sessions the server starts per second on average, from everywhere."""
    door_start_burst_total: float = 30.0
    """New door sessions the server starts at once, from everywhere (a LAN party arriving)."""
    door_start_share: float = 2.0
    """New door sessions an address that has started fewer than this many lately (its own
    bucket fuller than ``door_start_burst`` minus this) may start even when the server-wide
    pool is empty: a few addresses starting sessions as fast as they may cannot lock everybody
    else out (``server.doors.kit.DoorGate``)."""
    web_request_rate: float = 20.0
    """HTTP requests one IP address may make of the browser door per second on average (more
    get 429): a page load is six."""
    web_request_burst: float = 120.0
    """HTTP requests one IP address may make of the browser door at once: a first page load is
    seven (the name form, the page, its three files, the icon, the websocket), so 16 players
    behind one address opening it in the same moment (``door_sessions_per_address``) need
    112; at 60 the ninth one's script got 429 and the page stayed blank."""
    web_message_max: int = 16384
    """Largest websocket message a browser tab may send, in bytes (a key, a paste, a resize,
    a ping: all far smaller). A bigger one closes the tab with code 1009 before the server
    reads it: a 3.7 MB ``ping`` was parsed and echoed on the game's event loop."""
    web_message_rate: float = 60.0
    """Websocket messages per second a browser tab may send on average (keys, mouse moves,
    resizes). Past it messages are dropped; a tab whose debt reaches ``web_message_burst``
    is closed (code 1008), as the game port closes a flooding connection."""
    web_message_burst: float = 240.0
    """Websocket messages a browser tab may send at once."""
    web_byte_rate: float = 16384.0
    """Websocket message bytes per second a browser tab may send on average (dropped and
    then closed like ``web_message_rate``)."""
    web_byte_burst: float = 65536.0
    """Websocket message bytes a browser tab may send at once."""
    web_cookie_days: int = 400
    """Days the browser door's player cookie lasts (browsers keep one at most 400 days); each
    page load renews it."""
    door_login_grace: float = 30.0
    """Seconds an SSH connection has to log in."""
    door_login_requests: int = 30
    """Login requests one SSH connection may send (``none``, each key offered and the one that
    signs, keyboard-interactive, a password); the next closes it. Each refused one costs the
    door some 0.1 ms, and nothing else bounded them during the login grace: a client sent
    100,000 in 13 s from four connections at once, most of a core. OpenSSH's own server allows
    6 failures (``MaxAuthTries``); 30 leaves room for an agent holding some 25 keys."""
    door_child_nice: int = 10
    """Added to the nice value of every door session's client process, so that the server's
    event loop goes first when the cores are busy."""
    door_child_data_bytes: int = 512 << 20
    """Cap on the data segment (``RLIMIT_DATA``) of every door session's client process (a
    normal one uses well under 100 MB; 0: no cap). Past it the client fails and its session
    ends, rather than taking the machine's memory."""
    door_max_columns: int = 500
    """Widest terminal an SSH session gets: a wider pty request or window change is clamped
    (a 65535-column pty made its client grow without bound)."""
    door_max_rows: int = 200
    """Tallest terminal an SSH session gets (taller is clamped)."""
    ssh_request_rate: float = 20.0
    """Window changes per second an SSH connection may send on average (every other request
    counts too: env, signal, break, keepalive, debug, global requests); past it a
    window change is held back, and the latest size applied when the allowance is back."""
    ssh_request_burst: float = 100.0
    """Window changes (requests) an SSH connection may send at once: a window dragged for a
    few seconds. A connection that goes on past it by as many again is closed, with a
    message: each request costs the server some 0.1 ms to receive and pass on (a flood:
    docs/security.md, "The SSH door")."""
    ssh_rekey_rate: float = 0.1
    """Key exchanges per second an SSH connection may ask for on average (clients re-key
    after a gigabyte or an hour; each costs the server a millisecond or two of CPU)."""
    ssh_rekey_burst: float = 5.0
    """Key exchanges an SSH connection may ask for at once (the first one included); one
    more closes the connection."""
    max_waiting_per_address: int = 3
    """Tables not yet started that the connections from one IP address may have created and
    still have open (more: too_many_tables)."""
    max_running_per_address: int = 8
    """Tables whose match is being played that the connections from one IP address may have
    created (more: ``create_table``, ``start`` and ``rematch`` get too_many_tables). Without it a
    loop of create, add bots, start, remove the bots, disconnect filled the server's
    ``max_tables`` from two addresses in under a minute. A table whose match is over plays no
    hand: it counts against ``max_open_per_address`` only (before, a club that had finished 8
    matches could start no table until they closed, ``over_table_ttl``)."""
    max_open_per_address: int = 16
    """Tables the connections from one IP address may have created and still have open, whatever
    their state (more: ``create_table`` gets too_many_tables): room for ``max_running_per_address``
    matches being played and as many just over (kept ``over_table_ttl`` for a rematch), while
    one address finishing short matches as fast as it can still holds no more than 16 of
    ``max_tables``."""
    max_spectators_per_table: int = 50
    """Connections that may watch one table at once (more: ``watch`` gets
    ``too_many_spectators`` and changes nothing; seats never count, and a spectator who leaves
    or drops frees its place at once). Every state and chat line of a table is sent to each of
    its spectators, so one chat line costs five seats plus this many sends, and a table watched
    by every connection of the server (``max_connections``) fanned each line out to all of
    them. A club's busiest table has the players of the other tables and a few friends
    watching, a dozen or two; 50 is well past that, and keeps one line at 55 sends at most
    (some 1 ms of server CPU: docs/security.md, "Tables, seats and matches")."""
    waiting_expiry: float = 45.0
    """Seconds a table that never started stays open once nobody is connected to it (checked
    every ``waiting_expiry / 4`` seconds, at most every 10)."""
    max_send_buffer: int = 1 << 20
    """Bytes queued for a client that does not read before it is cut off."""
    max_send_buffers_total: int = 64 << 20
    """Bytes queued for all clients together: past it, the connections with the most queued
    are cut off until the rest fits (checked a few times a second). Without it, 1,000
    connections that never read could hold 1 GiB of the server's memory."""
    seed_wait: float = 3.0
    """Seconds a deal with a new commitment waits for the people's client seeds (PROTOCOL.md
    §13); a seed still missing then is drawn by the server."""
    bot_timeout: float = 10.0
    """Seconds a strategy may think before the first legal action is played instead (the
    budget of each decision, enforced in the bot workers: an overrunning one is killed)."""
    bot_think_time: float = 0.5
    """Seconds a thinking bot (``search``) spends on one decision at most: past it, it stops
    sampling and decides with what it has (the workers' ``bot_timeout`` stays the hard limit)."""
    bot_workers: int | None = None
    """Processes that run server bots' strategies (``server.bots.pool``; None: the core count
    minus one, at least one), so that no strategy runs in the server process. 0 runs them in
    a thread of the server process instead (tests that register strategies at run time)."""
    bot_modules: tuple[str, ...] = ()
    """Modules the server and its bot workers import at start, so that their ``register``
    calls add strategies that tables may choose."""
    max_coach_requests: int = 64
    """Hints and reviews being worked out at once over the whole server (one per seat at
    most; more: ``busy``). Each waits in the bot workers' coach queue, which is served only
    when no bot decision waits, and holds a few views (a few KiB each) until it is answered."""
    max_bots_per_address: int = 12
    """Server bots the hosts from one IP address may have seated at once at the tables that
    play or wait to play (three tables of four bots; more: ``too_many_bots``). Each bot costs
    CPU for as long as its table plays; those at a table whose match is over (kept
    ``over_table_ttl`` for a rematch) cost none and do not count until a ``rematch`` brings them
    back, which is refused with ``too_many_bots`` past the limit. The address is stored with
    each bot, so restored tables count too."""
    abandon_after: float = 3600.0
    """Seconds a table with nobody connected is kept before it is closed (a table whose match
    is being played closes sooner: after its grace period, checked with ``waiting_expiry``'s
    sweep; a table whose match is over after ``over_table_ttl``)."""
    db_synchronous: str = "NORMAL"
    """SQLite synchronous mode: NORMAL survives a killed process, FULL also a power cut
    (``serve --sync``; README.md, "What a crash can take")."""
    gc_thresholds: tuple[int, int, int] | None = (2000, 3, 4000)
    """``gc.set_threshold`` for the process, set at start (None: leave the interpreter's). The
    objects alive at start are frozen (``gc.freeze``) so that no collection walks them; why
    these figures: docs/performance.md, "The garbage collector"."""
    gc_young_every: float | None = 0.5
    """Seconds between the collections the server runs itself (None: only the thresholds'
    own), each of the young and the middle generation; only with ``gc_thresholds``
    (docs/performance.md, "The garbage collector")."""


def host_can_raise(limit: str) -> str:
    """What a refusal adds to say the host may raise ``limit`` (a ``ServerConfig`` field), and
    how: ``sheepshead serve --limit``. Every refusal fits a websocket close reason (123
    bytes), which is how a browser tab hears it.

    >>> host_can_raise("door_sessions")
    'The host can allow more: serve --limit door_sessions=N'
    """
    return f"The host can allow more: serve --limit {limit}=N"
