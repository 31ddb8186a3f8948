"""Rules of the test suite: tests that can fail, and fail the same on a busy machine.

- No ``xfail`` that is not strict: a test green whether it passes or not tests nothing. A
  strict one says what it waits for, and fails once that is met (then its mark must go).
- No sleeping to let something happen: a test waits for what it needs (tests/waiting.py's
  ``wait_until``, Playwright's ``expect`` or ``wait_for_function``, an event, a barrier, a
  line a child process prints). tests/waiting.py is the one file that sleeps; a fixed wait that
  asserts that something does NOT happen uses its ``stays_false``.

The rules read the code (``ast``), not its text: a child process's script in a string may sleep
(a stand-in that must stay busy is not a test waiting).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SLEEPS_HERE = TESTS / "waiting.py"  # the one place that sleeps


def broken_rules(source: str, name: str) -> list[str]:
    """Where ``source`` breaks the rules, one line each: ``name:line: what``."""
    tree = ast.parse(source, name)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []

    def say(node, what: str) -> None:
        found.append(f"{name}:{node.lineno}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "xfail":
            call = parents.get(node)
            called = isinstance(call, ast.Call) and call.func is node
            if isinstance(node.value, ast.Name) and node.value.id == "pytest" and called:
                say(node, "pytest.xfail() in a test cannot be strict: use @pytest.mark.xfail(strict=True, ...)")
            elif not called:
                say(node, "xfail without strict=True: green whether the test passes or not")
            elif not any(k.arg == "strict" and isinstance(k.value, ast.Constant) and k.value.value is True
                         for k in call.keywords):
                say(node, "xfail without strict=True: green whether the test passes or not")
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "sleep" or isinstance(func, ast.Name) and func.id == "sleep":
            say(node, "sleep: wait for a condition instead (tests/waiting.py's wait_until)")
        elif isinstance(func, ast.Attribute) and func.attr == "wait_for_timeout":
            say(node, "page.wait_for_timeout: use expect(...), page.wait_for_function or "
                      "wait_until(..., pause=in_page(page)) (tests/waiting.py)")
        for arg in node.args:  # subprocess.run(["sleep", "0.1"]): a sleep all the same
            if isinstance(arg, (ast.List, ast.Tuple)) and arg.elts and isinstance(arg.elts[0], ast.Constant) \
                    and arg.elts[0].value == "sleep":
                say(node, "a sleep command: wait for a condition instead (tests/waiting.py's wait_until)")
    return sorted(found, key=lambda line: int(line.split(":")[1]))


def test_no_xfail_that_is_not_strict_and_no_sleep_in_the_tests():
    broken = []
    for path in sorted(TESTS.rglob("*.py")):
        if path != SLEEPS_HERE:
            broken += broken_rules(path.read_text(), str(path.relative_to(TESTS.parent)))
    assert broken == [], "\n".join(broken)


def test_the_rules_find_what_they_break():
    source = '''
import time, subprocess
import pytest
from time import sleep

@pytest.mark.xfail(reason="not yet")
def test_a(page):
    time.sleep(0.5)
    sleep(1)
    page.wait_for_timeout(50)
    subprocess.run(["sleep", "0.1"])

@pytest.mark.xfail
def test_b():
    pytest.xfail("later")

@pytest.mark.xfail(strict=False, reason="not yet")
def test_c():
    child = "import time; time.sleep(60)"  # a child's script: it may sleep

@pytest.mark.xfail(strict=True, reason="waits for X")
def test_d():
    pass
'''
    assert sorted(int(line.split(":")[1]) for line in broken_rules(source, "t.py")) == \
        [6, 8, 9, 10, 11, 13, 15, 17]
    assert broken_rules(SLEEPS_HERE.read_text(), "waiting.py")  # it does sleep: the one place allowed to
