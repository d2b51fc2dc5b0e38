"""Slow, plain-Python reference engine for the card game Wizard (test oracle).

Written only from the rule specification (docs/rules.md) and docs/randomness.md.
Deliberately independent of the simulator: standard library only, no imports
from the project's packages. Clarity over speed.

Card encoding (docs/rules.md §1):
    card id = suit*13 + (rank-2) for ids 0..51 (suits 0=C, 1=D, 2=H, 3=S; rank 2..14, Ace high)
    ids 52..55 are Wizards, ids 56..59 are Jesters.
Seats are 0..N-1 clockwise; "left" of seat s is (s + 1) % N.
"""

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1

STREAM_DEAL, STREAM_DECISIONS, STREAM_DRAW = 1, 2, 3

DECK_SIZE = 60
FIRST_WIZARD = 52
FIRST_JESTER = 56

BIDDING_MODES = ("open", "hidden", "delayed")
EVEN_BIDS_MODES = ("allowed", "forbidden", "leader")


# ---------------------------------------------------------------------------
# Randomness (docs/randomness.md)
# ---------------------------------------------------------------------------

def mix64(z: int) -> int:
    """SplitMix64 finaliser, all arithmetic modulo 2**64."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def stream_state(seed: int, game: int, round_size: int, stream: int) -> int:
    """Initial generator state of the stream (seed, game, round, stream)."""
    h = mix64(seed & MASK64)
    h = mix64(h ^ (game & MASK64))
    h = mix64(h ^ ((round_size * 256 + stream) & MASK64))
    return h


class Stream:
    """SplitMix64 generator seeded by stream_state(seed, game, round_size, stream)."""

    GOLDEN = 0x9E3779B97F4A7C15

    def __init__(self, seed: int, game: int, round_size: int, stream: int):
        self.state = stream_state(seed, game, round_size, stream)

    def next(self) -> int:
        """Advance the state and return the next 64-bit output."""
        self.state = (self.state + self.GOLDEN) & MASK64
        return mix64(self.state)

    def below(self, n: int) -> int:
        """Uniform integer in [0, n), Lemire's exact method, 1 <= n < 2**32."""
        if not (1 <= n < (1 << 32)):
            raise ValueError(f"below(n) needs 1 <= n < 2**32, got {n}")
        x = self.next() >> 32
        m = x * n
        low = m & MASK32
        if low < n:
            t = ((1 << 32) - n) % n
            while low < t:
                x = self.next() >> 32
                m = x * n
                low = m & MASK32
        return m >> 32


# ---------------------------------------------------------------------------
# Cards
# ---------------------------------------------------------------------------

def is_wizard(card: int) -> bool:
    return FIRST_WIZARD <= card < FIRST_JESTER


def is_jester(card: int) -> bool:
    return FIRST_JESTER <= card < DECK_SIZE


def card_suit(card) -> int:
    """Suit 0..3 of a suited card, -1 for a Wizard or a Jester."""
    if not (0 <= card < DECK_SIZE):
        raise ValueError(f"not a card id: {card}")
    if card < FIRST_WIZARD:
        return card // 13
    return -1


def card_rank(card: int) -> int:
    """Rank 2..14 of a suited card (Ace = 14)."""
    if not (0 <= card < FIRST_WIZARD):
        raise ValueError(f"card {card} has no rank (not a suited card)")
    return card % 13 + 2


def draw_value(card: int) -> int:
    """Value of a card in the first-dealer draw: Wizard 15, rank 2..14, Jester 1."""
    if is_wizard(card):
        return 15
    if is_jester(card):
        return 1
    return card_rank(card)


# ---------------------------------------------------------------------------
# Deal and first-dealer draw
# ---------------------------------------------------------------------------

def deal_round(seed: int, game: int, n_players: int, round_size: int):
    """Deal round `round_size` (stream DEAL).

    Returns (hands, turned_up): hands[s] is the sorted list of card ids dealt to
    seat s; turned_up is the turned-up card id, or -1 when nothing is turned up.
    """
    n_dealt = n_players * round_size
    if n_players < 1 or round_size < 1 or n_dealt > DECK_SIZE:
        raise ValueError(f"cannot deal {round_size} cards to {n_players} players")
    rng = Stream(seed, game, round_size, STREAM_DEAL)
    deck = list(range(DECK_SIZE))
    k = n_dealt + 1 if n_dealt < DECK_SIZE else DECK_SIZE
    for i in range(k):  # i = 0 .. k-1
        j = i + rng.below(DECK_SIZE - i)
        deck[i], deck[j] = deck[j], deck[i]
    hands = []
    for s in range(n_players):
        hands.append(sorted(deck[s * round_size:(s + 1) * round_size]))
    if n_dealt < DECK_SIZE:
        turned_up = deck[n_dealt]
    else:
        turned_up = -1
    return hands, turned_up


