"""Property tests: whatever is thrown at the API, the answer is JSON with a 2xx or 4xx status
(never a 500), and a 200 is exactly what the scoring core says."""

from __future__ import annotations

import io
import json
import os

import cv2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cribcam.scoring import CARD_CODES, CardError, score_hand
from cribcam.scoring.report import count_report
from cribcam.web import create_app
from image_tools import png_bomb
from webtools import DATA, StubReader, encode

# CRIBCAM_FUZZ_EXAMPLES=5000 python3 -m pytest tests/web/test_fuzz.py for a longer run.
EXAMPLES = int(os.environ.get("CRIBCAM_FUZZ_EXAMPLES", "300"))
COUNT_STATUSES = {200, 400, 413, 422}
READ_STATUSES = {200, 400, 413, 415, 422}
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

_APP = create_app({"TESTING": True}, reader=StubReader())
CLIENT = _APP.test_client()

# Card-like text: real codes in every spelling, near misses and junk.
RANKS = ["A", "a", "2", "3", "4", "5", "6", "7", "8", "9", "10", "T", "t", "J", "j", "Q", "K", "k",
         "1", "11", "0", "X", ""]
SUITS = ["C", "c", "D", "d", "H", "h", "S", "s", "♣", "♦", "♥", "♠", "♧", "X", "", "CC"]
card_text = st.one_of(
    st.sampled_from(CARD_CODES),
    st.builds(lambda r, s, pad: pad + r + s + pad, st.sampled_from(RANKS), st.sampled_from(SUITS),
              st.sampled_from(["", " ", "\t", "\u00a0"])),
    st.text(max_size=6),
)
json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                        st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8))
json_value = st.recursive(json_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=12)


def post_count(body: bytes):
    return CLIENT.post("/api/count", data=body, content_type="application/json")


def check_answer(response, allowed: set[int]) -> dict:
    assert response.status_code in allowed, (response.status_code, response.get_data())
    assert response.mimetype == "application/json"
    answer = response.json
    if response.status_code != 200:
        assert set(answer) == {"error"} and isinstance(answer["error"], str) and answer["error"]
    return answer


@SETTINGS
@given(hand=st.one_of(st.lists(card_text, max_size=7), card_text, json_value),
       starter=st.one_of(card_text, json_value),
       crib=st.one_of(st.booleans(), json_value),
       variant=st.one_of(st.sampled_from(["six-card", "five-card"]), json_value),
       claim=st.one_of(st.none(), st.integers(-5, 40), json_value),
       drop=st.sets(st.sampled_from(["hand", "starter", "crib", "variant", "claim"])))
def test_count_bodies_never_fail_the_server(hand, starter, crib, variant, claim, drop):
    body = {"hand": hand, "starter": starter, "crib": crib, "variant": variant, "claim": claim}
    for key in drop:
        body.pop(key)
    response = post_count(json.dumps(body).encode())
    answer = check_answer(response, COUNT_STATUSES)
    if response.status_code == 200:
        cards = hand.replace(",", " ").split() if isinstance(hand, str) else hand
        expected = count_report(score_hand(cards, starter, crib=body.get("crib") or False,
                                           variant=body.get("variant") or "six-card"),
                                int(claim) if body.get("claim") is not None else None)
        assert answer == expected


@SETTINGS
@given(cards=st.lists(st.sampled_from(CARD_CODES), min_size=5, max_size=5, unique=True),
       crib=st.booleans(), claim=st.one_of(st.none(), st.integers(0, 29)))
def test_every_real_hand_counts_as_the_core_counts_it(cards, crib, claim):
    body = {"hand": cards[:4], "starter": cards[4], "crib": crib, "claim": claim}
    response = post_count(json.dumps(body).encode())
    assert response.status_code == 200
    assert response.json == count_report(score_hand(cards[:4], cards[4], crib=crib), claim)


