"""A round of Wizard as a small state machine (the OpenSpiel convention).

The table knows its phase (kernels.records.PHASE_*) and so whose turn it is; `legal_actions`
gives the mask of what that seat may do and `apply_action` (or the transition of the phase:
`apply_trump`, `apply_bid`, `apply_card`) advances the round:

    begin_round -> PHASE_DEAL --turn_up--> PHASE_TRUMP (a Wizard) --apply_trump--> PHASE_BID
                                      \\--> PHASE_BID --apply_bid x N--> PHASE_PLAY
                  PHASE_PLAY --apply_card x N*r--> PHASE_DONE (bids shown, scores added)

Every driver — the batch of whole games, estimate's and mc's rollouts, the environments —
moves a round only through these transitions, and `play_out` is the one loop that asks a
decision function for every action until the round ends. The rules themselves (legal bids
and cards, what a card does to the trick, scoring) are the functions of kernels.rules.
"""
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
    DECIDE_BID,
    DECIDE_CARD,
    DECIDE_TRUMP,
    LED_NONE,
    MAX_PLAYERS,
    NO_BID,
    NO_SEAT,
    PHASE_BID,
    PHASE_DEAL,
    PHASE_DONE,
    PHASE_PLAY,
    PHASE_TRUMP,
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


# --- whose turn, what is legal ----------------------------------------------------------


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


@njit(cache=True)
def legal_actions(table, seats):
    """Mask of the legal answers of the seat to act (bits are suits, bids or card ids as the
    phase's decision says); 0 when no seat acts."""
    phase = table.phase
    if phase == PHASE_PLAY:
        return legal_cards(seats[at(current_seat(table))].hand, table.led_suit)
    if phase == PHASE_BID:
        return legal_bids(table, seats, table.n_bids)
    if phase == PHASE_TRUMP:
        return ALL_SUITS
    return 0


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
    play_card(table, seats, seat_after(table.leader, table.n_in_trick, table.n_players), card)
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
def apply_action(table, seats, action):
    """Apply the seat to act's answer to the phase's decision (it must be legal)."""
    phase = table.phase
    if phase == PHASE_PLAY:
        apply_card(table, seats, action)
    elif phase == PHASE_BID:
        apply_bid(table, seats, action)
    elif phase == PHASE_TRUMP:
        apply_trump(table, action)


@njit(cache=True)
def bidding_view(table, position, view, bidders):
    """Rebuild in `view` (a TABLE_DTYPE record) the public table as the seat bidding at
    `position` saw it: the round begun again with the same dealer, turned-up card, trump and
    score pad, and the earlier positions' bids made — shown only under open bidding (under
    the other modes nobody sees them while bidding, so they need not be known). `bidders`
    (SEAT_DTYPE records) receives those bids, which legal_bids reads. Returns the mask of the
    bids legal at that position."""
    set_rules(view, table)
    for seat in range(MAX_PLAYERS):
        view.totals[seat] = table.totals[seat]
    begin_round(view, bidders, table.round_size, table.dealer)
    turn_up_known(view, table.trump_card, table.trump)
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


# --- the driver -------------------------------------------------------------------------


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
def play_bidding(decide, policies, table, seats, generator, fixed_bids):
    """Play the trump choice and the bidding, asking
    decide(policies, decision, own seat record, table, legal, generator) for every action,
    except that a seat with fixed_bids[seat] != NO_BID bids that."""
    if table.phase == PHASE_TRUMP:
        dealer = seats[at(table.dealer)]
        apply_trump(table, checked(decide(policies, DECIDE_TRUMP, dealer, table, ALL_SUITS, generator), ALL_SUITS))
    while table.phase == PHASE_BID:
        position = table.n_bids
        seat = bidder_at(table, position)
        bid = fixed_bids[at(seat)]
        if bid == NO_BID:
            legal = legal_bids(table, seats, position)
            bid = checked(decide(policies, DECIDE_BID, seats[at(seat)], table, legal, generator), legal)
        apply_bid(table, seats, bid)


@njit(cache=True, inline="always")
def log_card(play, card, seat, legal):
    """A card's entry in a round's play log (a PLAY_DTYPE record): the card, its seat and the
    mask of the cards it could legally play."""
    play.card = card
    play.seat = seat
    play.legal = legal


@njit(cache=True, inline="always")
def log_trick_winner(plays, first_play, n_players, winner):
    """The trick's winner, in the log entries of its n_players cards from plays[first_play]."""
    for position in range(n_players):
        plays[first_play + position].winner = winner


@njit(cache=True, inline="always")
def play_tricks(decide, policies, table, seats, generator, plays, end_trick):
    """Play cards until trick `end_trick` starts or the round ends, asking `decide` as
    play_bidding does. Logs each card to plays[trick * N + position] (card, seat, legal mask,
    trick winner) unless `plays` is empty (the log's stores cost about a tenth of a game)."""
    logging = plays.shape[0] > 0
    n_players = table.n_players
    while table.phase == PHASE_PLAY and table.trick < end_trick:
        # A trick at a time (apply_card's two steps, play_card then complete_trick): the
        # positions come from the loop, not from the table after every card.
        first_play = table.trick * n_players
        for position in range(table.n_in_trick, n_players):
            seat = seat_after(table.leader, position, n_players)
            me = seats[at(seat)]
            legal = legal_cards(me.hand, table.led_suit)
            card = checked(decide(policies, DECIDE_CARD, me, table, legal, generator), legal)
            if logging:
                log_card(plays[first_play + position], card, seat, legal)
            play_card(table, seats, seat, card)
        winner = complete_trick(table, seats)
        if logging:
            log_trick_winner(plays, first_play, n_players, winner)


@njit(cache=True, inline="always")
def play_out(decide, policies, table, seats, generator, fixed_bids, plays):
    """Play the round from its current phase to the end (play_bidding, then play_tricks)."""
    play_bidding(decide, policies, table, seats, generator, fixed_bids)
    play_tricks(decide, policies, table, seats, generator, plays, table.round_size)
