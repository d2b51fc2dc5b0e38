"""One flat action space and one observation vector for every seat (docs/env.md).

Actions, in the style of OpenSpiel's `oh_hell`: ids 0..59 play that card, ACTION_BID0 + b bids
b (0..20), ACTION_SUIT0 + s names trump suit s after a turned-up Wizard (the dealer's choice).

The observation of a seat is a float32 vector laid out by OBSERVATION_FIELDS, the one list of
(name, size, low, high, meaning) from which every offset constant, the bounds of the
observation space and the table in docs/env.md are generated. Seats in it are *relative* to
the observing seat: relative seat k is the seat k places to its left (k = 0 is itself), so a
learned model sees the same layout from every chair. It reads only the public table, the
observing seat's own record and the round's public card history, never another hand.
"""
import numpy as np
from numba import njit

from kernels.bits import at, lowest_bit
from kernels.cards import N_CARDS, N_SUITS, NO_CARD, NO_SUIT
from kernels.round_state import current_seat
from kernels.records import MAX_PLAYERS, MAX_ROUND_SIZE, MIN_PLAYERS, NO_BID, PHASE_BID, PHASE_PLAY, PHASE_TRUMP
from kernels.rules import bid_position

# --- actions ----------------------------------------------------------------------------

N_BIDS = MAX_ROUND_SIZE + 1  # bids 0..20
ACTION_CARD0 = 0
ACTION_BID0 = ACTION_CARD0 + N_CARDS  # 60
ACTION_SUIT0 = ACTION_BID0 + N_BIDS  # 81
N_ACTIONS = ACTION_SUIT0 + N_SUITS  # 85

# The first flat action of each decision's answers, indexed by the phase (= the decision).
_FIRST_ACTION = np.zeros(3, dtype=np.int64)
_FIRST_ACTION[PHASE_TRUMP] = ACTION_SUIT0
_FIRST_ACTION[PHASE_BID] = ACTION_BID0
_FIRST_ACTION[PHASE_PLAY] = ACTION_CARD0
ANSWERS_PER_DECISION = np.zeros(3, dtype=np.int64)
ANSWERS_PER_DECISION[PHASE_TRUMP] = N_SUITS
ANSWERS_PER_DECISION[PHASE_BID] = N_BIDS
ANSWERS_PER_DECISION[PHASE_PLAY] = N_CARDS

# --- the observation layout -------------------------------------------------------------

MAX_TOTAL = 3000  # |score pad total| never reaches it: 3 players, 20 exact rounds make 2,500
LED_SLOTS = 6  # no led suit yet, the four suits, free (a Wizard led)
TRUMP_SLOTS = N_SUITS + 1  # the four suits, no trump

OBSERVATION_FIELDS = (
    # name, size, low, high, meaning
    ("players", MAX_PLAYERS - MIN_PLAYERS + 1, 0, 1, "one-hot: 3, 4, 5 or 6 players (index players - 3)"),
    ("seat", MAX_PLAYERS, 0, 1, "one-hot: the observing seat's own number at the table (absolute)"),
    ("dealer", MAX_PLAYERS, 0, 1, "one-hot: the dealer (relative seat)"),
    ("round_size", MAX_ROUND_SIZE, 0, 1, "one-hot: cards per player this round (index size - 1)"),
    ("bidding", 3, 0, 1, "one-hot: bidding open, hidden, delayed"),
    ("even_bids", 3, 0, 1, "one-hot: even bids allowed, forbidden, leader"),
    ("decision", 3, 0, 1, "one-hot: the observing seat must now choose trump, bid, play a card; all 0 when it is "
     "not its turn"),
    ("hand", N_CARDS, 0, 1, "the cards it holds now (by card id)"),
    ("turned_up", N_CARDS, 0, 1, "one-hot: the turned-up card; all 0 when none (every card dealt)"),
    ("trump", TRUMP_SLOTS, 0, 1, "one-hot: trump clubs, diamonds, hearts, spades, or no trump; all 0 while the "
     "dealer chooses"),
    ("own_bid", N_BIDS, 0, 1, "one-hot: its own bid 0..20 (all 0 before it bids; known to it in every mode)"),
    ("has_bid", MAX_PLAYERS, 0, 1, "by relative seat: 1 once that seat has bid this round (public in every mode)"),
    ("bids", MAX_PLAYERS * N_BIDS, 0, 1, "by relative seat, 21 each: one-hot of the bid the mode shows; all 0 if "
     "hidden or not made"),
    ("tricks", MAX_PLAYERS, 0, MAX_ROUND_SIZE, "by relative seat: tricks taken this round (a count)"),
    ("totals", MAX_PLAYERS, -MAX_TOTAL, MAX_TOTAL, "by relative seat: score pad total before this round (points)"),
    ("trick", 1, 0, MAX_ROUND_SIZE, "tricks completed this round (a count)"),
    ("leader", MAX_PLAYERS, 0, 1, "one-hot: the seat leading the current trick (relative)"),
    ("led_suit", LED_SLOTS, 0, 1, "one-hot: nothing led yet (or only Jesters), clubs, diamonds, hearts, spades, "
     "free (Wizard led)"),
    ("current_trick", N_CARDS, 0, 1, "the cards played to the current trick (who played them: played_by)"),
    ("played_by", MAX_PLAYERS * N_CARDS, 0, 1, "by relative seat, 60 each: the cards that seat has played this round"),
    ("card_trick", N_CARDS, 0, MAX_ROUND_SIZE, "by card: 1 + the trick it was played to this round, 0 when not played"),
    ("voids", MAX_PLAYERS * N_SUITS, 0, 1, "by relative seat, 4 each: suits that seat has shown it lacks"),
)


