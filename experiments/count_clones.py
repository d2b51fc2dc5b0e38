"""Count duplicated blocks of code: windows of six or more lines that occur more than once.

Each Python file under the folders given (default: sim and kernels) is normalised line by line:
whitespace stripped, and blank lines, comment lines, import lines and lines of brackets or
punctuation alone dropped, so that a block is the same block however it is indented or
spaced. Every window of WINDOW consecutive normalised lines is hashed; a window whose hash
occurs at two places or more is duplicated. Overlapping duplicated windows of one file merge
into one block. The figures: the duplicated blocks (each place counted), the source lines
they span, and the distinct windows behind them.

    python -m experiments.count_clones              # sim/ and kernels/
    python -m experiments.count_clones sim --list   # and where each block is
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections import defaultdict
from pathlib import Path

WINDOW = 6
# Lines that say nothing alone: brackets and punctuation, e.g. ")", "],", "}))".
PUNCTUATION = re.compile(r"^[\s()\[\]{},:;]*$")


def normalised_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of the lines that count, stripped."""
    kept = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        text = line.strip()
        if not text or text.startswith("#") or PUNCTUATION.match(text):
            continue
        if text.startswith(("import ", "from ")) and " import " in f" {text}":
            continue
        kept.append((number, text))
    return kept


def duplicated_blocks(roots: list[Path], window: int = WINDOW) -> tuple[list[tuple[str, int, int]], int]:
    """The duplicated blocks as (file, first line, last line), and the distinct windows behind them."""
    places: dict[str, list[tuple[Path, int]]] = defaultdict(list)
    lines_of: dict[Path, list[tuple[int, str]]] = {}
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            lines = lines_of[path] = normalised_lines(path)
            for start in range(len(lines) - window + 1):
                text = "\n".join(line for _, line in lines[start : start + window])
                places[hashlib.sha1(text.encode()).hexdigest()].append((path, start))
    repeated = {key for key, where in places.items() if len(where) > 1}
    starts: dict[Path, set[int]] = defaultdict(set)
    for key in repeated:
        for path, start in places[key]:
            starts[path].add(start)
    blocks = []
    for path, found in sorted(starts.items()):
        ordered = sorted(found)
        first = previous = ordered[0]
        for start in ordered[1:] + [None]:
            if start is not None and start <= previous + window:  # overlapping or touching windows
                previous = start
                continue
            lines = lines_of[path]
            blocks.append((str(path), lines[first][0], lines[previous + window - 1][0]))
            if start is not None:
                first = previous = start
    return blocks, len(repeated)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", default=["sim", "kernels"])
    parser.add_argument("--window", type=int, default=WINDOW, help="lines per window (default 6)")
    parser.add_argument("--list", action="store_true", help="print every block")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    arguments = parser.parse_args()
    blocks, windows = duplicated_blocks([Path(folder) for folder in arguments.folders], arguments.window)
    figures = {"folders": arguments.folders, "window": arguments.window, "blocks": len(blocks),
               "lines": sum(last - first + 1 for _, first, last in blocks), "distinct_windows": windows}  # fmt: skip
    if arguments.json:
        print(json.dumps(figures))
    else:
        print(f"{figures['blocks']} duplicated blocks of {arguments.window}+ lines in {', '.join(arguments.folders)}:"
              f" {figures['lines']} source lines, {windows} distinct windows")  # fmt: skip
    if arguments.list:
        for path, first, last in blocks:
            print(f"  {path}:{first}-{last}")


if __name__ == "__main__":
    main()
