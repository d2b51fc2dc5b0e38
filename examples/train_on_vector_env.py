"""Train a policy network with JAX on sim.env.VectorEnv, save it, and seat it (docs/learned.md).

    pip install -e '.[learn,rl]'                                  # JAX and optax
    python examples/train_on_vector_env.py --minutes 3             # trains, saves, measures
    wizard-sim tournament --policies examples.train_on_vector_env:TrainedPolicy,heuristic,heuristic,heuristic \
        --games 500 --out /tmp/trained                              # seats what it saved

The learning seat (seat 0 of 4) answers every decision — trump, bid and card — with one small
network: the env's observation in, a score per flat action out, a softmax over the legal ones.
Its reward is its round score (VectorEnv reward="round", which arrives in the step its round
ends; a round score is never 0). REINFORCE: every decision of a round is pushed towards its
action in proportion to the round's score minus a baseline per round size; optax's Adam.

What it measures, in minutes on 2 cores: seat 0's mean final score against three `heuristic`
seats on deals never trained on, beside `random` at that seat on the same deals (where training
starts): the interval of the difference is above 0 after a few minutes. It stays far below
`heuristic` and `learned`: an agent from nothing needs hours of such steps; wizard-sim train
instead distils the engine's search (docs/learned.md).

What it saves (--save, default trained_on_vector_env.npz) is plain arrays; TrainedPolicy
below reads them (np.load with allow_pickle=False) and is a Python policy (docs/bots.md), so
any command seats it as examples.train_on_vector_env:TrainedPolicy; the file is taken from
$TRAINED_POLICY, else ./trained_on_vector_env.npz.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import sim
from sim.env import N_ACTIONS, OBSERVATION_SIZE, VectorEnv, field

HIDDEN = 64
SAVED = "trained_on_vector_env.npz"


def forward(params, observations):
    """Scores of every flat action (numpy or JAX arrays alike)."""
    hidden = observations @ params["w1"] + params["b1"]
    hidden = hidden * (hidden > 0)
    return hidden @ params["w2"] + params["b2"]


def greedy(params, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return np.where(masks, forward(params, observations), -np.inf).argmax(axis=1)


class TrainedPolicy:
    """The saved network as a Python policy: asked for every decision of its seat, batched."""

    def __init__(self) -> None:
        with np.load(os.environ.get("TRAINED_POLICY", SAVED), allow_pickle=False) as saved:
            self.params = {name: saved[name] for name in ("w1", "b1", "w2", "b2")}

    def act(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return greedy(self.params, observations, masks)


def train(args: argparse.Namespace, rules: sim.Rules) -> dict:
    import jax
    import jax.numpy as jnp
    import optax

    rng = np.random.default_rng(args.seed)
    params = {
        "w1": jnp.asarray(rng.standard_normal((OBSERVATION_SIZE, HIDDEN)) * np.sqrt(2 / OBSERVATION_SIZE), jnp.float32),
        "b1": jnp.zeros(HIDDEN), "w2": jnp.zeros((HIDDEN, N_ACTIONS)), "b2": jnp.zeros(N_ACTIONS),
    }  # fmt: skip
    optimizer = optax.adam(args.lr)
    state = optimizer.init(params)

    def loss(params, observations, masks, actions, advantages):
        logits = jnp.where(masks, forward(params, observations), -1e9)
        chosen = jnp.take_along_axis(jax.nn.log_softmax(logits), actions[:, None], axis=1)[:, 0]
        return -(chosen * advantages).mean()

    @jax.jit
    def update(params, state, observations, masks, actions, advantages):
        grads = jax.grad(loss)(params, observations, masks, actions, advantages)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    vector = VectorEnv(rules, args.envs, controlled_seats=0, opponents=args.opponents, seed=args.seed, copy=True)
    observations, masks, _ = vector.reset()
    pending: list[list[tuple]] = [[] for _ in range(args.envs)]  # each env's decisions of its current round
    baseline = np.zeros(21)
    batch: list[tuple] = []
    deadline = time.perf_counter() + 60 * args.minutes
    updates = 0
    while time.perf_counter() < deadline:
        logits = np.where(masks, np.asarray(forward(params, observations)), -np.inf)
        actions = (logits - np.log(-np.log(rng.random(logits.shape)))).argmax(axis=1)  # a sample of the softmax
        sizes = field(observations, "round_size").argmax(axis=1) + 1
        for env in range(args.envs):
            pending[env].append((observations[env], masks[env], actions[env], sizes[env]))
        observations, masks, rewards, _, _, _ = vector.step(actions)
        for env in np.flatnonzero(rewards != 0):  # its round ended: every decision of it gets the score
            size = pending[env][0][3]
            advantage = (rewards[env] - baseline[size]) / 50.0
            baseline[size] += 0.02 * (rewards[env] - baseline[size])
            batch += [(o, m, a, advantage) for o, m, a, _ in pending[env]]
            pending[env] = []
        if len(batch) >= args.batch:
            o, m, a, adv = (np.array(column) for column in zip(*batch))
            params, state = update(params, state, o, m, a, adv.astype(np.float32))
            batch, updates = [], updates + 1
            if updates % 20 == 0:
                print(f"update {updates}: baseline of 1-card rounds {baseline[1]:+.1f}, 10-card {baseline[10]:+.1f}")
    return {name: np.asarray(value, dtype=np.float32) for name, value in params.items()}


def seat_zero_totals(params: dict | None, args: argparse.Namespace, rules: sim.Rules) -> np.ndarray:
    """Seat 0's final total in games eval_first .. + eval_games - 1 (None: random play)."""
    rng = np.random.default_rng(args.seed + 1)
    vector = VectorEnv(rules, args.eval_games, controlled_seats=0, opponents=args.opponents, seed=args.seed,
                       first_game=args.eval_first)  # fmt: skip
    observations, masks, info = vector.reset()
    totals = np.full(args.eval_games, np.nan)
    while np.isnan(totals).any():
        games = info["game"].copy()
        if params is None:
            actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        else:
            actions = greedy(params, observations, masks)
        observations, masks, _, terminated, _, info = vector.step(actions)
        for env in np.flatnonzero(terminated):
            if games[env] < args.eval_first + args.eval_games:
                totals[games[env] - args.eval_first] = info["final_totals"][env, 0]
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--batch", type=int, default=8192, help="decisions per update")
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--opponents", default="heuristic", help="any built-in policy, or learned")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--eval-first", type=int, default=10_000_000, help="first evaluation game (never trained on)")
    parser.add_argument("--save", default=SAVED)
    args = parser.parse_args()
    rules = sim.Rules(players=4)
    params = train(args, rules)
    np.savez(args.save, **params)
    trained, random = seat_zero_totals(params, args, rules), seat_zero_totals(None, args, rules)
    difference = trained - random
    half = 1.96 * difference.std(ddof=1) / np.sqrt(len(difference))
    print(f"saved {args.save}; on {args.eval_games} held-out deals against {args.opponents}: trained {trained.mean():.1f},"
          f" random {random.mean():.1f} points per game; trained - random {difference.mean():+.1f}"
          f" (95% CI {difference.mean() - half:+.1f} to {difference.mean() + half:+.1f})")


if __name__ == "__main__":
    main()
