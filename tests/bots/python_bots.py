"""Python policies for tests/test_python_policies.py: bots that hand every decision back to a
built-in fallback (their games must equal run_games with the fallback seated), a deterministic
bot that remembers what it answered, and bots that break the protocol."""
import numpy as np

from sim.policies.python_protocol import DELEGATE


class Delegating:
    """Hands every decision to FALLBACK: its games are the fallback's, bit for bit."""

    FALLBACK = "random"

    def act(self, observations, masks):
        return np.full(observations.shape[0], DELEGATE)


class DelegatingHeuristic(Delegating):
    FALLBACK = "heuristic"


class DelegatingAggressive(Delegating):
    FALLBACK = "heuristic:aggression=1.1"


class DelegatingMc(Delegating):
    FALLBACK = "mc:samples=2,play_samples=2"


class DelegatingOne:
    """The per-decision form, delegating too, asked only for bids."""

    FALLBACK = "heuristic"
    DECISIONS = ("bid",)

    def act_one(self, observation, mask):
        return DELEGATE


class Lowest:
    """Deterministic: the lowest legal action (the lowest card id, bid or suit); it remembers
    every answer per (game, seat), in order, and what game_over told it."""

    def __init__(self):
        self.answers = {}  # (game, seat) -> [(kind, round size, action), ...]
        self.ended = {}  # (game, seat) -> final totals

    def act(self, observations, masks, context):
        actions = masks.argmax(axis=1)
        for game, seat, kind, size, action in zip(context.games, context.seats, context.kinds, context.round_sizes, actions):
            self.answers.setdefault((int(game), int(seat)), []).append((int(kind), int(size), int(action)))
        return actions

    def game_over(self, games, seats, totals):
        for game, seat, row in zip(games, seats, totals):
            assert (int(game), int(seat)) not in self.ended
            self.ended[(int(game), int(seat))] = [int(value) for value in row]


class HighestBid:
    """Bids the highest legal bid itself, delegates cards and trump (a bot that changes the game)."""

    FALLBACK = "heuristic"

    def act(self, observations, masks, context):
        highest = masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)
        return np.where(context.kinds == 1, highest, DELEGATE)


class Raising:
    def act(self, observations, masks):
        return {}["no such key"]


class RaisingOnBids:
    """Fails only for one kind of row, so the failing row can be named."""

    def act(self, observations, masks, context):
        if (context.kinds == 1).any():
            raise ValueError("cannot bid")
        return np.full(observations.shape[0], DELEGATE)


class WrongShape:
    def act(self, observations, masks):
        return np.zeros((observations.shape[0], 2), dtype=np.int64)


class HugeUnsigned:
    """Answers 2**64 - 1 as uint64, which a conversion to int64 reads as -1 (DELEGATE)."""

    def act(self, observations, masks):
        return np.full(observations.shape[0], 2**64 - 1, dtype=np.uint64)


class HugeUnsignedOne:
    def act_one(self, observation, mask):
        return np.uint64(2**64 - 1)


class FloatAnswers:
    """Answers legal actions as floats: a float is not an action."""

    def act(self, observations, masks):
        return masks.argmax(axis=1).astype(np.float64)


class Illegal:
    """Always plays card 0 (the 2 of clubs), often not in its hand."""

    DECISIONS = ("card",)

    def act_one(self, observation, mask):
        return 0


class RewritesItsMasks:
    """Marks every action legal in the masks it is given, then answers an illegal one."""

    def act(self, observations, masks):
        illegal = np.argmin(masks, axis=1)
        masks[:] = True
        return illegal


class RewritesItsMask:
    """RewritesItsMasks one decision at a time."""

    def act_one(self, observation, mask):
        illegal = int(np.argmin(mask))
        mask[:] = True
        return illegal


class BadParameters:
    PARAMETERS = "margin"

    def act(self, observations, masks):
        return np.full(observations.shape[0], DELEGATE)


class BadFallback(Delegating):
    FALLBACK = "no_such_policy"


class TooManyParameters:
    """One parameter more than a seat's row holds (kernels.records.MAX_PARAMS)."""

    PARAMETERS = tuple((f"p{k}", 0.0) for k in range(25))

    def act(self, observations, masks):
        return np.full(observations.shape[0], DELEGATE)


class WithParameters:
    PARAMETERS = (("margin", 0.5),)
    RANGES = {"margin": (0, 1)}

    def __init__(self, margin=0.5):
        self.margin = margin

    def act(self, observations, masks):
        return np.full(observations.shape[0], DELEGATE)


instance_with_parameters = WithParameters()


class Flaky(Lowest):
    """Lowest, failing at its call number `fail_at` (counted over every instance) when set."""

    fail_at = None
    calls = 0

    def act(self, observations, masks, context):
        Flaky.calls += 1
        if Flaky.calls == Flaky.fail_at:
            raise RuntimeError("failing as asked")
        return super().act(observations, masks, context)


class Recording:
    """Deterministic: the lowest legal action, like Lowest; it keeps a copy of every
    observation and mask it is given per (game, seat), in order."""

    def __init__(self):
        self.seen = {}  # (game, seat) -> [(observation, mask), ...]

    def act(self, observations, masks, context):
        for row, (game, seat) in enumerate(zip(context.games, context.seats)):
            self.seen.setdefault((int(game), int(seat)), []).append((observations[row].copy(), masks[row].copy()))
        return masks.argmax(axis=1)
