"""Numba bots in a built-in policy's form (decide, round_finished, STATE_SIZE), for
tests/test_external.py."""
from numba import njit

from kernels.bits import lowest_bit
from kernels.records import DECIDE_BID

from broken_bots import IllegalPlayer  # three functions, never compiled here


class RoundCounter:
    """Bids the number of rounds its seat has finished in this game (the lowest legal bid at
    least that), plays its lowest legal card and trump suit; its state counts those rounds. With
    fails_after=k its hook raises once its seat has finished k rounds."""

    PARAMETERS = (("fails_after", 0.0),)
    STATE_SIZE = 1

    @staticmethod
    @njit
    def decide(decision, policies, me, table, legal, generator):
        if decision == DECIDE_BID:
            finished = int(policies.state[me.seat, 0])
            at_least = (legal >> finished) << finished
            return lowest_bit(at_least if at_least else legal)
        return lowest_bit(legal)

    @staticmethod
    @njit
    def round_finished(policies, table, seat):
        policies.state[seat, 0] += 1.0
        if policies.state[seat, 0] == policies.params[seat, 0]:
            raise ValueError("nowhere to keep the round")


class ForgetsNothing:
    """RoundCounter's decide, with no round_finished: its state stays as a game begins (clear)."""

    STATE_SIZE = 1
    decide = RoundCounter.decide


class TooMuchState:
    STATE_SIZE = 33
    decide = RoundCounter.decide


class StateWithoutDecide(IllegalPlayer):
    """One function per decision cannot read a seat's state: STATE_SIZE is refused."""

    STATE_SIZE = 1
