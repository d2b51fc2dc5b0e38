"""What a finished round and a finished game leave: the result records, written in one place.

The batch of games (kernels.batch) and the Python-seat driver (kernels.bot_pool) write
them into a batch's result arrays (GameResults, indexed [game slot, ...]); a game state keeps
its last finished round in the same record types (kernels.game_state.ROUND_SUMMARY_DTYPE).
Records are addressed one by one: a view of a result array would count a reference on its
memory, a cache line that every thread writes.
"""
from collections import namedtuple

from numba import njit

from kernels.rules import round_score

# A batch's result arrays (kernels.records): round records [games, rounds], seat records
# [games, rounds, players], game records [games, players], play records [games, plays per game]
# (0 plays per game: no play log).
GameResults = namedtuple("GameResults", ("rounds", "seats", "games", "plays"))


@njit(cache=True, inline="always")
def write_round_result(result, table):
    """A finished round's public facts into a ROUND_RESULT_DTYPE record."""
    result.dealer = table.dealer
    result.trump_card = table.trump_card
    result.trump = table.trump


@njit(cache=True, inline="always")
def write_seat_result(result, table, seats, seat):
    """A seat's finished round into a SEAT_RESULT_DTYPE record: dealt hand, bid, tricks, round
    score and the running total after it."""
    me = seats[seat]
    result.hand = me.dealt
    result.bid = me.bid
    result.tricks = table.tricks[seat]
    result.score = round_score(me.bid, table.tricks[seat])
    result.total = table.totals[seat]


@njit(cache=True)
def record_round(table, seats, results, slot, index):
    """Write the finished round, number `index` of the game, into results slot `slot`."""
    write_round_result(results.rounds[slot, index], table)
    for seat in range(table.n_players):
        write_seat_result(results.seats[slot, index, seat], table, seats, seat)


@njit(cache=True)
def record_plays(plays, count, results, slot, first):
    """Copy a round's play log plays[:count] to the game's play records from index `first`."""
    for play in range(count):
        results.plays[slot, first + play] = plays[play]


@njit(cache=True)
def record_game(totals, winners, n_players, results, slot):
    """The final totals and winner flags of the game in results slot `slot`."""
    for seat in range(n_players):
        results.games[slot, seat].total = totals[seat]
        results.games[slot, seat].winner = winners[seat]
