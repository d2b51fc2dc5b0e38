"""VectorEnv: B games stepped in parallel inside the kernels (the pgx / EnvPool convention)."""
from __future__ import annotations

import numba
import numpy as np

from kernels import vector_env
from kernels.records import MAX_PLAYERS
from sim.config.actions import check_actions
from sim.config.errors import ConfigError, echo
from sim.config.limits import MAX_GAMES, check_count
from sim.policies.registry import Policy
from sim.config.rules import Rules, is_whole_number
from sim.config.seeds import check_seed
from sim.env.layout import N_ACTIONS, OBSERVATION_SIZE, action_name
from sim.env.state_api import environment_seating, new_game_states
from sim.engine.threads import check_threads, set_threads

# Below this many envs per thread a step runs on the calling thread: waking the thread pool
# cost more than the step (B=1 on 2 threads measured 3 ms a step, 30 us serial).
PARALLEL_MIN_ENVS_PER_THREAD = 32
PARALLEL_CHUNK = 16  # envs a thread takes at a time
MAX_ENVS = 2**18  # num_envs: a game's state is about 3.7 KB, its observation 3.4 KB

REWARD_MODES = {"round": vector_env.REWARD_ROUND, "game": vector_env.REWARD_GAME, "win": vector_env.REWARD_WIN}


