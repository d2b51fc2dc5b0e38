"""The flat action space (docs/env.md) in Python: an action's name, and the one check of an
action a caller gives. Every driver (the state API, PettingZoo, Gymnasium, VectorEnv,
OpenSpiel, a Python policy's answers) refuses the same inputs with the same error, ActionError:
a number that is not a whole number (60.0, "60", True), or one outside 0..N_ACTIONS-1, is
never rounded, parsed or wrapped into an action."""
from __future__ import annotations

import numpy as np

from kernels import observation as obs
from kernels.records import DELEGATE
from sim.config.cards import SUIT_NAMES, format_card
from sim.config.errors import echo

N_ACTIONS = obs.N_ACTIONS


class ActionError(ValueError):
    """A value given as an action that is not one (wrong type, or outside the action space).
    `index`: where in an array of actions the first bad one is (None: the value or the array
    as a whole is of the wrong type); `value`: that action, a whole number."""

    def __init__(self, message: str, index: int | None = None, value: int | None = None) -> None:
        super().__init__(message)
        self.index = index
        self.value = value


def action_name(action: int) -> str:
    """`play AS`, `bid 2`, `trump hearts`."""
    if not 0 <= action < N_ACTIONS:
        raise ActionError(f"action {echo(action)} is outside 0..{N_ACTIONS - 1}")
    if action < obs.ACTION_BID0:
        return f"play {format_card(action - obs.ACTION_CARD0)}"
    if action < obs.ACTION_SUIT0:
        return f"bid {action - obs.ACTION_BID0}"
    return f"trump {SUIT_NAMES[action - obs.ACTION_SUIT0]}"


def check_action(value: object, delegate: bool = False) -> int:
    """`value` as an action: an int or numpy integer (not a bool, a float or text) in
    0..N_ACTIONS-1, or DELEGATE when `delegate`."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ActionError(f"an action is a whole number 0..{N_ACTIONS - 1}, got {echo(value)}")
    number = int(value)
    if not (0 <= number < N_ACTIONS or (delegate and number == DELEGATE)):
        raise ActionError(f"action {echo(number)} is outside 0..{N_ACTIONS - 1}", 0, number)
    return number


def check_actions(values: object, count: int, delegate: bool = False) -> np.ndarray:
    """int64 [count]: `values` (an array or list of whole numbers) checked as check_action
    checks one; an element that fails names its index. Unsigned and wide values are compared
    before they are converted, so 2**64 - 1 is never read as -1 (DELEGATE)."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError, OverflowError):  # ragged lists, ints beyond 64 bits
        array = np.asarray(None)
    if array.shape != (count,) or array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        dtype = array.dtype if array.dtype != object else "objects"
        raise ActionError(f"actions must be {count} whole numbers 0..{N_ACTIONS - 1}, got {dtype} of shape {array.shape}")
    valid = (array >= 0) & (array < N_ACTIONS)
    if delegate and np.issubdtype(array.dtype, np.signedinteger):
        valid |= array == DELEGATE
    if not valid.all():
        index = int(np.flatnonzero(~valid)[0])
        value = int(array[index])
        raise ActionError(f"action {echo(value)} at index {index} is outside 0..{N_ACTIONS - 1}", index, value)
    return array.astype(np.int64, copy=False)
