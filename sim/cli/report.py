"""`wizard-sim report`: the command's options; the analysis (sim.analysis.report, which needs
pandas and pyarrow.dataset) is imported when the command runs, not at every CLI start."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from sim.analysis import DEFAULT_BATCH_SIZE
from sim.cli.terminal import console, fail
from sim.config.errors import ConfigError, OutputError


def report_command(
    dataset: Annotated[
        Path, typer.Argument(help="Dataset directory written by simulate or tournament (holds rounds/*.parquet).")
    ],
    plots: Annotated[
        Optional[Path],
        typer.Option(help="Write accuracy_by_round.png and score_distribution.png into this directory."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the tables as one JSON object instead.")] = False,
    out: Annotated[
        Optional[Path], typer.Option(help="Also write the tables as one tidy Parquet file (column `table`).")
    ] = None,
    batch_size: Annotated[int, typer.Option(help="Rows per streamed batch (bounds the memory).")] = DEFAULT_BATCH_SIZE,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace an existing --out file or plot files (never a run's own files).")
    ] = False,
) -> None:
    """Bid accuracy by policy x round size, bidding position and trump kind.

    Exact-bid rate, mean |bid - tricks|, over- and under-bid rates; streamed in bounded memory.

    Example: wizard-sim report results/runs/demo --plots results/plots --out accuracy.parquet
    """
    from sim.analysis import report

    written: list[Path] = []
    created: list[Path] = []  # plot directories this command made
    try:
        report.check_batch_size(batch_size)
        if out is not None:
            report.check_tidy_file(out, overwrite)
        if plots is not None:
            report.check_plot_directory(plots, overwrite)
        note = report.run_status(dataset)
        # Everything is read before anything is written: bad data write nothing.
        tables = report.accuracy_tables(dataset, batch_size)
        scores = report.score_counts(dataset, batch_size) if plots is not None else None
        if out is not None:
            report.write_tidy_table(tables, out)
            written.append(out)
        if plots is not None:
            from sim.analysis import plots as charts

            created = report.make_plot_directory(plots)
            written += charts.write_plots(tables, scores, plots)
    except ConfigError as error:
        fail(error)
    except OutputError as error:  # a full disk: a failure at run time, and no empty plot directory left
        report.remove_empty_directories(created)
        fail(error, code=1)
    if note is not None:
        print(f"wizard-sim: note: {note}", file=sys.stderr)
    if as_json:
        print(report.tables_json(tables))
        return
    console.print(f"{dataset}: {int(tables['by_policy']['n'].sum()):,} bids. {report.LEGEND}", markup=False)
    for name, frame in tables.items():
        console.print(report.rich_table(name, frame))
    for path in written:
        console.print(f"wrote {path}", markup=False)
