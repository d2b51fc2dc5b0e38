"""Bots that break the external-bot contract, for tests/test_external.py."""
from numba import njit


class NotJitted:
    @staticmethod
    def bid(me, table, legal, params, generator):
        return 0

    @staticmethod
    def choose_trump(me, table, params, generator):
        return 0

    @staticmethod
    def play(me, table, legal, params, generator):
        return 0


class IllegalPlayer:
    """Always plays card 0 (the 2 of clubs), usually not in its hand."""

    @staticmethod
    @njit
    def bid(me, table, legal, params, generator):
        return 0

    @staticmethod
    @njit
    def choose_trump(me, table, params, generator):
        return 0

    @staticmethod
    @njit
    def play(me, table, legal, params, generator):
        return 0


class RarelyIllegal:
    """Bids 21 (never legal) when it holds both the 2 and the 3 of clubs, otherwise 0; plays
    its lowest legal card: an illegal action in a few games only."""

    @staticmethod
    @njit
    def bid(me, table, legal, params, generator):
        if me.hand & 0b11 == 0b11:
            return 21
        return 0

    @staticmethod
    @njit
    def choose_trump(me, table, params, generator):
        return 0

    @staticmethod
    @njit
    def play(me, table, legal, params, generator):
        card = 0
        while (legal >> card) & 1 == 0:
            card += 1
        return card


class DoesNotCompile:
    """Its play adds a string to an integer: a numba typing error."""

    @staticmethod
    @njit
    def bid(me, table, legal, params, generator):
        return 0

    @staticmethod
    @njit
    def choose_trump(me, table, params, generator):
        return 0

    @staticmethod
    @njit
    def play(me, table, legal, params, generator):
        return legal + "a card"


class Raises:
    """Raises in its bid once it holds a Wizard (a bot's own error at run time)."""

    @staticmethod
    @njit
    def bid(me, table, legal, params, generator):
        if me.hand >> 52:
            raise ValueError("no plan for Wizards")
        return 0

    @staticmethod
    @njit
    def choose_trump(me, table, params, generator):
        return 0

    @staticmethod
    @njit
    def play(me, table, legal, params, generator):
        card = 0
        while (legal >> card) & 1 == 0:
            card += 1
        return card
