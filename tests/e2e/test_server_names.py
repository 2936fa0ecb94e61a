"""Names over real sockets: nothing invisible, nobody passing for a bot or for someone seated."""

from __future__ import annotations

import pytest

from tests.server.support import Raw, running_server


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
async def test_a_person_cannot_take_a_bots_name(name: str) -> None:
    async with running_server() as server:
        raw = await Raw.open(server.port)
        reply = await raw.request("hello", version=1, kind="human", name=name)
        assert reply["type"] == "error" and reply["code"] == "bad_request"
        assert "bot" in reply["message"]
        await raw.hello("Someone else")  # the connection goes on
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
