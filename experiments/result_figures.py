"""The published figures a page shows, written once in results/*.json and rendered into marked
blocks of the README and docs/*.md:

    <!-- results: fresh_deals.tables.split_by_round_vs_mc.pairs.0 -->+55.8 (+53.3 to +58.2)<!-- /results -->

A block's name is either one of BLOCKS (a sentence or a table drawn from several figures) or a
path into one JSON file: its name without .json, then keys and list indexes, to a figure with
its 95% interval (a pair or comparison: difference, ci_low, ci_high), written as
"+55.8 (+53.3 to +58.2)". `python -m experiments.regenerate_results --readme` rewrites every block from
the JSON; tests/test_docs.py fails on a block that differs from it. It reads JSON only (no
package import), so the docs' test stays fast.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"  # the published figures
# A name is lower case (file names, keys, indexes): "<!-- results: NAME -->" in prose is an example.
BLOCK = re.compile(r"<!-- results: (?P<name>[a-z][a-z0-9_.]*) -->(?P<body>.*?)<!-- /results -->", re.S)

Published = dict[str, dict]


def published(results: Path = RESULTS) -> Published:
    """Every results/*.json by its name without .json."""
    return {path.stem: json.loads(path.read_text()) for path in sorted(results.glob("*.json"))}


def pages(root: Path = ROOT) -> list[Path]:
    """The pages that may hold blocks: the README and docs/*.md."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def signed(value: float) -> str:
    return f"{value:+.1f}".replace("-", "−")


def interval(figure: dict) -> str:
    """A difference with its 95% interval: "+8.1 (+5.1 to +11.0)"."""
    return f"{signed(figure['difference'])} ({signed(figure['ci_low'])} to {signed(figure['ci_high'])})"


def plain(figure: dict) -> str:
    """A difference known to be positive with its interval, unsigned: "55.8 (53.3 to 58.2)"."""
    return f"{figure['difference']:.1f} ({figure['ci_low']:.1f} to {figure['ci_high']:.1f})"


def provenance(result: dict) -> str:
    """Which version played a published file's tables, when, and on which seed."""
    return f"played by wizard-sim {result['wizard_sim']} on {result['generated']}, seed {result['seed']}"


def at_path(result: dict, name: str) -> dict:
    """The figure at `name` (keys and list indexes, dotted) in one published file."""
    node: object = result
    for key in name.split("."):
        node = node[int(key)] if isinstance(node, list) else node[key]  # type: ignore[index]
    if not isinstance(node, dict) or not {"difference", "ci_low", "ci_high"} <= set(node):
        raise KeyError(f"{name} is not a figure with its interval")
    return node


# -- named blocks -----------------------------------------------------------------------------
FRESH_SEATS = {  # fresh_deals.json's tables by their other seats: (the table as the page shows it)
    "vs_mc": "`X,mc,mc,mc` (mc at its defaults)",
    "with_random": "`X,heuristic,heuristic,random`",
    "vs_held_out": "`X,examples.rule_bot:RuleBot,examples.numpy_bot:LinearBidder,mc` (held out)",
    "vs_heuristic": "`X,heuristic,heuristic,heuristic`",
}


def pair(table: dict, policy_b: str) -> dict:
    """A table's pair of its first policy against `policy_b`."""
    first = table["policies"][0]["policy"]
    return next(p for p in table["pairs"] if (p["policy_a"], p["policy_b"]) == (first, policy_b))


def defaults_gains(fresh: dict) -> list[tuple[str, int, dict]]:
    """pimc at its defaults since 0.2 against 0.1's pimc on fresh deals: (table, deals, figure),
    four tables compared paired over their deals and one with both seated, opposite."""
    comparisons = {(c["table_a"], c["table_b"]): c for c in fresh["comparisons"]}
    rows = [(text, comparisons[(f"split_by_round_{seats}", f"pimc_{seats}")]) for seats, text in FRESH_SEATS.items()]
    opposite = fresh["tables"]["split_by_round_opposite_pimc"]
    former = fresh["tables"]["pimc_vs_mc"]["policies"][0]["policy"]  # 0.1's pimc, by today's label
    rows.append((f"`{opposite['policies_text']}` (opposite, one run)", pair(opposite, former)))
    return [(text, figure["deals"] if "deals" in figure else opposite["deals"], figure) for text, figure in rows]


def pimc_defaults_table(result: Published) -> str:
    fresh = result["fresh_deals"]
    lines = ["| table | deals | `pimc` − 0.1's pimc (points per game, 95% CI) |", "| --- | --- | --- |"]
    lines += [f"| {text} | {deals:,} | **{interval(figure)}** |" for text, deals, figure in defaults_gains(fresh)]
    return "\n".join(lines) + f"\n\n(results/fresh_deals.json, {provenance(fresh)}.)"


def strength_headline(result: Published) -> str:
    fresh = result["fresh_deals"]
    tables = fresh["tables"]
    mc, heuristic = tables["split_by_round_vs_mc"], tables["split_by_round_vs_heuristic"]
    equal = tables["split_by_round_vs_mc_equal_time"]
    gains = [figure["difference"] for _, _, figure in defaults_gains(fresh)]
    return (f"- **Strength.** `pimc` beats `mc` at its defaults by **{plain(pair(mc, 'mc'))}** points per game"
            f" (95% CI) and the heuristic by {plain(pair(heuristic, 'heuristic'))}, over {mc['deals']:,} duplicate"
            " deals,"
            f" and mc given the same time per game by {plain(equal['pairs'][0])}"
            f" ([results](results/README.md#pimcs-defaults-on-fresh-deals-issue-37)). Its defaults since"
            f" 0.2 (inference from the bids; the rounds of 7 cards on played as mc) beat wizard-sim 0.1's by"
            f" {min(gains):.1f} to {max(gains):.1f} points per game at each of {len(gains)} tables"
            f" ([docs/pimc.md](docs/pimc.md#defaults)).")


def calibration_headline(result: Published) -> str:
    first = result["accuracy"]["rounds"][0]
    calibration = result["calibration"]
    z = max(abs(row["z"]) for row in calibration["classes"] if row.get("z") is not None)
    beats = all(row["beats_baseline"] for row in result["accuracy"]["rounds"])
    where = "at every round size" if beats else "at some round sizes"
    return (f"- **Calibration.** The heuristic bids exactly more often than the published rule-based agent"
            f" (Schumacher & Pleines, CoG 2022) {where}, {100 * first['heuristic']:.1f}% against"
            f" {100 * first['baseline']:.0f}% in 1-card rounds"
            f" ([results](results/README.md#heuristic-bid-accuracy-next-to-the-published-baseline));"
            f" `estimate`'s P(make) matches {calibration['games']:,} self-play games in"
            f" {len(calibration['classes'])} situations after informative bids within |z| ≤ {z:g}"
            f" ([results](results/README.md#estimate-against-self-play-bids-carry-information)).")


def percent(value: float | None, se: float | None = None) -> str:
    """A share in percent, with its standard error unless it has none (None, or 0 for a share of 0 or 1)."""
    if value is None:
        return "-"
    return f"{100 * value:.1f}%" + ("" if not se else f" ± {100 * se:.1f}")


def calibration_table(result: Published) -> str:
    calibration = result["calibration"]
    lines = ["| situation | games | self-play ± SE | estimate | z | `infer=False` |",
             "| --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {row['situation']} | {row['games']:,} | {percent(row['self_play'], row['self_play_se'])} | "
              f"{percent(row['estimate'])} | {row.get('z', '-')} | {percent(row['no_infer'])} |"
              for row in calibration["classes"]]  # fmt: skip
    return "\n".join(lines) + f"\n\n(results/calibration.json, {provenance(calibration)}.)"


def openspiel_table(result: Published) -> str:
    openspiel = result["openspiel"]
    lines = ["| table | deals x seatings | difference | 95% CI | wall time |", "| --- | --- | --- | --- | --- |"]
    for table in openspiel["tables"].values():
        first = table["pairs"][0]
        names = "ISMCTS" if first["policy_a"].startswith("openspiel") else first["policy_a"].split(":")[0]
        other = "heuristic" if first["policy_b"] == "heuristic" else "ISMCTS"
        seconds = "-" if table["seconds"] is None else f"{table['seconds']} s"
        lines.append(f"| `{table['policies_text']}` | {table['deals']} x {table['rotations']} | {names} − {other} "
                     f"{signed(first['difference'])} | {signed(first['ci_low'])} .. {signed(first['ci_high'])} "
                     f"| {seconds} |")
    league = openspiel["league"]
    ratings = ", ".join(f"{row['policy']} {bracketed(row['rating'], row)}" for row in league["ratings"])
    pairs = ", ".join(f"{row['policy_a']} − {row['policy_b']} {bracketed(row['difference'], row)}"
                      for row in league["pairs"] if "openspiel:" in row["policy_a"] + row["policy_b"])
    seconds = "" if league["seconds"] is None else f", {league['seconds']} s wall"
    return ("\n".join(lines) + f"\n\nThe league `{league['policies_text']}` ({league['deals']} deals{seconds})"
            " rates, in"
            f" points per game against the pool's mean: {ratings}; pairwise against ISMCTS: {pairs}."
            f" (results/openspiel.json, {provenance(openspiel)}.)")


def bracketed(value: float, row: dict) -> str:
    """A figure with its 95% interval in brackets, as the league prints it: "+13.7 [+9.3, +18.0]"."""
    return f"{signed(value)} [{signed(row['ci_low'])}, {signed(row['ci_high'])}]"


BLOCKS: dict[str, Callable[[Published], str]] = {
    "fresh_deals.pimc_defaults": pimc_defaults_table,
    "fresh_deals.strength_headline": strength_headline,
    "calibration.headline": calibration_headline,
    "calibration.table": calibration_table,
    "openspiel.strength": openspiel_table,
}


def render(name: str, result: Published) -> str:
    """The text of block `name` from the published JSON (KeyError: no such block or figure)."""
    if name in BLOCKS:
        return BLOCKS[name](result)
    stem, _, path = name.partition(".")
    return interval(at_path(result[stem], path))


def rendered(text: str, result: Published) -> str:
    """`text` with every block's body rendered afresh, keeping the newlines around it."""

    def replace(match: re.Match) -> str:
        body = match["body"]
        before = body[: len(body) - len(body.lstrip())]
        after = body[len(body.rstrip()):]
        return f"<!-- results: {match['name']} -->{before}{render(match['name'], result)}{after}<!-- /results -->"

    return BLOCK.sub(replace, text)


def stale(text: str, result: Published) -> list[str]:
    """The names of `text`'s blocks whose body is not what the JSON renders (or that name no figure)."""
    found = []
    for match in BLOCK.finditer(text):
        try:
            fresh = render(match["name"], result)
        except (KeyError, IndexError, ValueError):
            found.append(f"{match['name']} (no such block or figure)")
            continue
        if match["body"].strip() != fresh.strip():
            found.append(match["name"])
    return found


def write_pages(result: Published, root: Path = ROOT) -> list[Path]:
    """Render every block of every page in place; the pages that changed."""
    changed = []
    for page in pages(root):
        text = page.read_text(encoding="utf-8")
        new = rendered(text, result)
        if new != text:
            page.write_text(new, encoding="utf-8")
            changed.append(page)
    return changed
