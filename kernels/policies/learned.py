"""`learned`: a policy of two small neural networks trained by `wizard-sim train` (docs/learned.md).

A model is data: its arrays (`WEIGHT_NAMES`, shapes from `weight_shapes`) reach this module as
arguments, never as globals, so one compiled kernel serves any model of the same shapes, and
the engine binds a run's model to its seats (sim.engine.policy_engine.model_calls).

What a seat sees is encoded by `encode` into FEATURE_COUNT integer-valued features (the
layout below, `FEATURE_FIELDS`; the version a model was trained on is FEATURE_VERSION): its
own hand and bid, and the public table — never another hand. The bid network scores the
seat's number of tricks 0..20 (a distribution, softmax); the seat bids the legal bid of the
highest expected round score under it. The play network scores every card; the seat plays
its legal card of the highest score. The trump suit, after a turned-up Wizard, is the
heuristic's (kernels.policies.heuristic.choose_trump).

Inference is plain loops in float32 in a fixed order (no parallel reduction), so a decision is
the same on any thread, in any batch and in any driver.
"""
import numpy as np
from numba import njit

from kernels.bits import at, lowest_bit
from kernels.cards import N_CARDS, N_SUITS, NO_CARD
from kernels.policies import heuristic
from kernels.records import (
    DECIDE_BID,
    DECIDE_CARD,
    MAX_PLAYERS,
    MAX_ROUND_SIZE,
    MIN_PLAYERS,
    NO_BID,
    PHASE_PLAY,
)
from kernels.observation import _offsets as field_offsets, relative_seat
from kernels.rules import bid_position, round_score

NAME = "learned"
SUMMARY = "two small neural networks trained by wizard-sim train (model=DIR; the shipped model by default)"
PARAMETERS = ()

FEATURE_VERSION = 1  # the layout below; a model card names the version it was trained on
N_TRICK_COUNTS = MAX_ROUND_SIZE + 1  # the bid network's outputs: tricks 0..20
N_SEAT_FEATURES = 7 + N_SUITS  # per relative seat (SEAT_* below)
COUNT_SCALE = 0.125  # a count feature enters the networks times this (exact: a power of two)

FEATURE_FIELDS = (
    # name, size, whether its values are counts (scaled by COUNT_SCALE) or 0/1, meaning
    ("hand", N_CARDS, False, "the cards the seat holds now"),
    ("seen", N_CARDS, False, "the cards out of play it has seen: the turned-up card and every card played this round"),
    ("trick_cards", N_CARDS, False, "the cards of the current trick"),
    ("winning", N_CARDS, False, "the card winning the current trick so far"),
    ("trump", N_SUITS + 1, False, "one-hot: trump clubs, diamonds, hearts, spades, or none (all 0 while the dealer chooses)"),
    ("players", MAX_PLAYERS - MIN_PLAYERS + 1, False, "one-hot: 3 to 6 players"),
    ("round_size", MAX_ROUND_SIZE, False, "one-hot: cards per player this round"),
    ("bid_position", MAX_PLAYERS, False, "one-hot: the seat's bidding position (0: left of the dealer)"),
    ("trick_position", MAX_PLAYERS, False, "one-hot: cards already in the current trick"),
    ("led", N_SUITS + 2, False, "one-hot: nothing led yet, clubs, diamonds, hearts, spades, free (a Wizard led)"),
    ("tricks_left", 1, True, "tricks still to play, the current one included"),
    ("bidding", 3, False, "one-hot: bidding open, hidden, delayed"),
    ("even_bids", 3, False, "one-hot: even bids allowed, forbidden, leader"),
    ("bid_sum", 3, True, "the bids shown: their sum, its excess over the round size, its shortfall"),
    ("seats", MAX_PLAYERS * N_SEAT_FEATURES, True, "by relative seat (0: itself, k: k places to its left): has bid, "
     "bid shown, the bid, tricks taken, tricks still needed, tricks over the bid, has played to this trick (0/1 "
     "except the counts), the suits it has shown it lacks (4)"),
)
SEAT_HAS_BID, SEAT_BID_SHOWN, SEAT_BID, SEAT_TRICKS, SEAT_NEEDED, SEAT_OVER, SEAT_IN_TRICK, SEAT_VOIDS = range(8)


FEATURE_OFFSETS = field_offsets(FEATURE_FIELDS)
FEATURE_COUNT = FEATURE_OFFSETS["end"]
F_HAND = FEATURE_OFFSETS["hand"]
F_SEEN = FEATURE_OFFSETS["seen"]
F_TRICK_CARDS = FEATURE_OFFSETS["trick_cards"]
F_WINNING = FEATURE_OFFSETS["winning"]
F_TRUMP = FEATURE_OFFSETS["trump"]
F_PLAYERS = FEATURE_OFFSETS["players"]
F_ROUND_SIZE = FEATURE_OFFSETS["round_size"]
F_BID_POSITION = FEATURE_OFFSETS["bid_position"]
F_TRICK_POSITION = FEATURE_OFFSETS["trick_position"]
F_LED = FEATURE_OFFSETS["led"]
F_TRICKS_LEFT = FEATURE_OFFSETS["tricks_left"]
F_BIDDING = FEATURE_OFFSETS["bidding"]
F_EVEN_BIDS = FEATURE_OFFSETS["even_bids"]
F_BID_SUM = FEATURE_OFFSETS["bid_sum"]
F_SEATS = FEATURE_OFFSETS["seats"]