def draw_first_dealer(seed: int, game: int, n_players: int) -> int:
    """First-dealer draw (stream DRAW, round 0); returns the seat that deals first."""
    if n_players < 1:
        raise ValueError("need at least one player")
    rng = Stream(seed, game, 0, STREAM_DRAW)
    deck = list(range(DECK_SIZE))
    p = 0
    contenders = list(range(n_players))
    while True:
        if p + len(contenders) > DECK_SIZE:
            deck = list(range(DECK_SIZE))
            p = 0
        drawn = {}
        for seat in contenders:  # ascending seat order
            j = p + rng.below(DECK_SIZE - p)
            deck[p], deck[j] = deck[j], deck[p]
            drawn[seat] = deck[p]
            p += 1
        best = max(draw_value(card) for card in drawn.values())
        contenders = [seat for seat in contenders if draw_value(drawn[seat]) == best]
        if len(contenders) == 1:
            return contenders[0]


# ---------------------------------------------------------------------------
# Trump, follow suit, trick winner, scoring
# ---------------------------------------------------------------------------

def trump_from_turned_card(card: int):
    """Suit 0..3 for a suited card; -1 (no trump) for a Jester or nothing turned up
    (card == -1); the string "dealer_chooses" for a Wizard."""
    if card == -1:
        return -1
    if is_wizard(card):
        return "dealer_chooses"
    if is_jester(card):
        return -1
    return card_suit(card)


def trick_state(trick):
    """What the cards already played in a trick impose on the next player.

    Returns ("free", None) when any card may be played (empty trick, only Jesters so
    far, or the first non-Jester card is a Wizard), else ("suit", led_suit).
    """
    for card in trick:
        if is_jester(card):
            continue  # a Jester sets no suit
        if is_wizard(card):
            return ("free", None)
        return ("suit", card_suit(card))
    return ("free", None)


def legal_cards(hand, trick):
    """Sorted legal card ids of `hand` given the cards already played in the trick."""
    hand = sorted(hand)
    kind, led = trick_state(trick)
    if kind == "free":
        return hand
    holds_led_suit = any(card_suit(c) == led for c in hand)
    if not holds_led_suit:
        return hand
    # Must follow: cards of the led suit, plus any Wizard or Jester.
    return [c for c in hand if card_suit(c) == led or is_wizard(c) or is_jester(c)]


def trick_winner(trick, trump: int) -> int:
    """Position (index into the complete trick) of the winning card.

    In order: first Wizard; else highest trump; else highest card of the led suit;
    else (all Jesters) the first Jester. trump == -1 means no trump.
    """
    if len(trick) == 0:
        raise ValueError("empty trick")
    # 1. The first Wizard wins.
    for pos, card in enumerate(trick):
        if is_wizard(card):
            return pos
    # 2. The highest trump wins.
    if trump != -1:
        best_pos = -1
        for pos, card in enumerate(trick):
            if card_suit(card) == trump:
                if best_pos == -1 or card_rank(card) > card_rank(trick[best_pos]):
                    best_pos = pos
        if best_pos != -1:
            return best_pos
    # 3. The highest card of the led suit (the first non-Jester card's suit; no
    #    Wizard is in the trick at this point).
    led = -1
    for card in trick:
        if not is_jester(card):
            led = card_suit(card)
            break
    if led != -1:
        best_pos = -1
        for pos, card in enumerate(trick):
            if card_suit(card) == led:
                if best_pos == -1 or card_rank(card) > card_rank(trick[best_pos]):
                    best_pos = pos
        return best_pos
    # 4. Every card is a Jester: the first Jester wins.
    return 0


def round_score(bid: int, tricks: int) -> int:
    if bid == tricks:
        return 20 + 10 * tricks
    return -10 * abs(tricks - bid)


# ---------------------------------------------------------------------------
# Bidding and winners
# ---------------------------------------------------------------------------

def legal_bids(round_size, earlier_bids, is_last_bidder, even_bids, last_bidder_is_sole_leader):
    """Ascending list of legal bids for the player about to bid."""
    if even_bids not in EVEN_BIDS_MODES:
        raise ValueError(f"unknown even_bids mode: {even_bids!r}")
    bids = list(range(round_size + 1))
    restricted = False
    if is_last_bidder:
        if even_bids == "forbidden":
            restricted = True
        elif even_bids == "leader" and last_bidder_is_sole_leader:
            restricted = True
    if restricted:
        forbidden_bid = round_size - sum(earlier_bids)
        bids = [b for b in bids if b != forbidden_bid]
    return bids


def is_sole_leader(totals, seat) -> bool:
    """True when seat's total is strictly greater than every other seat's total."""
    return all(totals[seat] > totals[other] for other in range(len(totals)) if other != seat)