def _offsets(fields) -> dict:
    offsets, offset = {}, 0
    for name, size, *_ in fields:
        offsets[name] = offset
        offset += size
    offsets["end"] = offset
    return offsets


OBSERVATION_OFFSETS = _offsets(OBSERVATION_FIELDS)
OBSERVATION_SIZE = OBSERVATION_OFFSETS["end"]
# One named offset per field (numba reads them as compile-time constants).
OBS_PLAYERS = OBSERVATION_OFFSETS["players"]
OBS_SEAT = OBSERVATION_OFFSETS["seat"]
OBS_DEALER = OBSERVATION_OFFSETS["dealer"]
OBS_ROUND_SIZE = OBSERVATION_OFFSETS["round_size"]
OBS_BIDDING = OBSERVATION_OFFSETS["bidding"]
OBS_EVEN_BIDS = OBSERVATION_OFFSETS["even_bids"]
OBS_DECISION = OBSERVATION_OFFSETS["decision"]
OBS_HAND = OBSERVATION_OFFSETS["hand"]
OBS_TURNED_UP = OBSERVATION_OFFSETS["turned_up"]
OBS_TRUMP = OBSERVATION_OFFSETS["trump"]
OBS_OWN_BID = OBSERVATION_OFFSETS["own_bid"]
OBS_HAS_BID = OBSERVATION_OFFSETS["has_bid"]
OBS_BIDS = OBSERVATION_OFFSETS["bids"]
OBS_TRICKS = OBSERVATION_OFFSETS["tricks"]
OBS_TOTALS = OBSERVATION_OFFSETS["totals"]
OBS_TRICK = OBSERVATION_OFFSETS["trick"]
OBS_LEADER = OBSERVATION_OFFSETS["leader"]
OBS_LED_SUIT = OBSERVATION_OFFSETS["led_suit"]
OBS_CURRENT_TRICK = OBSERVATION_OFFSETS["current_trick"]
OBS_PLAYED_BY = OBSERVATION_OFFSETS["played_by"]
OBS_CARD_TRICK = OBSERVATION_OFFSETS["card_trick"]
OBS_VOIDS = OBSERVATION_OFFSETS["voids"]
TRUMP_SLOT_NONE = N_SUITS  # the "no trump" slot of the trump field


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    """(low, high) float32 vectors of the observation, from the field list."""
    low = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    high = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    for name, size, lo, hi, _ in OBSERVATION_FIELDS:
        offset = OBSERVATION_OFFSETS[name]
        low[offset : offset + size] = lo
        high[offset : offset + size] = hi
    return low, high


# --- kernels ----------------------------------------------------------------------------


