"""The README and the reference pages in docs/: short, and every relative link leads somewhere.

A link is relative when it names no scheme (http:, mailto:) and is not a page's own anchor
alone; its path must be a file or folder of the checkout, and its anchor, if any, a heading of
the markdown file it names (as GitHub makes anchors of headings).
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "models" / "README.md",
         ROOT / "models" / "HISTORY.md"]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def links(page: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", page.read_text()))


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the headings of ``page``."""
    found = set()
    for line in FENCE.sub("", page.read_text()).splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
            found.add(slug)
    return found


def test_the_readme_is_at_most_220_lines():
    assert len(README.read_text().splitlines()) <= 220


def test_the_readme_keeps_its_two_quick_start_commands():
    text = README.read_text()
    quick = text[text.index("\n## Quick start\n"):]
    block = quick.split("```sh\n", 1)[1].split("```", 1)[0]
    assert [line.split("#")[0].strip() for line in block.splitlines()] == [
        "bin/cribcam serve", "bash .ci/run"]


def test_there_are_reference_pages():
    assert {page.name for page in PAGES} >= {"api.md", "live.md", "teaching.md", "games.md",
                                               "training.md", "benchmarks.md", "licences.md"}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(page):
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue
        path, _, anchor = target.partition("#")
        goal = (page.parent / path).resolve() if path else page
        if not goal.exists():
            broken.append(f"{target}: no {goal.relative_to(ROOT) if goal.is_relative_to(ROOT) else goal}")
        elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
            broken.append(f"{target}: no heading with that anchor in {goal.name}")
    assert not broken, broken


def test_every_reference_page_is_linked_from_the_readme():
    named = {(ROOT / target.partition("#")[0]).resolve() for target in links(README)}
    assert [page.name for page in PAGES if page.resolve() not in named and page != README] == []
