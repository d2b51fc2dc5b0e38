"""Train a bid model with REINFORCE on sim.env.VectorEnv (numpy only), then compare it with
`random` on the same deals.

    python examples/train_bid_model.py                 # a few minutes on 2 cores
    python examples/train_bid_model.py --iterations 10 # a quick look

The learning seat (seat 0 of a 4-player table, `heuristic` at the other seats) bids with a
small model and plays uniformly random legal cards (and a random trump suit when it deals a
turned-up Wizard). The model predicts the tricks the hand takes, mu = w . x, from a few hand
features x (trumps and side cards by rank, Wizards, Jesters, round size, the bids already
shown); the policy is a softmax over the legal bids with logits -beta * (bid - mu)^2. Its
reward is the round score (VectorEnv reward="round": the score arrives in the step in which
the seat's round ends, and a round score is never 0, so a non-zero reward marks the end of a
round). REINFORCE with a per-round-size baseline, Adam steps.

Evaluation, duplicate by deals: the trained model (greedy: the legal bid nearest mu) and
`random` (random bids and cards) each play the same game indices from a range never used in
training, with the same opponents; the per-game difference of seat 0's final totals gives the
mean difference and its 95% interval. For scale, `heuristic` at seat 0 on the same deals
(run_games, entirely inside the kernels).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import sim
from kernels.cards import FIRST_JESTER, FIRST_WIZARD, N_CARDS, N_SUITS, RANKS_PER_SUIT
from kernels.records import DECIDE_BID, MAX_PLAYERS
from sim.env import ACTION_BID0, ACTION_SUIT0, N_BIDS, VectorEnv, field

BIDS = np.arange(N_BIDS, dtype=np.float64)
N_FEATURES = 2 * RANKS_PER_SUIT + 2 + 4


def decision_kinds(observations: np.ndarray) -> np.ndarray:
    """kernels.records.DECIDE_TRUMP / DECIDE_BID / DECIDE_CARD per row (the seat to act
    always has a decision)."""
    return field(observations, "decision").argmax(axis=1)


def bid_features(observations: np.ndarray) -> np.ndarray:
    """[n, N_FEATURES]: trumps held by rank, side cards by rank, Wizards, Jesters, round size
    / 10, the bids already shown (sum / round size, count / 6), and a constant."""
    hand = field(observations, "hand")
    suited = hand[:, :FIRST_WIZARD].reshape(-1, N_SUITS, RANKS_PER_SUIT)
    trump = field(observations, "trump")[:, :N_SUITS]  # all 0: no trump (or the dealer chooses)
    trumps = (suited * trump[:, :, None]).sum(axis=1)
    side = suited.sum(axis=1) - trumps
    round_size = field(observations, "round_size").argmax(axis=1) + 1.0
    bids = field(observations, "bids").reshape(-1, MAX_PLAYERS, N_BIDS)
    shown_sum = (bids * BIDS).sum(axis=(1, 2))
    shown = bids.sum(axis=(1, 2))
    return np.column_stack(
        [
            trumps,
            side,
            hand[:, FIRST_WIZARD:FIRST_JESTER].sum(axis=1),
            hand[:, FIRST_JESTER:N_CARDS].sum(axis=1),
            round_size / 10.0,
            shown_sum / round_size,
            shown / MAX_PLAYERS,
            np.ones(len(hand)),
        ]
    )


class BidModel:
    def __init__(self) -> None:
        self.w = np.zeros(N_FEATURES)
        self.rho = np.log(0.5)  # beta = exp(rho): how sharply bids concentrate around mu
        self.moments = [np.zeros(N_FEATURES + 1), np.zeros(N_FEATURES + 1)]
        self.steps = 0

    def logits(self, x: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mu = x @ self.w
        logits = -np.exp(self.rho) * (BIDS[None, :] - mu[:, None]) ** 2
        return np.where(legal, logits, -np.inf), mu

    def sample(self, x: np.ndarray, legal: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        logits, _ = self.logits(x, legal)
        gumbel = -np.log(-np.log(rng.random(logits.shape)))
        return (logits + gumbel).argmax(axis=1)

    def greedy(self, x: np.ndarray, legal: np.ndarray) -> np.ndarray:
        return self.logits(x, legal)[0].argmax(axis=1)

    def update(self, x: np.ndarray, bids: np.ndarray, legal: np.ndarray, advantage: np.ndarray, lr: float) -> None:
        """One Adam ascent step on mean(advantage * grad log pi(bid))."""
        logits, mu = self.logits(x, legal)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        beta = np.exp(self.rho)
        expected_bid = p @ BIDS
        d_mu = 2 * beta * (bids - expected_bid)  # d log pi / d mu
        squares = (BIDS[None, :] - mu[:, None]) ** 2
        d_rho = -beta * ((bids - mu) ** 2 - (p * squares).sum(axis=1))
        gradient = np.append((advantage * d_mu) @ x / len(x), np.mean(advantage * d_rho))
        self.steps += 1
        m, v = self.moments
        m[:] = 0.9 * m + 0.1 * gradient
        v[:] = 0.999 * v + 0.001 * gradient**2
        step = lr * (m / (1 - 0.9**self.steps)) / (np.sqrt(v / (1 - 0.999**self.steps)) + 1e-8)
        self.w += step[:-1]
        self.rho += step[-1]


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    running = np.cumsum(masks, axis=1, dtype=np.uint8)
    picks = (rng.random(masks.shape[0], dtype=np.float32) * running[:, -1]).astype(np.uint8)
    return (running > picks[:, None]).argmax(axis=1)


def choose(model: BidModel | None, observations, masks, rng, explore: bool):
    """Actions for every env; for the envs that bid: (rows, features, bids, legal bids)."""
    actions = random_legal(masks, rng)
    if model is None:
        return actions, None
    rows = np.flatnonzero(decision_kinds(observations) == DECIDE_BID)
    if rows.size == 0:
        return actions, None
    x = bid_features(observations[rows])
    legal = masks[rows, ACTION_BID0:ACTION_SUIT0]
    bids = model.sample(x, legal, rng) if explore else model.greedy(x, legal)
    actions[rows] = ACTION_BID0 + bids
    return actions, (rows, x, bids, legal)


def train(args, rules) -> BidModel:
    model = BidModel()
    rng = np.random.default_rng(args.seed)
    vector = VectorEnv(rules, args.envs, controlled_seats=0, opponents=args.opponents, seed=args.seed)
    observations, masks, _ = vector.reset()
    pending_x = np.zeros((args.envs, N_FEATURES))
    pending_bid = np.zeros(args.envs, dtype=np.int64)
    pending_legal = np.zeros((args.envs, N_BIDS), dtype=bool)
    pending_size = np.zeros(args.envs, dtype=np.int64)
    baseline = np.zeros(N_BIDS)  # per round size 1..20
    spread = np.full(N_BIDS, 30.0)
    for iteration in range(args.iterations):
        batch = {"x": [], "bid": [], "legal": [], "score": [], "size": []}
        while sum(len(s) for s in batch["score"]) < args.batch:
            actions, bidding = choose(model, observations, masks, rng, explore=True)
            if bidding is not None:
                rows, x, bids, legal = bidding
                pending_x[rows], pending_bid[rows], pending_legal[rows] = x, bids, legal
                pending_size[rows] = field(observations[rows], "round_size").argmax(axis=1) + 1
            observations, masks, rewards, _, _, _ = vector.step(actions)
            done = np.flatnonzero(rewards != 0)  # the seat's round ended (a score is never 0)
            for key, values in (("x", pending_x), ("bid", pending_bid), ("legal", pending_legal), ("size", pending_size)):
                batch[key].append(values[done].copy())
            batch["score"].append(rewards[done].astype(np.float64))
        x, bids, legal, score, size = (np.concatenate(batch[k]) for k in ("x", "bid", "legal", "score", "size"))
        for r in np.unique(size):  # per-round-size baseline and scale
            at = size == r
            baseline[r] = 0.9 * baseline[r] + 0.1 * score[at].mean() if iteration else score[at].mean()
            spread[r] = 0.9 * spread[r] + 0.1 * (score[at].std() + 1.0) if iteration else score[at].std() + 1.0
        advantage = (score - baseline[size]) / spread[size]
        model.update(x, bids, legal, advantage, args.lr)
        if iteration % max(1, args.iterations // 10) == 0 or iteration == args.iterations - 1:
            exact = np.mean(score > 0)
            print(f"iteration {iteration:4d}: {len(score):6d} bids, mean round score {score.mean():6.2f}, exact {exact:.1%}, beta {np.exp(model.rho):.2f}")
    return model


def evaluate(model: BidModel | None, args, rules) -> np.ndarray:
    """Seat 0's final total in games eval_first .. eval_first + eval_games - 1."""
    rng = np.random.default_rng(args.seed + 1)
    vector = VectorEnv(rules, args.eval_games, controlled_seats=0, opponents=args.opponents, seed=args.seed, first_game=args.eval_first)
    observations, masks, info = vector.reset()
    totals = np.full(args.eval_games, np.nan)
    while np.isnan(totals).any():
        games = info["game"].copy()
        actions, _ = choose(model, observations, masks, rng, explore=False)
        observations, masks, _, terminated, _, info = vector.step(actions)
        for i in np.flatnonzero(terminated):
            if games[i] < args.eval_first + args.eval_games:  # the first game of env i
                totals[games[i] - args.eval_first] = info["final_totals"][i, 0]
    return totals


