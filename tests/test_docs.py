"""The docs' shape (docs/README.md): every command or concern page has the template's sections in
order, the specifications number theirs, and every relative link in README.md and docs/*.md
reaches an existing file and, with a #fragment, an existing heading."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

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


@pytest.mark.parametrize("page", [ROOT / "README.md", *pages()], ids=lambda page: page.relative_to(ROOT).as_posix())
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


REPO_PATH = re.compile(r"`((?:kernels|sim|tests|benchmarks|examples|notebooks|results|docs)/[\w./-]*)`")


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
