"""A whole game whose chance events are given one at a time (OpenSpiel's explicit chance).

The OpenSpiel game (sim/openspiel) keeps a GAME_STATE_DTYPE record (kernels.game_state) with
`records` set, so that a finished round waits at PHASE_DONE, and moves it only through:

- `open_game`: the first dealer (drawn by the caller as a chance outcome, or fixed by the
  rules) begins the first round, not dealt;
- `deal_card`: the next card of the deal, given by the caller; the seats receive round_size
  cards each in seat order (as rules.deal_hands deals them), then the turned-up card, if any
  card is left, goes to round_state.turn_up;
- game_state.apply_flat_action for the players' decisions, and game_state.close_round once a
  round is over;
- `resample`: the other seats' hands (and bids they made that the player has not been shown)
  redrawn, consistent with everything `player` has seen.

So the rules stay those of the round core: this module only says which card lands where.
"""
import numpy as np
from numba import njit

from kernels.bits import at, nth_set_bit, popcount
from kernels.cards import FULL_DECK, N_CARDS, NO_CARD, card_bit
from kernels.game_state import begin_first_round, close_round
from kernels.search.posterior import sample_hands
from kernels.records import MAX_PLAYERS, NO_BID, PHASE_DEAL
from kernels.rng import below
from kernels.round_state import turn_up
from kernels.rules import bid_position, cards_dealt, legal_bids


@njit(cache=True)
def open_game(storage, first_dealer):
    """Begin the game's first round (not dealt) with `first_dealer`; a new state's score pad
    is zero. (Every function here takes the one-record storage array: kernels/blocks.py says
    why a record does not cross the call alone.)"""
    begin_first_round(storage[0], first_dealer)


@njit(cache=True)
def end_round(storage):
    """After a finished round (PHASE_DONE): begin the next one, not dealt, or end the game."""
    close_round(storage[0])


@njit(cache=True)
def dealt_cards(table, seats):
    """The cards dealt so far this round (all seats)."""
    dealt = np.int64(0)
    for seat in range(table.n_players):
        dealt |= seats[seat].dealt
    return dealt


@njit(cache=True)
def deal_outcomes(storage):
    """The cards the next chance event of the deal may give (a mask): every card not dealt
    yet; 0 outside the deal."""
    state = storage[0]
    workspace = state.workspace
    table = workspace.table
    if state.over or table.phase != PHASE_DEAL:
        return np.int64(0)
    return FULL_DECK & ~dealt_cards(table, workspace.seats)


@njit(cache=True)
def deal_card(storage, card):
    """The deal's next card: the next seat's (seat order, round_size each), or once every hand
    is full the turned-up card; after the last hand's last card with no card left, no card is
    turned up. Returns 0, or -1 when `card` is not a card still in the deck."""
    if not 0 <= card < N_CARDS or (deal_outcomes(storage) >> card) & 1 == 0:
        return -1
    workspace = storage[0].workspace
    table = workspace.table
    seats = workspace.seats
    n_dealt = popcount(dealt_cards(table, seats))
    n_hands = cards_dealt(table)
    if n_dealt < n_hands:
        seat = n_dealt // table.round_size
        seats[at(seat)].hand |= card_bit(card)
        seats[at(seat)].dealt |= card_bit(card)
        if n_dealt + 1 == n_hands and n_hands == N_CARDS:
            turn_up(table, NO_CARD)
    else:
        turn_up(table, card)
    return 0


@njit(cache=True)
def resample(storage, player, generator):
    """Redraw what `player` has not seen: the other seats' current hands, uniform among the
    deals consistent with its own hand, the cards played, the turned-up card and the voids
    shown (kernels.search.posterior.sample_hands), and each bid another seat made that the mode has
    not shown yet, uniform over the bids that were legal (hidden and delayed bidding have no
    restriction). Only for a dealt round of a game not over."""
    workspace = storage[0].workspace
    table = workspace.table
    seats = workspace.seats
    hands = np.zeros(MAX_PLAYERS, dtype=np.int64)
    order = np.zeros(MAX_PLAYERS, dtype=np.int64)
    sample_hands(seats[at(player)], table, hands, order, generator)
    for seat in range(table.n_players):
        if seat == player:
            continue
        seats[seat].hand = hands[seat]
        seats[seat].dealt = hands[seat] | table.played_by[seat]
        if seats[seat].bid != NO_BID and table.bids[seat] == NO_BID:
            legal = legal_bids(table, seats, bid_position(seat, table.dealer, table.n_players))
            seats[seat].bid = nth_set_bit(legal, below(generator, popcount(legal)))



@njit(cache=True)
def set_deal(storage, hands, turned_card):
    """A round begun and not dealt, dealt at once: hands[seat] for every seat (the search
    bots give the other seats only the cards they have played, and resample the rest after
    replaying the round) and the turned-up card (NO_CARD: none)."""
    workspace = storage[0].workspace
    for seat in range(workspace.table.n_players):
        workspace.seats[seat].hand = hands[seat]
        workspace.seats[seat].dealt = hands[seat]
    turn_up(workspace.table, turned_card)
