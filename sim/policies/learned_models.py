"""A learned model directory (`learned:model=DIR`), read and checked: data, never code.

A model directory holds two files: `model.json`, the model's card (its architecture, the
feature version it was trained on, how it was trained and the figures measured then), and
`weights.npz`, plain float32 arrays (kernels.policies.learned.WEIGHT_NAMES) read with
allow_pickle=False. Nothing in it is executed or unpickled. Whatever does not match is refused
with one line naming it (a ConfigError: exit 2), before any game.
"""
from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernels.policies.learned import FEATURE_COUNT, FEATURE_VERSION, WEIGHT_NAMES, weight_shapes
from sim.config.errors import ConfigError, cut

CARD_FILE = "model.json"
WEIGHTS_FILE = "weights.npz"
MODEL_FORMAT = "wizard-sim learned model"  # the card's "format"
MAX_HIDDEN = 1024  # widest hidden layer accepted (a model stays a few MB)
# The shipped model (package data): `learned` with no model named.
SHIPPED_MODEL = Path(__file__).resolve().parent.parent / "learn" / "shipped"


@dataclass(frozen=True, eq=False)
class LearnedModel:
    """A checked model: its directory, card, arrays (WEIGHT_NAMES order, float32, read-only)
    and digest (SHA-256 of the architecture and the arrays: what a run records)."""

    directory: Path
    card: dict
    weights: tuple[np.ndarray, ...]
    digest: str

    @property
    def bid_hidden(self) -> int:
        return int(self.card["architecture"]["bid_hidden"])

    @property
    def play_hidden(self) -> int:
        return int(self.card["architecture"]["play_hidden"])

    @property
    def size_bytes(self) -> int:
        return sum(array.nbytes for array in self.weights)


def weights_digest(weights: dict[str, np.ndarray] | tuple[np.ndarray, ...]) -> str:
    """SHA-256 of the feature version and the arrays (names, dtypes, shapes and bytes)."""
    arrays = weights if isinstance(weights, dict) else dict(zip(WEIGHT_NAMES, weights))
    digest = hashlib.sha256(f"features {FEATURE_VERSION}".encode())
    for name in WEIGHT_NAMES:
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name} {array.dtype.str} {array.shape}".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def _card(directory: Path) -> dict:
    path = directory / CARD_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"model {cut(str(directory))} has no {CARD_FILE}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"model {cut(str(directory))}: cannot read {CARD_FILE} ({type(error).__name__})") from None
    try:
        card = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"model {cut(str(directory))}: {CARD_FILE} is not JSON ({error.msg}, line {error.lineno})") from None
    if not isinstance(card, dict):
        raise ConfigError(f"model {cut(str(directory))}: {CARD_FILE} must hold a JSON object")
    if card.get("format") != MODEL_FORMAT:
        raise ConfigError(f"model {cut(str(directory))}: {CARD_FILE} is not a wizard-sim model card (format {card.get('format')!r})")
    version = card.get("feature_version")
    if version != FEATURE_VERSION:
        raise ConfigError(
            f"model {cut(str(directory))} was trained on feature version {version!r}; this wizard-sim reads version"
            f" {FEATURE_VERSION}: train it again"
        )
    architecture = card.get("architecture")
    if not isinstance(architecture, dict):
        raise ConfigError(f"model {cut(str(directory))}: {CARD_FILE} has no architecture object")
    for key in ("bid_hidden", "play_hidden"):
        value = architecture.get(key)
        if not (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_HIDDEN):
            raise ConfigError(f"model {cut(str(directory))}: architecture.{key} must be a whole number 1..{MAX_HIDDEN}, got {value!r}")
    return card


def _arrays(directory: Path) -> dict[str, np.ndarray]:
    path = directory / WEIGHTS_FILE
    if not path.is_file():
        raise ConfigError(f"model {cut(str(directory))} has no {WEIGHTS_FILE}")
    arrays: dict[str, np.ndarray] = {}
    try:
        with np.load(path, allow_pickle=False) as npz:
            for name in npz.files:
                arrays[name] = npz[name]
    except ValueError as error:  # an object array needs pickle, refused
        if "pickle" in str(error):
            raise ConfigError(f"model {cut(str(directory))}: {WEIGHTS_FILE} holds a pickled (object) array; a model is plain arrays") from None
        raise ConfigError(f"model {cut(str(directory))}: {WEIGHTS_FILE} is not a readable .npz ({error})") from None
    except (OSError, zipfile.BadZipFile, EOFError) as error:
        raise ConfigError(f"model {cut(str(directory))}: {WEIGHTS_FILE} is not a readable .npz ({type(error).__name__})") from None
    return arrays


def load_model(directory: str | Path) -> LearnedModel:
    """The model in `directory`, every part checked (module doc); ConfigError otherwise."""
    directory = Path(directory).expanduser()
    if not directory.is_dir():
        raise ConfigError(f"model directory {cut(str(directory))} does not exist")
    card = _card(directory)
    arrays = _arrays(directory)
    expected = weight_shapes(card["architecture"]["bid_hidden"], card["architecture"]["play_hidden"])
    missing = [name for name in WEIGHT_NAMES if name not in arrays]
    if missing:
        raise ConfigError(f"model {cut(str(directory))}: {WEIGHTS_FILE} lacks the arrays {', '.join(missing)}")
    extra = sorted(set(arrays) - set(WEIGHT_NAMES))
    if extra:
        raise ConfigError(f"model {cut(str(directory))}: {WEIGHTS_FILE} holds arrays no model has: {cut(', '.join(extra))}")
    for name in WEIGHT_NAMES:
        array = arrays[name]
        if array.dtype != np.float32:
            raise ConfigError(f"model {cut(str(directory))}: array {name} is {array.dtype}, float32 expected")
        if array.shape != expected[name]:
            raise ConfigError(
                f"model {cut(str(directory))}: array {name} has shape {array.shape}, {expected[name]} expected"
                f" ({FEATURE_COUNT} features, the card's architecture)"
            )
        if not np.isfinite(array).all():
            raise ConfigError(f"model {cut(str(directory))}: array {name} holds NaN or infinite values")
    weights = tuple(np.ascontiguousarray(arrays[name]) for name in WEIGHT_NAMES)
    for array in weights:
        array.setflags(write=False)
    return LearnedModel(directory.resolve(), card, weights, weights_digest(weights))
