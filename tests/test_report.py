"""`wizard-sim report` and sim.analysis.report / sim.analysis.features: every number against pandas over the
whole (small) table, the streamed path with tiny batches, plots, JSON, Parquet and bad input."""
from __future__ import annotations

import json
from pathlib import Path

import matplotlib.image
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import sim
from sim.analysis import features, report
from sim.cli import app
from sim.runs.tables import games_table, rounds_table

runner = CliRunner()
PLAYERS = 4
GAMES_PER_PART = 6
# Two different policies per part; the last part's dictionary is written in reverse order.
PART_POLICIES = (
    "heuristic,random,random,random",
    "random,heuristic,random,heuristic",
    "heuristic,random,heuristic,random",
)
ROWS = len(PART_POLICIES) * GAMES_PER_PART * 15 * PLAYERS  # games x rounds x seats
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def reverse_policy_dictionary(table: pa.Table) -> pa.Table:
    """The same table with the policy dictionary in another order (as another writer might)."""
    labels = table.column("policy").to_pylist()
    dictionary = sorted(set(labels), reverse=True)
    codes = pa.array([dictionary.index(label) for label in labels], pa.int8())
    policy = pa.DictionaryArray.from_arrays(codes, pa.array(dictionary, pa.string()))
    return table.set_column(table.schema.get_field_index("policy"), "policy", policy)


