"""The score sheet and the match-over totals when a seat changed player during the match.

At a club evening Fay played hand 1 of seat 1 and left, Bob sat down there for the rest:
the sheet and the final totals were per seat and said "Fay -9" (her -3 and Bob's -6 under
her name), while the server's standings credited each (Fay -3, Bob -6).
"""

from __future__ import annotations

from rich.console import Console, RenderableType

from client.model import FinishedHand, TableModel, player_totals, player_totals_at
from client.screens.info import hand_detail
from client.screens.result import final_text, score_sheet_parts, standings

BEFORE = ["Ann", "Fay", "Cy", "Dee", "Eve"]
AFTER = ["Ann", "Bob", "Cy", "Dee", "Eve"]
PAYOUTS = [  # seat 1 pays 3 in every hand: hand 1 is Fay's, hands 2 and 3 are Bob's
    [6, -3, -1, -1, -1],
    [-1, -3, 6, -1, -1],
    [-1, -3, -1, 6, -1],
]


def club_match() -> list[FinishedHand]:
    """Three hands as the history sends them: who played each seat, payouts, seat totals."""
    hands: list[FinishedHand] = []
    totals = [0] * 5
    for number, payouts in enumerate(PAYOUTS, start=1):
        totals = [t + p for t, p in zip(totals, payouts, strict=True)]
        hands.append(
            FinishedHand(
                number=number,
                result={"payouts": payouts, "picker": 0, "alone": True, "stake": 1},
                reveal={},
                totals=list(totals),
                names=list(BEFORE if number == 1 else AFTER),
            )
        )
    return hands


def text_of(*parts: RenderableType) -> str:
    """The parts as an 80-column terminal shows them."""
    console = Console(width=80, record=True, color_system=None)
    for part in parts:
        console.print(part)
    return console.export_text()


def test_each_player_gets_their_own_total_not_their_seat_s() -> None:
    players = {p.name: p for p in player_totals(club_match())}
    assert (players["Fay"].total, players["Fay"].sits) == (-3, False)
    assert (players["Bob"].total, players["Bob"].sits, players["Bob"].since) == (-6, True, 2)
    assert players["Ann"].total == 4


def test_the_sheet_marks_the_change_and_counts_the_new_player_from_there() -> None:
    header, body = score_sheet_parts(club_match(), AFTER, None)
    text = text_of(header, body)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert "Bob takes seat 1 (Fay left on -3); its = totals are Bob's" in text
    change = next(i for i, line in enumerate(lines) if "takes seat" in line)
    assert "=-3" in lines[change - 1]  # Fay's hand
    assert "=-3" in lines[change + 1] and "=-6" in lines[change + 2]  # Bob's, not -6, -9
    assert "=-9" not in text


def test_a_hand_s_result_totals_are_who_played_each_seat() -> None:
    """The result panel and the history's "total" column: Bob's after hand 3 is -6."""
    hands = club_match()
    assert player_totals_at(hands, hands[2])[1] == -6
    assert player_totals_at(hands, hands[0])[1] == -3  # Fay's
    detail = text_of(*hand_detail(hands[2], None, player_totals_at(hands, hands[2])))
    (bob,) = [line for line in detail.splitlines() if line.split()[:1] == ["Bob"]]
    assert bob.split()[-1] == "-6", bob


def over_model() -> TableModel:
    model = TableModel()
    model.history = club_match()
    model.totals = list(model.history[-1].totals)
    model.match_over = {"totals": model.totals, "hands": 3}
    return model


def test_the_match_over_totals_list_each_player_with_their_own() -> None:
    model = over_model()
    final = final_text(model, AFTER)
    assert final is not None
    assert "Fay -3 (seat 1, hand 1, left)" in final.plain
    assert "Bob -6 (seat 1 from hand 2)" in final.plain
    assert "-9" not in final.plain
    table = text_of(standings(model))
    assert "Fay -9" not in table and "-9" not in table
    rows = {line.split()[1]: line for line in table.splitlines()[1:] if line.strip()}
    assert "-3" in rows["Fay"] and "left" in rows["Fay"]
    assert "-6" in rows["Bob"] and "seat 1 from hand 2" in rows["Bob"]
    assert all(len(line) <= 80 for line in table.splitlines())


def test_a_match_without_a_seat_change_reads_as_before() -> None:
    hands = club_match()
    for hand in hands:
        hand.names = list(AFTER)
    header, body = score_sheet_parts(hands, AFTER, None)
    text = text_of(header, body)
    assert "takes seat" not in text and "=-9" in text
    model = over_model()
    for hand in model.history:
        hand.names = list(AFTER)
    final = final_text(model, AFTER)
    assert final is not None and "Bob -9" in final.plain and "(" not in final.plain


def test_the_sheet_says_who_sat_down_since_the_last_hand_under_their_name() -> None:
    """Cal sat in Gus's seat during hand 2: the sheet opened then put "Cal" over Gus's +4 and
    said nothing; the line comes at once, and a seat left empty says so too."""
    hands = club_match()[:1]  # Fay's hand 1 is the last finished
    header, body = score_sheet_parts(hands, AFTER, None)
    text = text_of(header, body)
    assert (
        text.splitlines()[-1].strip() == "Bob takes seat 1 (Fay left on -3); its = totals are Bob's"
    )
    header, body = score_sheet_parts(hands, ["Ann", "(empty)", "Cy", "Dee", "Eve"], None)
    assert "Seat 1 is empty from here (Fay left on -3)" in text_of(header, body)
    header, body = score_sheet_parts(hands, BEFORE, None)
    assert "takes seat" not in text_of(header, body)  # nobody new: no line


def test_your_column_is_you_on_the_sheet_and_in_the_tricks() -> None:
    """The sheet's header and the tricks table named your column "Bob*", a mark explained
    nowhere; they say "you", as the result panel and the table do."""
    from client.screens.info import tricks_table

    header, _ = score_sheet_parts(club_match(), AFTER, 1)
    trick = {"leader": 0, "cards": ["QC", "7D", "8D", "9D", "KD"], "winner": 0, "points": 7}
    for table in (header, tricks_table([trick], AFTER, me=1)):
        heads = text_of(table).splitlines()[0].split()
        assert heads[heads.index("Ann") + 1] == "you" and "Bob" not in heads, heads
        assert "*" not in text_of(table)
    # The tricks you took are "you" too, where your column's header is (they read "Bob +7").
    taken = {**trick, "winner": 1}
    assert "you +7" in text_of(tricks_table([taken], AFTER, me=1)).splitlines()[1]


def test_the_side_column_says_you_in_the_hands_you_played() -> None:
    """The "side" column named your seat by its tag ("Ann+Bob") under a column headed "you";
    it says "you" where you played the hand, and Fay's tag in the hand she played your seat."""
    hands = club_match()
    for hand in hands:
        hand.result.update(alone=False, partner=1)
    _, body = score_sheet_parts(hands, AFTER, 1)
    rows = [line.split() for line in text_of(body).splitlines() if line[:1].isdigit()]
    sides = [row[1] for row in rows]
    assert sides == ["Ann+Fay", "Ann+you", "Ann+you"], text_of(body)
