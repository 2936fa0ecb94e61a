"""The search's exact endgame against plain minimax, and its shortcuts."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.actions import action_from_dict
from engine.bots import search
from engine.bots.heuristic import HeuristicStrategy
from engine.bots.knowledge import Knowledge, read_view
from engine.bots.policy import bits
from engine.bots.sampling import Chain, Sampler, sample_hand
from engine.bots.search import (
    NodeCount,
    SearchStrategy,
    decided,
    equivalent_cards,
    solve,
    team_of,
)
from engine.bots.sim import Sim
from engine.cards import ALL_CARDS, TRUMP
from engine.hand import Hand
from engine.view import seat_view
from tests.bots.helpers import VARIANTS


def _positions(tricks_left: int, count: int) -> list[Hand]:
    bot = HeuristicStrategy()
    out = []
    seed = 0
    while len(out) < count:
        hand = Hand.from_seed(VARIANTS[seed % len(VARIANTS)], seed % 5, 1000 + seed)
        seed += 1
        while not hand.is_over and not (
            hand.phase == "play"
            and len(hand.tricks) == 6 - tricks_left
            and seed % 3 != len(hand.current)
        ):
            view = seat_view(hand, hand.turn)
            hand.apply(action_from_dict(bot.choose(view, view["legal"]), hand.turn))
        if not hand.is_over:
            out.append(hand)
    return out


def _minimax(sim: Sim, seat: int, team: int) -> float:
    if sim.is_over:
        return sim.payouts()[seat]
    values = []
    for c in bits(sim.legal_mask()):
        sim.play(c)
        values.append(_minimax(sim, seat, team))
        sim.unplay()
    return max(values) if team >> sim.state.turn & 1 else min(values)


def test_exact_search_equals_plain_minimax() -> None:
    for hand in _positions(2, 50) + _positions(3, 12):
        sim = Sim.from_hand(hand)
        for seat in range(5):
            team = team_of(sim, seat)
            count = NodeCount()
            assert solve(sim, seat, team, count=count) == _minimax(sim, seat, team), hand
            assert count.nodes > 0


def test_equivalent_cards_have_equal_exact_values() -> None:
    rng = random.Random(3)
    checked = 0
    for hand in _positions(3, 40):
        seat = hand.turn
        assert seat is not None
        k = read_view(seat_view(hand, seat))
        rep = equivalent_cards(k, hand.legal_play_mask())
        assert set(rep) == set(bits(hand.legal_play_mask()))
        groups = [c for c in rep if rep[c] != c]
        if not groups:
            continue
        sim = Sim.from_hand(sample_hand(k, rng))
        team = team_of(sim, seat)
        for c in groups:
            values = []
            for card in (c, rep[c]):
                sim.play(card)
                values.append(solve(sim, seat, team))
                sim.unplay()
            assert values[0] == values[1]
            checked += 1
    assert checked >= 5


def test_decided_needs_a_clear_paired_lead() -> None:
    assert decided([[1.0, 2.0, 1.0, 2.0], [1.0, 2.0, 1.0, 2.0]])  # no card differs anywhere
    assert decided([[2.0] * 10, [0.0, 1.0] * 5])
    assert not decided([[2.0, 0.0] * 5, [0.0, 2.0] * 5])
    assert not decided([[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0] * 6])
    assert decided([[1.0], [1.0]])  # one deal: decided only if no card differs on it
    assert not decided([[1.0], [0.0]])


def test_a_tiny_node_budget_falls_back_to_rollouts() -> None:
    for hand in _positions(3, 6):
        view = seat_view(hand, hand.turn)
        bot = SearchStrategy(seed=1, samples=6, node_budget=1, setup_samples=0)
        assert bot.choose(view, view["legal"]) in view["legal"]
        k = read_view(view)
        if len(set(equivalent_cards(k, hand.legal_play_mask()).values())) > 1:
            assert bot.last_samples >= 1  # rollouts took over from the exact search


def test_the_search_picks_as_the_heuristic_does_unless_told_to_roll_out() -> None:
    from engine.rules import RuleSet

    heuristic = HeuristicStrategy()
    search = SearchStrategy(seed=1)
    rolled = SearchStrategy(seed=1, pick_zone=2.0, setup_samples=4)
    picks = 0
    for n in range(60):
        hand = Hand.from_seed(RuleSet.from_preset("wisconsin"), n % 5, 4000 + n)
        while hand.phase == "pick":
            seat = hand.turn
            view = seat_view(hand, seat)
            choice = heuristic.choose(view, view["legal"])
            assert search.choose(view, view["legal"]) == choice
            assert rolled.choose(view, view["legal"]) in view["legal"]
            picks += choice["action"] == "pick"
            hand.apply(action_from_dict(choice, seat))
    assert picks > 5


def test_a_play_margin_keeps_the_heuristics_card_unless_another_gains_more() -> None:
    heuristic = HeuristicStrategy()
    stubborn = SearchStrategy(seed=1, samples=6, setup_samples=0, play_margin=100.0)
    free = SearchStrategy(seed=1, samples=6, setup_samples=0)
    differ = 0
    for hand in _positions(4, 24):
        view = seat_view(hand, hand.turn)
        choice = heuristic.choose(view, view["legal"])
        assert stubborn.choose(view, view["legal"]) == choice
        differ += free.choose(view, view["legal"]) != choice
    assert differ > 0


def test_the_rollouts_bid_at_the_stakes_the_table_plays() -> None:
    """At single stakes the heuristic picks lighter (``Style.pick_single``); the search's
    rollouts set each sampled hand up as the heuristic would, so they pick lighter too."""
    from engine.bots.policy import hand_strength
    from engine.bots.rollout import heuristic_setup
    from engine.bots.style import TUNED
    from engine.rules import RuleSet

    single = RuleSet()  # the seed rules: a lost hand costs single stakes
    assert not single.double_on_the_bump
    for seed in range(2_000):
        hand = Hand.from_seed(single, 0, seed)
        first = hand.turn
        assert first is not None
        strength = hand_strength(hand.hands[first])
        if TUNED.pick_line(0, bump=False) <= strength < TUNED.pick_line(0, bump=True):
            break
    else:
        raise AssertionError("no deal between the two lines")
    heuristic_setup(hand)
    assert hand.picker == first


def test_a_negative_pick_shift_picks_hands_the_heuristic_passes() -> None:
    from engine.bots.policy import hand_strength
    from engine.bots.style import TUNED
    from engine.rules import RuleSet

    heuristic = HeuristicStrategy()
    light = SearchStrategy(seed=1, pick_shift=-1.0)
    rules = RuleSet.from_preset("seed")
    lighter = 0
    for n in range(60):
        hand = Hand.from_seed(rules, n % 5, 4000 + n)
        while hand.phase == "pick":
            seat = hand.turn
            view = seat_view(hand, seat)
            choice = heuristic.choose(view, view["legal"])
            mine = light.choose(view, view["legal"])
            line = TUNED.pick_line(len(hand.passes), bump=False)
            strength = hand_strength(hand.hands[seat])
            if len(view["legal"]) > 1:
                expected = "pick" if strength >= line - 1.0 else "pass"
                assert mine["action"] == expected
            lighter += mine != choice
            hand.apply(action_from_dict(choice, seat))
    assert lighter > 3


def _own_moves_best(sim: Sim, seat: int) -> float:
    """Brute force: the best over ``seat``'s own cards, the others playing the heuristic."""
    from engine.bots.policy import choose_play

    if sim.is_over:
        return sim.value(seat)
    legal = sim.legal_mask()
    if sim.state.turn != seat:
        sim.play(choose_play(sim.situation(legal)))
        v = _own_moves_best(sim, seat)
        sim.unplay()
        return v
    values = []
    for c in bits(legal):
        sim.play(c)
        values.append(_own_moves_best(sim, seat))
        sim.unplay()
    return max(values)


