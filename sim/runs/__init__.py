"""Playing games: kernel calls, chunked runs (simulate, tournament, league) on an executor, their tables.

Imports sim.storage, sim.engine, sim.stats and sim.config below it, never sim.analysis or sim.cli above it."""
