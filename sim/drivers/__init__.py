"""Games stepped from Python for a caller that is not a run: a person's game of `wizard-sim
play` (session). It asks its Python policies through sim.engine.bot_caller.BotTable, the core
it shares with a run's games with Python seats (sim.runs.bot_games) and estimate's samples
with Python policies (sim.estimation.bot_rollouts). Imports sim.env (the state API) and the
layers below it, never sim.estimation or sim.cli above it."""
