"""Unit tests of the pure-Python reference engine (tests/reference.py) on hand-built
cases taken from docs/rules.md and docs/randomness.md."""
import pytest

import reference as ref

C, D, H, S = 0, 1, 2, 3
W1, W2, W3, W4 = 52, 53, 54, 55
J1, J2, J3, J4 = 56, 57, 58, 59

def card(rank, suit):
    """Card id of a suited card; rank 2..14 (J=11, Q=12, K=13, A=14)."""
    return suit * 13 + (rank - 2)


# --------------------------------------------------------------------------- RNG

def test_mix64_known_values():
    assert ref.mix64(0) == 0
    # First outputs of the standard SplitMix64 generator started from state 0.
    s = 0
    outs = []
    for _ in range(3):
        s = (s + 0x9E3779B97F4A7C15) & ref.MASK64
        outs.append(ref.mix64(s))
    assert outs == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_stream_is_deterministic_and_keyed():
    a = ref.Stream(7, 3, 5, ref.STREAM_DEAL)
    b = ref.Stream(7, 3, 5, ref.STREAM_DEAL)
    xs = [a.next() for _ in range(5)]
    assert xs == [b.next() for _ in range(5)]
    assert all(0 <= x <= ref.MASK64 for x in xs)
    other = ref.Stream(7, 3, 5, ref.STREAM_DECISIONS)
    assert [other.next() for _ in range(5)] != xs
    # Initial state follows the documented key derivation.
    h = ref.mix64(7)
    h = ref.mix64(h ^ 3)
    h = ref.mix64(h ^ (5 * 256 + 1))
    assert ref.Stream(7, 3, 5, 1).state == h


def test_below_range_and_lemire():
    st = ref.Stream(1, 0, 1, ref.STREAM_DECISIONS)
    for n in (1, 2, 3, 4, 7, 60, 1000, (1 << 32) - 1):
        for _ in range(20):
            assert 0 <= st.below(n) < n
    # below(n) equals the high 32 bits of (next()>>32)*n when no rejection happens.
    s1 = ref.Stream(2, 0, 1, 2)
    s2 = ref.Stream(2, 0, 1, 2)
    for n in (3, 10, 60):
        x = s2.next() >> 32
        assert s1.below(n) == (x * n) >> 32  # rejection needs low < t, ~n/2**32 chance
    with pytest.raises(ValueError):
        st.below(0)


# --------------------------------------------------------------------------- deal

@pytest.mark.parametrize("n_players", [3, 4, 5, 6])
def test_deal_round_invariants(n_players):
    last = 60 // n_players
    for r in (1, 2, last - 1, last):
        hands, turned = ref.deal_round(11, 4, n_players, r)
        assert len(hands) == n_players
        assert all(len(h) == r for h in hands)
        assert all(h == sorted(h) for h in hands)
        cards = [c for h in hands for c in h]
        assert len(set(cards)) == len(cards)
        assert all(0 <= c < 60 for c in cards)
        if r == last:
            assert turned == -1
        else:
            assert 0 <= turned < 60
            assert turned not in cards
    # Deterministic.
    assert ref.deal_round(11, 4, n_players, 2) == ref.deal_round(11, 4, n_players, 2)


def test_deal_last_round_uses_whole_deck():
    hands, turned = ref.deal_round(0, 0, 4, 15)
    assert turned == -1
    assert sorted(c for h in hands for c in h) == list(range(60))


def test_deal_matches_spec_by_hand():
    st = ref.Stream(5, 1, 2, ref.STREAM_DEAL)
    deck = list(range(60))
    for i in range(3 * 2 + 1):
        j = i + st.below(60 - i)
        deck[i], deck[j] = deck[j], deck[i]
    hands, turned = ref.deal_round(5, 1, 3, 2)
    assert hands == [sorted(deck[0:2]), sorted(deck[2:4]), sorted(deck[4:6])]
    assert turned == deck[6]


def test_draw_first_dealer_range_and_determinism():
    for n in (3, 4, 5, 6):
        for game in range(10):
            d = ref.draw_first_dealer(123, game, n)
            assert 0 <= d < n
            assert d == ref.draw_first_dealer(123, game, n)
    seen = {ref.draw_first_dealer(9, g, 4) for g in range(40)}
    assert len(seen) > 1


