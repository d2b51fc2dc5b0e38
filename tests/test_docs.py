"""The docs' shape (docs/README.md): every command or concern page has the template's sections in
order, the specifications number theirs, no page is longer than 400 lines, every relative link in
README.md, docs/*.md and experiments/*.md reaches an existing file and, with a #fragment, an
existing heading, and a figure results/ publishes is shown only through a block rendered from its
JSON (experiments/result_figures.py), never copied by hand."""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from experiments import result_figures

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RESULTS = ROOT / "results"
EXPERIMENTS = ROOT / "experiments"

TEMPLATE = ["What it does", "Options", "Outputs", "Guarantees", "Figures"]
# Specifications: numbered sections, cited as "docs/rules.md §N".
SPECIFICATIONS = {"rules.md", "randomness.md"}
# The index of the docs, and the map of the code (its own sections: layers, records, paths).
OTHERS = {"README.md", "architecture.md"}

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def prose_lines(path: Path) -> list[str]:
    """The lines outside fenced code blocks, with inline code removed."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(re.sub(r"`[^`]*`", "", line))
    return lines


def headings(path: Path) -> list[tuple[int, str]]:
    """(level, text) of every heading outside code blocks."""
    found, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"^(#{1,6}) (.*?)\s*#*\s*$", line)):
            found.append((len(match.group(1)), match.group(2)))
    return found


def anchors(path: Path) -> set[str]:
    """The fragments GitHub gives a page's headings: lower case, punctuation dropped, spaces to
    hyphens, a repeated one numbered -1, -2, ..."""
    seen: dict[str, int] = {}
    result = set()
    for _, text in headings(path):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading: its text
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        result.add(slug if count == 0 else f"{slug}-{count}")
    return result


def pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def template_pages() -> list[Path]:
    return [page for page in pages() if page.name not in SPECIFICATIONS | OTHERS]


def test_the_pages_are_classified():
    names = {page.name for page in pages()}
    assert SPECIFICATIONS | OTHERS <= names
    assert len(template_pages()) >= 20


@pytest.mark.parametrize("page", template_pages(), ids=lambda page: page.name)
def test_command_and_concern_pages_follow_the_template(page):
    found = headings(page)
    assert found[0][0] == 1, f"{page.name} starts with its title"
    assert [level for level, _ in found].count(1) == 1, f"{page.name} has one title"
    sections = [text for level, text in found if level == 2]
    assert sections == TEMPLATE, f"{page.name}: ## sections {sections}, the template is {TEMPLATE}"
    text = page.read_text(encoding="utf-8")
    for before, after in zip(TEMPLATE, TEMPLATE[1:]):
        body = text.split(f"\n## {before}\n", 1)[1].split(f"\n## {after}\n", 1)[0]
        assert body.strip(), f"{page.name}: '{before}' is empty (say so in one line)"
    assert text.split("\n## Figures\n", 1)[1].strip(), f"{page.name}: 'Figures' is empty (say so in one line)"


@pytest.mark.parametrize("page", sorted(SPECIFICATIONS))
def test_specifications_number_their_sections(page):
    sections = [text for level, text in headings(DOCS / page) if level == 2]
    numbers = [int(match.group(1)) for text in sections if (match := re.match(r"^(\d+)\. ", text))]
    assert numbers == list(range(1, len(sections) + 1)), f"{page}: sections {sections}"


def test_the_index_lists_every_page():
    index = "\n".join(prose_lines(DOCS / "README.md"))
    linked = {target.split("#")[0] for target in LINK.findall(index)}
    missing = [page.name for page in pages() if page.name != "README.md" and page.name not in linked]
    assert not missing, f"docs/README.md does not list {missing}"


def link_targets(path: Path) -> list[str]:
    text = "\n".join(prose_lines(path))
    return LINK.findall(text) + IMAGE.findall(text)


def notes() -> list[Path]:
    """The dated experiment notes: history, linked from the manuals but never quoted as truth."""
    return sorted(EXPERIMENTS.glob("*.md"))


@pytest.mark.parametrize("page", [ROOT / "README.md", *pages(), *notes()],
                         ids=lambda page: page.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page):
    broken = []
    for target in link_targets(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
            continue
        path_part, _, fragment = target.partition("#")
        destination = (page.parent / path_part).resolve() if path_part else page
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif fragment and destination.suffix == ".md" and fragment not in anchors(destination):
            broken.append(f"{target}: no heading #{fragment} in {destination.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_readme_is_a_front_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    # .ci/run runs this command verbatim.
    assert "python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && .venv/bin/python -m pytest -q" in readme
    assert not re.search(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b", readme), "no commit hashes"
    assert not re.search(r"\bload (average|about|under|[0-9])", readme), "no load averages"


REPO_PATH = re.compile(r"`((?:kernels|sim|tests|benchmarks|experiments|examples|notebooks|results|docs)/[\w./-]*)`")


@pytest.mark.parametrize("page", [ROOT / "README.md", *pages()], ids=lambda page: page.relative_to(ROOT).as_posix())
def test_named_source_files_exist(page):
    """A file of the repository named in `code` (kernels/rules.py, sim/cli/) exists: a moved
    module leaves no page pointing at its old place. Run outputs (results/runs/) are not files
    of the repository."""
    named = REPO_PATH.findall(page.read_text(encoding="utf-8"))
    # kernels/policies/NAME.py: a pattern, not a file; a __pycache__ folder: made by a run, no file of the repository
    placeholders = ("NAME", "NNNNN", "__pycache__")
    missing = sorted({path for path in named if not path.startswith("results/runs")
                      and not any(word in path for word in placeholders) and not (ROOT / path).exists()})
    assert not missing, f"{page.relative_to(ROOT)} names {missing}"



SCRIPT_COMMAND = re.compile(r"python3? -m (benchmarks|experiments)\.(\w+)")
SCRIPT_BY_PATH = re.compile(r"python3? (?:benchmarks|experiments)/\w+\.py")


@pytest.mark.parametrize("page", [ROOT / "README.md", *pages()], ids=lambda page: page.relative_to(ROOT).as_posix())
def test_named_bench_and_experiment_commands_run(page):
    """benchmarks/ and experiments/ are packages, their scripts run as modules from the
    repository root (`python -m benchmarks.bench_engine`): a command a page names is one that
    runs, by a module that exists."""
    text = page.read_text(encoding="utf-8")
    assert not SCRIPT_BY_PATH.findall(text), f"{page.relative_to(ROOT)}: run a script as python -m PACKAGE.NAME"
    missing = sorted({f"{package}.{name}" for package, name in SCRIPT_COMMAND.findall(text)
                      if name != "NAME" and not (ROOT / package / f"{name}.py").exists()})  # NAME: a placeholder
    assert not missing, f"{page.relative_to(ROOT)} runs {missing}"


def test_performance_names_benches_that_exist():
    """docs/performance.md's command column names a bench by its module (`bench_engine
    --games 200000`, run as python -m benchmarks.bench_engine)."""
    named = set(re.findall(r"`(bench_\w+)", (DOCS / "performance.md").read_text(encoding="utf-8")))
    assert named, "performance.md names no bench"
    assert not sorted(name for name in named if not (ROOT / "benchmarks" / f"{name}.py").exists())


