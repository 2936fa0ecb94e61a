"""The transcript generator behind PROTOCOL.md §11 still records a whole, consistent hand."""

from __future__ import annotations

from server.transcript import _record, abridge


async def test_a_recorded_hand_is_complete_and_abridging_keeps_every_message() -> None:
    lines = await _record()
    sent = [m["type"] for d, m in lines if d == ">"]
    received = [m["type"] for d, m in lines if d == "<"]
    assert sent[:3] == ["hello", "create_table", "add_bot"] and sent[-1] == "leave"
    assert received[0] == "welcome" and "hand_over" in received and "match_over" in received
    prompts = [m for d, m in lines if d == "<" and m["type"] == "your_turn"]
    actions = [m for d, m in lines if d == ">" and m["type"] == "action"]
    assert len(prompts) == len(actions) > 0
    assert all(a["seq"] == p["seq"] for p, a in zip(prompts, actions, strict=True))
    assert all(m["type"] != "error" for _, m in lines)
    short = abridge(lines)
    assert [m["type"] for _, m in short] == [m["type"] for _, m in lines]
    states = [m for _, m in short if m["type"] == "state"]
    assert isinstance(states[0]["info"], dict) and "seats" in states[0]["info"]
    assert any("info" not in s for s in states)  # an unchanged summary is not sent again