def test_draw_values():
    assert ref.draw_value(W1) == 15
    assert ref.draw_value(J4) == 1
    assert ref.draw_value(card(14, S)) == 14
    assert ref.draw_value(card(2, C)) == 2


# --------------------------------------------------------------------------- cards / trump

def test_card_suit():
    assert ref.card_suit(card(2, C)) == C
    assert ref.card_suit(card(14, C)) == C
    assert ref.card_suit(card(10, D)) == D
    assert ref.card_suit(card(11, H)) == H
    assert ref.card_suit(card(14, S)) == S == ref.card_suit(51)
    assert ref.card_suit(W1) == -1
    assert ref.card_suit(J4) == -1


def test_trump_from_turned_card():
    assert ref.trump_from_turned_card(card(5, H)) == H
    assert ref.trump_from_turned_card(card(14, C)) == C
    assert ref.trump_from_turned_card(J2) == -1
    assert ref.trump_from_turned_card(-1) == -1
    assert ref.trump_from_turned_card(W3) == "dealer_chooses"


# --------------------------------------------------------------------------- trick winner

def test_first_wizard_wins():
    assert ref.trick_winner([card(14, H), W2, W1, card(3, S)], S) == 1
    assert ref.trick_winner([W4, W1, W2], -1) == 0
    assert ref.trick_winner([J1, card(14, S), W3], S) == 2


def test_trump_beats_led_suit():
    assert ref.trick_winner([card(14, H), card(2, S), card(13, H)], S) == 1
    assert ref.trick_winner([card(14, H), card(2, S), card(3, S), card(13, H)], S) == 2


def test_highest_of_led_suit():
    # No trump played: highest of the led suit, off-suit cards cannot win.
    assert ref.trick_winner([card(10, H), card(14, D), card(12, H)], C) == 2
    assert ref.trick_winner([card(10, H), card(14, D), card(9, H)], -1) == 0


def test_all_jesters_first_jester_wins():
    assert ref.trick_winner([J3, J1, J2], H) == 0
    assert ref.trick_winner([J2, J1, J4, J3], -1) == 0


def test_jester_then_wizard():
    assert ref.trick_winner([J1, W1, card(14, S)], S) == 1


def test_jester_then_suit_sets_led_suit():
    # Jester led, then a heart: hearts are led, the higher heart wins.
    assert ref.trick_winner([J1, card(5, H), card(14, D), card(9, H)], -1) == 3
    assert ref.trick_winner([J1, card(5, H), card(14, D)], C) == 1
    # ... but a trump still beats it.
    assert ref.trick_winner([J1, card(5, H), card(2, C)], C) == 2


# --------------------------------------------------------------------------- follow suit

def test_any_card_may_be_led():
    hand = [card(3, C), card(14, H), W1, J1]
    assert ref.legal_cards(hand, []) == sorted(hand)


def test_must_follow_led_suit_but_wizard_jester_always_allowed():
    hand = [card(3, C), card(14, H), card(2, H), W1, J1]
    assert ref.legal_cards(hand, [card(10, H)]) == sorted([card(14, H), card(2, H), W1, J1])


def test_void_in_led_suit_plays_anything():
    hand = [card(3, C), card(14, S), J2]
    assert ref.legal_cards(hand, [card(10, H)]) == sorted(hand)


def test_wizard_led_anything():
    hand = [card(3, C), card(14, H), J1]
    assert ref.legal_cards(hand, [W1]) == sorted(hand)
    assert ref.legal_cards(hand, [W1, card(5, H)]) == sorted(hand)


def test_jester_led_then_only_jesters_anything():
    hand = [card(3, C), card(14, H), W2]
    assert ref.legal_cards(hand, [J1]) == sorted(hand)
    assert ref.legal_cards(hand, [J1, J2]) == sorted(hand)


def test_jester_led_then_suit_must_follow_that_suit():
    hand = [card(3, C), card(14, H), W2]
    assert ref.legal_cards(hand, [J1, card(5, C)]) == sorted([card(3, C), W2])


