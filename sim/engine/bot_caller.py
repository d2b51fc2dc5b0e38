"""Asking Python policies for decisions (sim.policies.python_protocol: what a Python policy is):
one bot instance asked for a batch of decisions, every answer checked (BotCaller), and the
Python policies of a seating asked together (BotTable), the core every driver that steps
games with Python seats shares; the batched drivers (the Python-seat pool, estimate's
rollouts) exchange their turns with it in one layout (kernels.game_state.Turns, new_turns)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kernels.game_state import MASK_DTYPE, OBSERVATION_DTYPE, Turns
from kernels.records import DELEGATE, MAX_PLAYERS, NO_SEAT
from sim.config.actions import ActionError, action_name, check_action, check_actions
from sim.config.errors import BotError, echo
from sim.policies.registry import Policy
from sim.policies.python_protocol import Decisions, PythonBot, callable_attribute, error_text
from sim.engine.seating import Seating


def new_turns(n: int) -> Turns:
    """The turns of n games (kernels.game_state.Turns), none asked yet."""
    return Turns(
        answers=np.zeros(n, dtype=np.int64),
        seats=np.full(n, NO_SEAT, dtype=np.int64),
        kinds=np.zeros(n, dtype=np.int64),
        round_sizes=np.zeros(n, dtype=np.int64),
        observations=np.zeros(n, dtype=OBSERVATION_DTYPE),
        masks=np.zeros(n, dtype=MASK_DTYPE),
    )


def _legal_text(mask: np.ndarray) -> str:
    return ", ".join(action_name(int(a)) for a in np.flatnonzero(mask))


class BotCaller:
    """Asks one bot instance for a batch of decisions and checks every answer; any failure is
    one BotError line naming the bot, the seat, the decision, the game and round, the answer
    and the legal set."""

    def __init__(self, bot: PythonBot, instance: object, label: str) -> None:
        self.bot = bot
        self.instance = instance
        self.label = label
        self._function = getattr(instance, "act" if bot.batched else "act_one")
        self._game_over = callable_attribute(instance, "game_over")

    @property
    def has_game_over(self) -> bool:
        return self._game_over is not None

    def game_over(self, games: np.ndarray, seats: np.ndarray, totals: np.ndarray) -> None:
        """Tell the bot that games `games` ended (its seat `seats` in each, one row per game and
        seat it played; totals: the final score pad [m, players])."""
        try:
            self._game_over(games, seats, totals)
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            raise BotError(
                f"policy {self.label}: game_over raised {error_text(error, self.bot.source)} "
                f"(after {games.shape[0]} seat-games ending with game {int(games[-1])})"
            ) from None

    def ask(self, observations: np.ndarray, masks: np.ndarray, context: Decisions) -> np.ndarray:
        """int64 actions [n]: legal actions, or DELEGATE."""
        n = observations.shape[0]
        # The bot gets a copy of the legal masks: its answers are checked against the masks
        # it was given even if it writes into its copy (one line naming the seat and game).
        given = masks.copy()
        if self.bot.batched:
            answers = self._call_batch(observations, given, context, masks)
        else:
            answers = np.empty(n, dtype=np.int64)
            for i in range(n):
                answer = self._call((observations[i], given[i], context.row(i)), context.describe(i))
                answers[i] = self._one_answer(answer, context, i, masks)
        self.check(answers, masks, context)
        return answers

    def _call(self, arguments: tuple, where: str):
        try:
            return self._function(*(arguments if self.bot.takes_context else arguments[:2]))
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            raise BotError(f"policy {self.label} raised {error_text(error, self.bot.source)} ({where})") from None

    def _call_batch(self, observations, given, context, masks) -> np.ndarray:
        n = observations.shape[0]
        try:
            answers = self._function(*((observations, given, context) if self.bot.takes_context else (observations, given)))
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            # Ask row by row for the first row that fails alone, to name its seat and game.
            for i in range(n):
                one = slice(i, i + 1)
                self._call((observations[one], given[one], context.take(one)), context.describe(i))
            text = error_text(error, self.bot.source)
            raise BotError(f"policy {self.label} raised {text} (on a batch of {n} decisions; no row fails alone)") from None
        try:
            return check_actions(answers, n, delegate=True)
        except ActionError as error:
            if error.index is not None:
                raise self._not_an_action(error, context, error.index, masks) from None
            array = answers if isinstance(answers, np.ndarray) else None
            raise BotError(
                f"policy {self.label} returned {type(answers).__name__}"
                + (f" of shape {array.shape} and dtype {array.dtype}" if array is not None else "")
                + f" for {n} decisions; act must return {n} integers (first: {context.describe(0)})"
            ) from None

    def _one_answer(self, answer, context: Decisions, i: int, masks: np.ndarray) -> int:
        try:
            return check_action(answer, delegate=True)
        except ActionError as error:
            if error.index is not None:
                raise self._not_an_action(error, context, i, masks) from None
            raise BotError(
                f"policy {self.label} returned {echo(answer)} ({context.describe(i)}); act_one must return an integer action"
            ) from None

    def _not_an_action(self, error: ActionError, context: Decisions, i: int, masks: np.ndarray) -> BotError:
        return BotError(
            f"policy {self.label} chose {echo(error.value)} (not an action) ({context.describe(i)}); legal: {_legal_text(masks[i])}"
        )

    def check(self, answers: np.ndarray, masks: np.ndarray, context: Decisions) -> None:
        """Each answer (an action or DELEGATE: check_actions) legal in its row's mask."""
        legal = masks[np.arange(answers.shape[0]), np.maximum(answers, 0)] | (answers == DELEGATE)
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            value = int(answers[i])
            raise BotError(
                f"policy {self.label} chose {value} ({action_name(value)}) ({context.describe(i)}); "
                f"legal: {_legal_text(masks[i])}"
            )