def test_the_model_endgame_is_the_best_line_against_heuristic_seats() -> None:
    from engine.bots.search import solve_model

    for hand in _positions(3, 30):
        sim = Sim.from_hand(hand)
        seat = sim.state.turn
        before = sim.state.copy()
        value = solve_model(sim, seat)
        assert value == _own_moves_best(sim, seat)
        assert sim.state.hands == before.hands and sim.state.current == before.current
        rolled = sim.copy()
        rolled.rollout()
        assert value >= rolled.value(seat)  # the heuristic's own line is one of them


def count_calls(monkeypatch: pytest.MonkeyPatch, *names: str) -> dict[str, int]:
    """Calls of each of the search module's functions ``names`` from now on (counted as the
    search makes them; the functions still run)."""
    import engine.bots.search as search

    calls = dict.fromkeys(names, 0)

    def counted(name: str) -> Any:
        function = getattr(search, name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)

        return wrapper

    for name in names:
        monkeypatch.setattr(search, name, counted(name))
    return calls


def test_the_model_endgame_option_scores_the_last_tricks_against_heuristic_seats(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = count_calls(monkeypatch, "solve_model", "solve")
    for hand in _positions(3, 6):
        view = seat_view(hand, hand.turn)
        SearchStrategy(seed=1, samples=4, model_endgame=True).choose(view, view["legal"])
    assert calls["solve_model"] > 0 and calls["solve"] == 0
    for hand in _positions(3, 6):
        view = seat_view(hand, hand.turn)
        SearchStrategy(seed=1, samples=4, model_endgame=False).choose(view, view["legal"])
    assert calls["solve"] > 0


def test_by_default_the_last_four_tricks_are_searched_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = count_calls(monkeypatch, "solve_model")
    for hand in _positions(4, 6):
        view = seat_view(hand, hand.turn)
        SearchStrategy(seed=1, samples=4).choose(view, view["legal"])
    assert calls["solve_model"] > 0
    calls["solve_model"] = 0
    for hand in _positions(5, 6):
        view = seat_view(hand, hand.turn)
        SearchStrategy(seed=1, samples=4).choose(view, view["legal"])
    assert calls["solve_model"] == 0  # five tricks left: rollouts


def _worlds(hand: Hand, count: int, seed: int) -> list[Sim]:
    from engine.bots.sampling import Sampler

    seat = hand.turn
    assert seat is not None
    sampler = Sampler(read_view(seat_view(hand, seat)))
    rng = random.Random(seed)
    return [sampler.sim(rng) for _ in range(count)]


def test_the_info_set_endgame_plays_later_cards_once_per_information_set() -> None:
    from engine.bots.search import distinct_moves, solve_info_sets, solve_model

    # Four tricks left and ten deals: with three and six, a change to the heuristic's play
    # left no position where seeing the deal was worth more (eight cards here today).
    fused_somewhere = False
    for i, hand in enumerate(_positions(4, 12)):
        seat = hand.turn
        assert seat is not None
        worlds = _worlds(hand, 10, i)
        before = [(w.state.copy(), len(w.undo)) for w in worlds]
        cards = distinct_moves(worlds[0], worlds[0].legal_mask(), ALL_CARDS)
        together = solve_info_sets(worlds, seat, cards)
        for j, c in enumerate(cards):
            fused = 0.0
            heuristic = 0.0
            for w in worlds:
                w.play(c)
                fused += solve_model(w, seat)
                rolled = w.copy()
                rolled.rollout()
                heuristic += rolled.value(seat)
                w.unplay()
            # The heuristic's own later cards depend only on what it has seen: one of the
            # strategies searched. Seeing each deal (solve_model) can only do better.
            assert heuristic - 1e-9 <= together[j] <= fused + 1e-9
            fused_somewhere |= together[j] < fused - 1e-9
            # On its own a deal is its own information set.
            assert solve_info_sets(worlds[:1], seat, [c]) == pytest.approx(
                [solve_model_after(worlds[0], seat, c)]
            )
        for w, (state, n) in zip(worlds, before, strict=True):
            assert w.state.hands == state.hands and w.state.current == state.current
            assert len(w.undo) == n
    assert fused_somewhere  # in some deals the later cards cannot be chosen as if seen


def solve_model_after(sim: Sim, seat: int, card: int) -> float:
    """:func:`solve_model` after ``seat`` plays ``card``."""
    from engine.bots.search import solve_model

    sim.play(card)
    value = solve_model(sim, seat)
    sim.unplay()
    return value


def test_the_info_sets_option_searches_the_sampled_deals_together(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = count_calls(monkeypatch, "solve_info_sets", "solve_model")
    for hand in _positions(3, 6):
        view = seat_view(hand, hand.turn)
        bot = SearchStrategy(seed=1, samples=6, setup_samples=0, info_sets=True)
        assert bot.choose(view, view["legal"]) in view["legal"]
    assert calls["solve_info_sets"] > 0 and calls["solve_model"] == 0
    for hand in _positions(3, 6):
        # Over the node budget even on a few deals: rollouts take over.
        view = seat_view(hand, hand.turn)
        bot = SearchStrategy(seed=1, samples=12, node_budget=1, setup_samples=0, info_sets=True)
        assert bot.choose(view, view["legal"]) in view["legal"]
        k = read_view(view)
        if len(set(equivalent_cards(k, hand.legal_play_mask()).values())) > 1:
            assert bot.last_samples >= 1


def test_defender_mismatch_reads_the_play_for_a_defenders_cards_only() -> None:
    plain = SearchStrategy(seed=3, samples=8, setup_samples=0)
    reading = SearchStrategy(seed=3, samples=8, setup_samples=0, defender_mismatch=0.25)
    differ = 0
    defenders = 0
    for hand in _positions(3, 30):
        view = seat_view(hand, hand.turn)
        k = read_view(view)
        plain._rng.seed(3)
        reading._rng.seed(3)
        mine, theirs = plain.choose(view, view["legal"]), reading.choose(view, view["legal"])
        if k.defending:
            defenders += 1
            differ += mine != theirs
        else:
            # The picker, its partner and a leaster's seats sample exactly as before.
            assert mine == theirs
    assert defenders and differ > 0


def test_infer_bury_gives_the_picker_its_heuristic_bury_in_a_non_picker_s_deals() -> None:
    # Issue 30: without it a non-picker's deals bury about one trump a deal (any two unseen
    # cards), where a picker hardly ever buries trump.
    def bury_trumps(infer_bury: bool) -> tuple[int, int]:
        bot = SearchStrategy(seed=5, samples=8, setup_samples=0, infer_bury=infer_bury)
        trumps = deals = 0
        for hand in _positions(5, 40):
            k = read_view(seat_view(hand, hand.turn))
            if k.leaster or k.picker is None or k.picker == k.seat:
                continue
            draw = bot._play_sampler(k)
            for _ in range(5):
                trumps += (draw().buried & TRUMP).bit_count()
                deals += 1
        return trumps, deals

    trumps, deals = bury_trumps(True)
    assert deals > 50
    assert trumps < 0.3 * deals
    assert bury_trumps(False)[0] > 0.6 * deals


def test_infer_bury_partner_gives_the_heuristic_s_bury_to_the_partner_s_deals_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 30: the inferred bury gained the partner's share under both presets and cost the
    # defenders' under seed, so "partner" keeps it to the seat that knows it is the partner.
    built: list[Sampler] = []

    class Recording(Sampler):
        def __init__(self, k: Knowledge, bury: bool = False) -> None:
            super().__init__(k, bury)
            built.append(self)

    monkeypatch.setattr(search, "Sampler", Recording)
    roles = {"partner": 0, "defender": 0}
    for infer_bury, biased in (("partner", {"partner"}), (True, {"partner", "defender"})):
        bot = SearchStrategy(seed=5, samples=8, setup_samples=0, infer_bury=infer_bury)
        for hand in _positions(5, 40):
            k = read_view(seat_view(hand, hand.turn))
            if k.leaster or k.picker is None or k.picker == k.seat:
                continue
            role = "defender" if k.defending else "partner"
            built.clear()
            bot._play_sampler(k)
            assert [s.bury for s in built] == [role in biased]
            roles[role] += 1
    assert roles["partner"] and roles["defender"]


@pytest.mark.parametrize("value", ["defender", "yes please", 1, None])
def test_infer_bury_takes_off_partner_all_or_a_bool(value: Any) -> None:
    with pytest.raises(ValueError, match="infer_bury must be off, partner or all"):
        SearchStrategy(infer_bury=value)
    assert SearchStrategy(infer_bury=False).infer_bury == "off"
    assert SearchStrategy(infer_bury=True).infer_bury == "all"


def test_play_trust_and_play_fallback_are_checked() -> None:
    with pytest.raises(ValueError, match="play_trust must be between 0 and 1"):
        SearchStrategy(play_trust=1.5)
    with pytest.raises(ValueError, match="play_fallback must be one of stretch, weighted"):
        SearchStrategy(play_fallback="longest")
    bot = SearchStrategy(play_mismatch=0.25, play_trust=0.5, play_fallback="weighted")
    assert (bot.play_trust, bot.play_fallback) == (0.5, "weighted")


def test_the_sampler_and_chain_options_are_checked() -> None:
    with pytest.raises(ValueError, match="sampler must be one of rejection, mcmc, chains"):
        SearchStrategy(sampler="gibbs")
    with pytest.raises(ValueError, match="chain_mismatch must be more than 0"):
        SearchStrategy(sampler="mcmc", chain_mismatch=0)
    with pytest.raises(ValueError, match="chain_thin 1"):
        SearchStrategy(sampler="mcmc", chain_thin=0)
    with pytest.raises(ValueError, match="chain_count must be at least 1"):
        SearchStrategy(sampler="chains", chain_count=0)


def test_the_chains_sampler_plays_the_same_hand_from_the_same_seed() -> None:
    # sampler=chains: each card decision draws from fresh independent chains (none carried),
    # deterministic given the search's generator.
    def play(seed: int) -> list[object]:
        bot = SearchStrategy(seed=seed, samples=4, setup_samples=0, sampler="chains", chain_count=3)
        hand = Hand.from_seed(VARIANTS[0], 0, 11)
        while not hand.is_over:
            view = seat_view(hand, hand.turn)
            hand.apply(action_from_dict(bot.choose(view, view["legal"]), hand.turn))
        assert not bot._chains
        return list(hand.actions)

    assert play(3) == play(3)


def test_the_mcmc_sampler_carries_a_seat_s_chain_through_the_hand() -> None:
    # sampler=mcmc: a seat's card decisions draw their deals from one Markov chain carried
    # from decision to decision of the hand (a new hand starts a new chain).
    bot = SearchStrategy(seed=2, samples=6, setup_samples=0, sampler="mcmc")
    hand = Hand.from_seed(VARIANTS[0], 0, 11)
    chains: dict[int, list[Chain]] = {}
    while not hand.is_over:
        view = seat_view(hand, hand.turn)
        seat = hand.turn
        hand.apply(action_from_dict(bot.choose(view, view["legal"]), seat))
        if view["phase"] == "play" and seat in bot._chains:
            chains.setdefault(seat, []).append(bot._chains[seat][1])
    assert sum(hand.result().payouts or []) == 0
    steps = [c.steps for seq in chains.values() for c in seq]
    assert chains and all(steps)
    # A carried chain burns in for chain_carry_burn steps only, a fresh one chain_burn.
    assert min(steps) < bot.chain_burn <= max(steps)


def test_pick_weight_is_the_weight_of_a_deal_whose_picker_would_not_have_picked() -> None:
    # Issue 30: with the default 0.15 a defender's deals give the picker fewer trumps than it
    # holds; pick_weight makes such deals rarer without touching the passes' weight.
    default = SearchStrategy(seed=1)._weigher()
    light = SearchStrategy(seed=1, pick_weight=0.03)._weigher()
    assert default is not None and light is not None
    lowered = 0
    for hand in _positions(5, 12):
        k = read_view(seat_view(hand, hand.turn))
        if k.picker is None or k.picker == k.seat:
            continue
        sampler = Sampler(k)
        rng = random.Random(2)
        for _ in range(10):
            dealt = sampler.originals(sampler.deal(rng))
            before = default(k, dealt, random.Random(3))
            after = light(k, dealt, random.Random(3))
            assert after == pytest.approx(before) or after == pytest.approx(before * 0.03 / 0.15)
            lowered += after < before
    assert lowered > 0
    with pytest.raises(ValueError):
        SearchStrategy(pick_weight=0)


def test_distinct_stop_does_not_read_a_repeated_deal_as_agreement(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 30: a decision's deals repeat (late in a hand, under a sharp weight); the same deal
    # drawn ten times looks like ten deals that agree, and the early stop stopped on it.
    def samples_taken(distinct_stop: bool, hand: Hand) -> int:
        bot = SearchStrategy(seed=1, samples=20, setup_samples=0, distinct_stop=distinct_stop)
        true = Sim.from_hand(hand)
        monkeypatch.setattr(bot, "_play_sampler", lambda k: true.copy)
        view = seat_view(hand, hand.turn)
        bot.choose(view, view["legal"])
        return bot.last_samples

    waited = 0
    for hand in _positions(5, 12):
        default = samples_taken(False, hand)
        distinct = samples_taken(True, hand)
        # One deal is one world however often it is drawn: where the cards differ on it, the
        # distinct stop takes every deal; where they do not, it stops as the default does.
        assert distinct in (default, 20)
        waited += default == 10 and distinct == 20
    assert waited > 2


def test_a_defender_margin_keeps_the_heuristics_card_for_a_defender_only() -> None:
    heuristic = HeuristicStrategy()
    free = SearchStrategy(seed=1, samples=6, setup_samples=0)
    careful = SearchStrategy(seed=1, samples=6, setup_samples=0, defender_margin=100.0)
    differ = 0
    for hand in _positions(4, 30):
        view = seat_view(hand, hand.turn)
        free._rng.seed(1)
        careful._rng.seed(1)
        mine, theirs = free.choose(view, view["legal"]), careful.choose(view, view["legal"])
        if read_view(view).defending:
            assert theirs == heuristic.choose(view, view["legal"])
            differ += mine != theirs
        else:
            assert mine == theirs  # the picker, its partner and a leaster's seats as before
    assert differ > 0