def test_jester_led_then_wizard_frees_trick():
    hand = [card(3, C), card(14, H)]
    assert ref.legal_cards(hand, [J1, W1, card(5, C)]) == sorted(hand)


# --------------------------------------------------------------------------- scoring

def test_round_score_examples():
    assert ref.round_score(4, 4) == 60
    assert ref.round_score(5, 3) == -20
    assert ref.round_score(0, 0) == 20
    assert ref.round_score(1, 3) == -20
    assert ref.round_score(0, 2) == -20


# --------------------------------------------------------------------------- bids

def test_legal_bids_allowed():
    assert ref.legal_bids(3, [1, 1], True, "allowed", True) == [0, 1, 2, 3]
    assert ref.legal_bids(3, [], False, "allowed", False) == [0, 1, 2, 3]


def test_legal_bids_forbidden():
    assert ref.legal_bids(3, [1, 1], True, "forbidden", False) == [0, 2, 3]
    assert ref.legal_bids(3, [1, 1], False, "forbidden", False) == [0, 1, 2, 3]
    # Earlier bids already over r: nothing to forbid.
    assert ref.legal_bids(3, [2, 2], True, "forbidden", False) == [0, 1, 2, 3]
    assert ref.legal_bids(1, [0, 0], True, "forbidden", False) == [0]
    assert ref.legal_bids(1, [1, 0], True, "forbidden", False) == [1]


def test_legal_bids_leader():
    assert ref.legal_bids(3, [1, 1], True, "leader", True) == [0, 2, 3]
    assert ref.legal_bids(3, [1, 1], True, "leader", False) == [0, 1, 2, 3]
    assert ref.legal_bids(3, [1, 1], False, "leader", True) == [0, 1, 2, 3]


def test_sole_leader():
    assert ref.is_sole_leader([30, 20, 10], 0)
    assert not ref.is_sole_leader([30, 30, 10], 0)
    assert not ref.is_sole_leader([0, 0, 0], 2)
    assert not ref.is_sole_leader([10, 20, 10], 0)


def test_game_winners_ties_share():
    assert ref.game_winners([10, 40, 30]) == [False, True, False]
    assert ref.game_winners([40, 40, -10]) == [True, True, False]
    assert ref.game_winners([-10, -20, -30]) == [True, False, False]


# --------------------------------------------------------------------------- replay

def test_replay_round_by_hand():
    # 3 players, dealer 2 -> seat 0 leads; hearts trump.
    hands = [[card(14, C), card(2, H)], [card(3, C), W1], [card(10, C), J1]]
    # Trick 0: seat 0 AC, seat 1 3C, seat 2 10C -> seat 0 wins.
    # Trick 1: seat 0 2H, seat 1 W, seat 2 J -> seat 1 wins.
    cards = [card(14, C), card(3, C), card(10, C), card(2, H), W1, J1]
    out = ref.replay_round(3, 2, hands, H, [1, 1, 0], cards)
    assert out["seats"] == [0, 1, 2, 0, 1, 2]
    assert out["trick_winners"] == [0, 1]
    assert out["tricks"] == [1, 1, 0]
    assert out["scores"] == [30, 30, 20]
    assert out["legal"][1] == [card(3, C), W1]
    assert out["legal"][2] == [card(10, C), J1]


def test_replay_round_winner_leads_next():
    hands = [[card(2, C), card(5, D)], [card(3, C), card(6, D)], [card(14, C), card(4, D)]]
    # Dealer 0 -> seat 1 leads trick 0; seat 2 wins with AC and leads trick 1.
    cards = [card(3, C), card(14, C), card(2, C), card(4, D), card(5, D), card(6, D)]
    out = ref.replay_round(3, 0, hands, -1, [0, 0, 0], cards)
    assert out["seats"] == [1, 2, 0, 2, 0, 1]
    assert out["trick_winners"] == [2, 1]


