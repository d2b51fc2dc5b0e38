"""Profiles, tuning, calibration and diagnostic scripts, and the dated notes of their series.

Run from the repository root as `python -m experiments.NAME`; a script imports the project
(sim, kernels), benchmarks and this package, never tests/ (tests/test_layout.py)."""
