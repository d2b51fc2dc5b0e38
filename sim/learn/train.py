"""`wizard-sim train`: a learned policy from nothing, by distilling mc's search (docs/learned.md).

The method: the engine plays single rounds (kernels.learn.games.teacher_rounds) at which some
seats play a teacher, mc with few samples, and the others the heuristic; every teacher decision
is recorded with what the seat saw, mc's mean rollout score of every legal card, and the tricks
the seat took in the end. The play network regresses mc's card values (a student of many
noisy searches learns their mean: mc with many samples), the bid network the distribution of
the tricks taken (the seat bids the best expected score under it). Data are generated and
learned from in turns; every `eval_seconds` the model plays a duplicate match against three
heuristic seats on held-out deals (kernels.learn.games.duplicate_margins), and the best model
so far is written to the output directory, whole or not at all.

Training needs the optional extra `[learn]` (JAX and optax).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from kernels.cards import N_CARDS
from kernels.learn import games
from kernels.policies import learned
from kernels.records import DECIDE_BID, DECIDE_CARD, MAX_PARAMS
from sim.config.errors import ConfigError, cut
from sim.policies.learned_models import CARD_FILE, MODEL_FORMAT, WEIGHTS_FILE, load_model
from sim.config.rules import Rules
from sim.config.seeds import check_seed
from sim.config.version import __version__
from sim.engine.calls import off_main_thread
from sim.engine.threads import set_threads

CHECKPOINT_FILE = "checkpoint.npz"  # beside the model: what --resume continues from
EPISODES_PER_CHUNK = 2048  # single rounds per data chunk
PLAYER_CYCLE = (4, 3, 4, 5, 4, 6)  # the table size of data chunk k: PLAYER_CYCLE[k % 6]
VALUE_SCALE = 10.0  # the play network's target: mc's mean round score / 10
EVAL_SEED_OFFSET = 0x5EED_0F_DEA15  # held-out deals: the seed + this (training rounds use the seed)
BUFFER_ROWS = 1_500_000  # decisions kept per network (the oldest are dropped)
MAX_MINUTES = 24 * 60


@dataclass(frozen=True)
class TrainOptions:
    """What `wizard-sim train` is given; `check` validates it (ConfigError: one line)."""

    out: str
    seed: int
    minutes: float
    bid_hidden: int = 128
    play_hidden: int = 128
    teacher_samples: int = 8
    teacher_play_samples: int = 4
    batch: int = 512
    learning_rate: float = 1e-3
    eval_deals: int = 200
    eval_seconds: float = 120.0
    steps_per_chunk: int = 60
    threads: int | None = None

    def check(self) -> "TrainOptions":
        check_seed(self.seed)
        if not (isinstance(self.minutes, (int, float)) and 0 < self.minutes <= MAX_MINUTES):
            raise ConfigError(f"minutes must be more than 0 and at most {MAX_MINUTES}, got {self.minutes!r}")
        for name, low, high in (("bid_hidden", 1, 1024), ("play_hidden", 1, 1024), ("teacher_samples", 1, 256),
                                ("teacher_play_samples", 1, 256), ("batch", 16, 65536), ("eval_deals", 1, 100_000),
                                ("steps_per_chunk", 1, 100_000)):  # fmt: skip
            value = getattr(self, name)
            if not (isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
                raise ConfigError(f"{name.replace('_', '-')} must be a whole number {low}..{high}, got {value!r}")
        if not 0 < self.learning_rate <= 1:
            raise ConfigError(f"learning-rate must be in (0, 1], got {self.learning_rate!r}")
        if not 1 <= self.eval_seconds <= 86400:
            raise ConfigError(f"eval-seconds must be 1..86400, got {self.eval_seconds!r}")
        return self

    def recipe(self) -> dict:
        """What makes the data and the model: a resumed training must be given the same."""
        return {key: value for key, value in asdict(self).items() if key not in ("out", "minutes", "threads", "eval_seconds")}


@dataclass
class TrainState:
    """Where training stands (the checkpoint's part beside the arrays)."""

    chunks: int = 0  # data chunks generated
    steps: int = 0  # optimizer steps taken
    seconds: float = 0.0  # training time spent, over every session
    best_margin: float = float("-inf")  # the written model's margin on the held-out deals
    best_interval: tuple[float, float] = (float("nan"), float("nan"))
    history: list = field(default_factory=list)  # [seconds, steps, loss, margin] per evaluation
    data_sha256: str = ""  # the data so far: SHA-256 chained over the chunks (chunk_digest)


@dataclass(frozen=True)
class Progress:
    seconds: float
    budget: float
    steps: int
    loss: float
    margin: float | None  # the last evaluation's
    best: float | None


def _jax():
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError:
        raise ConfigError("wizard-sim train needs JAX and optax: pip install 'wizard-sim[learn]'") from None
    return jax, jnp, optax


def check_out(out: str, resume: bool) -> Path:
    """The output directory: new (or empty), or with --resume a training's own."""
    path = Path(out).expanduser()
    if path.exists() and not path.is_dir():
        raise ConfigError(f"--out {cut(out)} is a file, not a directory")
    if resume:
        if not (path / CHECKPOINT_FILE).is_file():
            raise ConfigError(f"--out {cut(out)} holds no training to resume (no {CHECKPOINT_FILE})")
    elif path.is_dir() and any(path.iterdir()):
        raise ConfigError(f"--out {cut(out)} is not empty: give another directory, or --resume to continue its training")
    return path


# --- the networks in JAX ---------------------------------------------------------------------


def initial_weights(options: TrainOptions) -> dict[str, np.ndarray]:
    """He-initialised weights, zero biases, from the seed alone (numpy's generator)."""
    rng = np.random.default_rng([options.seed, 59])
    weights = {}
    for name, shape in learned.weight_shapes(options.bid_hidden, options.play_hidden).items():
        if len(shape) == 2:
            weights[name] = (rng.standard_normal(shape) * np.sqrt(2.0 / shape[0])).astype(np.float32)
        else:
            weights[name] = np.zeros(shape, dtype=np.float32)
    for network in ("bid", "play"):  # a small last layer: the first scores are near equal
        weights[f"{network}_w3"] *= np.float32(0.1)
    return weights


def _forward(jnp, params: dict, x, network: str):
    hidden = jnp.maximum(x @ params[f"{network}_w1"] + params[f"{network}_b1"], 0.0)
    hidden = jnp.maximum(hidden @ params[f"{network}_w2"] + params[f"{network}_b2"], 0.0)
    return hidden @ params[f"{network}_w3"] + params[f"{network}_b3"]


def make_step(options: TrainOptions):
    """The jitted training step: (params, optimizer state, bid batch, play batch) -> (params,
    optimizer state, loss)."""
    jax, jnp, optax = _jax()
    optimizer = optax.adam(options.learning_rate)
    counts = jnp.arange(learned.N_TRICK_COUNTS)

    def loss_of(params, bid_x, round_size, tricks, play_x, legal, values):
        logits = _forward(jnp, params, bid_x, "bid")
        logits = jnp.where(counts[None, :] <= round_size[:, None], logits, -1e9)
        bid_loss = -jnp.take_along_axis(jax.nn.log_softmax(logits), tricks[:, None], axis=1).mean()
        scores = _forward(jnp, params, play_x, "play")
        errors = jnp.where(legal, (scores - values / VALUE_SCALE) ** 2, 0.0).sum(axis=1) / legal.sum(axis=1)
        return bid_loss + errors.mean()

    @jax.jit
    def step(params, state, bid_x, round_size, tricks, play_x, legal, values):
        loss, grads = jax.value_and_grad(loss_of)(params, bid_x, round_size, tricks, play_x, legal, values)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    return optimizer, step


# --- data ------------------------------------------------------------------------------------


class Buffer:
    """The latest decisions of one network (a ring of BUFFER_ROWS)."""

    def __init__(self, columns: dict[str, tuple[tuple[int, ...], type]], rows: int = BUFFER_ROWS) -> None:
        self.arrays = {name: np.zeros((rows, *shape), dtype=dtype) for name, (shape, dtype) in columns.items()}
        self.rows, self.size, self.next = rows, 0, 0

    def add(self, **columns: np.ndarray) -> None:
        count = len(next(iter(columns.values())))
        at = (self.next + np.arange(count)) % self.rows
        for name, values in columns.items():
            self.arrays[name][at] = values
        self.next = (self.next + count) % self.rows
        self.size = min(self.rows, self.size + count)

    def sample(self, rng: np.random.Generator, count: int) -> dict[str, np.ndarray]:
        picked = rng.integers(0, self.size, count)
        return {name: array[picked] for name, array in self.arrays.items()}


def teacher_row(options: TrainOptions) -> np.ndarray:
    row = np.zeros(MAX_PARAMS)
    row[0], row[1] = options.teacher_samples, options.teacher_play_samples  # mc's samples, play_samples
    return row


def data_chunk(options: TrainOptions, chunk: int) -> games.TeacherSamples:
    """Data chunk `chunk`: EPISODES_PER_CHUNK rounds at PLAYER_CYCLE's table, the decisions
    recorded (rows of no decision dropped). A pure function of the seed and `chunk`."""
    players = PLAYER_CYCLE[chunk % len(PLAYER_CYCLE)]
    episodes = np.arange(chunk * EPISODES_PER_CHUNK, (chunk + 1) * EPISODES_PER_CHUNK, dtype=np.int64)
    samples = games.new_samples(len(episodes))
    # Off the main thread, so that Ctrl-C is seen at once (sim.engine.calls.off_main_thread).
    off_main_thread(games.teacher_rounds, options.seed, episodes, Rules(players=players).to_record(), teacher_row(options), samples)
    kept = samples.kind >= 0
    return games.TeacherSamples(*(array[kept] for array in samples))


def chunk_digest(previous: str, samples: games.TeacherSamples) -> str:
    """The data digest after `samples`: SHA-256 of the previous digest and every array of the
    chunk (the same seed and code give the same chain)."""
    digest = hashlib.sha256(previous.encode())
    for array in samples:
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def legal_matrix(legal: np.ndarray) -> np.ndarray:
    return ((legal[:, None] >> np.arange(N_CARDS, dtype=np.int64)) & 1).astype(bool)


def add_chunk(samples: games.TeacherSamples, bids: Buffer, cards: Buffer) -> None:
    is_bid = samples.kind == DECIDE_BID
    bids.add(features=samples.features[is_bid], round_size=samples.round_size[is_bid], tricks=samples.tricks[is_bid])
    # Cards: the decisions mc searched (with one distinct card there is nothing to learn).
    is_card = (samples.kind == DECIDE_CARD) & (samples.searched == 1)
    cards.add(features=samples.features[is_card], legal=samples.legal[is_card], values=samples.values[is_card])


# --- measuring and writing -------------------------------------------------------------------


def evaluate(options: TrainOptions, weights: dict[str, np.ndarray]) -> tuple[float, float, float]:
    """The model's margin over three heuristic seats (4 players, whole games, every rotation)
    on `eval_deals` held-out deals: (mean, 95% interval low, high)."""
    rules = Rules(players=4)
    deals = np.arange(options.eval_deals, dtype=np.int64)
    margins = np.zeros((len(deals), 4))
    arrays = tuple(np.ascontiguousarray(weights[name], dtype=np.float32) for name in learned.WEIGHT_NAMES)
    off_main_thread(games.duplicate_margins, options.seed + EVAL_SEED_OFFSET, deals, rules.to_record(),
                    rules.round_sizes_array(), arrays, margins)  # fmt: skip
    per_deal = margins.mean(axis=1)
    half = 1.96 * per_deal.std(ddof=1) / np.sqrt(len(per_deal)) if len(per_deal) > 1 else float("nan")
    return float(per_deal.mean()), float(per_deal.mean() - half), float(per_deal.mean() + half)


def code_digest() -> str:
    """SHA-256 of the sources that make the data and the model (the kernels and this module)."""
    root = Path(learned.__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted([*root.rglob("*.py"), Path(__file__).resolve()]):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def _finite(value: float) -> float | None:
    return round(float(value), 2) if np.isfinite(value) else None


def model_card(options: TrainOptions, state: TrainState, command: str) -> dict:
    return {
        "format": MODEL_FORMAT,
        "feature_version": learned.FEATURE_VERSION,
        "architecture": {
            "bid_hidden": options.bid_hidden, "play_hidden": options.play_hidden, "layers": 3, "activation": "relu",
            "features": learned.FEATURE_COUNT, "dtype": "float32",
            "bid_output": "logits of the tricks taken, 0..20 (the seat bids the best expected score)",
            "play_output": "per card id: the round score expected after playing it, / 10",
        },
        "training": {
            "command": command,
            "options": options.recipe(),
            "method": "distillation of mc (samples, play_samples as the options say) on single rounds beside "
                      "heuristic seats: card values regressed, tricks taken classified",
            "data": {"chunks": state.chunks, "episodes": state.chunks * EPISODES_PER_CHUNK,
                     "player_cycle": list(PLAYER_CYCLE), "episodes_per_chunk": EPISODES_PER_CHUNK},
            "data_sha256": state.data_sha256,
            "steps": state.steps,
            "seconds": round(state.seconds, 1),
            "code_sha256": code_digest(),
            "wizard_sim": __version__,
        },
        "figures": {
            "held_out_margin_vs_heuristic": {
                "mean": _finite(state.best_margin),
                "ci95": [_finite(state.best_interval[0]), _finite(state.best_interval[1])],
                "deals": options.eval_deals, "players": 4, "seed": options.seed + EVAL_SEED_OFFSET,
                "what": "the learned seat's final score minus the mean of three heuristic seats, every rotation",
            },
            "curve": [{"seconds": s, "steps": n, "loss": _finite(l), "margin": m} for s, n, l, m in state.history],
        },
    }


def _checkpoint_bytes(params: dict, opt_state, state: TrainState, options: TrainOptions, jax) -> dict[str, np.ndarray]:
    leaves = jax.tree_util.tree_leaves(opt_state)
    arrays = {f"param_{name}": np.asarray(params[name]) for name in learned.WEIGHT_NAMES}
    arrays |= {f"opt_{index}": np.asarray(leaf) for index, leaf in enumerate(leaves)}
    record = {"state": {**asdict(state), "best_margin": state.best_margin if np.isfinite(state.best_margin) else None},
              "recipe": options.recipe()}  # fmt: skip
    arrays["state_json"] = np.frombuffer(json.dumps(record).encode(), dtype=np.uint8)
    return arrays


@contextlib.contextmanager
def interrupt_deferred():
    """Ctrl-C held back until the block is done (on the main thread): a directory is renamed
    into place whole."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda number, frame: received.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            signal.raise_signal(signal.SIGINT)


def write_directory(out: Path, best: dict[str, np.ndarray] | None, card: dict | None, checkpoint: dict[str, np.ndarray]) -> None:
    """Replace `out` by a directory holding the model (best weights and card; the previous
    model's files when `best` is None) and the checkpoint: built beside it, then renamed into
    place, so that a reader finds the old directory, the new one, or none — never half of one."""
    parent = out.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    building = parent / f".{out.name}.writing"
    previous = parent / f".{out.name}.previous"
    for stale in (building, previous):
        if stale.exists():
            shutil.rmtree(stale)
    building.mkdir()
    if best is not None:
        np.savez(building / WEIGHTS_FILE, **best)
        (building / CARD_FILE).write_text(json.dumps(card, indent=1) + "\n", encoding="utf-8")
    elif (out / WEIGHTS_FILE).is_file():
        for name in (WEIGHTS_FILE, CARD_FILE):
            shutil.copy2(out / name, building / name)
    np.savez(building / CHECKPOINT_FILE, **checkpoint)
    for path in building.iterdir():
        with open(path, "rb") as handle:
            os.fsync(handle.fileno())
    with interrupt_deferred():
        if out.exists():
            os.rename(out, previous)
        os.rename(building, out)
    shutil.rmtree(previous, ignore_errors=True)


def read_checkpoint(out: Path, options: TrainOptions) -> tuple[dict, list, TrainState]:
    try:
        with np.load(out / CHECKPOINT_FILE, allow_pickle=False) as npz:
            arrays = {name: npz[name] for name in npz.files}
        record = json.loads(arrays.pop("state_json").tobytes().decode())
    except (OSError, ValueError, KeyError) as error:
        raise ConfigError(f"--out {cut(str(out))}: its {CHECKPOINT_FILE} is not readable ({type(error).__name__})") from None
    if record.get("recipe") != options.recipe():
        then, now = record.get("recipe") or {}, options.recipe()
        changed = ", ".join(f"{key} {then.get(key)!r} then, {now.get(key)!r} now" for key in now if then.get(key) != now.get(key))
        raise ConfigError(f"--resume: the training in {cut(str(out))} was started with other options ({changed})")
    params = {name: arrays[f"param_{name}"] for name in learned.WEIGHT_NAMES}
    leaves = [arrays[f"opt_{index}"] for index in range(sum(1 for name in arrays if name.startswith("opt_")))]
    saved = record["state"]
    state = TrainState(saved["chunks"], saved["steps"], saved["seconds"],
                       saved["best_margin"] if saved["best_margin"] is not None else float("-inf"),
                       tuple(saved["best_interval"]), saved["history"], saved.get("data_sha256", ""))  # fmt: skip
    return params, leaves, state


# --- the loop --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainResult:
    out: Path
    state: TrainState
    stopped: bool  # interrupted before its minutes were up


def train(
    options: TrainOptions,
    resume: bool = False,
    command: str = "",
    on_progress: Callable[[Progress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> TrainResult:
    """Train for `options.minutes` of wall time (data generation and evaluation included) and
    leave the best model in `options.out` (module doc). `should_stop` is asked between steps:
    True ends the training after writing what it has (within a second or two)."""
    options.check()
    out = check_out(options.out, resume)
    jax, jnp, _ = _jax()
    started = time.monotonic()
    budget = options.minutes * 60.0
    set_threads(options.threads)
    optimizer, step = make_step(options)
    if resume:
        saved_params, leaves, state = read_checkpoint(out, options)
        params = {name: jnp.asarray(value) for name, value in saved_params.items()}
        structure = jax.tree_util.tree_structure(optimizer.init(params))
        opt_state = jax.tree_util.tree_unflatten(structure, [jnp.asarray(leaf) for leaf in leaves])
        best = None
    else:
        params = {name: jnp.asarray(value) for name, value in initial_weights(options).items()}
        opt_state = optimizer.init(params)
        state = TrainState()
        best = None
    session_start = state.seconds
    rng = np.random.default_rng([options.seed, 59, state.chunks])  # batches: by the seed and where training stands
    bids = Buffer({"features": ((learned.FEATURE_COUNT,), np.uint8), "round_size": ((), np.int32), "tricks": ((), np.int32)})
    cards = Buffer({"features": ((learned.FEATURE_COUNT,), np.uint8), "legal": ((), np.int64), "values": ((N_CARDS,), np.float32)})
    scale = learned.FEATURE_SCALE
    last_eval = time.monotonic()
    loss_value = float("nan")
    eval_cost = 5.0  # seconds an evaluation and a write take (measured after the first)
    stopped = False

    def elapsed() -> float:
        return time.monotonic() - started

    def checkpoint_now(best_weights: dict | None, card: dict | None) -> None:
        write_directory(out, best_weights, card, _checkpoint_bytes(params, opt_state, state, options, jax))

    def measure_and_write() -> None:
        nonlocal best
        begun = time.monotonic()
        weights = {name: np.asarray(params[name], dtype=np.float32) for name in learned.WEIGHT_NAMES}
        margin, low, high = evaluate(options, weights)
        state.history.append([round(state.seconds, 1), state.steps, loss_value, round(margin, 2)])
        improved = margin > state.best_margin
        if improved:
            state.best_margin, state.best_interval, best = margin, (low, high), weights
        checkpoint_now(best if improved else None, model_card(options, state, command) if improved else None)
        report(margin)
        return time.monotonic() - begun

    def report(margin: float | None) -> None:
        if on_progress is not None:
            best_margin = state.best_margin if np.isfinite(state.best_margin) else None
            on_progress(Progress(elapsed(), budget, state.steps, loss_value, margin, best_margin))

    report(None)
    while True:
        if should_stop is not None and should_stop():
            stopped = True
            break
        if elapsed() + eval_cost + 10.0 > budget:
            break
        samples = data_chunk(options, state.chunks)
        state.chunks += 1
        state.data_sha256 = chunk_digest(state.data_sha256, samples)
        add_chunk(samples, bids, cards)
        for _ in range(options.steps_per_chunk):
            if (should_stop is not None and should_stop()) or elapsed() + eval_cost + 2.0 > budget:
                break
            bid_batch = bids.sample(rng, options.batch)
            card_batch = cards.sample(rng, options.batch)
            params, opt_state, loss = step(
                params, opt_state,
                bid_batch["features"].astype(np.float32) * scale, bid_batch["round_size"], bid_batch["tricks"],
                card_batch["features"].astype(np.float32) * scale, legal_matrix(card_batch["legal"]), card_batch["values"],
            )  # fmt: skip
            state.steps += 1
            if state.steps % 20 == 0:
                loss_value = float(loss)
                state.seconds = session_start + elapsed()
                report(None)
        state.seconds = session_start + elapsed()
        if time.monotonic() - last_eval >= options.eval_seconds:
            eval_cost = max(eval_cost, measure_and_write())
            last_eval = time.monotonic()
    state.seconds = session_start + elapsed()
    if state.steps > 0 and not stopped:
        measure_and_write()
    else:  # stopped: no evaluation (it takes seconds); the best model measured stays
        checkpoint_now(None, None)
    if not (out / WEIGHTS_FILE).is_file():  # stopped before any model was measured: write the current one
        weights = {name: np.asarray(params[name], dtype=np.float32) for name in learned.WEIGHT_NAMES}
        checkpoint_now(weights, model_card(options, state, command))
    load_model(out)  # what was written reads back
    return TrainResult(out, state, stopped)
