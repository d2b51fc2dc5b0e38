"""The face-up playout of `pimc` (docs/pimc.md): every seat plays to its bid seeing every hand.

Not a seat policy (it reads every seat's record) and not in the registry: pimc plays its
sampled deals with it, the cards of a sample lying face up. It is passed to
kernels.round_state.play_until as the decide function with the round's seat records as its
`policies`, so it reads the other hands from there.

A card "wins for sure" when it takes the lead of the trick and no seat still to play to the
trick holds a legal card that beats it. A seat that still needs tricks plays its cheapest
sure winner, else its strongest card that takes the lead (else, when nothing takes it, its
weakest card); a seat that has its bid (or is past it) sheds its most dangerous card that
does not take the lead, else the weakest card a later seat can beat, else its weakest card.
"Cheapest", "strongest" and "weakest" are the heuristic's order (heuristic.extreme_card).
"""
from numba import njit

from kernels.bits import at, highest_bit, lowest_bit
from kernels.cards import JESTER_MASK, NO_SUIT, WIZARD_MASK, card_bit, card_rank, suit_mask
from kernels.policies.heuristic import extreme_card
from kernels.records import LED_FREE, LED_NONE
from kernels.rules import POWER_LED, POWER_TRUMP, POWER_WIZARD, led_suit_after, legal_cards, seat_after, trick_power


@njit(cache=True, inline="always")
def can_beat(hand, led, trump, power):
    """Whether a seat holding `hand` has a legal card with more trick power than `power` in a
    trick whose led suit is `led` (rules.trick_power; LED_NONE: only Jesters so far)."""
    if power >= POWER_WIZARD:
        return False
    legal = legal_cards(hand, led)
    if legal & WIZARD_MASK:
        return True
    if led == LED_NONE:
        return (legal & ~JESTER_MASK) != 0
    if trump != NO_SUIT:
        trumps = legal & suit_mask(trump)
        if trumps and POWER_TRUMP + card_rank(highest_bit(trumps)) > power:
            return True
    if 0 <= led < LED_FREE and led != trump:
        following = legal & suit_mask(led)
        if following and POWER_LED + card_rank(highest_bit(following)) > power:
            return True
    return False


@njit(cache=True)
def choose_card(seats, me, table, legal):
    """The face-up card of seat `me` (seats: every seat's record)."""
    trump = table.trump
    n_players = table.n_players
    position = table.n_in_trick
    sure = 0
    beatable = 0
    losing = 0
    rest = legal
    while rest:
        card = lowest_bit(rest)
        rest &= rest - 1
        bit = card_bit(card)
        led = led_suit_after(table.led_suit, card)
        power = trick_power(card, led, trump)
        if position > 0 and power <= table.winning_power:
            losing |= bit
            continue
        beaten = False
        for later in range(position + 1, n_players):
            if can_beat(seats[at(seat_after(table.leader, later, n_players))].hand, led, trump, power):
                beaten = True
                break
        if beaten:
            beatable |= bit
        else:
            sure |= bit
    if me.bid > table.tricks[at(me.seat)]:
        if sure:
            return extreme_card(sure, trump, False)
        if beatable:
            return extreme_card(beatable, trump, True)
        return extreme_card(legal, trump, False)
    if losing:
        return extreme_card(losing, trump, True)
    if beatable:
        return extreme_card(beatable, trump, False)
    return extreme_card(legal, trump, False)


@njit(cache=True, inline="always")
def decide(seats, decision, me, table, legal, generator):
    """kernels.round_state.play_until's decide, with the seat records as its `policies`
    (only card decisions reach it)."""
    return choose_card(seats, me, table, legal)