def game_winners(totals):
    """Winners of a game: every seat with the highest total (ties share)."""
    best = max(totals)
    return [t == best for t in totals]


# ---------------------------------------------------------------------------
# Playing a round
# ---------------------------------------------------------------------------

def _play_tricks(n_players, dealer, hands, trump, choose_card):
    """Play all tricks of a round.

    choose_card(seat, legal, trick_index, position) returns the card the seat plays.
    Returns (plays, trick_winners, tricks) where plays is a list of dicts with keys
    seat, card, legal, trick, position.
    """
    round_size = len(hands[0])
    remaining = [list(h) for h in hands]
    plays = []
    trick_winners = []
    tricks = [0] * n_players
    leader = (dealer + 1) % n_players
    for t in range(round_size):
        trick = []
        seats = []
        for position in range(n_players):
            seat = (leader + position) % n_players
            legal = legal_cards(remaining[seat], trick)
            card = choose_card(seat, legal, t, position)
            assert card in remaining[seat], (
                f"trick {t} position {position}: seat {seat} plays card {card} "
                f"which is not in its hand {sorted(remaining[seat])}")
            assert card in legal, (
                f"trick {t} position {position}: seat {seat} plays card {card} "
                f"which is not legal; legal cards {legal}, trick so far {trick}")
            remaining[seat].remove(card)
            trick.append(card)
            seats.append(seat)
            plays.append({"seat": seat, "card": card, "legal": legal,
                          "trick": t, "position": position})
        winner_seat = seats[trick_winner(trick, trump)]
        trick_winners.append(winner_seat)
        tricks[winner_seat] += 1
        leader = winner_seat
    return plays, trick_winners, tricks


def replay_round(n_players, dealer, hands, trump, bids, cards_in_play_order):
    """Re-derive a played round from its cards; AssertionError on any illegal play."""
    assert len(hands) == n_players, f"expected {n_players} hands, got {len(hands)}"
    assert len(bids) == n_players, f"expected {n_players} bids, got {len(bids)}"
    assert 0 <= dealer < n_players, f"dealer {dealer} out of range"
    round_size = len(hands[0])
    for s, h in enumerate(hands):
        assert len(h) == round_size, (
            f"seat {s} holds {len(h)} cards, seat 0 holds {round_size}")
    all_cards = [c for h in hands for c in h]
    assert len(set(all_cards)) == len(all_cards), "a card is dealt more than once"
    expected = n_players * round_size
    assert len(cards_in_play_order) == expected, (
        f"expected {expected} plays, got {len(cards_in_play_order)}")

    cursor = [0]

    def next_card(seat, legal, t, position):
        card = cards_in_play_order[cursor[0]]
        cursor[0] += 1
        return card

    plays, trick_winners, tricks = _play_tricks(n_players, dealer, hands, trump, next_card)
    scores = [round_score(bids[s], tricks[s]) for s in range(n_players)]
    return {"seats": [p["seat"] for p in plays],
            "legal": [p["legal"] for p in plays],
            "trick_winners": trick_winners,
            "tricks": tricks,
            "scores": scores}


# ---------------------------------------------------------------------------
# A whole game with every seat using the `random` policy
# ---------------------------------------------------------------------------

def play_game(seed, game, n_players, round_sizes, bidding="open", even_bids="allowed",
              first_dealer="draw"):
    if not (3 <= n_players <= 6):
        raise ValueError(f"Wizard is played by 3 to 6 players, got {n_players}")
    if bidding not in BIDDING_MODES:
        raise ValueError(f"unknown bidding mode: {bidding!r}")
    if even_bids not in EVEN_BIDS_MODES:
        raise ValueError(f"unknown even_bids mode: {even_bids!r}")
    if bidding != "open" and even_bids != "allowed":
        raise ValueError(f"bidding={bidding!r} has no last bidder; "
                         f"even_bids={even_bids!r} cannot be combined with it")
    max_round = DECK_SIZE // n_players
    for r in round_sizes:
        if not (1 <= r <= max_round):
            raise ValueError(f"round size {r} out of range 1..{max_round}")

    if first_dealer == "draw":
        first = draw_first_dealer(seed, game, n_players)
    elif isinstance(first_dealer, int) and not isinstance(first_dealer, bool):
        if not (0 <= first_dealer < n_players):
            raise ValueError(f"first dealer seat {first_dealer} out of range")
        first = first_dealer
    else:
        raise ValueError(f"first_dealer must be 'draw' or a seat, got {first_dealer!r}")

    totals = [0] * n_players
    rounds = []
    for r in round_sizes:
        dealer = (first + r - 1) % n_players
        hands, turned = deal_round(seed, game, n_players, r)
        rng = Stream(seed, game, r, STREAM_DECISIONS)

        # Trump: the dealer chooses at random when a Wizard is turned up.
        trump = trump_from_turned_card(turned)
        if trump == "dealer_chooses":
            trump = rng.below(4)

        # Bids, in bidding order starting left of the dealer (dealer bids last).
        bids = [None] * n_players
        bid_order = [None] * n_players
        earlier = []
        for position in range(n_players):
            seat = (dealer + 1 + position) % n_players
            is_last = position == n_players - 1
            options = legal_bids(r, earlier, is_last, even_bids, is_sole_leader(totals, seat))
            bid = options[rng.below(len(options))]
            bids[seat] = bid
            bid_order[seat] = position
            earlier.append(bid)

        # Play, each card chosen at random among the legal cards (ascending ids).
        def choose(seat, legal, t, position):
            return legal[rng.below(len(legal))]

        plays, trick_winners, tricks = _play_tricks(n_players, dealer, hands, trump, choose)
        scores = [round_score(bids[s], tricks[s]) for s in range(n_players)]
        totals = [totals[s] + scores[s] for s in range(n_players)]
        rounds.append({"round": r, "dealer": dealer, "hands": hands,
                       "trump_card": turned, "trump": trump,
                       "bids": bids, "bid_order": bid_order, "plays": plays,
                       "trick_winners": trick_winners, "tricks": tricks,
                       "scores": scores, "totals": list(totals)})

    return {"first_dealer": first, "rounds": rounds, "totals": list(totals),
            "winners": game_winners(totals)}


