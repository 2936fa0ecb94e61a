#!/usr/bin/env node
// A sheepshead bot in Node.js with no packages at all, written from PROTOCOL.md alone.
//
// It connects to a server, says hello as a bot, creates a table, seats four server bots and
// starts (or joins the table given with --table), answers every `your_turn` it gets with one of
// the prompt's `legal` actions, takes its seat back with its token when the connection drops
// (a server killed and restarted included), and prints one line when the match is over:
//
//   node examples/raw_bot.mjs --port 7453 [--host 127.0.0.1] [--table t3] [--hands 3]
//        [--name Node] [--strategy random] [--preset tavern] [--open 1] [--timeout 300]
//        [--verbose]
//
// --open N leaves N seats for other players (another raw_bot.mjs --table ID): the host starts
// once every seat is taken, as it reads from the table summary of each `state`.  --grace S is
// the table's grace period (create_table); --drop-after N [--away S] closes the connection once,
// after the Nth decision, and dials again S seconds later (a dropped connection, for tests).
//
// Exit status: 0 when the match ended and the bot left its seat; 1 otherwise (connection
// refused for good, seat lost, timeout).  The msgpack codec is the subset §1 "Encodings" lists.

import net from "node:net";
import process from "node:process";

// ---------------------------------------------------------------------------------------------
// msgpack, by hand (PROTOCOL.md §1).

/** Encode one JavaScript value as msgpack: null, booleans, numbers, strings, arrays, maps. */
function encode(value) {
  const parts = [];
  const push = (bytes) => parts.push(Buffer.from(bytes));
  const write = (v) => {
    if (v === null || v === undefined) {
      push([0xc0]);
    } else if (v === false || v === true) {
      push([v ? 0xc3 : 0xc2]);
    } else if (typeof v === "number" && Number.isInteger(v)) {
      // Ids and seqs are ints: never write a whole Number as a float (§2: a float id is refused).
      writeInt(BigInt(v));
    } else if (typeof v === "bigint") {
      writeInt(v);
    } else if (typeof v === "number") {
      const b = Buffer.alloc(9);
      b[0] = 0xcb;
      b.writeDoubleBE(v, 1);
      parts.push(b);
    } else if (typeof v === "string") {
      const utf8 = Buffer.from(v, "utf8");
      const n = utf8.length;
      if (n < 32) push([0xa0 | n]);
      else if (n < 0x100) push([0xd9, n]);
      else if (n < 0x10000) push([0xda, n >> 8, n & 0xff]);
      else {
        const h = Buffer.alloc(5);
        h[0] = 0xdb;
        h.writeUInt32BE(n, 1);
        parts.push(h);
      }
      parts.push(utf8);
    } else if (Array.isArray(v)) {
      writeHeader(v.length, 0x90, 0xdc, 0xdd);
      for (const item of v) write(item);
    } else if (typeof v === "object") {
      // Keys whose value is undefined are left out: "optional fields may be omitted" (§4).
      const entries = Object.entries(v).filter(([, x]) => x !== undefined);
      writeHeader(entries.length, 0x80, 0xde, 0xdf);
      for (const [k, x] of entries) {
        write(String(k));
        write(x);
      }
    } else {
      throw new TypeError(`cannot encode ${typeof v}`);
    }
  };
  const writeHeader = (n, fix, sixteen, thirtyTwo) => {
    if (n < 16) push([fix | n]);
    else if (n < 0x10000) push([sixteen, n >> 8, n & 0xff]);
    else {
      const h = Buffer.alloc(5);
      h[0] = thirtyTwo;
      h.writeUInt32BE(n, 1);
      parts.push(h);
    }
  };
  const writeInt = (n) => {
    if (n >= 0n && n < 128n) push([Number(n)]);
    else if (n < 0n && n >= -32n) push([Number(n) & 0xff]);
    else {
      // Always int64: the server reads any int form (§1), so the short forms are optional.
      const b = Buffer.alloc(9);
      b[0] = 0xd3;
      b.writeBigInt64BE(n, 1);
      parts.push(b);
    }
  };
  write(value);
  return Buffer.concat(parts);
}