def add_tournament_columns(table: pa.Table) -> pa.Table:
    """deal_id and rotation columns as a tournament dataset has them."""
    n = table.num_rows
    table = table.append_column("deal_id", pa.array(table.column("game_id").to_numpy() // 4, pa.int64()))
    return table.append_column("rotation", pa.array(np.arange(n) % 4, pa.int8()))


def write_dataset(root: Path, tournament: bool = False, with_games: bool = True) -> Path:
    """A dataset of len(PART_POLICIES) part files per table, plus an unfinished temp file."""
    (root / "rounds").mkdir(parents=True)
    if with_games:
        (root / "games").mkdir()
    for part, policies in enumerate(PART_POLICIES):
        batch = sim.run_games(sim.Rules(players=PLAYERS), policies, seed=11, games=GAMES_PER_PART,
                              first_game=part * GAMES_PER_PART)
        tables = {"rounds": rounds_table(batch), "games": games_table(batch)}
        for name, table in tables.items():
            if name == "games" and not with_games:
                continue
            if part == len(PART_POLICIES) - 1:
                table = reverse_policy_dictionary(table)
            if tournament:
                table = add_tournament_columns(table)
            pq.write_table(table, root / name / f"part-{part:05d}.parquet")
    (root / "rounds" / f".part-{len(PART_POLICIES):05d}.parquet.tmp").write_bytes(b"unfinished write")
    (root / "rounds" / f".part-{len(PART_POLICIES):05d}.parquet").write_bytes(b"unfinished write")
    return root


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    return write_dataset(tmp_path_factory.mktemp("report") / "run")


def read_whole(root: Path, name: str) -> pd.DataFrame:
    """Every part file of one table, read whole, policy as plain strings."""
    frames = [pq.read_table(path).to_pandas() for path in sorted((root / name).glob("part-*.parquet"))]
    frame = pd.concat(frames, ignore_index=True)
    frame["policy"] = frame["policy"].astype(str)
    return frame


def kind_of(trump_card: int) -> str:
    """Trump kind of one turned-up card, written out plainly (docs/rules.md §3)."""
    if trump_card == -1:
        return "last round"
    if trump_card < 52:
        return "suit"
    if trump_card < 56:
        return "wizard (dealer's choice)"
    return "jester (no trump)"


def expected_tables(root: Path) -> dict[str, pd.DataFrame]:
    """The report tables by a pandas groupby of the whole rounds table."""
    rounds = read_whole(root, "rounds")
    error = rounds["bid"].astype(int) - rounds["tricks"].astype(int)
    rounds = rounds.assign(
        exact=error == 0, over=error > 0, under=error < 0, abs_error=error.abs(),
        trump_kind=[kind_of(card) for card in rounds["trump_card"]],
        round=rounds["round"].astype(np.int64), bid_order=rounds["bid_order"].astype(np.int64),
    )
    result = {}
    for name, key in report.BREAKDOWNS.items():
        keys = ["policy"] if key is None else ["policy", key]
        frame = rounds.groupby(keys).agg(
            n=("exact", "size"), exact_rate=("exact", "mean"), mean_abs_error=("abs_error", "mean"),
            over_rate=("over", "mean"), under_rate=("under", "mean"),
        ).reset_index()
        result[name] = frame
    return result


def sorted_frame(frame: pd.DataFrame) -> pd.DataFrame:
    keys = [column for column in frame.columns if column not in report.METRICS]
    return frame.sort_values(keys, ignore_index=True)


def assert_tables_match(tables: dict[str, pd.DataFrame], expected: dict[str, pd.DataFrame]) -> None:
    assert list(tables) == list(report.BREAKDOWNS)
    for name, frame in tables.items():
        pd.testing.assert_frame_equal(sorted_frame(frame), sorted_frame(expected[name]), check_dtype=False,
                                      check_exact=False, rtol=1e-12)
        assert (frame["n"] > 0).all()


def test_dataset_has_differing_policy_dictionaries(dataset):
    dictionaries = {tuple(pq.read_table(p).column("policy").chunk(0).dictionary.to_pylist())
                    for p in (dataset / "rounds").glob("part-*.parquet")}
    assert dictionaries == {("heuristic", "random"), ("random", "heuristic")}


@pytest.mark.parametrize("batch_size", [7, 250, report.DEFAULT_BATCH_SIZE])
def test_streamed_tables_match_pandas_of_whole_table(dataset, batch_size):
    assert_tables_match(report.accuracy_tables(dataset, batch_size=batch_size), expected_tables(dataset))


def test_table_layout_and_order(dataset):
    tables = report.accuracy_tables(dataset)
    by_round = tables["by_round"]
    assert list(by_round.columns) == ["policy", "round", *report.METRICS]
    assert by_round["policy"].tolist() == sorted(by_round["policy"])
    assert by_round[by_round["policy"] == "random"]["round"].tolist() == list(range(1, 16))
    assert tables["by_bid_order"]["bid_order"].tolist() == [0, 1, 2, 3] * 2
    kinds = tables["by_trump_kind"].query("policy == 'heuristic'")["trump_kind"].tolist()
    assert kinds == [kind for kind in features.TRUMP_KINDS if kind in kinds] and "last round" in kinds
    rates = tables["by_policy"][["exact_rate", "over_rate", "under_rate"]].sum(axis=1)
    np.testing.assert_allclose(rates, 1.0)
    assert tables["by_policy"]["n"].sum() == ROWS
    labels, cells = report.bid_error_histogram(dataset, batch_size=100)
    assert sorted(labels) == ["heuristic", "random"]
    assert cells.shape == (2, *report.HISTOGRAM_AXES.values()) and cells.sum() == ROWS


def test_policy_first_seen_in_a_later_part(tmp_path):
    root = tmp_path / "growing"
    (root / "rounds").mkdir(parents=True)
    for part, policies in enumerate(("random", "heuristic:aggression=1.2,random,random")):
        batch = sim.run_games(sim.Rules(players=3), policies, seed=3, games=2, first_game=2 * part)
        pq.write_table(rounds_table(batch), root / "rounds" / f"part-{part:05d}.parquet")
    tables = report.accuracy_tables(root, batch_size=16)
    assert tables["by_policy"]["policy"].tolist() == ["heuristic:aggression=1.2", "random"]
    assert_tables_match(tables, expected_tables(root))


def test_one_part_file_is_open_at_a_time(tmp_path, monkeypatch):
    """Memory flat in the number of parts (#22 item 6): a part's footer is let go before the
    next part opens (a dataset of all of them kept every footer, 40 KB a part); the figures
    are those of the whole table. benchmarks/bench_report.py --many-parts measures it."""
    root = tmp_path / "many"
    assert runner.invoke(app, ["simulate", "--players", "4", "--games", "24", "--chunk-games", "1", "--seed", "2",
                               "--policy", "heuristic,random,random,random", "--out", str(root), "-q"]).exit_code == 0
    opened, open_now, most = [], [0], [0]

    class CountedParquetFile(pq.ParquetFile):
        def __init__(self, source, **options):
            super().__init__(source, **options)
            opened.append(Path(source).name)
            open_now[0] += 1
            most[0] = max(most[0], open_now[0])

        def close(self, force: bool = False):
            open_now[0] -= 1
            super().close(force)

    monkeypatch.setattr(report.pq, "ParquetFile", CountedParquetFile)
    assert_tables_match(report.accuracy_tables(root, batch_size=7), expected_tables(root))
    assert most[0] == 1 and open_now[0] == 0 and len(opened) == 24
    opened.clear()
    counts = report.score_counts(root, batch_size=7)
    assert counts["source"].unique().tolist() == ["games.total"] and len(opened) == 24 and most[0] == 1


def test_the_journal_keeps_only_the_fields_asked_for(tmp_path):
    """A reader of a run of many chunks keeps each chunk's parts and checksums, or nothing,
    without its statistics."""
    from sim.storage import JOURNAL_FILE, read_run
    from sim.storage.journal import Journal

    root = tmp_path / "run"
    assert runner.invoke(app, ["simulate", "--players", "3", "--games", "3", "--chunk-games", "1", "--seed", "2",
                               "--out", str(root), "-q"]).exit_code == 0
    run_id = json.loads((root / "run.json").read_text())["run_id"]
    whole = Journal(root / JOURNAL_FILE).read(run_id).entries
    read = Journal(root / JOURNAL_FILE).read(run_id, ("parts", "sha256"))
    kept = read.entries
    assert read.torn == read.unvouched == 0 and sorted(kept) == sorted(whole) == [0, 1, 2]
    for chunk, entry in kept.items():
        assert entry == {"chunk": chunk, "parts": whole[chunk]["parts"], "sha256": whole[chunk]["sha256"]}
    assert Journal(root / JOURNAL_FILE).read(run_id, ()).entries == {chunk: {"chunk": chunk} for chunk in range(3)}
    assert read_run(root, statistics=False)["chunks"]["complete"] == {"0": None, "1": None, "2": None}
    assert read_run(root)["chunks"]["complete"] == {str(chunk): whole[chunk]["stats"] for chunk in range(3)}


def test_tournament_columns_are_ignored(tmp_path):
    root = write_dataset(tmp_path / "tournament", tournament=True)
    assert "deal_id" in pq.read_schema(root / "rounds" / "part-00000.parquet").names
    assert_tables_match(report.accuracy_tables(root, batch_size=50), expected_tables(root))
    counts = report.score_counts(root, batch_size=9)
    assert counts["source"].unique().tolist() == ["games.total"]


def expected_score_counts(root: Path, name: str, column: str) -> pd.DataFrame:
    frame = read_whole(root, name)
    counts = frame.groupby(["policy", column]).size().rename("count").reset_index()
    return counts.rename(columns={column: "score"}).astype({"score": np.int64, "count": np.int64})


def test_score_counts_of_game_totals(dataset):
    counts = report.score_counts(dataset, batch_size=5)
    assert counts["source"].unique().tolist() == ["games.total"]
    pd.testing.assert_frame_equal(counts.drop(columns="source"), expected_score_counts(dataset, "games", "total"),
                                  check_dtype=False)


def test_score_counts_fall_back_to_round_scores(tmp_path):
    root = write_dataset(tmp_path / "no-games", with_games=False)
    counts = report.score_counts(root, batch_size=64)
    assert counts["source"].unique().tolist() == ["rounds.score"]
    pd.testing.assert_frame_equal(counts.drop(columns="source"), expected_score_counts(root, "rounds", "score"),
                                  check_dtype=False)
    result = runner.invoke(app, ["report", str(root), "--plots", str(tmp_path / "plots")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "plots" / "score_distribution.png").read_bytes().startswith(PNG_SIGNATURE)


def test_cli_prints_tables(dataset):
    result = runner.invoke(app, ["report", str(dataset), "--batch-size", "100"])
    assert result.exit_code == 0, result.output
    for title in report.TABLE_TITLES.values():
        assert title[:40] in result.stdout
    for word in ("heuristic", "random", "last round", "jester (no trump)", "mean", "|err|", "under", "bid - tricks"):
        assert word in result.stdout
    assert f"{ROWS:,} bids" in result.stdout


def test_cli_json(dataset):
    result = runner.invoke(app, ["report", str(dataset), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert list(document) == list(report.BREAKDOWNS)
    tables = report.accuracy_tables(dataset)
    for name, records in document.items():
        key = report.BREAKDOWNS[name]
        assert set(records[0]) == {"policy", *([key] if key else []), *report.METRICS}
        pd.testing.assert_frame_equal(pd.DataFrame(records), tables[name], check_dtype=False)


def test_cli_out_parquet_round_trip(dataset, tmp_path):
    out = tmp_path / "accuracy.parquet"
    result = runner.invoke(app, ["report", str(dataset), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    assert [p.name for p in tmp_path.iterdir()] == ["accuracy.parquet"]  # no temporary file left
    tidy = pd.read_parquet(out)
    expected = report.tidy_table(report.accuracy_tables(dataset))
    pd.testing.assert_frame_equal(tidy, expected)
    assert list(tidy.columns) == ["table", "policy", "round", "bid_order", "trump_kind", *report.METRICS]
    assert tidy["table"].unique().tolist() == list(report.BREAKDOWNS)
    by_round = tidy[tidy["table"] == "by_round"]
    assert by_round["round"].notna().all() and by_round["bid_order"].isna().all()


def test_cli_plots_are_png(dataset, tmp_path):
    plots = tmp_path / "new" / "plots"
    result = runner.invoke(app, ["report", str(dataset), "--plots", str(plots)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in plots.iterdir()) == sorted(report.PLOT_FILES)
    for name in report.PLOT_FILES:
        assert (plots / name).read_bytes().startswith(PNG_SIGNATURE)
        height, width, _ = matplotlib.image.imread(plots / name).shape
        assert height > 300 and width > 500


@pytest.mark.parametrize("failing", ["plots", "out"])
def test_a_full_disk_is_exit_1_and_leaves_no_empty_plot_directory(dataset, tmp_path, monkeypatch, failing):
    """#22: writing the report's files failing at run time was exit 2 (bad input) and left the
    plot directory it had created, empty."""
    import sim.storage.files
    import sim.storage.parts

    real_atomic_write = sim.storage.files.atomic_write

    def full_disk(path, write):
        if failing == "out" or path.suffix == ".png":
            raise OSError(28, "No space left on device")
        return real_atomic_write(path, write)

    monkeypatch.setattr(report, "atomic_write", full_disk)
    monkeypatch.setattr(sim.storage.parts, "atomic_write", full_disk)
    plots = tmp_path / "new" / "plots"
    result = runner.invoke(app, ["report", str(dataset), "--plots", str(plots), "--out", str(tmp_path / "tidy.parquet")])
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("wizard-sim: error: cannot write") and "No space left" in lines[0]
    assert not (tmp_path / "new").exists()
    assert (tmp_path / "tidy.parquet").exists() == (failing == "plots")


def bad_inputs(tmp_path: Path, dataset: Path) -> list[tuple[list[str], str]]:
    empty = tmp_path / "empty"
    (empty / "rounds").mkdir(parents=True)
    (empty / "rounds" / ".part-00000.parquet").write_bytes(b"unfinished")
    not_parquet = tmp_path / "not-parquet"
    (not_parquet / "rounds").mkdir(parents=True)
    (not_parquet / "rounds" / "part-00000.parquet").write_text("game_id,round\n1,2\n")
    other_table = tmp_path / "other"
    (other_table / "rounds").mkdir(parents=True)
    pq.write_table(pa.table({"game_id": [1], "round": [2]}), other_table / "rounds" / "part-00000.parquet")
    text_file = tmp_path / "notes.txt"
    text_file.write_text("not a dataset")
    plain_file = tmp_path / "a-file"
    plain_file.write_text("x")
    return [
        (["report", str(tmp_path / "missing")], "does not exist"),
        (["report", str(empty)], "has no rounds/*.parquet files"),
        (["report", str(tmp_path / "nothing-here" / "..")], "has no rounds/*.parquet files"),
        (["report", str(text_file)], "is not a dataset directory"),
        (["report", str(not_parquet)], "cannot read"),
        (["report", str(other_table)], "lacks the column(s) policy, bid_order, trump_card, bid, tricks"),
        (["report", str(dataset), "--out", str(tmp_path / "no-such-dir" / "a.parquet")], "does not exist"),
        (["report", str(dataset), "--out", str(tmp_path)], "is a directory"),
        (["report", str(dataset), "--plots", str(plain_file)], "cannot create the plot directory"),
        (["report", str(dataset), "--batch-size", "0"], "batch size must be in 1..10,000,000"),
    ]


def test_bad_input_is_one_line_and_exit_2(dataset, tmp_path):
    (tmp_path / "nothing-here").mkdir()
    for arguments, message in bad_inputs(tmp_path, dataset):
        result = runner.invoke(app, arguments)
        assert result.exit_code == 2, (arguments, result.output)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("wizard-sim: error: "), (arguments, result.stderr)
        assert message in lines[0], (arguments, lines[0])
        assert result.stdout == "", arguments


def test_out_of_range_values_are_config_errors(tmp_path):
    root = tmp_path / "bad-values"
    (root / "rounds").mkdir(parents=True)
    batch = sim.run_games(sim.Rules(players=3), "random", seed=2, games=1)
    table = rounds_table(batch)
    trump_card = pa.array(np.full(table.num_rows, 60, dtype=np.int8))
    table = table.set_column(table.schema.get_field_index("trump_card"), "trump_card", trump_card)
    pq.write_table(table, root / "rounds" / "part-00000.parquet")
    with pytest.raises(sim.ConfigError, match="column trump_card has values outside -1..59"):
        report.accuracy_tables(root)


# sim.analysis.features -------------------------------------------------------------------------------

def test_trump_kind_of_every_card():
    cards = np.arange(-1, 60, dtype=np.int8)
    expected = [kind_of(int(card)) for card in cards]
    assert [features.TRUMP_KINDS[code] for code in features.trump_kind_codes(cards)] == expected
    kinds = features.trump_kind(pd.Series(cards))
    assert list(kinds) == expected and list(kinds.categories) == list(features.TRUMP_KINDS)
    for bad in ([-2], [60]):
        with pytest.raises(sim.ConfigError, match="trump_card values must be -1..59"):
            features.trump_kind_codes(bad)


def hand_samples() -> tuple[np.ndarray, np.ndarray]:
    """Dealt hands and the trump of their rounds from a small run, plus extreme hands."""
    batch = sim.run_games(sim.Rules(players=3), "heuristic,random,random", seed=5, games=4)
    hands = batch.seats["hand"].reshape(-1)
    trumps = np.repeat(batch.rounds["trump"][:, :, None], 3, axis=2).reshape(-1)
    extremes = np.array([0, (1 << 60) - 1, 0xF << 52, 0xF << 56, (1 << 13) - 1, ((1 << 13) - 1) << 39], np.int64)
    return np.concatenate([hands, extremes]), np.concatenate([trumps, np.array([-1, 3, 0, 1, 0, 3], np.int8)])


def test_hand_features_match_a_plain_loop():
    hands, trumps = hand_samples()
    assert (trumps == -1).any() and (trumps >= 0).any()
    cards = [sim.config.cards.mask_to_cards(int(hand)) for hand in hands]
    np.testing.assert_array_equal(features.card_count(hands), [len(c) for c in cards])
    np.testing.assert_array_equal(features.wizard_count(hands), [sum(52 <= x < 56 for x in c) for c in cards])
    np.testing.assert_array_equal(features.jester_count(hands), [sum(x >= 56 for x in c) for c in cards])
    np.testing.assert_array_equal(features.suit_counts(hands),
                                  [[sum(x < 52 and x // 13 == s for x in c) for s in range(4)] for c in cards])
    expected_trumps = [sum(x < 52 and x // 13 == t for x in c) if t >= 0 else 0 for c, t in zip(cards, trumps)]
    np.testing.assert_array_equal(features.trump_count(hands, trumps), expected_trumps)
    np.testing.assert_array_equal(features.trump_count(pd.Series(hands), pa.array(trumps)), expected_trumps)


def test_hand_features_keep_shape_and_check_trump():
    hands = np.array([[0xF << 52, 1 | (1 << 56)]], dtype=np.int64)
    assert features.wizard_count(hands).tolist() == [[4, 0]]
    assert features.suit_counts(hands).shape == (1, 2, 4)
    assert int(features.card_count(np.int64(7))) == 3
    with pytest.raises(sim.ConfigError, match="trump values must be -1..3"):
        features.trump_count(hands, 4)