@pytest.mark.parametrize("page", [*pages(), *notes()], ids=lambda page: page.relative_to(ROOT).as_posix())
def test_no_page_is_longer_than_400_lines(page):
    assert len(page.read_text(encoding="utf-8").splitlines()) <= 400, f"{page.relative_to(ROOT)} is over 400 lines"


FIGURES = result_figures
PUBLISHED = FIGURES.published(RESULTS)


NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.(\d+))?")


def with_bounds(node: object) -> Iterator[tuple[float, ...]]:
    """Every figure of a published JSON that comes with its spread: (value, low, high) of a
    difference or rating (ci_low, ci_high), of any X with X_ci_low and X_ci_high or X_lo and X_hi
    (mean scores, P(make), expected scores), and (value, se) of any X with X_se."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            bounds = [(f"{key}_ci_low", f"{key}_ci_high"), (f"{key}_lo", f"{key}_hi")]
            if key in ("difference", "rating"):
                bounds.append(("ci_low", "ci_high"))
            for low, high in bounds:
                if all(isinstance(node.get(bound), (int, float)) for bound in (low, high)):
                    yield value, node[low], node[high]
            if isinstance(node.get(f"{key}_se"), (int, float)) and node[f"{key}_se"]:
                yield value, node[f"{key}_se"]
        for value in node.values():
            yield from with_bounds(value)
    elif isinstance(node, list):
        for item in node:
            yield from with_bounds(item)


def published_figures() -> set[tuple[float, ...]]:
    """with_bounds of every results/*.json, signs dropped, as fractions and (shares) in percent."""
    found = set()
    for result in PUBLISHED.values():
        for figure in with_bounds(result):
            found.add(tuple(abs(value) for value in figure))
            if all(abs(value) <= 1 for value in figure):
                found.add(tuple(100 * abs(value) for value in figure))
    return found


def by_tenths(figures: set[tuple[float, ...]]) -> dict[int, list[tuple[float, ...]]]:
    """The figures by their value in tenths: a page's thousands of numbers each look up a few."""
    index: dict[int, list[tuple[float, ...]]] = {}
    for figure in figures:
        index.setdefault(round(10 * figure[0]), []).append(figure)
    return index


PUBLISHED_FIGURES = by_tenths(published_figures())


def hand_copies(text: str) -> list[str]:
    """The published figures written in `text` outside its generated blocks.

    A figure counts as copied when it is written with its interval or standard error: a number
    with a decimal point followed, within 60 characters, by two more (the 95% bounds: "55.8
    points per game (95% CI 53.3 to 58.2)", "+8.1 (+5.1 to +11.0)", "13.7 [+9.3, +18.0]") or by
    "±" and one more ("72.3% ± 0.8"), all equal to a figure of results/*.json to the decimal
    places written (signs ignored; shares also in percent). Numbers without a decimal point
    ("95%", "2,000 deals") are skipped. A lone number is not checked: results/*.json holds some
    900 distinct one-decimal figures, so a page's measurement of something else (a
    benchmark's "peak 204.9 MiB", a tuning run's mean score) matches one by chance, while three
    numbers matching a figure and both its bounds do not."""
    text = FIGURES.BLOCK.sub("", text)
    numbers = [(match.start(), match.end(), float(match.group(0).replace(",", "")), len(match.group(1) or ""))
               for match in NUMBER.finditer(text)]  # fmt: skip
    copies = []
    for index, (start, end, value, places) in enumerate(numbers):
        if not places:
            continue
        after = [number for number in numbers[index + 1:index + 5] if number[3] and number[0] - end <= 60]
        if after and "±" in text[end:after[0][0]]:
            rest = after[:1]  # a share and its standard error
        elif len(after) >= 2:
            rest = after[:2]  # a figure and its bounds
        else:
            continue
        written = [(value, places), *((number[2], number[3]) for number in rest)]
        if len({number for number, _ in written}) > 1 and published_figure(written):
            copies.append(" ".join(text[start:rest[-1][1]].split()))
    return copies


def published_figure(written: list[tuple[float, int]]) -> bool:
    """Whether [(number, decimal places), ...] is a published figure and its bounds, to the places
    written."""
    first = round(10 * written[0][0])
    near = (figure for tenths in (first - 1, first, first + 1) for figure in PUBLISHED_FIGURES.get(tenths, ()))
    return any(len(figure) == len(written)
               and all(abs(number - bound) <= 0.5 * 10**-places + 1e-9
                       for (number, places), bound in zip(written, figure))
               for figure in near)  # fmt: skip


@pytest.mark.parametrize("page", FIGURES.pages(ROOT), ids=lambda page: page.relative_to(ROOT).as_posix())
def test_published_figures_are_not_copied_by_hand(page):
    copies = hand_copies(page.read_text(encoding="utf-8"))
    assert not copies, (f"{page.relative_to(ROOT)} copies figures of results/*.json by hand: {copies}; show them in a "
                        "block (<!-- results: NAME --><!-- /results -->, experiments/result_figures.py) and run "
                        "python -m experiments.regenerate_results --readme")


def test_the_copy_check_finds_a_copy_and_spares_other_numbers():
    fresh = PUBLISHED["fresh_deals"]["tables"]["split_by_round_vs_mc"]["pairs"][0]
    copied = (f"beats mc by {fresh['difference']:.1f} points per game "
              f"(95% CI {fresh['ci_low']:.1f} to {fresh['ci_high']:.1f})")
    assert len(hand_copies(copied)) == 1
    share = PUBLISHED["calibration"]["classes"][0]
    assert len(hand_copies(f"{100 * share['self_play']:.1f}% ± {100 * share['self_play_se']:.1f}")) == 1
    block = f"<!-- results: fresh_deals.tables.split_by_round_vs_mc.pairs.0 -->{copied}<!-- /results -->"
    assert not hand_copies(block)
    assert not hand_copies("4 players, 0.5 s a game, 2,000 deals, 95% CI, 1.0–1.6 s, peak 204.9 against 198.0 MiB")


@pytest.mark.parametrize("page", FIGURES.pages(ROOT), ids=lambda page: page.relative_to(ROOT).as_posix())
def test_generated_blocks_are_up_to_date(page):
    stale = FIGURES.stale(page.read_text(encoding="utf-8"), PUBLISHED)
    assert not stale, (f"{page.relative_to(ROOT)}: blocks {stale} differ from results/*.json: "
                       "run python -m experiments.regenerate_results --readme")
