"""Named layouts of the engine's state and results (structured dtypes, no magic offsets).

The table record holds only public information: what every seat may see. Each seat's private
information (its hand and its own bid) lives in its own seat record, and a policy is handed
its own seat record and the table, never another seat's record.
"""
from collections import namedtuple

import numpy as np

from kernels.cards import N_CARDS

MIN_PLAYERS = 3
MAX_PLAYERS = 6
MAX_ROUND_SIZE = 20  # 60 cards / 3 players
MAX_PLAYS_PER_ROUND = 60
# Parameters per policy (a seat's row of the parameter matrix): pimc's 16 with room. The row
# sizes records below, so it is fixed here (this module imports no policy); sim.policies.registry
# checks every built-in policy and bot against it.
MAX_PARAMS = 24
# Floats of state per seat that its policy owns (a policy's STATE_SIZE, at most this: pimc's bid
# evidence, 30, with room). The engine clears them when a game begins; sim.policies.registry checks
# every built-in policy against it.
MAX_SEAT_STATE = 32

# Rules variants (docs/rules.md §2 and §4).
BIDDING_OPEN = 0
BIDDING_HIDDEN = 1
BIDDING_DELAYED = 2
EVEN_BIDS_ALLOWED = 0
EVEN_BIDS_FORBIDDEN = 1
EVEN_BIDS_LEADER = 2
FIRST_DEALER_DRAW = -1  # otherwise the fixed seat 0..N-1

NO_BID = -1
NO_SEAT = -1
DELEGATE = -1  # a caller's answer that hands a decision to the seat's seated (fallback) policy
DEALER_CHOOSES_TRUMP = -2  # a Wizard was turned up
LED_NONE = -1  # no card other than Jesters played to the trick yet
LED_FREE = 4  # the first non-Jester card was a Wizard: any card may be played

# What a policy is asked to decide; the answer is always the index of a set bit of `legal`.
DECIDE_TRUMP = 0  # legal: bits 0..3, one per suit
DECIDE_BID = 1  # legal: bit b set when bid b is allowed
DECIDE_CARD = 2  # legal: mask of the cards that may be played

# Phases of a round (kernels.round_state). A phase in which a seat acts is named by the
# decision it asks for, so `table.phase` is also the decision of the seat to act.
PHASE_TRUMP = DECIDE_TRUMP  # the dealer chooses trump: a Wizard was turned up
PHASE_BID = DECIDE_BID
PHASE_PLAY = DECIDE_CARD
PHASE_DEAL = 3  # started, waiting for the cards and the turned-up card
PHASE_DONE = 4  # every trick played and scored

_i8 = np.int64
_seats = (MAX_PLAYERS,)

RULES_DTYPE = np.dtype(
    [("n_players", _i8), ("bidding", _i8), ("even_bids", _i8), ("first_dealer", _i8)]
)

TABLE_DTYPE = np.dtype(
    [
        ("n_players", _i8),
        ("bidding", _i8),
        ("even_bids", _i8),
        ("round_size", _i8),
        ("dealer", _i8),
        ("trump_card", _i8),  # NO_CARD when nothing was turned up
        ("trump", _i8),  # suit 0..3, NO_SUIT for no trump
        ("bids", _i8, _seats),  # bids every seat can see now; NO_BID where hidden
        ("n_bids", _i8),  # bids made so far this round
        ("totals", _i8, _seats),  # the score pad before this round
        ("tricks", _i8, _seats),  # tricks taken so far this round
        ("trick", _i8),  # 0-based number of the current trick
        ("leader", _i8),  # seat that leads the current trick
        ("trick_cards", _i8, _seats),  # cards of the current trick, by position
        ("n_in_trick", _i8),
        ("led_suit", _i8),  # LED_NONE, LED_FREE or the suit that must be followed
        ("winning_position", _i8),  # position of the card currently winning the trick
        ("winning_power", _i8),  # its rules.trick_power
        ("played", _i8),  # mask of every card played this round
        ("voids", _i8, _seats),  # bit s set once the seat has shown it holds no suit s
        ("played_by", _i8, _seats),  # the cards each seat has played this round
        ("phase", _i8),  # PHASE_*: what happens next
    ]
)

# Per-thread working memory, allocated once per block of games: arrays viewed from a record
# carry no reference count, so the play loop passes them around for free.
SCRATCH_DTYPE = np.dtype(
    [
        ("deck", _i8, (N_CARDS,)),
        ("generator", np.uint64, (1,)),
        ("draw_values", _i8, _seats),
        ("contenders", _i8, _seats),
    ]
)

SEAT_DTYPE = np.dtype([("seat", _i8), ("hand", _i8), ("dealt", _i8), ("bid", _i8)])

PLAY_DTYPE = np.dtype([("card", np.int8), ("seat", np.int8), ("winner", np.int8), ("legal", _i8)])

# Everything one thread needs to play games, as one record: the play loop then passes only
# records and the arrays nested in them, which carry no reference count. (Separate numpy
# arrays cost an atomic increment and decrement each time they cross a function call, which
# was half the time of a random game.)
WORKSPACE_DTYPE = np.dtype(
    [
        ("table", TABLE_DTYPE),
        ("seats", SEAT_DTYPE, _seats),  # private: each seat's hand and own bid
        ("scratch", SCRATCH_DTYPE),
        ("plays", PLAY_DTYPE, (MAX_PLAYS_PER_ROUND,)),  # the current round's play log
        ("winners", np.uint8, _seats),  # game winners' flags (records cannot nest bools)
        ("policy_ids", _i8, _seats),  # the policy seated at each seat
        ("params", np.float64, (MAX_PLAYERS, MAX_PARAMS)),  # its parameter row
        ("fixed_bids", _i8, _seats),  # bids imposed on seats (NO_BID: the seat's policy bids)
        ("seat_state", np.float64, (MAX_PLAYERS, MAX_SEAT_STATE)),  # each seat's policy's own state
    ]
)

# What `decide` and `round_finished` are handed (kernels.policy_calls): the policy id and the
# parameter row of each seat, and each seat's own state, which its policy alone reads and writes
# (the first STATE_SIZE floats of the seat's row; kernels.game_loop.seated_policies views them in
# a workspace).
SeatedPolicies = namedtuple("SeatedPolicies", ("ids", "params", "state"))

# Results the kernels fill, one record per game x round, game x round x seat, game x seat,
# game x card play.
ROUND_RESULT_DTYPE = np.dtype([("dealer", np.int8), ("trump_card", np.int8), ("trump", np.int8)])
SEAT_RESULT_DTYPE = np.dtype(
    [("hand", _i8), ("bid", np.int8), ("tricks", np.int8), ("score", np.int16), ("total", np.int32)]
)
GAME_RESULT_DTYPE = np.dtype([("total", np.int32), ("winner", np.bool_)])
