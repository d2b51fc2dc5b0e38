"""What the games say: accuracy reports of the bids, hand features, plots (estimate, what to bid,
is sim.estimation).

Imports sim.runs, sim.storage and sim.config below it, never sim.cli above it."""

# Here rather than in sim.analysis.report, so that the `report` command can show it as its
# default without importing pandas and pyarrow.dataset at every start of the command line.
DEFAULT_BATCH_SIZE = 1 << 17  # rows per streamed batch of a report
