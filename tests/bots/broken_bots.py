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