def feature_scale() -> np.ndarray:
    """float32 [FEATURE_COUNT]: what each feature is multiplied by as it enters the networks
    (1 for a 0/1 feature, COUNT_SCALE for a count), the trainer's and the kernel's alike."""
    scale = np.ones(FEATURE_COUNT, dtype=np.float32)
    for name, size, counts, _ in FEATURE_FIELDS:
        if counts:
            scale[FEATURE_OFFSETS[name] : FEATURE_OFFSETS[name] + size] = COUNT_SCALE
    for slot in range(MAX_PLAYERS):  # the seats' 0/1 flags among their counts
        for flag in (SEAT_HAS_BID, SEAT_BID_SHOWN, SEAT_IN_TRICK, *range(SEAT_VOIDS, SEAT_VOIDS + N_SUITS)):
            scale[F_SEATS + slot * N_SEAT_FEATURES + flag] = 1.0
    return scale


FEATURE_SCALE = feature_scale()

# The arrays of a model, in the order `decide` takes them: per network, three dense layers
# (weights [inputs, outputs], biases [outputs]) with ReLU between them.
WEIGHT_NAMES = ("bid_w1", "bid_b1", "bid_w2", "bid_b2", "bid_w3", "bid_b3",
                "play_w1", "play_b1", "play_w2", "play_b2", "play_w3", "play_b3")  # fmt: skip
NETWORK_OUTPUTS = {"bid": N_TRICK_COUNTS, "play": N_CARDS}


def weight_shapes(bid_hidden: int, play_hidden: int) -> dict[str, tuple[int, ...]]:
    """The shape of every array of a model with these hidden layer widths."""
    shapes = {}
    for network, hidden in (("bid", bid_hidden), ("play", play_hidden)):
        outputs = NETWORK_OUTPUTS[network]
        shapes |= {f"{network}_w1": (FEATURE_COUNT, hidden), f"{network}_b1": (hidden,),
                   f"{network}_w2": (hidden, hidden), f"{network}_b2": (hidden,),
                   f"{network}_w3": (hidden, outputs), f"{network}_b3": (outputs,)}  # fmt: skip
    return shapes


# --- the features ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def set_card_features(out, offset, cards):
    while cards != 0:
        out[at(offset + lowest_bit(cards))] = 1
        cards &= cards - 1


@njit(cache=True)
def encode(me, table, out):
    """Write what seat me.seat sees into out[FEATURE_COUNT] (any numeric array: the kernel's
    float32, the trainer's uint8), every value a whole number 0..60: `me` (its own record) and
    the public table, nothing else."""
    for i in range(FEATURE_COUNT):
        out[i] = 0
    observer = me.seat
    n_players = table.n_players
    round_size = table.round_size
    set_card_features(out, F_HAND, me.hand)
    seen = table.played
    if table.trump_card != NO_CARD:
        seen |= np.int64(1) << table.trump_card
    set_card_features(out, F_SEEN, seen)
    playing = table.phase == PHASE_PLAY
    if playing:
        for position in range(table.n_in_trick):
            out[at(F_TRICK_CARDS + table.trick_cards[position])] = 1
        if table.n_in_trick > 0:
            out[at(F_WINNING + table.trick_cards[table.winning_position])] = 1
        out[at(F_TRICK_POSITION + table.n_in_trick)] = 1
        out[at(F_LED + table.led_suit + 1)] = 1
    if table.trump >= 0:
        out[at(F_TRUMP + table.trump)] = 1
    elif table.trump == -1:  # NO_SUIT: no trump (DEALER_CHOOSES_TRUMP while the dealer names it)
        out[F_TRUMP + N_SUITS] = 1
    out[at(F_PLAYERS + n_players - MIN_PLAYERS)] = 1
    out[at(F_ROUND_SIZE + round_size - 1)] = 1
    out[at(F_BID_POSITION + bid_position(observer, table.dealer, n_players))] = 1
    out[F_TRICKS_LEFT] = round_size - table.trick
    out[at(F_BIDDING + table.bidding)] = 1
    out[at(F_EVEN_BIDS + table.even_bids)] = 1
    bid_sum = 0
    for slot in range(n_players):
        seat = observer + slot
        if seat >= n_players:
            seat -= n_players
        base = F_SEATS + slot * N_SEAT_FEATURES
        bid = me.bid if seat == observer else table.bids[seat]
        if bid_position(seat, table.dealer, n_players) < table.n_bids:
            out[base + SEAT_HAS_BID] = 1
        tricks = table.tricks[seat]
        out[base + SEAT_TRICKS] = tricks
        if bid != NO_BID:
            bid_sum += bid
            out[base + SEAT_BID_SHOWN] = 1
            out[base + SEAT_BID] = bid
            out[base + SEAT_NEEDED] = max(0, bid - tricks)
            out[base + SEAT_OVER] = max(0, tricks - bid)
        if playing and relative_seat(seat, table.leader, n_players) < table.n_in_trick:
            out[base + SEAT_IN_TRICK] = 1
        voids = table.voids[seat]
        for suit in range(N_SUITS):
            if (voids >> suit) & 1:
                out[base + SEAT_VOIDS + suit] = 1
    out[F_BID_SUM] = bid_sum
    out[F_BID_SUM + 1] = max(0, bid_sum - round_size)
    out[F_BID_SUM + 2] = max(0, round_size - bid_sum)


