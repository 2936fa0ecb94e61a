//! A complete sheepshead bot in Rust with nothing but the standard library, written from
//! PROTOCOL.md alone (its §12 steps), its msgpack codec included.
//!
//!     rustc --edition 2021 -O examples/raw_bot.rs -o raw_bot
//!     ./raw_bot 127.0.0.1:7453                # host a 3-hand table with four server bots
//!     ./raw_bot 127.0.0.1:7453 --join t1      # or take the first free seat of table t1
//!     ./raw_bot 127.0.0.1:7453 --hands 10
//!
//! It plays a random legal action at every prompt, reconnects with its seat token when the
//! connection drops (the server restarting included), leaves when the match is over and
//! exits 0. `examples/raw_bot.py` is a bot of the same kind in Python (without the reconnects).

use std::io::{self, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A msgpack value: the types PROTOCOL.md uses (bin is read, never needed).
#[derive(Clone, Debug)]
enum V {
    Nil,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Bin(Vec<u8>),
    Arr(Vec<V>),
    Map(Vec<(String, V)>),
}

impl V {
    fn get(&self, key: &str) -> Option<&V> {
        match self {
            V::Map(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn str(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(V::Str(s)) => Some(s),
            _ => None,
        }
    }
    fn int(&self, key: &str) -> Option<i64> {
        match self.get(key) {
            Some(V::Int(i)) => Some(*i),
            _ => None,
        }
    }
}

/// A request or reply map from its keys and values.
fn map(pairs: Vec<(&str, V)>) -> V {
    V::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn text(s: &str) -> V {
    V::Str(s.to_string())
}

/// Writes a length (`fix` form when it fits in `bits`, else a `u32` after the `long` tag).
fn put_len(out: &mut Vec<u8>, n: usize, fix: u8, bits: u32, long: u8) {
    if n < (1 << bits) {
        out.push(fix | n as u8);
    } else {
        out.push(long);
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
}

fn encode(v: &V, out: &mut Vec<u8>) {
    match v {
        V::Nil => out.push(0xc0),
        V::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        V::Int(i) if (-32..128).contains(i) => out.push(*i as u8), // a fixint
        V::Int(i) => {
            out.push(0xd3); // int64: the server reads any int form (§1)
            out.extend_from_slice(&i.to_be_bytes());
        }
        V::Float(f) => {
            out.push(0xcb);
            out.extend_from_slice(&f.to_be_bytes());
        }
        V::Str(s) => {
            put_len(out, s.len(), 0xa0, 5, 0xdb);
            out.extend_from_slice(s.as_bytes());
        }
        V::Bin(b) => {
            out.push(0xc6);
            out.extend_from_slice(&(b.len() as u32).to_be_bytes());
            out.extend_from_slice(b);
        }
        V::Arr(items) => {
            put_len(out, items.len(), 0x90, 4, 0xdd);
            for x in items {
                encode(x, out);
            }
        }
        V::Map(pairs) => {
            put_len(out, pairs.len(), 0x80, 4, 0xdf);
            for (k, x) in pairs {
                encode(&V::Str(k.clone()), out);
                encode(x, out);
            }
        }
    }
}

/// Reads one msgpack value from `b` at `*at`; `Err` for anything the server never sends.
fn decode(b: &[u8], at: &mut usize) -> Result<V, String> {
    let mut take = |n: usize| -> Result<&[u8], String> {
        let part = b.get(*at..*at + n).ok_or("truncated msgpack")?;
        *at += n;
        Ok(part)
    };
    let be = |bytes: &[u8]| bytes.iter().fold(0u64, |acc, x| acc << 8 | *x as u64);
    let tag = take(1)?[0];
    let (kind, n) = match tag {
        0x00..=0x7f => return Ok(V::Int(tag as i64)),
        0xe0..=0xff => return Ok(V::Int(tag as i8 as i64)),
        0xc0 => return Ok(V::Nil),
        0xc2 | 0xc3 => return Ok(V::Bool(tag == 0xc3)),
        0xca => return Ok(V::Float(f32::from_bits(be(take(4)?) as u32) as f64)),
        0xcb => return Ok(V::Float(f64::from_bits(be(take(8)?)))),
        0xcc..=0xcf => return Ok(V::Int(be(take(1 << (tag - 0xcc))?) as i64)),
        0xd0..=0xd3 => {
            let size = 1usize << (tag - 0xd0);
            let shift = 64 - 8 * size as u32; // sign-extend the big-endian bytes
            return Ok(V::Int(((be(take(size)?) << shift) as i64) >> shift));
        }
        0xa0..=0xbf => ('s', (tag & 0x1f) as usize),
        0x90..=0x9f => ('a', (tag & 0x0f) as usize),
        0x80..=0x8f => ('m', (tag & 0x0f) as usize),
        0xd9..=0xdb => ('s', be(take(1 << (tag - 0xd9))?) as usize),
        0xc4..=0xc6 => ('b', be(take(1 << (tag - 0xc4))?) as usize),
        0xdc | 0xdd => ('a', be(take(2 << (tag - 0xdc))?) as usize),
        0xde | 0xdf => ('m', be(take(2 << (tag - 0xde))?) as usize),
        _ => return Err(format!("msgpack type 0x{tag:02x} is never sent")),
    };
    Ok(match kind {
        's' => V::Str(String::from_utf8(take(n)?.to_vec()).map_err(|e| e.to_string())?),
        'b' => V::Bin(take(n)?.to_vec()),
        'a' => V::Arr((0..n).map(|_| decode(b, at)).collect::<Result<_, _>>()?),
        _ => {
            let mut pairs = Vec::new();
            for _ in 0..n {
                match decode(b, at)? {
                    V::Str(k) => pairs.push((k, decode(b, at)?)),
                    other => return Err(format!("map key {other:?} is not a string")),
                }
            }
            V::Map(pairs)
        }
    })
}

/// One connection: frames of a 4-byte big-endian length and one msgpack map (§1).
struct Conn {
    sock: TcpStream,
    next_id: i64,
}

impl Conn {
    fn open(addr: &str) -> io::Result<Conn> {
        let sock = TcpStream::connect(addr)?;
        sock.set_nodelay(true)?;
        // The server pings after 30 s of silence from us: two minutes without a frame means
        // it is gone, even if no close ever arrives.
        sock.set_read_timeout(Some(Duration::from_secs(120)))?;
        Ok(Conn { sock, next_id: 1 })
    }

    fn send(&mut self, msg: &V) -> io::Result<()> {
        let mut body = Vec::new();
        encode(msg, &mut body);
        let mut frame = (body.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(&body);
        self.sock.write_all(&frame)
    }

    /// Sends a request with the next id; returns the id.
    fn request(&mut self, kind: &str, mut fields: Vec<(&str, V)>) -> io::Result<i64> {
        let id = self.next_id;
        self.next_id += 1;
        fields.splice(0..0, [("type", text(kind)), ("id", V::Int(id))]);
        self.send(&map(fields))?;
        Ok(id)
    }

    /// The next frame (an error once the connection is gone).
    fn recv(&mut self) -> io::Result<V> {
        let mut head = [0u8; 4];
        self.sock.read_exact(&mut head)?;
        let mut body = vec![0u8; u32::from_be_bytes(head) as usize];
        self.sock.read_exact(&mut body)?;
        decode(&body, &mut 0).map_err(|e| io::Error::new(ErrorKind::InvalidData, e))
    }
}

/// The bot's state across connections.
struct Bot {
    rng: u64,
    token: Option<String>,
    done: bool,
}

impl Bot {
    /// A random index below `n` (xorshift; any generator will do).
    fn below(&mut self, n: usize) -> usize {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        (self.rng % n as u64) as usize
    }

    /// Handles one event or reply not awaited (§12 step 4).
    fn on_frame(&mut self, c: &mut Conn, m: &V) -> io::Result<()> {
        match m.str("type").unwrap_or("") {
            "your_turn" => {
                if let (Some(seq), Some(V::Arr(legal))) = (m.int("seq"), m.get("legal")) {
                    let choice = legal[self.below(legal.len())].clone();
                    c.request("action", vec![("seq", V::Int(seq)), ("action", choice)])?;
                }
            }
            "ping" => c.send(&map(vec![("type", text("pong"))]))?,
            "hand_over" => println!("hand {:?} over", m.int("hand")),
            "match_over" => self.done = true,
            "error" => match m.str("code").unwrap_or("") {
                // A prompt answered twice, or a moment that passed: nothing to do.
                "stale" | "not_your_turn" | "hand_over" | "match_over" => {}
                "bad_token" => {
                    eprintln!("the seat is gone (its table closed)");
                    (self.token, self.done) = (None, true);
                }
                code => eprintln!("error {code}: {}", m.str("message").unwrap_or("")),
            },
            _ => {} // state, notice, chat, commitment, seeds_revealed, ok: not needed here
        }
        Ok(())
    }
}

/// Sends a request and handles the frames that come before its reply; returns the reply.
fn call(c: &mut Conn, bot: &mut Bot, kind: &str, fields: Vec<(&str, V)>) -> io::Result<V> {
    let id = c.request(kind, fields)?;
    loop {
        let m = c.recv()?;
        if m.int("id") == Some(id) && m.str("type") != Some("your_turn") {
            return Ok(m);
        }
        bot.on_frame(c, &m)?;
    }
}

fn expect_ok(reply: V, what: &str) -> io::Result<V> {
    match reply.str("type") {
        Some("ok" | "welcome") => Ok(reply),
        _ => Err(io::Error::other(format!("{what} refused: {reply:?}"))),
    }
}

/// Connects and says hello, with the seat token when there is one (§3).
fn connect(addr: &str, bot: &mut Bot) -> io::Result<Conn> {
    let mut c = Conn::open(addr)?;
    let mut hello = vec![
        ("version", V::Int(1)),
        ("kind", text("bot")),
        ("name", text("Rusty")),
    ];
    hello.push(("client", text("raw_bot.rs/1")));
    if let Some(token) = &bot.token {
        hello.push(("token", text(token)));
    }
    expect_ok(call(&mut c, bot, "hello", hello)?, "hello")?;
    Ok(c)
}

/// Takes a seat (§12 step 3): joins `table`, or hosts a table of four server bots.
fn sit(c: &mut Conn, bot: &mut Bot, join: Option<&str>, hands: i64) -> io::Result<()> {
    let reply = match join {
        Some(table) => call(c, bot, "join", vec![("table", text(table))])?,
        None => call(c, bot, "create_table", vec![("hands", V::Int(hands))])?,
    };
    let reply = expect_ok(reply, "sitting down")?;
    bot.token = reply.str("token").map(String::from);
    println!("seat {:?} at {:?}", reply.int("seat"), reply.str("table"));
    if join.is_none() {
        for _ in 0..4 {
            expect_ok(
                call(c, bot, "add_bot", vec![("strategy", text("heuristic"))])?,
                "add_bot",
            )?;
        }
        expect_ok(call(c, bot, "start", vec![])?, "start")?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let addr = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "127.0.0.1:7453".into());
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let join = flag("--join").map(String::as_str);
    let hands = flag("--hands").and_then(|h| h.parse().ok()).unwrap_or(3);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let mut bot = Bot {
        rng: now.as_nanos() as u64 | 1,
        token: None,
        done: false,
    };

    let mut c = connect(&addr, &mut bot).and_then(|mut c| {
        sit(&mut c, &mut bot, join, hands)?;
        Ok(c)
    });
    let mut backoff = Duration::from_millis(250);
    while !bot.done {
        let result = match &mut c {
            Ok(conn) => conn.recv().and_then(|m| {
                backoff = Duration::from_millis(250);
                bot.on_frame(conn, &m)
            }),
            Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
        };
        if let Err(e) = result {
            // §12 step 5: back with the token, 0.25 s doubling up to 8 s between attempts.
            if bot.token.is_none() {
                eprintln!("no seat to go back to ({e})");
                std::process::exit(1);
            }
            println!("connection lost ({e}); again in {backoff:?}");
            std::thread::sleep(backoff);
            backoff = (backoff * 2).min(Duration::from_secs(8));
            c = connect(&addr, &mut bot);
        }
    }
    // The match is over: stand up, wait for the reply, close (§12 step 4).
    if let Ok(conn) = &mut c {
        let _ = call(conn, &mut bot, "leave", vec![]);
    }
    println!("match over");
}
