"""Statistics of runs, from the additive sums their chunk journals keep: normal intervals
(`sums`), paired differences over deals and their verdicts (`pairs`), a league's balanced
design (`design`) and ratings (`ratings`), and sequential stopping (`sprt`).

Imports sim.config below it (its errors) and nothing that runs, stores or plays games: no
sim.runs, sim.storage, sim.engine or kernels (tests/test_layout.py)."""