@SETTINGS
@given(token=card_text)
def test_the_card_parser_through_the_api_accepts_a_card_or_names_the_token(token):
    others = ["2C", "3C", "4C"]
    response = post_count(json.dumps({"hand": others + [token], "starter": "KH"}).encode())
    answer = check_answer(response, {200, 400, 422})
    if "\x00" in token:  # text no page or database keeps: refused before it is read as a card
        assert response.status_code == 400 and "cannot be kept or shown" in answer["error"]
        return
    try:
        expected = count_report(score_hand(others + [token], "KH"))
    except CardError as exc:
        assert response.status_code == 422 and answer["error"] == str(exc)
    else:
        assert response.status_code == 200 and answer == expected


@SETTINGS
@given(body=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode)))
def test_raw_count_bodies_never_fail_the_server(body):
    check_answer(post_count(body), COUNT_STATUSES)


@settings(max_examples=50, deadline=None)
@given(depth=st.integers(1, 60_000), opener=st.sampled_from([b"[", b'{"a":']))
def test_deeply_nested_json_is_a_400_not_a_crash(depth, opener):
    body = opener * min(depth, 60_000 // len(opener))
    check_answer(post_count(body), {400, 413})


# --- /api/read: random and mutated bytes ----------------------------------------------------

def _photo(name: str):
    image = cv2.imread(str(DATA / name))
    assert image is not None, f"test photo {name} is missing"
    return image


SEEDS = [
    (DATA / "webcam-5-cards.jpg").read_bytes(),
    encode(_photo("closeup-3-cards.jpg")[::8, ::8], ".png"),
    encode(_photo("blackgold-3-cards.jpg")[::8, ::8], ".webp"),
    encode(_photo("blackgold-3-cards.jpg")[::16, ::16], ".bmp"),
    png_bomb(12_000),
]


@st.composite
def mutated_image(draw) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        action = draw(st.sampled_from(["flip", "cut", "insert", "delete", "splice-header"]))
        where = draw(st.integers(0, max(len(data) - 1, 0)))
        if action == "flip" and data:
            data[where] ^= 1 << draw(st.integers(0, 7))
        elif action == "cut":
            del data[where:]
        elif action == "insert":
            data[where:where] = draw(st.binary(min_size=1, max_size=16))
        elif action == "delete":
            del data[where:where + draw(st.integers(1, 64))]
        else:  # a header field rewritten: sizes, lengths, markers near the start
            spot = draw(st.integers(0, min(40, max(len(data) - 1, 0))))
            data[spot:spot + 4] = draw(st.binary(min_size=4, max_size=4))
    return bytes(data)


@settings(max_examples=EXAMPLES, deadline=None)
@given(data=st.one_of(st.binary(max_size=2000), mutated_image()),
       name=st.sampled_from(["hand.jpg", "photo.png", "x", "IMG_0001.HEIC", "../../etc/passwd"]),
       fields=st.dictionaries(st.sampled_from(["starter", "crib", "claim", "variant", "annotate"]),
                              st.one_of(st.sampled_from(["", "5D", "true", "0", "12",
                                                         "five-card", "xx", "-1"]),
                                        st.text(max_size=5)), max_size=3))
def test_random_and_mutated_bytes_at_read_never_fail_the_server(data, name, fields):
    form = {"image": (io.BytesIO(data), name), **fields}
    response = CLIENT.post("/api/read", data=form, content_type="multipart/form-data")
    answer = check_answer(response, READ_STATUSES)
    if response.status_code == 200:
        assert {"cards", "starter", "problems", "count"} <= set(answer)


@pytest.mark.parametrize("seed", range(len(SEEDS)))
def test_the_unmutated_seeds_are_answered(seed):
    response = CLIENT.post("/api/read", data={"image": (io.BytesIO(SEEDS[seed]), "a")},
                           content_type="multipart/form-data")
    assert response.status_code == (413 if seed == len(SEEDS) - 1 else 200)
