"""A round of Wizard as a small state machine (the OpenSpiel convention).

The table knows its phase (kernels.records.PHASE_*) and so whose turn it is; `legal_actions`
gives the mask of what that seat may do and `apply_action` (or the transition of the phase:
`apply_trump`, `apply_bid`, `apply_card`) advances the round:

    begin_round -> PHASE_DEAL --turn_up--> PHASE_TRUMP (a Wizard) --apply_trump--> PHASE_BID
                                      \\--> PHASE_BID --apply_bid x N--> PHASE_PLAY
                  PHASE_PLAY --apply_card x N*r--> PHASE_DONE (bids shown, scores added)

Every driver — the batch of whole games, estimate's and mc's rollouts, the environments, the
Python-seat driver, estimate's stepped rollouts — moves a round through one decision step:
`next_decision` (who decides what next, with its legal mask; the bids fixed in advance are
made on the way) and `take_decision` (the answer applied; a card logged on the way).
`play_until` / `play_out` loop them with a decision function; kernels.game_state stops
between them when a caller decides. The rules themselves (legal bids and cards, what a card
does to the trick, scoring) are the functions of kernels.rules.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from kernels.bits import at
from kernels.cards import NO_CARD, NO_SUIT
from kernels.rules import (
    bidder_at,
    deal,
    finish_trick,
    legal_bids,
    legal_cards,
    play_card,
    record_bid,
    reveal_bids,
    reveals_bids_after_play,
    reveals_bids_before_play,
    round_score,
    seat_after,
    trump_of_turned_card,
)
from kernels.records import (
    BIDDING_OPEN,
    DEALER_CHOOSES_TRUMP,
    LED_NONE,
    MAX_PLAYERS,
    NO_BID,
    NO_SEAT,
    PHASE_BID,
    PHASE_DEAL,
    PHASE_DONE,
    PHASE_PLAY,
    PHASE_TRUMP,
    PLAY_DTYPE,
)

ALL_SUITS = 0b1111  # the legal mask of the dealer's trump choice


# --- starting a round -------------------------------------------------------------------


@njit(cache=True)
def set_rules(table, rules):
    """The table plays under `rules`: any record with n_players, bidding and even_bids (a
    RULES_DTYPE record, or another table)."""
    table.n_players = rules.n_players
    table.bidding = rules.bidding
    table.even_bids = rules.even_bids


@njit(cache=True)
def begin_round(table, seats, round_size, dealer):
    """Reset the table's per-round fields (the score pad, totals, carries over) and wait for
    the deal."""
    table.round_size = round_size
    table.phase = PHASE_DEAL
    table.dealer = dealer
    table.trump_card = NO_CARD
    table.trump = NO_SUIT
    table.n_bids = 0
    table.trick = 0
    table.leader = seat_after(dealer, 1, table.n_players)
    table.n_in_trick = 0
    table.led_suit = LED_NONE
    table.winning_position = 0
    table.winning_power = 0
    table.played = 0
    for seat in range(MAX_PLAYERS):
        table.bids[seat] = NO_BID
        table.tricks[seat] = 0
        table.trick_cards[seat] = NO_CARD
        table.voids[seat] = 0
        table.played_by[seat] = 0
        seats[seat].seat = seat
        seats[seat].hand = 0
        seats[seat].dealt = 0
        seats[seat].bid = NO_BID


@njit(cache=True)
def turn_up(table, card):
    """The deal's turned-up card (NO_CARD: none) sets the trump suit; a Wizard leaves the
    choice to the dealer (docs/rules.md §3)."""
    table.trump_card = card
    table.trump = trump_of_turned_card(card)
    table.phase = PHASE_TRUMP if table.trump == DEALER_CHOOSES_TRUMP else PHASE_BID


@njit(cache=True)
def deal_round(seed, game, table, seats, scratch):
    """Deal the begun round of game (seed, game) from its DEAL stream and turn up a card."""
    turn_up(table, deal(seed, game, table, seats, scratch))


@njit(cache=True)
def set_hands(table, seats, hands, turned_card, trump):
    """Start the begun round from known cards instead of a deal: hands[seat] for every seat,
    the turned-up card and, after a turned-up Wizard, the suit the dealer chose."""
    for seat in range(table.n_players):
        seats[seat].hand = hands[seat]
        seats[seat].dealt = hands[seat]
    turn_up_known(table, turned_card, trump)


@njit(cache=True)
def turn_up_known(table, turned_card, trump):
    """The turned-up card and, after a Wizard, the suit the dealer chose: a round rebuilt
    from what a seat knows rather than dealt."""
    turn_up(table, turned_card)
    if table.phase == PHASE_TRUMP:
        apply_trump(table, trump)


# --- transitions ------------------------------------------------------------------------


@njit(cache=True)
def apply_trump(table, suit):
    """The dealer names the trump suit; bidding starts."""
    table.trump = suit
    table.phase = PHASE_BID


@njit(cache=True, inline="always")
def apply_bid(table, seats, bid):
    """The seat to act bids; after the last bid, hidden bids are shown and play starts."""
    record_bid(table, seats, bidder_at(table, table.n_bids), bid)
    table.n_bids += 1
    if table.n_bids == table.n_players:
        if reveals_bids_before_play(table.bidding):
            reveal_bids(table, seats)
        table.phase = PHASE_PLAY


@njit(cache=True)
def end_round(table, seats):
    """After the last trick: delayed bids are shown and the round scores go on the pad."""
    if reveals_bids_after_play(table.bidding):
        reveal_bids(table, seats)
    for seat in range(table.n_players):
        table.totals[seat] += round_score(seats[seat].bid, table.tricks[seat])
    table.phase = PHASE_DONE


@njit(cache=True, inline="always")
def apply_card(table, seats, card):
    """The seat to act plays `card`; a complete trick is awarded and the last one ends the
    round. Returns the seat that took the trick, NO_SEAT while it is incomplete."""
    return seat_plays(table, seats, seat_after(table.leader, table.n_in_trick, table.n_players), card)


@njit(cache=True, inline="always")
def seat_plays(table, seats, seat, card):
    """apply_card for the seat to act, `seat`, known to the caller."""
    play_card(table, seats, seat, card)
    if table.n_in_trick < table.n_players:
        return NO_SEAT
    return complete_trick(table, seats)


@njit(cache=True, inline="always")
def complete_trick(table, seats):
    """After the trick's last card: award it (its winner leads next); the last trick ends the
    round. Returns the seat that took it."""
    winner = finish_trick(table)
    if table.trick == table.round_size:
        end_round(table, seats)
    return winner


@njit(cache=True)
def view_at_turn_up(table, view, bidders):
    """Rebuild in `view` (a TABLE_DTYPE record) the public table of `table`'s round as it was
    when the card was turned up: the round begun again with the same dealer, turned-up card
    and score pad, no trump named and no bid made. `bidders` (SEAT_DTYPE records) are its
    seats."""
    set_rules(view, table)
    for seat in range(MAX_PLAYERS):
        view.totals[seat] = table.totals[seat]
    begin_round(view, bidders, table.round_size, table.dealer)
    turn_up(view, table.trump_card)


@njit(cache=True)
def trump_view(table, view, bidders):
    """The table as the dealer saw it when it named trump after a turned-up Wizard
    (view_at_turn_up). Returns the mask of the legal answers (every suit)."""
    view_at_turn_up(table, view, bidders)
    return ALL_SUITS


@njit(cache=True)
def bidding_view(table, position, view, bidders):
    """The table as the seat bidding at `position` saw it (view_at_turn_up): the trump named
    and the earlier positions' bids made — shown only under open bidding (under the other
    modes nobody sees them while bidding, so they need not be known). `bidders` receives
    those bids, which legal_bids reads. Returns the mask of the bids legal at that position."""
    view_at_turn_up(table, view, bidders)
    if view.phase == PHASE_TRUMP:
        apply_trump(view, table.trump)
    make_earlier_bids(view, bidders, table.bids, position)
    return legal_bids(view, bidders, position)


@njit(cache=True)
def make_earlier_bids(table, seats, bids, position):
    """Make the bids of bidding positions 0..position-1 (bids[seat] for each seat) on a table
    in its bidding, as they were seen: shown under open bidding; under the other modes nobody
    sees them while bidding, so they need not be known and are only counted."""
    for earlier in range(position):
        if table.bidding == BIDDING_OPEN:
            apply_bid(table, seats, bids[bidder_at(table, earlier)])
        else:
            table.n_bids += 1


@njit(cache=True)
def restart_bidding(table, seats):
    """Take back every bid of a round still in its bidding (rollouts replay it with some bids
    imposed, kernels.round_state.play_out)."""
    table.n_bids = 0
    for seat in range(MAX_PLAYERS):
        table.bids[seat] = NO_BID
        seats[seat].bid = NO_BID
    table.phase = PHASE_BID


# --- the decision step ------------------------------------------------------------------
#
# Every driver moves a round through the same two functions: next_decision says who decides
# what next (making the bids fixed in advance on the way), take_decision applies the answer
# (logging a card on the way). play_out loops them with a decision function; the game states
# of the environments, the Python-seat driver and estimate's stepped rollouts
# (kernels.game_state) stop between them when a caller decides.

# The decision a round waits for: the seat to act, the decision kind (DECIDE_*, which is the
# table's phase) and the mask of its legal answers. seat is NO_SEAT when no seat acts.
Decision = namedtuple("Decision", ("seat", "kind", "legal"))

NO_PLAY_LOG = np.zeros(0, dtype=PLAY_DTYPE)  # the play log of a driver that keeps none


@njit(cache=True, inline="always")
def current_seat(table):
    """The seat to act in the table's phase; NO_SEAT before the deal and after the round."""
    phase = table.phase
    if phase == PHASE_PLAY:
        return seat_after(table.leader, table.n_in_trick, table.n_players)
    if phase == PHASE_BID:
        return bidder_at(table, table.n_bids)
    if phase == PHASE_TRUMP:
        return table.dealer
    return NO_SEAT


