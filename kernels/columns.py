"""The result records of a batch as the flat columns of the rounds table, in one pass.

The writer threads build these columns for every chunk while the engine plays the next one,
on the same cores: built column by column with numpy, they cost a quarter of what the
engine spends playing the games.
"""
from numba import njit

from kernels.rules import bid_position


@njit(cache=True, nogil=True)
def fill_round_columns(game_ids, round_sizes, rounds, seats, seat_policy_codes, columns):
    """Fill `columns` (game_id, round, seat, dealer, policy code, hand, trump_card, trump, bid,
    bid_order, tricks, score, total: arrays of games x rounds x players rows) from the round
    records [games, rounds] and seat records [games, rounds, players]; rows run game, round,
    seat. seat_policy_codes[g, s] is the policy code of seat s in game g."""
    (game_id, round_size, seat_column, dealer, policy, hand, trump_card, trump, bid, bid_order,
     tricks, score, total) = columns
    n_games, n_rounds, n_players = seats.shape
    row = 0
    for game in range(n_games):
        for index in range(n_rounds):
            round_result = rounds[game, index]
            for seat in range(n_players):
                result = seats[game, index, seat]
                game_id[row] = game_ids[game]
                round_size[row] = round_sizes[index]
                seat_column[row] = seat
                dealer[row] = round_result.dealer
                policy[row] = seat_policy_codes[game, seat]
                hand[row] = result.hand
                trump_card[row] = round_result.trump_card
                trump[row] = round_result.trump
                bid[row] = result.bid
                bid_order[row] = bid_position(seat, round_result.dealer, n_players)
                tricks[row] = result.tricks
                score[row] = result.score
                total[row] = result.total
                row += 1
