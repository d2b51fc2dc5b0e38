"""Run games with the numba kernels: validate, allocate, call, return columns."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from kernels import records
from kernels.cards import N_CARDS
from kernels import batch as kernels_batch
from kernels import fast_games
from kernels.batch import replay_game
from kernels.game_loop import new_workspace
from kernels.blocks import NO_FAILURE
from kernels.results import GameResults
from kernels.round_state import IllegalAction, current_seat, legal_actions
from kernels.rules import draw_first_dealer as _draw_first_dealer
from kernels.sequencer import FAST_POLICY_IDS
from sim.config.cards import SUIT_NAMES, format_card, mask_to_cards
from sim.config.errors import BotError, ConfigError
from sim.config.limits import MAX_GAMES, check_count
from sim.policies.registry import Policy, parse_policies
from sim.policies.python_protocol import DECISION_NAMES
from sim.config.rules import Rules
from sim.config.seeds import check_seed
from sim.engine.policy_engine import BOT_FUNCTION_OF_DECISION, function_place
from sim.engine.calls import call_kernel, exception_text, in_slices
from sim.engine.seating import Seating
from sim.engine.startup import start
from sim.engine.threads import set_threads
from sim.runs.bot_games import SeatedGames, check_batch, play_with_bots, seating_rows


@dataclass
class GameBatch:
    """Results of games `game_ids` under `rules` and `policies` (one per seat).

    rounds[g, k]: dealer, trump_card, trump of round rules.round_sizes[k] of game g;
    seats[g, k, s]: hand, bid, tricks, score, total of seat s in that round;
    games[g, s]: final total and winner flag; plays[g, p]: card, seat, trick winner and the
    legal mask of the p-th card played in game g (empty unless plays were logged)."""

    rules: Rules
    policies: list[Policy]
    seed: int
    game_ids: np.ndarray
    rounds: np.ndarray
    seats: np.ndarray
    games: np.ndarray
    plays: np.ndarray
    seating: np.ndarray
    deal_ids: np.ndarray | None = None  # a tournament's or league's: the deal of each game
    rotations: np.ndarray | None = None  # its seat rotation (-1 without duplicates)
    table_ids: np.ndarray | None = None  # a league's: the table of its design


class GameFailure(BotError):
    """A policy failed in game `game` of run_games: `what` says who did what at which decision,
    `rest` the round and what was legal; `at(place)` is the message with the game described
    as `place` (a tournament names its deal and seating)."""

    def __init__(self, what: str, game: int, rest: str) -> None:
        self.what, self.game, self.rest = what, game, rest
        super().__init__(self.at(f"game {game}"))

    def at(self, place: str) -> str:
        return f"{self.what} in {place}{self.rest}"


def action_text(decision: int, action: int) -> str:
    """An answer to `decision` in card/bid notation: `card 7S`, `bid 2`, `trump hearts`."""
    if decision == records.DECIDE_CARD:
        return f"card {format_card(action)}" if 0 <= action < N_CARDS else f"card id {action} (not a card)"
    if decision == records.DECIDE_BID:
        return f"bid {action}"
    return f"trump {SUIT_NAMES[action]}" if 0 <= action < len(SUIT_NAMES) else f"suit {action} (not a suit)"


def legal_text(decision: int, legal: int) -> str:
    """The legal set of `decision` in card/bid notation: `2H, 9H`, `0, 1, 3`, `clubs, hearts`."""
    if decision == records.DECIDE_CARD:
        return ", ".join(format_card(card) for card in mask_to_cards(legal))
    actions = [action for action in range(legal.bit_length()) if (legal >> action) & 1]
    return ", ".join(SUIT_NAMES[action] if decision == records.DECIDE_TRUMP else str(action) for action in actions)


def replay_failure(seating: Seating, seed: int, game: int, rules: Rules) -> GameFailure:
    """Why game `game` failed: play it again in this thread (its failure then raises) and read
    the failing decision off the round's state, which a failure leaves as it was. `seating`
    seats the game's policies in seat order."""
    rules_record, policies = rules.to_record(), list(seating.policies)
    workspace = new_workspace(rules_record[0], seating.arrays)
    engine = seating.kernel(replay_game)
    try:
        engine(seed, game, rules_record, rules.round_sizes_array(), workspace, empty_results(rules, 1, log_plays=False))
    except KeyboardInterrupt:
        raise
    except BaseException as error:
        failure = error
    else:
        return GameFailure(f"a policy failed, but not when its game was played again (policies: {seating.labels})", game, "")
    table, seats = workspace[0]["table"], workspace[0]["seats"]
    decision, seat, round_size = int(table["phase"]), int(current_seat(table)), int(table["round_size"])
    rest = f", round of {round_size} card{'s' if round_size != 1 else ''}"
    if seat == records.NO_SEAT:  # not at a decision: a bot's round_finished failed, or the engine itself
        hooked = {policy.kind.bot.path: policy.kind.bot.round_finished for policy in policies
                  if policy.kind.bot is not None and policy.kind.bot.round_finished is not None}  # fmt: skip
        if int(table["phase"]) == records.PHASE_DONE and len(hooked) == 1:  # the one bot with a hook
            (path, hook), = hooked.items()
            place = function_place(hook)
            return GameFailure(f"policy {path} raised {exception_text(failure)} in its round_finished ({place})", game, rest)
        return GameFailure(f"the engine failed: {exception_text(failure)}", game, rest)
    policy = policies[seat]
    where = f"for seat {seat}'s {DECISION_NAMES[decision]} decision"
    if isinstance(failure, IllegalAction):
        legal = int(legal_actions(table, seats))
        chose = action_text(decision, int(failure.choice))
        legal_set = f"{rest}; legal: {legal_text(decision, legal)}"
        return GameFailure(f"policy {policy.label} chose {chose} {where}", game, legal_set)
    if policy.kind.bot is not None:  # the bot's own function for this decision raised
        function = policy.kind.bot.function_of(BOT_FUNCTION_OF_DECISION[decision])
        where = f"in its {function.py_func.__name__} ({function_place(function)}) {where}"
    return GameFailure(f"policy {policy.label} raised {exception_text(failure)} {where}", game, rest)


