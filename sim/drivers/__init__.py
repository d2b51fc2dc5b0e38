"""Games stepped from Python for a caller that is not a run: estimate's samples with Python
policies at the table (estimate_rollouts) and a person's game of `wizard-sim play` (session).

Both ask their Python policies through sim.engine.bot_caller.BotTable, the core they share
with a run's games with Python seats (sim.runs.bot_games). Imports sim.env (the state API)
and the layers below it, never sim.analysis or sim.cli above it."""
