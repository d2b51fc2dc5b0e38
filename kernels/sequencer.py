"""The fast path: the decision step's twin for seats that play built-in non-search policies.

kernels.round_state's decision step (next_decision / take_decision, looped by play_until with
a decide function) is the reference: every driver can use it and it defines the game. When
every seat of a round plays `random` or `heuristic` (any parameters), `play_on` sequences the
round instead: it knows the phase from where it is in its own loops (trump, then the bids,
then the tricks position by position), keeps the round's DECISIONS stream in a local
variable, and asks the two policies directly, with no decision record, no dispatch over every
policy and no legality check of answers that are legal by construction. The transitions and
rules are the reference's own functions (round_state.apply_trump / apply_bid / seat_plays,
rules.legal_bids / legal_cards), and each policy is its own module's choice
(random_policy.choose_from_state, heuristic.choose_*): only the sequencing is written twice.
When every seat plays `random`, the card play keeps the trick in local variables
(play_random_tricks): `random` reads nothing of the table but its legal mask.

tests/test_fast_path.py holds it bit-identical to play_until with dispatch.decide (every
result and play record, over randomized rules, round lists, seatings, parameters and
seeds). It is used by kernels.fast_games (whole games of built-in seats); everything else,
mc's and pimc's rollouts included (on it they measured slower), takes the decision step.
"""
import numpy as np
from numba import njit

from kernels.bits import at
from kernels.cards import card_bit
from kernels.policies import heuristic
from kernels.policies.ids import POLICY_HEURISTIC, POLICY_RANDOM
from kernels.policies.random_policy import choose_from_state
from kernels.records import LED_NONE, NO_BID, NO_SEAT, PHASE_BID, PHASE_PLAY, PHASE_TRUMP
from kernels.round_state import ALL_SUITS, apply_bid, apply_trump, complete_trick, log_card, seat_plays
from kernels.rules import bidder_at, led_suit_after, legal_bids, legal_cards, looked_up_power, seat_after


# The policies `play_on` plays: the built-in ones that do not search.
FAST_POLICY_IDS = (POLICY_RANDOM, POLICY_HEURISTIC)


@njit(cache=True, inline="always")
def play_on(policy_ids, params, table, seats, generator, fixed_bids, plays, end_trick):
    """round_state.play_until(dispatch.decide, (policy_ids, params), table, seats, generator,
    fixed_bids, plays, end_trick) for seats that all play `random` or `heuristic`
    (FAST_POLICY_IDS): the same records, play log and generator state afterwards. Plays the round
    from its current phase until trick `end_trick` is about to start or the round is over
    (0: until the bidding is done)."""
    state = generator[0]
    if table.phase == PHASE_TRUMP:
        dealer = table.dealer
        if policy_ids[at(dealer)] == POLICY_HEURISTIC:
            suit = heuristic.choose_trump(seats[at(dealer)].hand)
        else:
            suit, state = choose_from_state(ALL_SUITS, state)
        apply_trump(table, suit)
    while table.phase == PHASE_BID:
        position = table.n_bids
        seat = bidder_at(table, position)
        bid = fixed_bids[at(seat)]
        if bid == NO_BID:
            legal = legal_bids(table, seats, position)
            if policy_ids[at(seat)] == POLICY_HEURISTIC:
                bid = heuristic.choose_bid(params, seats[at(seat)], table, legal)
            else:
                bid, state = choose_from_state(legal, state)
        apply_bid(table, seats, bid)
    n_players = table.n_players
    logging = plays.shape[0] > 0
    if table.phase == PHASE_PLAY and table.n_in_trick == 0 and all_random(policy_ids, n_players):
        state = play_random_tricks(table, seats, state, plays, end_trick)
    while table.phase == PHASE_PLAY and table.trick < end_trick:
        seat = seat_after(table.leader, table.n_in_trick, n_players)
        me = seats[at(seat)]
        legal = legal_cards(me.hand, table.led_suit)
        if policy_ids[at(seat)] == POLICY_HEURISTIC:
            card = heuristic.choose_card(me, table, legal)
        else:
            card, state = choose_from_state(legal, state)
        first_play = table.trick * n_players
        if logging:
            log_card(plays[first_play + table.n_in_trick], card, seat, legal)
        winner = seat_plays(table, seats, seat, card)
        if logging and winner != NO_SEAT:
            for position in range(n_players):
                plays[first_play + position].winner = winner
    generator[0] = state


@njit(cache=True, inline="always")
def all_random(policy_ids, n_players):
    """Whether every seat plays `random`."""
    for seat in range(n_players):
        if policy_ids[seat] != POLICY_RANDOM:
            return False
    return True


@njit(cache=True, inline="always")
def play_random_tricks(table, seats, state, plays, end_trick):
    """The card play of play_on when every seat plays `random`, from the start of a trick
    until trick `end_trick` is about to start or the round is over; returns the generator
    state. The trick in play is kept in local variables (led suit, winning power and
    position, the seat to act) instead of the table, and each trick is then awarded by the
    reference's own complete_trick: the same cards, play log, tricks, scores and generator
    state. Only the card-by-card public record that no policy at such a table reads
    (table.trick_cards, voids, played_by, winning_power) is not kept."""
    n_players = table.n_players
    trump = table.trump
    logging = plays.shape[0] > 0
    while table.phase == PHASE_PLAY and table.trick < end_trick:
        leader = table.leader
        first_play = table.trick * n_players
        led = LED_NONE
        best = np.int64(0)
        winning_position = 0
        played = np.int64(0)
        seat = leader
        for position in range(n_players):
            me = seats[at(seat)]
            hand = me.hand
            legal = legal_cards(hand, led)
            card, state = choose_from_state(legal, state)
            if logging:
                log_card(plays[first_play + position], card, seat, legal)
            bit = card_bit(card)
            me.hand = hand & ~bit
            played |= bit
            led = led_suit_after(led, card)
            power = looked_up_power(card, led, trump)
            winning_position = position if power > best else winning_position
            best = max(power, best)
            seat = seat_after(seat, 1, n_players)
        table.played |= played
        table.winning_position = winning_position
        winner = complete_trick(table, seats)
        if logging:
            for position in range(n_players):
                plays[first_play + position].winner = winner
    return state


@njit(cache=True, inline="always")
def play_rest(policy_ids, params, table, seats, generator, fixed_bids, plays):
    """play_on to the end of the round (round_state.play_out's twin)."""
    play_on(policy_ids, params, table, seats, generator, fixed_bids, plays, table.round_size)