MAX_RESULT_BYTES = 2**30  # results of one call of the kernels (a chunk is far smaller)


def result_bytes(rules: Rules, games: int, log_plays: bool) -> int:
    n_rounds = len(rules.round_sizes)
    per_game = (
        n_rounds * records.ROUND_RESULT_DTYPE.itemsize
        + n_rounds * rules.players * records.SEAT_RESULT_DTYPE.itemsize
        + rules.players * records.GAME_RESULT_DTYPE.itemsize
        + (rules.plays_per_game() * records.PLAY_DTYPE.itemsize if log_plays else 0)
    )
    return games * per_game


FIRST_SLICE_BLOCKS = 1  # games per thread in the first call (then sized by measurement)


def builtin_only(policies: list[Policy], arrays: tuple[np.ndarray, np.ndarray]) -> bool:
    """Whether every policy is `random` or `heuristic` (no bot): the games then take the fast
    path (kernels.fast_games), which compiles no searching policy (Seating.builtin_only)."""
    ids = arrays[0][: len(policies)]
    return not any(policy.kind.bot for policy in policies) and all(int(policy_id) in FAST_POLICY_IDS for policy_id in ids)


def play_in_slices(
    seating: Seating,
    seed: int,
    game_ids: np.ndarray,
    rules: Rules,
    results: GameResults,
    seatings: np.ndarray | None = None,
    place: Callable[[int], str] | None = None,
) -> None:
    """play_games in slices (in_slices), or with `seatings` play_seated_games: row i then plays
    game_ids[i] with the listed policy seatings[i, s] at seat s (without `seatings`, listed
    policy s sits at seat s). The games do not depend on the split (each is a pure function of
    its seed, id and seating); a slice's results are views into `results`. A policy that fails stops the run
    with a GameFailure naming the first game (in row order) it failed in, whatever the thread
    count; `place(row)` names that row's game instead (a tournament's game and deal)."""
    rules_record, sizes, arrays = rules.to_record(), rules.round_sizes_array(), seating.arrays
    engine = fast_games if seating.builtin_only else kernels_batch

    def play(start: int, stop: int) -> None:
        rows = GameResults(*(result[start:stop] for result in results))
        if seatings is None:
            failed = call_kernel(engine.play_games, seating, seed, game_ids[start:stop], rules_record, sizes, arrays,
                                 rows)  # fmt: skip
        else:
            failed = call_kernel(engine.play_seated_games, seating, seed, game_ids[start:stop], seatings[start:stop],
                                 rules_record, sizes, arrays, rows)  # fmt: skip
        if failed == NO_FAILURE:
            return
        # The first failing game: every earlier slice, and every earlier block, played through.
        row = start + failed
        seated = seating if seatings is None else Seating.of(seating.seated(seatings[row]))
        failure = replay_failure(seated, seed, int(game_ids[row]), rules)
        if place is None:
            raise failure
        raise BotError(failure.at(place(row))) from None

    in_slices(game_ids.shape[0], max(1, numba.get_num_threads()) * FIRST_SLICE_BLOCKS, play)


