"""A photo of the hand alone, its starter to come (issue 45: a photo of four cards got a
phantom fifth, offered as the starter with its total), and a starter named that the photo does
not show: one rule for both, ``vision.report.read_to_count``, in the API and the command."""

from __future__ import annotations

import io

import pytest

from cribcam.vision.reading import STARTER_UNKNOWN, Problem


def upload(client, data: bytes, **fields):
    form = {"image": (io.BytesIO(data), "hand.jpg"), **{k: str(v) for k, v in fields.items()}}
    return client.post("/api/read", data=form, content_type="multipart/form-data")


@pytest.mark.parametrize("variant, crib, hand", [("six-card", "false", 4), ("six-card", "true", 4),
                                                 ("five-card", "false", 3)])
def test_a_photo_of_the_hand_only_is_read_as_the_hand_and_waits_for_its_starter(
        stub_reader, stub_client, photo_bytes, variant, crib, hand):
    stub_reader.cards = ["5H", "5C", "5S", "JD"][:hand]
    stub_reader.starter = "JD"  # what a reader may take for the starter among the hand's cards
    stub_reader.problems = (Problem(STARTER_UNKNOWN, "could not tell which card is the starter: set it a little "
                                                     "apart, or name it"),)
    answer = upload(stub_client, photo_bytes, hand_only="true", variant=variant, crib=crib).json
    assert stub_reader.calls[-1][1] == hand  # read as the hand's cards alone: no fifth to find
    assert [card["card"] for card in answer["cards"]] == stub_reader.cards
    assert (answer["starter"], answer["count"], answer["expected"]) == (None, None, hand)
    assert answer["problems"] == [] and "totals_by_starter" not in answer


def test_a_photo_of_the_hand_only_with_its_starter_named_is_counted(stub_reader, stub_client, photo_bytes):
    stub_reader.cards = ["5H", "5C", "5S", "JD"]
    answer = upload(stub_client, photo_bytes, hand_only="true", starter="5D").json
    assert stub_reader.calls[-1][1] == 4
    assert answer["starter"] == "5D" and answer["count"]["total"] == 29


def test_a_starter_named_that_the_photo_does_not_show_reads_the_hand_alone(stub_reader, stub_client, photo_bytes):
    stub_reader.cards = ["5H", "5C", "5S", "JD"]
    answer = upload(stub_client, photo_bytes, starter="5D").json
    assert [call[1] for call in stub_reader.calls] == [5, 4]  # five looked for, then the hand alone
    assert answer["count"]["total"] == 29
    stub_reader.cards = ["5H", "5C", "5S", "JD", "5D"]
    upload(stub_client, photo_bytes, starter="5D")
    assert [call[1] for call in stub_reader.calls] == [5, 4, 5]  # in the photo: read once


def test_hand_only_must_be_true_or_false(stub_client, photo_bytes):
    answer = upload(stub_client, photo_bytes, hand_only="maybe")
    assert answer.status_code == 400 and answer.json == {"error": '"hand_only" must be true or false'}