/** Decode one msgpack value from `buf` (a whole frame body); throws on anything malformed. */
function decode(buf) {
  let pos = 0;
  const need = (n) => {
    if (pos + n > buf.length) throw new Error("truncated msgpack");
  };
  const u8 = () => (need(1), buf[pos++]);
  const take = (n) => {
    need(n);
    const out = buf.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  const big = (b) => (Number.isSafeInteger(Number(b)) ? Number(b) : b);
  const str = (n) => take(n).toString("utf8");
  const array = (n) => Array.from({ length: n }, () => read());
  const map = (n) => {
    const out = {};
    for (let i = 0; i < n; i++) {
      const k = read();
      out[k] = read();
    }
    return out;
  };
  const read = () => {
    const t = u8();
    if (t <= 0x7f) return t;
    if (t >= 0xe0) return t - 0x100;
    if ((t & 0xe0) === 0xa0) return str(t & 0x1f);
    if ((t & 0xf0) === 0x90) return array(t & 0x0f);
    if ((t & 0xf0) === 0x80) return map(t & 0x0f);
    const v = (n) => take(n);
    switch (t) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return Buffer.from(take(u8()));
      case 0xc5: return Buffer.from(take(v(2).readUInt16BE(0)));
      case 0xc6: return Buffer.from(take(v(4).readUInt32BE(0)));
      case 0xca: return v(4).readFloatBE(0);
      case 0xcb: return v(8).readDoubleBE(0);
      case 0xcc: return u8();
      case 0xcd: return v(2).readUInt16BE(0);
      case 0xce: return v(4).readUInt32BE(0);
      case 0xcf: return big(v(8).readBigUInt64BE(0));
      case 0xd0: return v(1).readInt8(0);
      case 0xd1: return v(2).readInt16BE(0);
      case 0xd2: return v(4).readInt32BE(0);
      case 0xd3: return big(v(8).readBigInt64BE(0));
      case 0xd9: return str(u8());
      case 0xda: return str(v(2).readUInt16BE(0));
      case 0xdb: return str(v(4).readUInt32BE(0));
      case 0xdc: return array(v(2).readUInt16BE(0));
      case 0xdd: return array(v(4).readUInt32BE(0));
      case 0xde: return map(v(2).readUInt16BE(0));
      case 0xdf: return map(v(4).readUInt32BE(0));
      default: throw new Error(`msgpack type 0x${t.toString(16)} not supported`);
    }
  };
  const value = read();
  if (pos !== buf.length) throw new Error("trailing bytes after the msgpack value");
  return value;
}

/** One frame: 4-byte big-endian length, then the msgpack map (§1). */
function frame(message) {
  const body = encode(message);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length, 0);
  return Buffer.concat([head, body]);
}

// ---------------------------------------------------------------------------------------------
// Command line.

function parseArgs(argv) {
  const opts = {
    host: "127.0.0.1", port: 7453, table: null, hands: 3, name: "Node", strategy: "random",
    timeout: 300, verbose: false, password: null, open: 0, grace: null, dropAfter: 0,
    away: 0, preset: "wisconsin",
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--host") opts.host = next();
    else if (a === "--port") opts.port = Number(next());
    else if (a === "--table") opts.table = next();
    else if (a === "--password") opts.password = next();
    else if (a === "--hands") opts.hands = Number(next());
    else if (a === "--name") opts.name = next();
    else if (a === "--strategy") opts.strategy = next();
    else if (a === "--open") opts.open = Number(next());
    else if (a === "--grace") opts.grace = Number(next());
    else if (a === "--preset") opts.preset = next();
    else if (a === "--drop-after") opts.dropAfter = Number(next());
    else if (a === "--away") opts.away = Number(next());
    else if (a === "--timeout") opts.timeout = Number(next());
    else if (a === "--verbose" || a === "-v") opts.verbose = true;
    else if (a === "--help" || a === "-h") usage(null);
    else usage(`unknown argument ${a}`);
  }
  if (!Number.isInteger(opts.port) || opts.port <= 0) usage("--port must be a port number");
  if (!Number.isInteger(opts.open) || opts.open < 0 || opts.open > 4) usage("--open is 0 to 4");
  return opts;
}

function usage(problem) {
  if (problem) process.stderr.write(`raw_bot.mjs: ${problem}\n`);
  process.stderr.write(
    "usage: node raw_bot.mjs --port PORT [--host H] [--table ID [--password P]] [--hands N]\n" +
      "       [--name NAME] [--strategy random|heuristic|search] [--open SEATS] [--timeout S]\n" +
      "       [--preset seed|wisconsin|tavern] [--grace S] [--drop-after DECISIONS [--away S]]\n" +
      "       [--verbose]\n",
  );
  process.exit(problem ? 2 : 0);
}

// ---------------------------------------------------------------------------------------------
// A slightly better than first-legal choice (card points from docs/rules.md: A 11, T 10, K 4,
// Q 3, J 2; trump is every queen, jack and diamond).

