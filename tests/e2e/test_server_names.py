"""Names over real sockets: nothing invisible, nobody passing for a bot or for someone seated."""

from __future__ import annotations

import pytest

from protocol.text import name_key
from tests.server.support import Raw, raw_bot_table, raw_play, running_server


@pytest.mark.parametrize(
    "name",
    [
        "Ole",
        "lena",
        "ＳＶＥＮ",
        "In\u200bga",
        "G\u0301us",
        "\u041ele",  # Cyrillic О: Unicode's confusables (UTS #39), not a hand-made list
        "0le",  # digit zero for O
        "\u0406nga",  # Ukrainian І for I
        "L\u0435na",  # Cyrillic е
    ],
)
async def test_a_person_with_a_bots_name_is_numbered(name: str) -> None:
    # Nobody passes for a server bot, and nobody is locked out for their name either: a
    # person called Gus was refused (bad_request), and an SSH key whose user was gus had its
    # session closed; now they are "Gus 2", as a name taken at a table is numbered.
    async with running_server() as server:
        raw = await Raw.open(server.port)
        reply = await raw.request("hello", version=1, kind="human", name=name)
        assert reply["type"] == "welcome", reply
        numbered = reply["name"]  # cleaned as any name: "In\u200bga" is "Inga 2"
        assert numbered.endswith(" 2") and name_key(numbered[:-2]) == name_key(name), numbered
        table = (await raw.request("create_table", name="mine"))["table"]
        listed = (await raw.request("list_tables"))["tables"]
        seats = next(t["seats"] for t in listed if t["id"] == table)
        assert seats[0]["name"] == numbered and seats[0]["kind"] == "human"
        bot = await Raw.open(server.port)  # a client bot says what it is, and may
        reply = await bot.request("hello", version=1, kind="bot", name=name)
        assert reply["type"] == "welcome"
        await raw.close()
        await bot.close()


async def test_invisible_characters_and_piled_up_marks_are_removed() -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        invisible = "\u200bA\u2060n\ufeffn\u00ad\U000e0041\u206a\ufff9\u3164\u180e"
        assert (await raw.hello(invisible))["name"] == "Ann"
        zalgo = await Raw.open(server.port)
        assert (await zalgo.hello("Z" + "\u0301" * 12 + "oe"))["name"] == "Z\u0301\u0301oe"
        empty = await Raw.open(server.port)
        reply = await empty.request("hello", version=1, name="\u200b\u3164\u2060")
        assert reply["code"] == "bad_request"
        for client in (raw, zalgo, empty):
            await client.close()


async def test_a_name_taken_at_the_table_is_numbered() -> None:
    async with running_server() as server:
        host = await Raw.open(server.port)
        await host.hello("Ann")
        table = (await host.request("create_table", name="names"))["table"]
        await host.request("add_bot", strategy="random")  # seat 1: Lena
        twin = await Raw.open(server.port)
        await twin.hello("ＡＮＮ\u200b")  # cleaned to "ＡＮＮ", the same name up to width and case
        reply = await twin.request("join", table=table)
        assert reply["name"] == "ＡＮＮ 2"
        fan = await Raw.open(server.port)
        await fan.hello("a\u0301nn")
        # "ánn 2" would look like "ＡＮＮ 2": the next number.
        assert (await fan.request("watch", table=table))["name"] == "a\u0301nn 3"
        other = await Raw.open(server.port)
        await other.hello("Bob")
        assert (await other.request("join", table=table))["name"] == "Bob"
        summary = next(
            t for t in (await other.request("list_tables"))["tables"] if t["id"] == table
        )
        names = [(s["name"], s["kind"]) for s in summary["seats"]]
        assert names[:4] == [
            ("Ann", "human"),
            ("Lena", "bot"),
            ("ＡＮＮ 2", "human"),
            ("Bob", "human"),
        ]
        await twin.request("leave")
        await twin.request("watch", table=table)
        chat = await twin.request("chat", text="hi")
        assert chat["type"] == "ok"
        said = await host.expect("chat")
        assert said["from"] == "ＡＮＮ 2" and said["seat"] is None
        for client in (host, twin, fan, other):
            await client.close()


async def test_a_seat_taken_back_under_another_name_keeps_its_name_and_says_so() -> None:
    """Ann's seat, taken back by her player key as "Annie" (another machine, another SSH user
    name), kept "Ann" without a word: the table showed a name that was not the one she gave.
    Names are fixed for the match (PROTOCOL.md §10): she is told, to her alone, and the table,
    its history and the stored hands name the seat one way throughout."""
    key = "ann-player-key-0123456789"
    async with running_server() as server:
        ann = await Raw.open(server.port)
        await ann.hello("Ann", player_key=key)
        table = (await raw_bot_table(ann, hands=2))["table"]
        bob = await Raw.open(server.port)
        await bob.hello("Bob")
        await bob.request("watch", table=table)
        await ann.request_keeping("start")
        await raw_play(ann, stop="hand_over")
        await ann.close()
        annie = await Raw.open(server.port)
        assert (await annie.hello("Annie", player_key=key))["name"] == "Annie"
        joined = await annie.request_keeping("join", table=table)
        assert (joined["seat"], joined["name"]) == (0, "Ann")
        passed = []  # a your_turn among them must still be answered
        while (told := await annie.recv()).get("code") != "name_kept":
            passed.append(told)
        annie.inbox[:0] = passed
        assert told["seat"] == 0 and "as Ann, not Annie" in told["text"]
        back = await bob.expect("notice", code="reconnected")
        assert back["text"] == "Ann is back"
        await raw_play(annie, stop="match_over")
        # The token, under the new name too: the same seat, the same name, told again.
        await annie.close()
        again = await Raw.open(server.port)
        welcome = await again.hello("Annie", token=joined["token"])
        assert (welcome["seat"], welcome["name"]) == (0, "Ann")
        assert (await again.expect("notice", code="name_kept"))["seat"] == 0
        # Bob saw no rename, and was never told what Ann was told.
        listed = await bob.request_keeping("list_tables")
        assert not any(m.get("code") == "name_kept" for m in bob.inbox)
        (summary,) = [t for t in listed["tables"] if t["id"] == table]
        assert summary["seats"][0]["name"] == "Ann"
        history = await again.request("history")
        assert [h["names"][0] for h in history["hands"]] == ["Ann", "Ann"]
        assert [server.store.hand_names(table, 0, n)[0] for n in (0, 1)] == ["Ann", "Ann"]
        # A name the table shows already, numbered or not, is no news: nothing is said.
        quiet = await Raw.open(server.port)
        await again.close()
        await quiet.hello("ann", player_key=key, token=joined["token"])
        assert not any(m.get("code") == "name_kept" for m in quiet.inbox)
        await quiet.request_keeping("list_tables")
        assert not any(m.get("code") == "name_kept" for m in quiet.inbox)
        for client in (bob, quiet):
            await client.close()