@njit(cache=True, inline="always")
def pending_decision(table, seats):
    """The decision the round waits for now (before the deal and after the last trick: NO_SEAT
    and an empty mask)."""
    seat = current_seat(table)
    phase = table.phase
    if phase == PHASE_PLAY:
        return Decision(seat, phase, legal_cards(seats[at(seat)].hand, table.led_suit))
    if phase == PHASE_BID:
        return Decision(seat, phase, legal_bids(table, seats, table.n_bids))
    return Decision(seat, phase, ALL_SUITS if phase == PHASE_TRUMP else 0)


@njit(cache=True)
def legal_actions(table, seats):
    """Mask of the legal answers of the seat to act (bits are suits, bids or card ids as the
    phase's decision says); 0 when no seat acts."""
    return pending_decision(table, seats).legal


@njit(cache=True, inline="always")
def next_decision(table, seats, fixed_bids):
    """Make every bid fixed in advance (fixed_bids[seat] != NO_BID: estimate's and mc's
    rollouts) as its turn comes, then return the decision the round waits for."""
    while table.phase == PHASE_BID:
        bid = fixed_bids[at(bidder_at(table, table.n_bids))]
        if bid == NO_BID:
            break
        apply_bid(table, seats, bid)
    return pending_decision(table, seats)


