"""The policies a seat can take, by name: the registry of built-in policies (`registry`), bots
from outside the package, numba or Python (`external_bots`), the protocol a Python policy
follows (`python_protocol`) and a learned policy's model directory (`learned_models`).

Imports sim.config and the kernels below it, never sim.engine above it (tests/test_layout.py).
Importing it imports no user module: a bot's module is imported when its policy is parsed."""
