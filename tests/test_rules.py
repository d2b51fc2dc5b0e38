"""One test per rule of docs/rules.md, on hand-built situations, against the kernel
functions of kernels/rules.py and the Python layer (sim.config.cards, sim.Rules, sim.policies.registry)."""
import re

import numpy as np
import pytest

import sim
from helpers import (
    FULL_DECK,
    J1,
    J2,
    J3,
    J4,
    W1,
    W2,
    W3,
    W4,
    C,
    D,
    H,
    S,
    card,
    cards_of,
    deal_round,
    make_table,
    mask,
    popcount,
)
import reference
from kernels import round_state as R
from kernels import rules as K
from kernels import records as st
from kernels.cards import draw_value
from sim.config.cards import format_card, format_hand, parse_card, parse_cards
from sim.config.errors import ConfigError
from sim.policies.registry import parse_policies, parse_policy, policy_arrays, split_policy_list

NO_SUIT = -1
LED_NONE, LED_FREE = st.LED_NONE, st.LED_FREE


# =============================================================================== 6. winning a trick

# (cards in play order, trump, position of the winning card)
TRICKS = {
    "first_wizard_wins_over_later_wizard": ([card(5, C), W2, W1, card(14, S)], S, 1),
    "wizard_led_wins": ([W3, card(14, H), W4], H, 0),
    "trump_beats_led_suit": ([card(14, C), card(2, S), card(13, C), card(3, D)], S, 1),
    "highest_trump_wins": ([card(10, C), card(3, S), card(9, S), card(14, C)], S, 2),
    "trump_led_highest_trump": ([card(3, S), card(14, S), card(14, C)], S, 1),
    "highest_of_led_suit": ([card(10, C), card(12, C), card(2, C), card(14, D)], H, 1),
    "led_suit_without_trump": ([card(4, H), card(14, S), card(5, H)], NO_SUIT, 2),
    "off_suit_non_trump_never_wins": ([card(2, C), card(14, D), card(14, H), card(13, S)], NO_SUIT, 0),
    "off_suit_ace_loses_to_led_two_with_trump": ([card(2, C), card(14, D), card(14, H)], S, 0),
    "all_jesters_first_jester": ([J3, J1, J4, J2], NO_SUIT, 0),
    "all_jesters_first_jester_with_trump": ([J2, J4, J1], C, 0),
    "jester_then_wizard": ([J1, W2, card(14, S), W1], S, 1),
    "jester_then_suit_sets_led_suit": ([J1, card(5, D), card(13, D), card(14, C)], NO_SUIT, 2),
    "jester_then_suit_then_trump": ([J1, card(5, D), card(2, C)], C, 2),
    "jesters_then_suit_then_wizard": ([J1, J2, card(5, D), W1], NO_SUIT, 3),
    "jester_after_suited_lead_never_wins": ([card(2, C), J1, J2], NO_SUIT, 0),
    "six_players_trump_ace": ([card(9, H), J3, card(10, H), card(2, D), card(11, H), card(14, D)], D, 5),
    "six_players_no_trump_jack": ([card(9, H), J3, card(10, H), card(2, D), card(11, H), card(14, D)], NO_SUIT, 4),
}


@pytest.mark.parametrize("name", list(TRICKS))
def test_reference_trick_winner(name):
    """The reference engine picks the card docs/rules.md §6 says wins (the table-driven tests
    below compare the kernels with it)."""
    cards, trump, expected = TRICKS[name]
    assert reference.trick_winner(cards, trump) == expected


@pytest.mark.parametrize("name", list(TRICKS))
def test_trick_played_on_table(name):
    """Driving play_card / finish_trick on a table gives the same winner; winning_position
    follows the trick card by card and the winner takes the trick and leads the next one."""
    cards, trump, expected = TRICKS[name]
    n = len(cards)
    storage, seats, table = make_table(players=n, round_size=2, trump=trump)  # seat 0 leads
    assert table["leader"] == 0
    for seat, c in enumerate(cards):
        seats[seat]["hand"] = mask([c])
    for seat, c in enumerate(cards):
        K.play_card(table, seats, seat, c)
        assert table["n_in_trick"] == seat + 1
        assert table["winning_position"] == reference.trick_winner(cards[: seat + 1], trump)
    winner = K.finish_trick(table)
    assert winner == expected
    assert list(storage["tricks"][0][:n]) == [1 if s == expected else 0 for s in range(n)]
    assert table["leader"] == expected
    assert table["trick"] == 1
    assert table["n_in_trick"] == 0
    assert table["led_suit"] == LED_NONE
    assert table["played"] == mask(cards)


