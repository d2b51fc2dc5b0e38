"""The throughput benches of docs/performance.md, on one harness (benchmarks.harness).

Run from the repository root as `python -m benchmarks.NAME`; a bench imports the project
(sim, kernels) and this package, never tests/ (tests/test_layout.py)."""