def test_replay_round_rejects_illegal_and_missing_cards():
    hands = [[card(14, C), card(2, H)], [card(3, C), card(4, H)], [card(10, C), J1]]
    # Seat 1 holds a club but plays a heart.
    with pytest.raises(AssertionError, match="not legal"):
        ref.replay_round(3, 2, hands, -1, [0, 0, 0],
                         [card(14, C), card(4, H), card(10, C), card(2, H), card(3, C), J1])
    # Seat 1 plays a card it does not hold.
    with pytest.raises(AssertionError, match="not in its hand"):
        ref.replay_round(3, 2, hands, -1, [0, 0, 0],
                         [card(14, C), card(5, C), card(10, C), card(2, H), card(3, C), J1])


# --------------------------------------------------------------------------- whole game

def test_play_game_consistency():
    n = 4
    g = ref.play_game(42, 3, n, [1, 2, 3, 15])
    assert 0 <= g["first_dealer"] < n
    assert g["first_dealer"] == ref.draw_first_dealer(42, 3, n)
    totals = [0] * n
    for rnd in g["rounds"]:
        r = rnd["round"]
        assert rnd["dealer"] == (g["first_dealer"] + r - 1) % n
        hands, turned = ref.deal_round(42, 3, n, r)
        assert rnd["hands"] == hands and rnd["trump_card"] == turned
        if r == 15:
            assert rnd["trump"] == -1
        assert all(0 <= b <= r for b in rnd["bids"])
        assert sorted(rnd["bid_order"]) == list(range(n))
        assert rnd["bid_order"][(rnd["dealer"] + 1) % n] == 0
        assert rnd["bid_order"][rnd["dealer"]] == n - 1
        assert len(rnd["plays"]) == n * r
        assert sum(rnd["tricks"]) == r
        out = ref.replay_round(n, rnd["dealer"], rnd["hands"], rnd["trump"], rnd["bids"],
                               [p["card"] for p in rnd["plays"]])
        assert out["seats"] == [p["seat"] for p in rnd["plays"]]
        assert out["legal"] == [p["legal"] for p in rnd["plays"]]
        assert out["trick_winners"] == rnd["trick_winners"]
        assert out["tricks"] == rnd["tricks"]
        assert out["scores"] == rnd["scores"]
        totals = [a + b for a, b in zip(totals, rnd["scores"])]
        assert rnd["totals"] == totals
    assert g["totals"] == totals
    assert g["winners"] == ref.game_winners(totals)


def test_play_game_subset_keeps_dealer_and_deal():
    full = ref.play_game(8, 1, 5, list(range(1, 13)), first_dealer=2)
    part = ref.play_game(8, 1, 5, [4, 7], first_dealer=2)
    by_r = {rnd["round"]: rnd for rnd in full["rounds"]}
    for rnd in part["rounds"]:
        ref_rnd = by_r[rnd["round"]]
        # Round is independent of the others (allowed bids: no dependence on totals).
        for key in ("dealer", "hands", "trump_card", "trump", "bids", "plays", "tricks", "scores"):
            assert rnd[key] == ref_rnd[key]


def test_play_game_even_bids_forbidden_never_sums_to_r():
    for game in range(5):
        g = ref.play_game(1, game, 3, list(range(1, 21)), even_bids="forbidden", first_dealer=0)
        for rnd in g["rounds"]:
            assert sum(rnd["bids"]) != rnd["round"]


def test_play_game_config_errors():
    with pytest.raises(ValueError):
        ref.play_game(0, 0, 4, [1], bidding="hidden", even_bids="forbidden")
    with pytest.raises(ValueError):
        ref.play_game(0, 0, 4, [1], bidding="delayed", even_bids="leader")
    ref.play_game(0, 0, 4, [1, 2], bidding="hidden")
    with pytest.raises(ValueError):
        ref.play_game(0, 0, 4, [16])
    with pytest.raises(ValueError):
        ref.play_game(0, 0, 4, [1], first_dealer=4)


def test_wizard_turned_up_dealer_chooses_from_decisions_stream():
    # Find a round with a Wizard turned up and check the trump is the first below(4).
    found = False
    for game in range(200):
        _, turned = ref.deal_round(3, game, 3, 1)
        if 52 <= turned <= 55:
            g = ref.play_game(3, game, 3, [1], first_dealer=0)
            expected = ref.Stream(3, game, 1, ref.STREAM_DECISIONS).below(4)
            assert g["rounds"][0]["trump"] == expected
            found = True
            break
    assert found