const POINTS = { A: 11, T: 10, K: 4, Q: 3, J: 2, 9: 0, 8: 0, 7: 0 };
const isTrump = (card) => card[0] === "Q" || card[0] === "J" || card[1] === "D";
const points = (card) => POINTS[card[0]];

/** Choose one of `legal` (a your_turn's list) given the latest seat view (may be null). */
function choose(decision, legal, view) {
  const hand = view?.hand ?? [];
  if (decision === "pick") {
    // Pick with four trumps or more (or when pass is not offered: the forced pick).
    const strong = hand.filter(isTrump).length >= 4;
    const want = strong ? "pick" : "pass";
    return legal.find((a) => a.action === want) ?? legal[0];
  }
  if (decision === "bury") {
    // Bury the fail cards worth the most (their points count for the picker); never a blitz.
    const buries = legal.filter((a) => a.action === "bury");
    const score = (a) => a.cards.reduce((s, c) => s + (isTrump(c) ? -100 : points(c)), 0);
    return buries.sort((x, y) => score(y) - score(x))[0] ?? legal[0];
  }
  if (decision === "call") return legal.find((a) => a.action === "call") ?? legal[0];
  if (decision === "crack") return legal.find((a) => a.action === "no_crack") ?? legal[0];
  if (decision === "recrack") return legal.find((a) => a.action === "no_recrack") ?? legal[0];
  if (decision === "play" && legal.length > 1) {
    // Following: throw the cheapest legal card; leading: the first one offered.
    const following = (view?.trick?.cards ?? []).length > 0;
    if (following) return [...legal].sort((x, y) => points(x.card) - points(y.card))[0];
  }
  return legal[0];
}

// ---------------------------------------------------------------------------------------------
// The bot.

class Bot {
  constructor(opts) {
    this.opts = opts;
    this.nextId = 1; // ids need only be ints; one counter for the whole run is simplest
    this.pending = new Map(); // id -> {type, resolve}
    this.token = null; // the seat token: hello {token} takes the seat back (§10)
    this.table = null;
    this.seat = null;
    this.info = null; // the last table summary received (§6: absent means unchanged)
    this.view = null; // the last seat view
    this.prompt = null; // the your_turn being answered: {seq, legal, tried}
    this.totals = null;
    this.handsSeen = 0;
    this.decisions = 0;
    this.reconnects = 0;
    this.done = false; // the match is over and we are leaving: no reconnect
    this.gaveUp = null; // why we stop with exit status 1
    this.sock = null;
    this.buffer = Buffer.alloc(0);
  }

  log(text) {
    if (this.opts.verbose) process.stderr.write(`[raw_bot] ${text}\n`);
  }

  /** Send a request and return a promise of its reply (ok / welcome / error with its id). */
  request(type, fields = {}) {
    const id = this.nextId++;
    const msg = { type, id, ...fields };
    return new Promise((resolve, reject) => {
      if (!this.sock || this.sock.destroyed) return reject(new Error("not connected"));
      this.pending.set(id, { type, resolve, reject });
      this.send(msg);
    });
  }

  send(msg) {
    if (!this.sock || this.sock.destroyed) return;
    this.log(`> ${JSON.stringify(msg)}`);
    this.sock.write(frame(msg));
  }

  /** Run until the match is over (or we give up). */
  async run() {
    const deadline = setTimeout(() => this.stop(`no match end within ${this.opts.timeout} s`),
      this.opts.timeout * 1000);
    let backoff = 0.25;
    while (!this.done && !this.gaveUp) {
      let connected = false;
      try {
        await this.connect();
        connected = true;
        backoff = 0.25;
        await this.session();
      } catch (err) {
        this.log(`connection: ${err.message}`);
        // Nothing to take back yet (no token): a server that is not there is an error, not a
        // drop to ride out.
        if (!connected && !this.token) this.stop(`cannot connect: ${err.message}`);
      }
      this.close();
      if (this.done || this.gaveUp) break;
      if (connected) this.reconnects++;
      if (this.awayFor) await sleep(this.awayFor * 1000);
      this.awayFor = 0;
      // §10: reconnect with exponential backoff, 0.25 s doubling up to 8 s.
      await sleep(backoff * 1000);
      backoff = Math.min(backoff * 2, 8);
    }
    clearTimeout(deadline);
    return !this.gaveUp;
  }

  stop(reason) {
    this.gaveUp = reason;
    this.close();
  }

  close() {
    if (this.sock) this.sock.destroy();
    this.sock = null;
    for (const { reject } of this.pending.values()) reject(new Error("connection closed"));
    this.pending.clear();
    if (this.closedWaiter) this.closedWaiter();
  }

