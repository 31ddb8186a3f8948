"""Mistakes said plainly: one line on standard error, or JSON on standard output with --json;
exit status 2 either way, never a traceback."""

import json
import subprocess
import sys

import pytest

from cribcam.cli.main import main

PHOTO = "tests/data/photos/webcam-5-cards.jpg"


def cribcam(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cribcam", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, message", [
    (["count", "ZZ", "5C", "5S", "JD", "--starter", "5D"], "'ZZ' is not a card"),
    (["count", "5H", "5C", "5S", "JD", "--starter", "5D", "--claim", "lots"],
     "argument --claim: must be a whole number of points from 0 to 1000, not lots"),
    (["count", "5H", "5C", "5S", "JD"], "required: --starter"),
    (["peg", "A:K", "B:zz"], "'zz' is not a card"),
    (["read", "no-such-photo.jpg"], "no such file: no-such-photo.jpg"),
    (["read", PHOTO, "--model", "/no/model"], "/no/model"),
])
def test_with_json_an_error_is_json_on_stdout_with_exit_2(args, message):
    result = cribcam(*args, "--json")
    assert result.returncode == 2
    assert result.stderr == ""
    error = json.loads(result.stdout)
    assert list(error) == ["error"] and message in error["error"]


def test_without_json_the_same_error_is_one_line_on_stderr():
    result = cribcam("count", "ZZ", "5C", "5S", "JD", "--starter", "5D")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("cribcam count: error: 'ZZ' is not a card")
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.fixture
def no_model_installed(monkeypatch):
    """A reader that finds no bundled model: the same whether or not models/ ships one."""
    from cribcam.vision import ModelMissingError

    def missing(model=None, *args, **kwargs):
        raise ModelMissingError(f"no model at {model or 'models/'}")

    monkeypatch.setattr("cribcam.vision.CardReader", missing)


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_read_with_no_model_installed_says_so(no_model_installed, capsys, json_flag):
    assert main(["read", PHOTO, *json_flag]) == 2
    out, err = capsys.readouterr()
    said = json.loads(out)["error"] if json_flag else err
    assert "no card-reading model is installed" in said
    assert "Traceback" not in out + err