class VectorEnv:
    """`num_envs` games of `rules`; the caller acts for `controlled_seats`, the built-in
    `opponents` (one policy for every seat, or a comma list / list with one per seat; the
    entries of controlled seats are ignored) play the others inside the kernels.

    Env i plays games first_game + i, first_game + i + B, ... of run `seed` (automatic reset:
    a finished env starts its next game in the same step). Each game is a pure function of
    (seed, game index) and of the caller's actions: independent of B and of `threads`.

    reset() and step() return observations float32 [B, OBSERVATION_SIZE] (of the seat to act,
    infos["seat"]), masks bool [B, N_ACTIONS], and step() also rewards float32 [B],
    terminations bool [B], truncations bool [B] (always False) and infos:
    "seat" (seat to act), "game" (its game index), "final_totals" int64 [B, players] (valid
    where terminated). Rewards (`reward`): "round" = the acting seat's round score in the step
    in which its round ends; "game" = its final total when the game ends; "win" = 1.0 when it
    wins (ties share the win). All are 0 in other steps.

    With copy=False (default) the arrays returned are the env's own buffers, overwritten by the
    next reset() or step(): copy what you keep (at B=4096 a copy of the observations costs as
    much as the step). copy=True returns fresh arrays.
    """

    def __init__(
        self,
        rules: Rules | None = None,
        num_envs: int = 1,
        *,
        controlled_seats: int | tuple[int, ...] | list[int] = (0,),
        opponents: str | list[str] | list[Policy] = "heuristic",
        seed: int = 0,
        first_game: int = 0,
        reward: str = "round",
        threads: int | None = None,
        copy: bool = False,
    ) -> None:
        self.rules = rules if rules is not None else Rules()
        players = self.rules.players
        num_envs = check_count(num_envs, "num_envs", 1, MAX_ENVS)
        if is_whole_number(controlled_seats):
            controlled_seats = (controlled_seats,)
        seats = list(controlled_seats) if isinstance(controlled_seats, (tuple, list)) else []
        if not seats or len(set(seats)) != len(seats) or not all(is_whole_number(s) and 0 <= s < players for s in seats):
            raise ConfigError(f"controlled_seats must be distinct seats in 0..{players - 1}, got {echo(controlled_seats)}")
        controlled = tuple(int(s) for s in seats)
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward must be one of {', '.join(REWARD_MODES)}, got {echo(reward)}")
        first_game = check_count(first_game, "first_game", 0, MAX_GAMES)
        if threads is not None:
            check_threads(threads)
        self.num_envs = int(num_envs)
        self.controlled_seats = controlled
        self.opponents = opponents
        self.reward = reward
        self.threads = threads
        self.copy = copy
        self.seed = check_seed(seed)
        self.first_game = int(first_game)
        self.num_actions = N_ACTIONS
        self.observation_size = OBSERVATION_SIZE
        self._seating = environment_seating(opponents, self.rules.players)  # the opponents' engine
        self._states = new_game_states(
            self.rules, self.num_envs, self.seed, policies=self._seating, controlled=controlled, game_stride=self.num_envs
        )
        b = self.num_envs
        self._observations = np.zeros((b, OBSERVATION_SIZE), dtype=np.float32)
        # The legal masks the kernels write and step() checks against, and the caller's copy of
        # them (handed out, which a caller may write into without making an action legal).
        self._legal = np.zeros((b, N_ACTIONS), dtype=np.bool_)
        self._masks = np.zeros((b, N_ACTIONS), dtype=np.bool_)
        self._seats = np.zeros(b, dtype=np.int64)
        self._games = np.zeros(b, dtype=np.int64)
        self._rewards = np.zeros(b, dtype=np.float32)
        self._terminated = np.zeros(b, dtype=np.bool_)
        self._truncated = np.zeros(b, dtype=np.bool_)  # games never truncate
        self._final_totals = np.zeros((b, MAX_PLAYERS), dtype=np.int64)
        self._status = np.zeros(b, dtype=np.int64)
        self._arange = np.arange(b)
        self._started = False

    def _out(self, array: np.ndarray) -> np.ndarray:
        return array.copy() if self.copy else array

    def _masks_out(self) -> np.ndarray:
        """The legal masks as the caller gets them: never the array step() checks against."""
        if self.copy:
            return self._legal.copy()
        np.copyto(self._masks, self._legal)
        return self._masks

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, dict]:
        """Start (again) game first_game + i in env i, of run `seed` (default: the current
        run, first the one given at construction)."""
        if seed is not None and check_seed(seed) != self.seed:
            self.seed = check_seed(seed)
            self._states["seed"] = self.seed
        game_ids = np.arange(self.first_game, self.first_game + self.num_envs, dtype=np.int64)
        parallel = self._parallel()
        kernel = self._seating.kernel(vector_env.reset_envs if parallel else vector_env.reset_envs_serial)
        observed = vector_env.Observed(self._observations, self._legal, self._seats, self._games)
        self._call(kernel, parallel, self._states, game_ids, observed)
        self._started = True
        infos = {"seat": self._out(self._seats), "game": self._out(self._games)}
        return self._out(self._observations), self._masks_out(), infos

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Apply actions[i] in env i (each must be legal: masks[i, actions[i]]); returns
        (observations, masks, rewards, terminations, truncations, infos)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = check_actions(actions, self.num_envs)  # as every driver checks an action
        legal = self._legal[self._arange, actions]
        if not legal.all():
            env = int(np.flatnonzero(~legal)[0])
            action = int(actions[env])
            allowed = ", ".join(str(a) for a in np.flatnonzero(self._legal[env]))
            seat = int(self._seats[env])
            raise ValueError(f"illegal action {action} ({action_name(action)}) in env {env} for seat {seat}; legal: {allowed}")
        parallel = self._parallel()
        outputs = vector_env.Stepped(
            observations=self._observations,
            masks=self._legal,
            seats=self._seats,
            games=self._games,
            rewards=self._rewards,
            terminated=self._terminated,
            final_totals=self._final_totals,
            status=self._status,
        )
        kernel = self._seating.kernel(vector_env.step_envs if parallel else vector_env.step_envs_serial)
        self._call(kernel, parallel, self._states, actions, REWARD_MODES[self.reward], outputs)
        infos = {
            "seat": self._out(self._seats),
            "game": self._out(self._games),
            "final_totals": self._out(self._final_totals[:, : self.rules.players]),
        }
        return (
            self._out(self._observations),
            self._masks_out(),
            self._out(self._rewards),
            self._out(self._terminated),
            self._out(self._truncated),
            infos,
        )

    def last_round_scores(self) -> np.ndarray:
        """int64 [B, players]: every seat's score in each env's last finished round."""
        return self._states["last_round"]["seats"]["score"][:, : self.rules.players].astype(np.int64)

    def _parallel(self) -> bool:
        threads = self.threads or numba.config.NUMBA_NUM_THREADS
        return threads > 1 and self.num_envs >= PARALLEL_MIN_ENVS_PER_THREAD * threads

    def _call(self, kernel, parallel: bool, *arguments) -> None:
        if not parallel:
            kernel(*arguments)
            return
        previous = numba.get_num_threads()
        set_threads(self.threads)
        # Threads take envs PARALLEL_CHUNK at a time instead of an even split fixed in advance,
        # so a core slowed by other work does not hold up the step (as sim.engine.calls.call_kernel).
        previous_chunksize = numba.set_parallel_chunksize(PARALLEL_CHUNK)
        try:
            kernel(*arguments)
        finally:
            numba.set_parallel_chunksize(previous_chunksize)
            numba.set_num_threads(previous)