# --- the networks ---------------------------------------------------------------------------


@njit(cache=True)
def dense_relu(inputs, weights, biases, out):
    """out = relu(inputs @ weights + biases), summed input by input in index order (a zero
    input skipped: ReLU leaves many, and the features are sparse)."""
    for j in range(out.shape[0]):
        out[j] = biases[j]
    for i in range(inputs.shape[0]):
        value = inputs[i]
        if value != 0.0:
            row = weights[i]
            for j in range(out.shape[0]):
                out[j] += value * row[j]
    for j in range(out.shape[0]):
        if out[j] < 0.0:
            out[j] = 0.0


@njit(cache=True)
def network(features, w1, b1, w2, b2, w3, b3, out):
    """The scores of a three-layer network for `features` (float32, already scaled) into out."""
    first = np.empty(b1.shape[0], dtype=np.float32)
    dense_relu(features, w1, b1, first)
    second = np.empty(b2.shape[0], dtype=np.float32)
    dense_relu(first, w2, b2, second)
    for j in range(out.shape[0]):
        out[j] = b3[j]
    for i in range(second.shape[0]):
        value = second[i]
        if value != 0.0:
            row = w3[i]
            for j in range(out.shape[0]):
                out[j] += value * row[j]


@njit(cache=True)
def scaled_features(me, table):
    """encode's features as float32, each times its FEATURE_SCALE."""
    features = np.empty(FEATURE_COUNT, dtype=np.float32)
    encode(me, table, features)
    for i in range(FEATURE_COUNT):
        features[i] *= FEATURE_SCALE[i]
    return features


@njit(cache=True)
def expected_scores(logits, round_size, out):
    """out[b] = the expected round score of bid b (0..round_size) when the tricks taken follow
    softmax(logits[0..round_size])."""
    top = logits[0]
    for k in range(1, round_size + 1):
        top = max(top, logits[k])
    chances = np.empty(round_size + 1, dtype=np.float64)
    total = 0.0
    for k in range(round_size + 1):
        chances[k] = np.exp(np.float64(logits[k] - top))
        total += chances[k]
    for bid in range(round_size + 1):
        score = 0.0
        for k in range(round_size + 1):
            score += chances[k] * round_score(bid, k)
        out[bid] = score / total


@njit(cache=True)
def best_legal(scores, legal):
    """The set bit of `legal` with the highest score (the lowest such index on a tie)."""
    best = lowest_bit(legal)
    rest = legal & (legal - 1)
    while rest != 0:
        choice = lowest_bit(rest)
        rest &= rest - 1
        if scores[choice] > scores[best]:
            best = choice
    return best


@njit(cache=True)
def bid_scores(me, table, weights, out):
    """The expected round score of every bid 0..round size under the bid network."""
    bid_w1, bid_b1, bid_w2, bid_b2, bid_w3, bid_b3 = weights[0], weights[1], weights[2], weights[3], weights[4], weights[5]
    logits = np.empty(N_TRICK_COUNTS, dtype=np.float32)
    network(scaled_features(me, table), bid_w1, bid_b1, bid_w2, bid_b2, bid_w3, bid_b3, logits)
    expected_scores(logits, table.round_size, out)


@njit(cache=True)
def card_scores(me, table, weights, out):
    """The play network's score of every card id (the trainer's target: the round score
    expected after playing it)."""
    play_w1, play_b1, play_w2, play_b2, play_w3, play_b3 = (weights[6], weights[7], weights[8], weights[9],
                                                            weights[10], weights[11])  # fmt: skip
    network(scaled_features(me, table), play_w1, play_b1, play_w2, play_b2, play_w3, play_b3, out)


@njit(cache=True)
def choose_bid(me, table, legal, weights):
    scores = np.empty(N_TRICK_COUNTS, dtype=np.float64)
    bid_scores(me, table, weights, scores)
    return best_legal(scores, legal)


@njit(cache=True)
def choose_card(me, table, legal, weights):
    scores = np.empty(N_CARDS, dtype=np.float32)
    card_scores(me, table, weights, scores)
    return best_legal(scores, legal)


@njit(cache=True)
def decide(decision, me, table, legal, weights):
    """The learned policy's answer to `decision` (kernels.records.DECIDE_*): a set bit of
    `legal`. `weights`: the model's arrays in WEIGHT_NAMES order (float32). It draws no random
    number: a decision is a function of what the seat sees."""
    if decision == DECIDE_BID:
        return choose_bid(me, table, legal, weights)
    if decision == DECIDE_CARD:
        return choose_card(me, table, legal, weights)
    return heuristic.choose_trump(me.hand)
