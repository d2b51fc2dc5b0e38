"""Playing games: kernel calls, chunked runs (simulate, tournament) on an executor, their tables.

Imports sim.storage and sim.config below it, never sim.analysis or sim.cli above it."""
