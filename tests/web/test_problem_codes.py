"""The pages key on a problem's code, never on its words: every code their JavaScript names is
one the reader can give (cribcam/vision/reading.py), so a code renamed on one side fails here,
not silently on a page."""

import re
from pathlib import Path

import cribcam
from cribcam.vision import reading

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "web" / "static"
# A page's codes: `const PROBLEM = Object.freeze({ name: "code", ... });`
CODES_BLOCK = re.compile(r"const PROBLEM = Object\.freeze\(\{(.*?)\}\);", re.S)


def page_codes() -> dict[str, dict[str, str]]:
    """Each script's ``PROBLEM`` names and codes, for the scripts that have one."""
    found = {}
    for script in sorted(STATIC.glob("*.js")):
        block = CODES_BLOCK.search(script.read_text())
        if block:
            found[script.name] = dict(re.findall(r'(\w+): "([^"]*)"', block.group(1)))
    return found


def test_every_code_a_page_keys_on_is_one_the_reader_gives():
    codes = page_codes()
    assert "counting.js" in codes  # the photo and camera pages key on theirs
    for script, named in codes.items():
        assert set(named.values()) <= reading.PROBLEM_CODES, script


def test_a_page_names_only_the_codes_it_defines():
    for script, named in page_codes().items():
        assert set(re.findall(r"PROBLEM\.(\w+)", (STATIC / script).read_text())) <= set(named), script


def test_no_page_tests_a_problem_by_its_words():
    # What the problems were tested by before they had codes: their first words.
    for script in STATIC.glob("*.js"):
        assert not re.search(r"(text|problem)\.startsWith\(", script.read_text()), script.name


def test_every_code_is_given_by_the_code_and_every_problem_made_has_one():
    # The constants of reading.py by name; each is made somewhere as Problem(NAME, ...).
    by_name = {name: value for name, value in vars(reading).items()
               if name.isupper() and isinstance(value, str) and value in reading.PROBLEM_CODES}
    made = {name for source in Path(cribcam.__file__).parent.rglob("*.py")
            for name in re.findall(r"Problem\((\w+),", source.read_text())}
    assert made <= set(by_name)
    assert {by_name[name] for name in made} == reading.PROBLEM_CODES


def test_the_api_reference_lists_every_code():
    listed = set(re.findall(r"^ {18}([a-z_]+) {2,}", (STATIC / "api.txt").read_text(), re.M))
    assert listed == reading.PROBLEM_CODES