@njit(cache=True, inline="always")
def relative_seat(seat, observer, n_players):
    """How many places `seat` sits to the left of `observer`."""
    steps = seat - observer
    return steps + n_players if steps < 0 else steps


@njit(cache=True, inline="always")
def set_cards(out, offset, cards):
    """out[offset + c] = 1 for every card c of the mask."""
    while cards != 0:
        out[at(offset + lowest_bit(cards))] = 1.0
        cards &= cards - 1


@njit(cache=True, inline="always")
def flat_action(decision, answer):
    """The flat action id of `answer` (a suit, a bid or a card id) to `decision`."""
    return _FIRST_ACTION[decision] + answer


@njit(cache=True, inline="always")
def answer_of(decision, action):
    """The suit, bid or card id that flat `action` answers to `decision`; -1 when the action
    belongs to another decision."""
    answer = action - _FIRST_ACTION[decision]
    return answer if 0 <= answer < ANSWERS_PER_DECISION[decision] else -1


@njit(cache=True, inline="always")
def write_action_mask(decision, legal, out):
    """out[a] = whether flat action a is legal, from the decision's legal mask (0: none)."""
    for action in range(N_ACTIONS):
        out[action] = False
    if legal == 0:
        return
    first = _FIRST_ACTION[decision]
    while legal != 0:
        out[at(first + lowest_bit(legal))] = True
        legal &= legal - 1


@njit(cache=True, inline="always")
def encode_observation(table, me, card_trick, out):
    """Write seat me.seat's observation into out[OBSERVATION_SIZE] (float32). It reads the
    public table, `me` (the observer's own record) and card_trick[c] = 1 + the trick card c
    was played to this round (0: not played), which is public."""
    for i in range(OBSERVATION_SIZE):
        out[i] = 0.0
    observer = me.seat
    n_players = table.n_players
    out[OBS_PLAYERS + n_players - MIN_PLAYERS] = 1.0
    out[at(OBS_SEAT + observer)] = 1.0
    out[at(OBS_DEALER + relative_seat(table.dealer, observer, n_players))] = 1.0
    out[at(OBS_ROUND_SIZE + table.round_size - 1)] = 1.0
    out[at(OBS_BIDDING + table.bidding)] = 1.0
    out[at(OBS_EVEN_BIDS + table.even_bids)] = 1.0
    phase = table.phase
    if phase <= PHASE_PLAY and current_seat(table) == observer:
        out[at(OBS_DECISION + phase)] = 1.0
    set_cards(out, OBS_HAND, me.hand)
    if table.trump_card != NO_CARD:
        out[at(OBS_TURNED_UP + table.trump_card)] = 1.0
    if table.trump >= 0:
        out[at(OBS_TRUMP + table.trump)] = 1.0
    elif table.trump == NO_SUIT:
        out[OBS_TRUMP + TRUMP_SLOT_NONE] = 1.0
    if me.bid != NO_BID:
        out[at(OBS_OWN_BID + me.bid)] = 1.0
    for seat in range(n_players):
        slot = relative_seat(seat, observer, n_players)
        # Bidding starts left of the dealer and ends with it: every bidding position is public.
        if bid_position(seat, table.dealer, n_players) < table.n_bids:
            out[at(OBS_HAS_BID + slot)] = 1.0
        bid = table.bids[seat]
        if bid != NO_BID:
            out[at(OBS_BIDS + slot * N_BIDS + bid)] = 1.0
        out[at(OBS_TRICKS + slot)] = table.tricks[seat]
        out[at(OBS_TOTALS + slot)] = table.totals[seat]
        set_cards(out, OBS_PLAYED_BY + slot * N_CARDS, table.played_by[seat])
        set_cards(out, OBS_VOIDS + slot * N_SUITS, table.voids[seat])
    out[OBS_TRICK] = table.trick
    out[at(OBS_LEADER + relative_seat(table.leader, observer, n_players))] = 1.0
    out[at(OBS_LED_SUIT + table.led_suit + 1)] = 1.0
    for position in range(table.n_in_trick):
        out[at(OBS_CURRENT_TRICK + table.trick_cards[position])] = 1.0
    played = table.played
    while played != 0:
        card = lowest_bit(played)
        out[at(OBS_CARD_TRICK + card)] = card_trick[card]
        played &= played - 1