  connect() {
    return new Promise((resolve, reject) => {
      const sock = net.createConnection({ host: this.opts.host, port: this.opts.port });
      sock.setNoDelay(true);
      sock.once("connect", () => {
        this.sock = sock;
        this.buffer = Buffer.alloc(0);
        sock.on("data", (chunk) => this.onData(chunk));
        sock.on("close", () => {
          if (this.sock === sock) this.close();
        });
        resolve();
      });
      sock.once("error", (err) => {
        sock.destroy();
        reject(err);
      });
    });
  }

  /** Read whole frames out of the byte stream (buffer until a frame is complete, §12.1). */
  onData(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 4) {
      const n = this.buffer.readUInt32BE(0);
      if (n > 65536) return this.stop(`server sent a frame of ${n} bytes`);
      if (this.buffer.length < 4 + n) break;
      const body = this.buffer.subarray(4, 4 + n);
      this.buffer = this.buffer.subarray(4 + n);
      let msg;
      try {
        msg = decode(body);
      } catch (err) {
        return this.stop(`undecodable frame: ${err.message}`);
      }
      this.onMessage(msg);
    }
  }

  /** One connection: hello, then set the table up if we are seated nowhere, then play. */
  async session() {
    const closed = new Promise((resolve) => (this.closedWaiter = resolve));
    const hello = { version: 1, client: "raw_bot.mjs/1", kind: "bot", name: this.opts.name };
    if (this.token) hello.token = this.token;
    this.badToken = false;
    const welcome = await this.request("hello", hello);
    if (welcome.type !== "welcome") {
      // version_unsupported closes the connection; bad_request (a bad name) would not help
      // either if sent again unchanged.
      return this.stop(`hello refused: ${welcome.code}: ${welcome.message}`);
    }
    this.log(`welcome as ${welcome.name}, table ${welcome.table}, seat ${welcome.seat}`);
    if (welcome.table !== null) {
      this.table = welcome.table;
      this.seat = welcome.seat;
      // The snapshot and, when it is our turn, a your_turn follow on their own (§3).
    } else if (this.token) {
      // A welcome with table nil after a token: bad_token follows (§3). The seat is gone.
      return this.stop("the seat token was refused (bad_token): the table is gone");
    } else {
      await this.setUp();
    }
    await closed;
  }

  async setUp() {
    const o = this.opts;
    if (o.table) {
      const ok = await this.request("join", { table: o.table, seat: null, password: o.password });
      if (ok.type === "error") return this.stop(`join ${o.table}: ${ok.code}: ${ok.message}`);
      this.keepSeat(ok);
      return; // the host starts the match; we wait for the deal's state
    }
    const ok = await this.request("create_table", {
      name: `${o.name}'s table`, preset: o.preset, hands: o.hands, grace: o.grace ?? undefined,
    });
    if (ok.type === "error") return this.stop(`create_table: ${ok.code}: ${ok.message}`);
    this.keepSeat(ok);
    if (o.open) process.stderr.write(`raw_bot: table ${ok.table} waits for ${o.open} player(s)\n`);
    for (let i = 0; i < 4 - o.open; i++) {
      const bot = await this.request("add_bot", { seat: null, strategy: o.strategy });
      if (bot.type === "error") return this.stop(`add_bot: ${bot.code}: ${bot.message}`);
    }
    this.startWhenFull = true;
    this.maybeStart();
  }

  /** The host starts once the summary (§6.1) shows every seat taken and the table waiting. */
  async maybeStart() {
    const seats = this.info?.seats ?? [];
    if (!this.startWhenFull || this.info?.state !== "waiting") return;
    if (seats.length !== 5 || seats.some((s) => s.kind === "empty")) return;
    this.startWhenFull = false;
    const started = await this.request("start");
    // not_enough_players: a seat emptied as we asked; wait for the next full summary.
    if (started.type === "error" && started.code === "not_enough_players") this.startWhenFull = true;
    else if (started.type === "error") this.stop(`start: ${started.code}: ${started.message}`);
  }

  keepSeat(ok) {
    this.table = ok.table;
    this.seat = ok.seat;
    this.token = ok.token;
    this.log(`seated at ${ok.table} seat ${ok.seat}`);
  }

  onMessage(msg) {
    this.log(`< ${JSON.stringify(msg)}`);
    // Replies: ok / welcome / error carrying one of our ids (§2).
    if ((msg.type === "ok" || msg.type === "welcome" || msg.type === "error") && msg.id !== null
        && msg.id !== undefined && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      // Set here, not where the reply is awaited: the snapshot may be in the same read and be
      // handled before an awaiting function resumes.
      if (msg.type === "welcome" && msg.table !== null) this.snapshotDue = true;
      if (p.type === "action" && msg.type === "error") this.onActionRefused(msg);
      p.resolve(msg);
      return;
    }
    switch (msg.type) {
      case "state":
        if ("info" in msg) this.info = msg.info; // absent: unchanged (§6)
        if (this.snapshotDue) {
          // Back at a table whose match ended while we were away: no match_over comes again,
          // the snapshot's summary says it (state "over") with the final totals.
          this.snapshotDue = false;
          if (this.info?.state === "over") {
            this.finish({ table: msg.table, totals: msg.totals, hands: this.info.hands_played });
          }
        }
        this.maybeStart().catch(() => {});
        this.view = msg.view;
        this.totals = msg.totals;
        if (msg.seat !== null && msg.seat !== undefined) this.seat = msg.seat;
        // A prompt we answered is settled once a newer state arrives (a new your_turn follows
        // if the decision is still ours).
        break;
      case "your_turn":
        this.answer(msg);
        break;
      case "hand_over":
        this.handsSeen++;
        this.totals = msg.totals;
        this.log(`hand ${msg.hand} over: ${msg.result.outcome_text}; totals ${msg.totals}`);
        break;
      case "match_over":
        this.totals = msg.totals;
        this.finish(msg);
        break;
      case "ping":
        this.send({ type: "pong" });
        break;
      case "notice":
        this.log(`notice ${msg.code}: ${msg.text}`);
        if (msg.code === "table_closed" && !this.done) this.stop("the table closed");
        // replaced is followed by error replaced (below).
        break;
      case "error":
        // An error with id nil is about the connection (§2).
        this.log(`error ${msg.code}: ${msg.message}`);
        if (msg.code === "bad_token") this.badToken = true;
        else if (msg.code === "replaced") this.stop("another connection took the seat");
        // server_shutdown, idle_timeout, rate_limited: the close follows; we reconnect.
        break;
      case "chat":
      case "commitment": // a bot may ignore it (§13)
      case "seeds_revealed":
      case "welcome":
      case "ok":
        break;
      default:
        this.log(`ignoring unknown message type ${msg.type}`);
    }
  }

  answer(prompt) {
    const action = choose(prompt.decision, prompt.legal, this.view);
    this.prompt = { seq: prompt.seq, legal: prompt.legal, tried: [action] };
    this.decisions++;
    this.request("action", { seq: prompt.seq, action }).catch(() => {});
    if (this.decisions === this.opts.dropAfter) {
      this.log("dropping the connection on purpose");
      this.awayFor = this.opts.away;
      this.sock.destroy();
    }
  }

  /** §12.4: stale / not_your_turn / hand_over / match_over mean the moment passed. */
  onActionRefused(err) {
    const passed = ["stale", "not_your_turn", "hand_over", "match_over", "not_started"];
    if (passed.includes(err.code)) return;
    if (err.code === "rate_limited") return; // cannot happen for a prompt's first answer (§9)
    // The answer was not legal after all: the prompt is still open, try another of its legal.
    const p = this.prompt;
    const left = p ? p.legal.filter((a) => !p.tried.includes(a)) : [];
    process.stderr.write(`raw_bot: action refused: ${err.code}: ${err.message}\n`);
    if (left.length) {
      p.tried.push(left[0]);
      this.request("action", { seq: p.seq, action: left[0] }).catch(() => {});
    }
  }

  async finish(msg) {
    if (this.done) return;
    this.done = true;
    const mine = msg.totals[this.seat];
    const place = 1 + msg.totals.filter((t) => t > mine).length;
    this.result = `match over at ${msg.table}: ${msg.hands} hands, seat ${this.seat}, ` +
      `score ${mine >= 0 ? "+" : ""}${mine}, place ${place} of 5, totals ${JSON.stringify(msg.totals)}, ` +
      `${this.decisions} decisions, ${this.reconnects} reconnects`;
    // §12.4: leave, read until its ok (seeds_revealed may come first), close.
    try {
      await this.request("leave");
    } catch {
      // the connection went down: nothing left to do
    }
    this.close();
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const bot = new Bot(parseArgs(process.argv.slice(2)));
const ok = await bot.run();
if (ok && bot.result) {
  process.stdout.write(`${bot.result}\n`);
  process.exit(0);
}
process.stdout.write(`raw_bot: gave up: ${bot.gaveUp ?? "unknown"}\n`);
process.exit(1);