@pytest.mark.parametrize(
    "new, best, trump, expected",
    [
        (W2, W1, S, False),  # a later Wizard never beats the first
        (W1, card(14, S), S, True),  # a Wizard beats a trump
        (J1, card(2, C), S, False),  # a Jester never takes the lead
        (J2, J1, NO_SUIT, False),  # nor from an earlier Jester
        (card(2, C), J1, S, True),  # the first suited card after Jesters takes the lead
        (W1, J1, S, True),
        (card(2, S), card(14, C), S, True),  # trump over the led suit
        (card(14, C), card(2, S), S, False),
        (card(13, C), card(12, C), S, True),  # higher of the same suit
        (card(12, C), card(13, C), S, False),
        (card(14, D), card(2, C), H, False),  # off-suit non-trump
        (card(14, D), card(2, C), NO_SUIT, False),
    ],
)
def test_a_card_takes_the_lead_from_the_card_winning_so_far(new, best, trump, expected):
    storage, seats, table = make_table(players=3, round_size=1, trump=trump)
    seats[0]["hand"], seats[1]["hand"] = mask([best]), mask([new])
    K.play_card(table, seats, 0, best)
    K.play_card(table, seats, 1, new)
    assert bool(table["winning_position"] == 1) is expected


# =============================================================================== 5. play

HAND = [card(3, C), card(9, C), card(14, D), W1, J1]


def test_must_follow_led_suit_but_wizard_and_jester_always_allowed():
    assert cards_of(K.legal_cards(mask(HAND), C)) == sorted([card(3, C), card(9, C), W1, J1])
    hand = [card(5, H), card(6, D), W2]
    assert cards_of(K.legal_cards(mask(hand), H)) == sorted([card(5, H), W2])


def test_void_in_led_suit_may_play_anything():
    hand = [card(14, D), card(2, H), card(13, S), J2]
    assert cards_of(K.legal_cards(mask(hand), C)) == sorted(hand)


def test_any_card_may_be_led_and_free_trick_allows_anything():
    assert cards_of(K.legal_cards(mask(HAND), LED_NONE)) == sorted(HAND)
    assert cards_of(K.legal_cards(mask(HAND), LED_FREE)) == sorted(HAND)


def test_hand_of_only_specials_plays_anything():
    assert cards_of(K.legal_cards(mask([W1, J2]), S)) == [W1, J2]


def test_play_loops_power_table_is_trick_power():
    """play_card looks powers up in TRICK_POWERS; the rule itself is trick_power."""
    for trump in range(NO_SUIT, 4):
        for led in range(LED_NONE, LED_FREE + 1):
            looked_up = K.TRICK_POWERS[trump + 1, led + 1]
            assert [looked_up[c] for c in range(60)] == [K.trick_power(c, led, trump) for c in range(60)]
            assert not looked_up[60:].any()


def _trick_table(hands, trump=NO_SUIT):
    """A table whose seat 0 leads, with the given hands (one list per seat)."""
    storage, seats, table = make_table(players=len(hands), round_size=len(hands[0]), trump=trump)
    for seat, hand in enumerate(hands):
        seats[seat]["hand"] = mask(hand)
    return storage, seats, table


def _legal(table, seats, seat):
    return cards_of(K.legal_cards(seats[seat]["hand"], table["led_suit"]))


def test_suited_lead_sets_led_suit_and_next_player_must_follow():
    hands = [[card(7, C), card(2, D)], [card(2, C), card(14, H), W1, J1], [card(5, S), card(6, S)]]
    storage, seats, table = _trick_table(hands, trump=H)
    assert table["led_suit"] == LED_NONE
    K.play_card(table, seats, 0, card(7, C))
    assert table["led_suit"] == C
    assert _legal(table, seats, 1) == sorted([card(2, C), W1, J1])


def test_wizard_led_frees_the_trick():
    storage, seats, table = _trick_table([[W1, card(2, D)], [card(2, C), card(14, H)], [card(5, C), card(6, S)]])
    K.play_card(table, seats, 0, W1)
    assert table["led_suit"] == LED_FREE
    assert _legal(table, seats, 1) == sorted([card(2, C), card(14, H)])
    K.play_card(table, seats, 1, card(14, H))
    assert table["led_suit"] == LED_FREE  # a suited card after a Wizard sets no suit
    assert _legal(table, seats, 2) == sorted([card(5, C), card(6, S)])
    assert list(storage["voids"][0][:3]) == [0, 0, 0]