@njit(cache=True, inline="always")
def log_card(play, card, seat, legal):
    """A card's entry in a round's play log (a PLAY_DTYPE record): the card, its seat and the
    mask of the cards it could legally play."""
    play.card = card
    play.seat = seat
    play.legal = legal


@njit(cache=True, inline="always")
def take_decision(table, seats, decision, answer, plays):
    """Apply the acting seat's legal `answer` to `decision` (next_decision's). A card is logged
    to plays[trick * N + position] (card, seat, legal mask; the trick's winner once it is
    complete) unless `plays` is empty; a complete trick is awarded and the last one ends the
    round."""
    if decision.kind == PHASE_PLAY:
        n_players = table.n_players
        first_play = table.trick * n_players
        logging = plays.shape[0] > 0
        if logging:
            log_card(plays[first_play + table.n_in_trick], answer, decision.seat, decision.legal)
        winner = seat_plays(table, seats, decision.seat, answer)
        if logging and winner != NO_SEAT:
            for position in range(n_players):
                plays[first_play + position].winner = winner
    elif decision.kind == PHASE_BID:
        apply_bid(table, seats, answer)
    else:
        apply_trump(table, answer)


@njit(cache=True)
def apply_action(table, seats, action):
    """Apply the seat to act's legal answer to the pending decision (no play log)."""
    take_decision(table, seats, pending_decision(table, seats), action, NO_PLAY_LOG)


class IllegalAction(ValueError):
    """A policy answered `choice`, which is not a set bit of the legal mask. Raised before the
    answer is applied: the round's state still shows the decision (phase, seat to act, legal
    set), which the caller reads to describe it."""

    def __init__(self, choice):
        super().__init__(f"a policy chose the illegal action {choice}")
        self.choice = choice


@njit(cache=True, inline="always")
def checked(choice, legal):
    if choice < 0 or (legal >> choice) & 1 == 0:
        raise IllegalAction(choice)
    return choice


@njit(cache=True, inline="always")
def decided(decide, policies, decision, table, seats, generator):
    """The checked answer of decide(policies, decision kind, own seat record, table, legal,
    generator) to `decision`."""
    me = seats[at(decision.seat)]
    return checked(decide(policies, decision.kind, me, table, decision.legal, generator), decision.legal)


@njit(cache=True, inline="always")
def play_until(decide, policies, table, seats, generator, fixed_bids, plays, end_trick):
    """Play the round from its current phase, asking `decide` for every decision (decided)
    but the fixed bids, until trick `end_trick` is about to start or the round is over (0:
    until the bidding is done). `plays` as in take_decision."""
    while True:
        decision = next_decision(table, seats, fixed_bids)
        if decision.seat == NO_SEAT or (decision.kind == PHASE_PLAY and table.trick >= end_trick):
            return
        take_decision(table, seats, decision, decided(decide, policies, decision, table, seats, generator), plays)


@njit(cache=True, inline="always")
def play_out(decide, policies, table, seats, generator, fixed_bids, plays):
    """Play the round from its current phase to the end (play_until)."""
    play_until(decide, policies, table, seats, generator, fixed_bids, plays, table.round_size)