# ---------------------------------------------------------------------------
# Perfect-information play of the rest of a round (max^n)
# ---------------------------------------------------------------------------

def max_n(hands, bids, tricks, trick, leader, trump):
    """The rest of a round played with every hand known, each seat maximising its own round
    score (max^n): among its legal cards the seat to act takes the one whose outcome (every
    later seat playing the same way) scores best for it; ties go to the lowest card id.

    hands[s]: the cards seat s still holds; bids[s]; tricks[s]: tricks taken so far; trick:
    the cards of the current trick in the order played, led by `leader`. Returns
    (final tricks per seat, the card the seat to act plays; None when no card is left).
    Plain enumeration of every legal card at every turn; the outcome of a position is
    memoised (the same position always has the same outcome)."""
    n = len(hands)
    memo = {}

    def outcome(hands, tricks, trick, leader):
        key = (hands, tricks, trick, leader)
        if key not in memo:
            memo[key] = best_play(hands, tricks, trick, leader)
        return memo[key]

    def best_play(hands, tricks, trick, leader):
        seat = (leader + len(trick)) % n
        if not hands[seat]:
            return tricks, None
        best = None
        for card in legal_cards(list(hands[seat]), list(trick)):
            rest = tuple(tuple(c for c in h if c != card) if s == seat else h for s, h in enumerate(hands))
            played = trick + (card,)
            if len(played) == n:
                winner = (leader + trick_winner(list(played), trump)) % n
                taken = tuple(t + (s == winner) for s, t in enumerate(tricks))
                final, _ = outcome(rest, taken, (), winner)
            else:
                final, _ = outcome(rest, tricks, played, leader)
            score = round_score(bids[seat], final[seat])
            if best is None or score > best[0]:  # strictly better: the lowest card keeps a tie
                best = (score, final, card)
        return best[1], best[2]

    final, card = outcome(tuple(tuple(sorted(h)) for h in hands), tuple(tricks), tuple(trick), leader)
    return list(final), card


def trick_ranges(hands, tricks, trick, leader, trump):
    """The fewest and the most final tricks of every seat over every legal play of the rest of
    the round (arguments as max_n's): [(fewest, most) per seat]. What a sound bound on the
    max^n outcome must contain. Plain enumeration, memoised by position."""
    n = len(hands)
    memo = {}

    def ranges(hands, tricks, trick, leader):
        key = (hands, tricks, trick, leader)
        if key in memo:
            return memo[key]
        seat = (leader + len(trick)) % n
        if not hands[seat]:
            result = tuple((t, t) for t in tricks)
        else:
            result = None
            for card in legal_cards(list(hands[seat]), list(trick)):
                rest = tuple(tuple(c for c in h if c != card) if s == seat else h for s, h in enumerate(hands))
                played = trick + (card,)
                if len(played) == n:
                    winner = (leader + trick_winner(list(played), trump)) % n
                    taken = tuple(t + (s == winner) for s, t in enumerate(tricks))
                    child = ranges(rest, taken, (), winner)
                else:
                    child = ranges(rest, tricks, played, leader)
                result = child if result is None else tuple((min(a[0], b[0]), max(a[1], b[1])) for a, b in zip(result, child))
        memo[key] = result
        return result

    return [list(r) for r in ranges(tuple(tuple(sorted(h)) for h in hands), tuple(tricks), tuple(trick), leader)]