@dataclass
class SeatedBot:
    """One Python policy of a seating (its listed entries share one instance)."""

    policy: Policy
    caller: BotCaller
    listed: list[int]  # indices of the listed policies it is


class BotTable:
    """The Python policies of a seating, created for one batch of games (a chunk of a run,
    an estimate, a game of `play`): one instance per distinct policy, however many seats or
    listed entries it holds. The one place the drivers ask bots from (sim.runs.bot_games,
    sim.estimation.bot_rollouts, sim.play.session): each bot is asked once per step for
    all of its rows, and told which of its games ended."""

    def __init__(self, seating: Seating) -> None:
        found: dict[tuple, SeatedBot] = {}
        for index in seating.python:
            policy = seating.policies[index]
            bot = policy.kind.python
            # By identity: a bot object's own == may compare arrays, or be missing (unhashable).
            key = (policy.label, id(bot.target), policy.params)
            if key not in found:
                found[key] = SeatedBot(policy, BotCaller(bot, bot.instantiate(policy.params), policy.label), [])
            found[key].listed.append(index)
        self.bots = list(found.values())
        # int64 [max(MAX_PLAYERS, listed)]: the bot (index into bots) of each listed policy, -1 for a built-in one.
        self.bot_of_listed = np.full(max(MAX_PLAYERS, len(seating.policies)), -1, dtype=np.int64)
        for number, seated in enumerate(self.bots):
            self.bot_of_listed[seated.listed] = number

    @property
    def has_game_over(self) -> bool:
        return any(seated.caller.has_game_over for seated in self.bots)

    def caller_at(self, index: int) -> BotCaller | None:
        """The bot of listed policy `index` (None: a built-in policy)."""
        number = int(self.bot_of_listed[index])
        return None if number < 0 else self.bots[number].caller

    def ask(self, bot_of_row: np.ndarray, batch: tuple, answers: np.ndarray) -> None:
        """Ask each bot once for its rows of batch = (observations, masks, Decisions) and write
        its answers to answers[rows]; bot_of_row[i] indexes `bots` (-1: no bot asked). When
        one bot has every row it gets the buffers themselves, no copies."""
        observations, masks, context = batch
        for number, seated in enumerate(self.bots):
            mine = bot_of_row == number
            if mine.all():
                answers[:] = seated.caller.ask(observations, masks, context)
            elif mine.any():
                rows = np.flatnonzero(mine)
                answers[rows] = seated.caller.ask(observations[rows], masks[rows], context.take(rows))

    def ask_turns(self, bot_of_row: np.ndarray, games: np.ndarray, turns: Turns) -> None:
        """Ask each bot once for its games' turns (games: the id each game has for the bots)
        and write its answers to turns.answers; bot_of_row[i] as in ask (-1: game i is not
        asked, its answer is left as it is). The bots get the turns' float32 observations
        and bool masks as views, no copies."""
        context = Decisions(games, turns.seats, turns.kinds, turns.round_sizes)
        batch = (turns.observations["values"], turns.masks["legal"].view(np.bool_), context)
        self.ask(bot_of_row, batch, turns.answers)

    def games_over(self, bot_of_row: np.ndarray, games: np.ndarray, seats: np.ndarray, totals: np.ndarray) -> None:
        """Tell each bot with a game_over method which of its games ended: rows (game id, seat,
        that game's final score pad [players]) of every (game, seat) a bot held, bot_of_row[i]
        the bot of row i (-1: none)."""
        for number, seated in enumerate(self.bots):
            if not seated.caller.has_game_over:
                continue
            rows = np.flatnonzero(bot_of_row == number)
            if rows.size:
                seated.caller.game_over(games[rows], seats[rows], totals[rows])