def test_jester_led_then_jesters_leave_the_trick_open_then_suit_decides():
    hands = [[J1, card(2, D)], [J2, card(3, C)], [card(7, H), card(2, C)], [card(2, H), card(14, S), J3]]
    storage, seats, table = _trick_table(hands)
    K.play_card(table, seats, 0, J1)
    assert table["led_suit"] == LED_NONE
    assert _legal(table, seats, 1) == sorted(hands[1])
    K.play_card(table, seats, 1, J2)
    assert table["led_suit"] == LED_NONE
    assert _legal(table, seats, 2) == sorted(hands[2])  # only Jesters so far: anything
    K.play_card(table, seats, 2, card(7, H))
    assert table["led_suit"] == H  # the first suited card sets the led suit
    assert _legal(table, seats, 3) == sorted([card(2, H), J3])


def test_jester_led_then_wizard_frees_the_rest_of_the_trick():
    hands = [[J1, card(2, D)], [W1, card(3, C)], [card(5, C), card(2, H)], [card(2, C), card(14, S)]]
    storage, seats, table = _trick_table(hands)
    K.play_card(table, seats, 0, J1)
    K.play_card(table, seats, 1, W1)
    assert table["led_suit"] == LED_FREE
    K.play_card(table, seats, 2, card(5, C))
    assert table["led_suit"] == LED_FREE  # the 5C after the Wizard does not set clubs
    assert _legal(table, seats, 3) == sorted(hands[3])
    K.play_card(table, seats, 3, card(14, S))
    assert K.finish_trick(table) == 1


def test_wizard_after_suited_lead_keeps_the_led_suit():
    hands = [[card(5, C), card(2, D)], [W1, card(3, H)], [card(2, C), card(14, D)]]
    storage, seats, table = _trick_table(hands)
    K.play_card(table, seats, 0, card(5, C))
    K.play_card(table, seats, 1, W1)
    assert table["led_suit"] == C
    assert _legal(table, seats, 2) == [card(2, C)]


def test_voids_are_recorded_only_when_a_seat_fails_to_follow():
    """table.voids: bit s once a seat played another suit to a trick whose led suit is s."""
    hands = [
        [card(7, C), card(9, H)],
        [card(14, D), card(3, S)],
        [W1, card(2, C)],
        [J1, card(4, C)],
    ]
    storage, seats, table = _trick_table(hands)
    K.play_card(table, seats, 0, card(7, C))
    K.play_card(table, seats, 1, card(14, D))  # void in clubs
    K.play_card(table, seats, 2, W1)  # a Wizard shows nothing
    K.play_card(table, seats, 3, J1)  # nor does a Jester
    assert list(storage["voids"][0][:4]) == [0, 1 << C, 0, 0]
    assert K.finish_trick(table) == 2
    # Seat 2 leads clubs, seat 3 follows, seats 0 and 1 cannot.
    K.play_card(table, seats, 2, card(2, C))
    K.play_card(table, seats, 3, card(4, C))
    K.play_card(table, seats, 0, card(9, H))
    K.play_card(table, seats, 1, card(3, S))
    assert list(storage["voids"][0][:4]) == [1 << C, 1 << C, 0, 0]  # voids persist over tricks
    R.begin_round(table, seats, 2, 3)
    assert list(storage["voids"][0][:4]) == [0, 0, 0, 0]  # and reset with the round


def test_void_after_jester_lead_refers_to_the_suit_set_later():
    hands = [[J1], [card(7, H)], [card(2, S)], [card(3, H)]]
    storage, seats, table = _trick_table(hands)
    for seat, hand in enumerate(hands):
        K.play_card(table, seats, seat, hand[0])
    assert list(storage["voids"][0][:4]) == [0, 0, 1 << H, 0]


def test_first_trick_led_left_of_dealer_and_winner_leads_next():
    storage, seats, table = make_table(players=5, round_size=3, dealer=2)
    assert table["leader"] == 3
    hands = {3: [card(2, C)], 4: [card(14, C)], 0: [card(3, C)], 1: [card(4, C)], 2: [card(5, C)]}
    for seat, hand in hands.items():
        seats[seat]["hand"] = mask(hand)
    for seat in (3, 4, 0, 1, 2):
        K.play_card(table, seats, seat, hands[seat][0])
    assert K.finish_trick(table) == 4
    assert table["leader"] == 4


# =============================================================================== 3. trump