def interval(values: np.ndarray) -> tuple[float, float]:
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
    return values.mean() - half, values.mean() + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=80)
    # Every env is at the same round at the same time (each game asks the seat 135 questions),
    # so an update takes one whole game per env: every round size in equal measure.
    parser.add_argument("--batch", type=int, default=15 * 1024, help="bids per update")
    parser.add_argument("--envs", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--opponents", default="heuristic")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--eval-games", type=int, default=4000)
    parser.add_argument("--eval-first", type=int, default=10_000_000, help="first evaluation game index (never trained on)")
    args = parser.parse_args()
    rules = sim.Rules(players=4)
    start = time.perf_counter()
    model = train(args, rules)
    trained_at = time.perf_counter()
    print(f"trained in {trained_at - start:.0f} s; w = {np.round(model.w, 2).tolist()}")
    trained = evaluate(model, args, rules)
    baseline = evaluate(None, args, rules)
    game_ids = np.arange(args.eval_first, args.eval_first + args.eval_games)
    heuristic = sim.run_games(rules, "heuristic", seed=args.seed, game_ids=game_ids).games["total"][:, 0]
    difference = trained - baseline
    low, high = interval(difference)
    print(f"evaluation on {args.eval_games} deals (games {args.eval_first}..), seat 0, opponents {args.opponents}:")
    print(f"  trained bid model + random cards: mean final score {trained.mean():8.1f}")
    print(f"  random:                           mean final score {baseline.mean():8.1f}")
    print(f"  heuristic (for scale):            mean final score {heuristic.mean():8.1f}")
    print(f"  trained - random: {difference.mean():.1f} points per game (95% CI {low:.1f} to {high:.1f})")
    print(f"total time {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
