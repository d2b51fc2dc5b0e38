"""Tests that call the kernels directly still never load a cache compiled from other kernel
sources: the engine's start (sim/engine/startup.py) clears stale ones, once, before any test."""
from sim.engine.startup import start

start()