def test_trump_of_turned_card():
    for c in range(52):
        assert K.trump_of_turned_card(c) == c // 13
    for w in (W1, W2, W3, W4):
        assert K.trump_of_turned_card(w) == st.DEALER_CHOOSES_TRUMP
    for j in (J1, J2, J3, J4):
        assert K.trump_of_turned_card(j) == NO_SUIT
    assert K.trump_of_turned_card(-1) == NO_SUIT  # nothing turned up (last round)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_deal_last_round_turns_up_nothing(players):
    last = 60 // players
    storage, seats, table = make_table(players=players, round_size=last, dealer=0)
    deal_round(11, 3, table, seats)
    assert table["trump_card"] == -1
    hands = [int(seats[s]["hand"]) for s in range(players)]
    assert all(popcount(h) == last for h in hands)
    union = 0
    for h in hands:
        assert union & h == 0
        union |= h
    assert union == FULL_DECK
    assert all(int(seats[s]["dealt"]) == hands[s] for s in range(players))


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_deal_other_rounds_turn_up_an_undealt_card(players):
    for r in range(1, 60 // players):
        storage, seats, table = make_table(players=players, round_size=r, dealer=0)
        deal_round(5, r, table, seats)
        union = 0
        for s in range(players):
            h = int(seats[s]["hand"])
            assert popcount(h) == r and union & h == 0
            union |= h
        turned = int(table["trump_card"])
        assert 0 <= turned < 60 and not (union >> turned) & 1


# =============================================================================== 4. bidding


def _bid_table(even_bids, r=5, dealer=3, totals=None, bids=None, players=4, bidding="open"):
    """A table in round r with the earlier bidders' bids set (seat -> bid)."""
    storage, seats, table = make_table(players, r, dealer, bidding=bidding, even_bids=even_bids)
    for seat, total in enumerate(totals or []):
        storage["totals"][0][seat] = total
    for seat, bid in (bids or {}).items():
        seats[seat]["bid"] = bid
    return storage, seats, table


def _bids(table, seats, position):
    return cards_of(K.legal_bids(table, seats, position))


def test_bidding_order_left_of_dealer_first_dealer_last():
    storage, seats, table = make_table(players=4, dealer=3)
    assert [K.bidder_at(table, p) for p in range(4)] == [0, 1, 2, 3]
    storage, seats, table = make_table(players=5, dealer=1)
    assert [K.bidder_at(table, p) for p in range(5)] == [2, 3, 4, 0, 1]
    storage, seats, table = make_table(players=6, dealer=0)
    assert [K.bidder_at(table, p) for p in range(6)] == [1, 2, 3, 4, 5, 0]


def test_even_bids_allowed_every_bid_at_every_position():
    storage, seats, table = _bid_table("allowed", bids={0: 1, 1: 1, 2: 1})
    for position in range(4):
        assert _bids(table, seats, position) == list(range(6))


def test_even_bids_forbidden_last_bidder_cannot_make_the_total_r():
    storage, seats, table = _bid_table("forbidden", bids={0: 1, 1: 0, 2: 2})
    for position in range(3):
        assert _bids(table, seats, position) == list(range(6))
    assert _bids(table, seats, 3) == [0, 1, 3, 4, 5]  # 1 + 0 + 2 + 2 would be 5


@pytest.mark.parametrize(
    "earlier, forbidden",
    [({0: 0, 1: 0, 2: 0}, 5), ({0: 5, 1: 0, 2: 0}, 0), ({0: 2, 1: 2, 2: 1}, 0), ({0: 1, 1: 1, 2: 1}, 2)],
)
def test_even_bids_forbidden_value_at_the_edges(earlier, forbidden):
    storage, seats, table = _bid_table("forbidden", bids=earlier)
    assert _bids(table, seats, 3) == [b for b in range(6) if b != forbidden]


def test_even_bids_forbidden_value_out_of_range_restricts_nothing():
    """Earlier bids already above r: no bid of the last bidder can make the total r."""
    storage, seats, table = _bid_table("forbidden", bids={0: 3, 1: 2, 2: 2})
    assert _bids(table, seats, 3) == list(range(6))


def test_even_bids_forbidden_in_one_card_round_leaves_one_bid():
    storage, seats, table = _bid_table("forbidden", r=1, bids={0: 0, 1: 0, 2: 0})
    assert _bids(table, seats, 3) == [0]
    storage, seats, table = _bid_table("forbidden", r=1, bids={0: 1, 1: 0, 2: 0})
    assert _bids(table, seats, 3) == [1]


def test_even_bids_leader_restricts_the_sole_leader():
    storage, seats, table = _bid_table("leader", totals=[10, 20, 0, 30], bids={0: 1, 1: 1, 2: 1})
    assert _bids(table, seats, 3) == [0, 1, 3, 4, 5]
    for position in range(3):
        assert _bids(table, seats, position) == list(range(6))


def test_even_bids_leader_tied_leader_is_not_restricted():
    storage, seats, table = _bid_table("leader", totals=[10, 30, 0, 30], bids={0: 1, 1: 1, 2: 1})
    assert _bids(table, seats, 3) == list(range(6))
    storage, seats, table = _bid_table("leader", totals=[0, 0, 0, 0], bids={0: 1, 1: 1, 2: 1})
    assert _bids(table, seats, 3) == list(range(6))  # the first round: everyone tied at 0


def test_even_bids_leader_not_leading_is_not_restricted():
    storage, seats, table = _bid_table("leader", totals=[10, 50, 0, 30], bids={0: 1, 1: 1, 2: 1})
    assert _bids(table, seats, 3) == list(range(6))
    storage, seats, table = _bid_table("leader", totals=[-10, -50, -20, -30], bids={0: 1, 1: 1, 2: 1})
    assert _bids(table, seats, 3) == list(range(6))  # seat 0 leads, not the last bidder


def test_even_bids_leader_negative_totals_sole_leader():
    storage, seats, table = _bid_table("leader", totals=[-20, -30, -40, -10], bids={0: 0, 1: 2, 2: 0})
    assert _bids(table, seats, 3) == [0, 1, 2, 4, 5]


def test_even_bids_leader_out_of_range_restricts_nothing():
    storage, seats, table = _bid_table("leader", totals=[0, 0, 0, 30], bids={0: 4, 1: 2, 2: 0})
    assert _bids(table, seats, 3) == list(range(6))


@pytest.mark.parametrize("bidding", ["hidden", "delayed"])
def test_hidden_and_delayed_bidding_have_no_restriction(bidding):
    storage, seats, table = _bid_table("allowed", bids={0: 1, 1: 1, 2: 1}, bidding=bidding)
    assert _bids(table, seats, 3) == list(range(6))


def test_apply_bid_visibility_by_bidding_mode():
    """open: a bid is public at once; hidden: public after everyone bid; delayed: after play."""
    for bidding, public_during_bidding in (("open", True), ("hidden", False), ("delayed", False)):
        storage, seats, table = _bid_table("allowed", bidding=bidding)
        R.apply_bid(table, seats, 2)
        assert seats[0]["bid"] == 2 and table["n_bids"] == 1
        assert bool(table["bids"][0] == 2) is public_during_bidding
        assert all(b == st.NO_BID for b in storage["bids"][0][1:])
    assert K.reveals_bids_before_play(st.BIDDING_HIDDEN) and not K.reveals_bids_before_play(st.BIDDING_OPEN)
    assert K.reveals_bids_after_play(st.BIDDING_DELAYED) and not K.reveals_bids_before_play(st.BIDDING_DELAYED)


# =============================================================================== 7. scoring and winners


@pytest.mark.parametrize(
    "bid, tricks, score",
    [(4, 4, 60), (5, 3, -20), (0, 0, 20), (2, 5, -30), (0, 3, -30), (1, 0, -10), (20, 20, 220), (0, 20, -200)],
)
def test_round_score(bid, tricks, score):
    assert K.round_score(bid, tricks) == score


@pytest.mark.parametrize(
    "totals, winners",
    [
        ([10, 30, 30, -5], [False, True, True, False]),
        ([-10, -20, -10], [True, False, True]),
        ([0, 0, 0, 0, 0], [True] * 5),
        ([5, 90, 40, 89, 0, -100], [False, True, False, False, False, False]),
    ],
)
def test_game_winners_ties_share(totals, winners):
    n = len(totals)
    padded = np.zeros(st.MAX_PLAYERS, dtype=np.int64)
    padded[:n] = totals
    out = np.zeros(st.MAX_PLAYERS, dtype=np.bool_)
    K.game_winners(padded, n, out)
    assert list(out[:n]) == winners


# =============================================================================== 2. dealer


def test_dealer_passes_left_every_round():
    assert [K.dealer_of_round(2, r, 4) for r in range(1, 8)] == [2, 3, 0, 1, 2, 3, 0]
    assert [K.dealer_of_round(0, r, 3) for r in range(1, 5)] == [0, 1, 2, 0]
    assert [K.dealer_of_round(5, r, 6) for r in (1, 2, 10)] == [5, 0, 2]


def test_begin_round_resets_the_round_and_keeps_the_score_pad():
    storage, seats, table = make_table(players=4, round_size=3, dealer=1)
    storage["totals"][0][:4] = [10, -20, 30, 0]
    storage["tricks"][0][:4] = [1, 2, 0, 0]
    seats[2]["bid"] = 3
    R.begin_round(table, seats, 4, 2)
    assert table["phase"] == st.PHASE_DEAL
    assert table["round_size"] == 4 and table["dealer"] == 2 and table["leader"] == 3
    assert list(storage["totals"][0][:4]) == [10, -20, 30, 0]
    assert list(storage["tricks"][0][:4]) == [0, 0, 0, 0]
    assert all(b == st.NO_BID for b in storage["bids"][0]) and all(b == st.NO_BID for b in seats["bid"])
    assert table["trump_card"] == -1 and table["n_bids"] == 0 and table["played"] == 0


def test_draw_values_rank_wizard_high_jester_low():
    assert [draw_value(w) for w in (W1, W2, W3, W4)] == [15] * 4
    assert [draw_value(j) for j in (J1, J2, J3, J4)] == [1] * 4
    for suit in (C, D, H, S):
        assert [draw_value(card(rank, suit)) for rank in range(2, 15)] == list(range(2, 15))


def _first_pass_draw(seed, game, players):
    """Values of the first pass of the first-dealer draw, from the stream of the contract."""
    from helpers import new_stream
    from kernels.rng import STREAM_DRAW, below

    generator = new_stream(seed, game, 0, STREAM_DRAW)
    deck = list(range(60))
    values = []
    for p in range(players):
        j = p + below(generator, 60 - p)
        deck[p], deck[j] = deck[j], deck[p]
        values.append(draw_value(deck[p]))
    return values


@pytest.mark.parametrize("players", [3, 6])
def test_first_dealer_is_the_highest_draw_and_ties_draw_again(players):
    """The first dealer (round 1's dealer in the engine): the unique highest first draw deals;
    on a tie one of the tied seats deals (after drawing again)."""
    batch = sim.run_games(sim.Rules(players=players, rounds=(1,)), "random", seed=9, games=300)
    unique = tied = 0
    for game in range(300):
        values = _first_pass_draw(9, game, players)
        best = max(values)
        top = [s for s, v in enumerate(values) if v == best]
        dealer = int(batch.rounds[game, 0]["dealer"])
        assert dealer in top, (game, values, dealer)
        unique += len(top) == 1
        tied += len(top) > 1
    assert unique > 0 and tied > 0  # both cases were exercised


# =============================================================================== 1. card notation


def test_format_parse_round_trip_all_60_ids():
    for c in range(60):
        text = format_card(c)
        if c >= 56:
            assert text == "J" and parse_card(text, jester_index=c - 56) == c
        elif c >= 52:
            assert text == "W" and parse_card(text, wizard_index=c - 52) == c
        else:
            assert parse_card(text) == c
    assert parse_cards(" ".join(format_card(c) for c in range(60))) == list(range(60))
    assert sorted(parse_cards(format_hand(FULL_DECK))) == list(range(60))


def test_readme_parse_example():
    assert parse_cards("W AS 10h T♦ J") == [52, 51, 34, 21, 56]


def test_card_encoding_examples():
    assert parse_card("2C") == 0 and parse_card("AC") == 12 and parse_card("2D") == 13
    assert parse_card("AS") == 51 and parse_card("JH") == card(11, H) and parse_card("QD") == card(12, D)
    assert format_card(0) == "2C" and format_card(51) == "AS" and format_card(card(10, H)) == "10H"


def test_suit_symbols_lower_case_and_ten():
    assert [parse_card(t) for t in ("2♣", "3♦", "4♥", "5♠")] == [card(2, C), card(3, D), card(4, H), card(5, S)]
    assert parse_card("as") == parse_card("AS") == parse_card("A♠") == parse_card("a♠")
    assert parse_card("TD") == parse_card("10D") == parse_card("td") == parse_card("10d") == card(10, D)
    assert parse_card("jh") == card(11, H) and parse_card("qd") == card(12, D) and parse_card("kc") == card(13, C)


def test_bare_w_and_j_and_words():
    assert parse_card("W") == parse_card("w") == parse_card("Wizard") == parse_card("WIZARD") == W1
    assert parse_card("J") == parse_card("j") == parse_card("Jester") == parse_card("jester") == J1
    assert parse_cards("W J W J JS") == [W1, J1, W2, J2, card(11, S)]
    assert parse_cards(["W", "W", "w", "Wizard"]) == [W1, W2, W3, W4]
    assert parse_cards("AS, 10H,TD  2C") == [card(14, S), card(10, H), card(10, D), card(2, C)]


@pytest.mark.parametrize("bad", ["XY", "1H", "11S", "AZ", "A", "10", "ZZZ", "W1"])
def test_unknown_card_errors_name_the_token(bad):
    with pytest.raises(ConfigError, match=re.escape(repr(bad))):
        parse_cards(f"AS {bad} 2C")


def test_duplicate_suited_card_is_an_error_naming_the_token():
    with pytest.raises(ConfigError, match="'as'"):
        parse_cards("AS 2C as")
    with pytest.raises(ConfigError, match="'10H'"):
        parse_cards("TH 10H")


def test_more_than_four_jesters_is_an_error():
    with pytest.raises(ConfigError, match="Jester"):
        parse_cards("J J J J J")


def test_more_than_four_wizards_is_an_error():
    with pytest.raises(ConfigError, match="Wizard"):
        parse_cards("W W W W W")


def test_format_hand_orders_wizards_suits_high_to_low_then_jesters():
    hand = mask([J2, card(2, C), card(14, S), W3, card(10, H), card(13, S)])
    assert format_hand(hand) == "W AS KS 10H 2C J"


# =============================================================================== sim.Rules validation


@pytest.mark.parametrize("players", [2, 7, 0, -1])
def test_rules_rejects_player_counts(players):
    with pytest.raises(ConfigError, match="players"):
        sim.Rules(players=players)


@pytest.mark.parametrize("players, rounds", [(4, (0,)), (4, (16,)), (3, (21,)), (6, (1, 11)), (5, ())])
def test_rules_rejects_round_sizes(players, rounds):
    with pytest.raises(ConfigError):
        sim.Rules(players=players, rounds=rounds)


def test_rules_round_sizes():
    assert sim.Rules(players=3).round_sizes == tuple(range(1, 21))
    assert sim.Rules(players=6).round_sizes == tuple(range(1, 11))
    assert sim.Rules(players=4, rounds=(15, 1, 7)).round_sizes == (1, 7, 15)
    with pytest.raises(ConfigError):
        sim.Rules(players=4, rounds=(3, 3))


@pytest.mark.parametrize("bidding", ["hidden", "delayed"])
@pytest.mark.parametrize("even_bids", ["forbidden", "leader"])
def test_rules_rejects_restriction_without_last_bidder(bidding, even_bids):
    with pytest.raises(ConfigError, match=even_bids):
        sim.Rules(players=4, bidding=bidding, even_bids=even_bids)
    sim.Rules(players=4, bidding=bidding)  # allowed is fine


def test_rules_rejects_unknown_modes():
    with pytest.raises(ConfigError, match="bidding"):
        sim.Rules(bidding="secret")
    with pytest.raises(ConfigError, match="even_bids"):
        sim.Rules(even_bids="never")


@pytest.mark.parametrize("first_dealer", [4, -1, "4", "x", "", "-1", 7])
def test_rules_rejects_bad_first_dealer(first_dealer):
    with pytest.raises(ConfigError, match="first_dealer"):
        sim.Rules(players=4, first_dealer=first_dealer)


@pytest.mark.parametrize("kwargs", [{"rounds": (2.5,)}, {"first_dealer": 1.5}, {"first_dealer": True}])
def test_rules_rejects_non_integer_rounds_and_first_dealer(kwargs):
    with pytest.raises(ConfigError):
        sim.Rules(players=4, **kwargs)


def test_rules_first_dealer_record():
    assert sim.Rules(players=4, first_dealer="2").first_dealer == 2
    assert sim.Rules(players=4, first_dealer=3).to_record()["first_dealer"][0] == 3
    assert sim.Rules(players=4).to_record()["first_dealer"][0] == st.FIRST_DEALER_DRAW
    record = sim.Rules(players=5, bidding="open", even_bids="leader").to_record()[0]
    assert (record["n_players"], record["bidding"], record["even_bids"]) == (5, st.BIDDING_OPEN, st.EVEN_BIDS_LEADER)


# =============================================================================== sim.policies.registry parsing


def test_unknown_policy():
    with pytest.raises(ConfigError, match="unknown policy 'greedy'"):
        parse_policy("greedy")
    with pytest.raises(ConfigError, match="unknown policy"):
        parse_policies("random,greedy,random", 3)


def test_unknown_parameter():
    with pytest.raises(ConfigError, match="boldness"):
        parse_policy("heuristic:boldness=2")
    with pytest.raises(ConfigError, match="aggression"):
        parse_policy("random:aggression=1")  # random takes no parameters
    with pytest.raises(ConfigError, match="number"):
        parse_policy("heuristic:aggression=high")


def test_wrong_number_of_seat_policies():
    with pytest.raises(ConfigError, match="2 policies for 4 players"):
        parse_policies("random,heuristic", 4)
    with pytest.raises(ConfigError):
        parse_policies("random,random,random,random,random", 4)
    with pytest.raises(ConfigError):
        sim.run_games(sim.Rules(players=3, rounds=(1,)), "random,random", seed=1, games=1)


def test_parameters_split_from_policy_list():
    assert split_policy_list("heuristic:aggression=1.2,random") == ["heuristic:aggression=1.2", "random"]
    assert split_policy_list("heuristic:aggression=1.2,crowding=0.3,random,heuristic") == [
        "heuristic:aggression=1.2,crowding=0.3",
        "random",
        "heuristic",
    ]
    policies = parse_policies("heuristic:aggression=1.2,random,random,heuristic", 4)
    assert [p.name for p in policies] == ["heuristic", "random", "random", "heuristic"]
    names = [name for name, _ in policies[0].kind.parameters]
    defaults = dict(policies[0].kind.parameters)
    assert policies[0].params[names.index("aggression")] == 1.2
    assert policies[3].params == tuple(defaults[n] for n in names)
    assert policies[0].label == "heuristic:aggression=1.2" and policies[3].label == "heuristic"


def test_a_label_reads_back_as_the_same_policy():
    """run.json records policies by label: a value with more than 6 significant digits is
    written in full (it was once written `0.15` for 0.1500001, another policy on resume)."""
    for text in ("heuristic:crowding=0.1500001", "heuristic:aggression=2", "heuristic:aggression=1.25", "mc:samples=24",
                 "heuristic:wizard_win=0.123456789"):  # fmt: skip
        policy = parse_policy(text)
        assert policy.label == text
        assert parse_policy(policy.label).params == policy.params


def test_one_policy_with_parameters_fills_every_seat():
    policies = parse_policies("heuristic:aggression=1.2,crowding=0.3", 5)
    assert len(policies) == 5 and len({p.params for p in policies}) == 1
    ids, params = policy_arrays(policies)
    names = [name for name, _ in policies[0].kind.parameters]
    assert list(params[:5, names.index("crowding")]) == [0.3] * 5
    assert list(params[:5, names.index("aggression")]) == [1.2] * 5


def test_policy_arrays_ids_per_seat():
    from kernels.dispatch import POLICY_HEURISTIC, POLICY_RANDOM

    ids, params = policy_arrays(parse_policies("random,heuristic,random", 3))
    assert list(ids[:3]) == [POLICY_RANDOM, POLICY_HEURISTIC, POLICY_RANDOM]


def test_pdep_only_where_it_is_one_fast_instruction():
    """nth_set_bit takes pdep on BMI2 CPUs except AMD's cores that run it as microcode."""
    from kernels.bits import pdep_is_fast

    assert pdep_is_fast("+sse4.2,+bmi2,+avx2", "haswell")
    assert pdep_is_fast("+bmi2", "znver3")
    assert not pdep_is_fast("+bmi2,+avx2", "znver2")
    assert not pdep_is_fast("+bmi2", "znver1")
    assert not pdep_is_fast("+bmi2", "bdver4")
    assert not pdep_is_fast("-bmi2,+avx", "sandybridge")


def test_nth_set_bit_forms_agree():
    """The BMI2 (pdep) and portable forms of the random card pick give the same card."""
    from kernels.bits import HAS_PDEP, nth_set_bit_by_loop, nth_set_bit_by_pdep

    rng = np.random.default_rng(5)
    for bits_mask in [1, 0b1011010, (1 << 60) - 1, *rng.integers(1, 1 << 60, size=200)]:
        set_bits = [i for i in range(60) if (int(bits_mask) >> i) & 1]
        for n, expected in enumerate(set_bits):
            assert nth_set_bit_by_loop(int(bits_mask), n) == expected
            if HAS_PDEP:
                assert nth_set_bit_by_pdep(int(bits_mask), n) == expected
