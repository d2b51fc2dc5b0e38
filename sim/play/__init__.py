"""A person's game of `wizard-sim play` (session): one game stepped from Python on the state API,
its save and load. It asks its Python policies through sim.engine.bot_caller.BotTable, the core
it shares with a run's games with Python seats (sim.runs.bot_games) and estimate's samples
with Python policies (sim.estimation.bot_rollouts). Imports sim.env (the state API) and the
layers below it, never sim.estimation (its bid hint) or sim.cli above it."""