def play_rows(
    rules: Rules,
    listed: Seating,
    seed: int,
    games: SeatedGames,
    results: GameResults,
    place: Callable[[int], str],
    threads: int | None = None,
    batch: int | None = None,
) -> None:
    """Play every row of `games` (seatings: indices into `listed`) into `results` (the records
    play_games fills, by row), in one batch whatever the seatings: in
    the kernels, or with Python seats by the Python-seat driver (each bot asked for all its
    rows at once, and seeing each game by its id in the data). `place(row)` names a row's
    game in a failure message."""
    game_ids, seen_ids = games.game_ids, games.seen_ids
    seatings = np.ascontiguousarray(games.seatings, dtype=np.int64)
    set_threads(threads)
    if listed.python:
        check_batch(batch)
        play_with_bots(rules, listed, seed, SeatedGames(game_ids, seatings, seen_ids), results, call_kernel, batch)
    else:
        play_in_slices(listed, seed, game_ids, rules, results, seatings, place)


def empty_results(rules: Rules, games: int, log_plays: bool) -> GameResults:
    """The zeroed round, seat, game and play records that play_games fills for `games` games."""
    n_rounds = len(rules.round_sizes)
    return GameResults(
        rounds=np.zeros((games, n_rounds), dtype=records.ROUND_RESULT_DTYPE),
        seats=np.zeros((games, n_rounds, rules.players), dtype=records.SEAT_RESULT_DTYPE),
        games=np.zeros((games, rules.players), dtype=records.GAME_RESULT_DTYPE),
        plays=np.zeros((games, rules.plays_per_game() if log_plays else 0), dtype=records.PLAY_DTYPE),
    )


def run_games(
    rules: Rules,
    policies: str | list[str] | list[Policy] | Seating,
    *,
    seed: int,
    games: int | None = None,
    first_game: int = 0,
    game_ids: np.ndarray | None = None,
    log_plays: bool = False,
    threads: int | None = None,
    batch: int | None = None,
) -> GameBatch:
    """Play games first_game .. first_game+games-1 (or the given game_ids) of the run `seed`.

    Each game is a pure function of (seed, game id) (and of the answers of the Python policies
    among `policies`: classes, instances or `module:Object` texts are Python policies): any
    split of a run into batches, any thread count and any `batch` (games in play at once
    with Python seats, sim.runs.bot_games) give the same games. A run configuration passes
    its Seating (validated once, with its compiled engine); anything else is validated here."""
    seed = check_seed(seed)
    seating = policies if isinstance(policies, Seating) else Seating.of(parse_policies(policies, rules.players))
    if len(seating.policies) != rules.players:
        raise ConfigError(f"got {len(seating.policies)} policies for {rules.players} players")
    check_batch(batch)
    if game_ids is None:
        games = check_count(games, "games", 1, MAX_GAMES)
        first_game = check_count(first_game, "first_game", 0, MAX_GAMES)
        if result_bytes(rules, games, log_plays) > MAX_RESULT_BYTES:
            largest = MAX_RESULT_BYTES // result_bytes(rules, 1, log_plays)
            raise ConfigError(f"games: {games:,} games at once need more than 1 GiB of results; at most {largest:,} per call")
        game_ids = np.arange(first_game, first_game + games, dtype=np.int64)
    game_ids = np.ascontiguousarray(game_ids, dtype=np.int64)
    if game_ids.ndim != 1 or game_ids.size == 0 or game_ids.min() < 0:
        raise ConfigError("game_ids must be a non-empty 1-d list of game indices >= 0")
    set_threads(threads)
    n_games = game_ids.shape[0]
    if result_bytes(rules, n_games, log_plays) > MAX_RESULT_BYTES:
        largest = MAX_RESULT_BYTES // result_bytes(rules, 1, log_plays)
        raise ConfigError(f"games: {n_games:,} games at once need more than 1 GiB of results; at most {largest:,} per call")
    results = empty_results(rules, n_games, log_plays)
    rows = seating_rows(rules.players, n_games)
    if seating.python:
        play_with_bots(rules, seating, seed, SeatedGames(game_ids, rows, game_ids), results, call_kernel, batch)
    else:
        play_in_slices(seating, seed, game_ids, rules, results)
    return GameBatch(rules, list(seating.policies), seed, game_ids, *results, rows)


def run_round(
    players: int,
    round_size: int,
    policies: str | list[str] | list[Policy],
    *,
    seed: int,
    games: int,
    **options,
) -> GameBatch:
    """Play only round `round_size` of games 0..games-1 (the same deals as in full games);
    `options` are the other Rules fields and run_games keywords."""
    rule_fields = {key: options.pop(key) for key in ("bidding", "even_bids", "first_dealer") if key in options}
    rules = Rules(players=players, rounds=(round_size,), **rule_fields)
    return run_games(rules, policies, seed=seed, games=games, **options)


def draw_first_dealer(seed: int, game: int, players: int) -> int:
    """The seat that deals first in game `game` of run `seed` (docs/rules.md §2, by the draw)."""
    Rules(players=players)
    game = check_count(game, "game", 0, MAX_GAMES)  # 2**70 went into the kernel (a numba typing error)
    scratch = np.zeros(1, dtype=records.SCRATCH_DTYPE)
    start()
    return int(_draw_first_dealer(check_seed(seed), game, players, scratch[0]))
