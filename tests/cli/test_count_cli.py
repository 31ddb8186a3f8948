"""The scoring commands, run as a user runs them: a real process, its output and exit status."""

import json
import subprocess
import sys

import pytest


def cribcam(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cribcam", *args],
                          capture_output=True, text=True, timeout=120)


def test_count_prints_items_spoken_and_verdict():
    result = cribcam("count", "5H", "5C", "5S", "JD", "--starter", "5D", "--claim", "28")
    assert result.returncode == 0, result.stderr
    assert "Total: 29" in result.stdout
    assert "and his nobs is 29" in result.stdout
    assert "Muggins: 1 point overlooked (his nobs JD+5D for 1)" in result.stdout


def test_count_json_shape():
    result = cribcam("count", "9s", "6D", "5♥", "4C", "--starter", "4D", "--claim", "12", "--json")
    report = json.loads(result.stdout)
    assert {"hand", "starter", "crib", "total", "items", "spoken", "heels", "verdict",
            "difference", "overlooked"} <= set(report)
    assert report["hand"] == ["9S", "6D", "5H", "4C"] and report["total"] == 14
    assert report["verdict"] == "muggins" and report["difference"] == 2
    assert sum(i["points"] for i in report["overlooked"]) == 2
    assert all(set(i) == {"kind", "points", "cards"} for i in report["items"])


def test_count_json_without_claim_has_no_verdict():
    report = json.loads(cribcam("count", "2H", "4H", "8H", "QH", "--starter", "KS", "--crib",
                                "--json").stdout)
    assert report["crib"] is True and report["total"] == 0
    assert "verdict" not in report


@pytest.mark.parametrize("args, message", [
    (["count", "5H", "5C", "5X", "JD", "--starter", "5D"], "'5X' is not a card"),
    (["count", "5H", "5C", "5S", "JD", "5D", "--starter", "2D"], "6 cards given (the starter and 5 others)"),
    (["count", "5H", "5C", "5S", "5H", "--starter", "2D"], "5H appears twice"),
    (["count", "5H", "5C", "5S", "JD"], "required: --starter"),
    (["count", "5H", "5C", "5S", "JD", "--starter", "2D", "--claim", "lots"],
     "argument --claim: must be a whole number of points from 0 to 1000, not lots"),
    (["peg", "A:K", "B:Q", "C:zz"], "'zz' is not a card"),
    (["peg", "A:5=99999999999999999999"], "'A:5=99999999999999999999': a claim must be a whole "
                                          "number of points from 0 to 1000, not "
                                          "99999999999999999999"),
    (["peg", "A:5=-3"], "'A:5=-3': a claim must be a whole number of points from 0 to 1000, "
                        "not -3"),
    (["frobnicate"], "invalid choice"),
    ([], "required: COMMAND"),
])
def test_usage_errors_exit_2_with_one_line(args, message):
    result = cribcam(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("claim", ["-3", "1001", "99999999999999999999999"])
def test_a_claim_the_api_refuses_is_refused_the_same_way(claim):
    hand = ["count", "5H", "5C", "5S", "JD", "--starter", "5D", "--claim", claim]
    result = cribcam(*hand)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.strip() == (f"cribcam count: error: argument --claim: must be a whole "
                                     f"number of points from 0 to 1000, not {int(claim)}")
    answer = cribcam(*hand, "--json")
    assert answer.returncode == 2
    assert json.loads(answer.stdout)["error"].endswith("must be a whole number of points from 0 to 1000, "
                                                       f"not {int(claim)}")
    from cribcam.web import create_app

    client = create_app({"TESTING": True, "LOAD_MODEL_AT_START": False}).test_client()
    response = client.post("/api/count", json={"hand": hand[1:5], "starter": "5D", "claim": int(claim)})
    assert response.status_code == 400
    assert response.json["error"] == '"claim" must be a whole number of points from 0 to 1000'


def test_nineteen_on_a_hand_of_nothing_is_correct_in_the_command_and_the_api():
    result = cribcam("count", "2H", "4C", "8D", "QS", "--starter", "KS", "--claim", "19", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["verdict"], report["claimed"], report["difference"]) == ("correct", 19, 0)
    assert "nineteen" in report["message"]
    from cribcam.web import create_app

    client = create_app({"TESTING": True, "LOAD_MODEL_AT_START": False}).test_client()
    response = client.post("/api/count", json={"hand": ["2H", "4C", "8D", "QS"], "starter": "KS",
                                               "claim": 19})
    assert response.json == report


def test_peg_prints_the_play():
    result = cribcam("peg", "A:K", "B:6", "A:K", "B:go", "A:2", "A:2", "B:8", "B:7", "B:9")
    assert result.returncode == 0, result.stderr
    assert "30, a pair for two, one for the go" in result.stdout
    assert "24, run of three for three, one for last" in result.stdout
    assert result.stdout.strip().endswith("Pegged: A 3, B 6")


def test_stats_json_matches_published_figures():
    stats = json.loads(cribcam("stats", "--json").stdout)
    assert stats["hands"] == 12_994_800
    assert stats["distribution"]["0"] == 1_009_008
    assert stats["distribution"]["28"] == 76 and stats["distribution"]["29"] == 4
    assert all(stats["distribution"][t] == 0 for t in ("19", "25", "26", "27"))


def test_counting_loads_neither_opencv_nor_the_training_tools():
    # Every command builds the whole parser; what it imports, `cribcam count` waits for.
    code = ("import sys; from cribcam.cli.main import main; "
            "status = main(['count', '5H', '5C', '5S', 'JD', '--starter', '5D']); "
            "print(status, sorted(m for m in ('cv2', 'onnxruntime', 'torch', 'ultralytics', 'flask') "
            "if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "0 []"
