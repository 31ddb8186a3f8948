"""The pretrained text recognizer reading ranks, and how its opinion joins the classifier's."""

import shutil

import cv2
import numpy as np
import pytest

from cribcam.scoring.cards import RANKS
from cribcam.vision.models import rank_reader_file
from cribcam.vision.rank_reader import RANK_TEXTS, RankReader, with_rank_opinion

FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX,
         cv2.FONT_HERSHEY_TRIPLEX)
TURNS = (None, cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE)


@pytest.fixture(scope="module")
def rank_reader():
    path = rank_reader_file()
    assert path is not None, "models/rank_reader.onnx is missing"
    return RankReader(path, threads=2)


def index_photo(text: str, font: int, red: bool, turn, scale: float = 1.0):
    """A card corner on a table: the rank printed above a suit mark, turned; and its index box."""
    card = np.full((160, 120, 3), 245, np.uint8)
    colour = (30, 30, 200) if red else (20, 20, 20)
    (width, height), _ = cv2.getTextSize(text, font, 1.2, 3)
    cv2.putText(card, text, (10, 10 + height), font, 1.2, colour, 3, cv2.LINE_AA)
    cv2.circle(card, (10 + width // 2, 30 + height + 8), 9, colour, -1)  # a suit-like blob
    box = np.array([4, 4, 16 + max(width, 24), 48 + height], float)
    photo = np.full((260, 260, 3), (60, 110, 40), np.uint8)  # green cloth
    photo[50:210, 70:190] = card
    box += [70, 50, 70, 50]
    if turn is not None:
        mask = np.zeros(photo.shape[:2], np.uint8)
        mask[int(box[1]):int(box[3]), int(box[0]):int(box[2])] = 1
        photo, mask = cv2.rotate(photo, turn), cv2.rotate(mask, turn)
        ys, xs = np.nonzero(mask)
        box = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], float)
    if scale != 1.0:
        photo = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        box *= scale
    return photo, box


def read_ranks(rank_reader, **kwargs) -> float:
    right = total = 0
    for font in FONTS:
        for i, text in enumerate(RANK_TEXTS):
            photo, box = index_photo(text, font, red=i % 2 == 1, **kwargs)
            likelihoods = rank_reader(photo, box[None])
            right += int(likelihoods[0].argmax() == i)
            total += 1
    return right / total


@pytest.mark.parametrize("turn", TURNS, ids=["upright", "quarter", "upside-down", "three-quarter"])
def test_ranks_are_read_in_several_typefaces_at_every_quarter_turn(rank_reader, turn):
    assert read_ranks(rank_reader, turn=turn) >= 0.9


def test_small_indices_are_still_mostly_read(rank_reader):
    # The index about 14 pixels high, as on a card across a table.
    assert read_ranks(rank_reader, turn=None, scale=0.3) >= 0.75


def test_a_box_too_small_to_read_has_no_opinion(rank_reader):
    likelihoods = rank_reader(np.zeros((50, 50, 3), np.uint8), np.array([[10, 10, 12, 12.0]]))
    assert np.isneginf(likelihoods).all()


def test_a_photo_with_no_line_to_read_answers_as_many_characters_as_one_read(rank_reader):
    # Teaching stacks the lines of several photos (teach.alphabet): a photo whose boxes are
    # all too small to cut a line from must answer the model's output size too.
    nothing, owners = rank_reader.read_lines(np.zeros((50, 50, 3), np.uint8), np.array([[10, 10, 12, 12.0]]))
    photo, box = index_photo("Q", cv2.FONT_HERSHEY_SIMPLEX, red=False, turn=None)
    read, _ = rank_reader.read_lines(photo, box[None])
    assert nothing.shape[0] == 0 and len(owners) == 0 and len(read) > 0
    assert nothing.shape[2] == read.shape[2] == rank_reader.session.get_outputs()[0].shape[-1]


def classifier_answer(card_probabilities: dict, none: float = 0.0) -> np.ndarray:
    row = np.zeros(53, np.float32)
    for code, p in card_probabilities.items():
        suit, rank = "CDHS".index(code[1]), RANKS.index(code[0])
        row[suit * 13 + rank] = p
    row[52] = none
    return row


def rank_likelihoods(rank: str, sure: float = 5.0) -> np.ndarray:
    scores = np.zeros(13)
    scores[RANKS.index(rank)] = sure
    return scores


def test_the_recognizer_settles_a_rank_the_classifier_is_unsure_of():
    # The classifier torn between a 6 and an 8 of clubs; the recognizer reads an 8.
    answers = np.array([classifier_answer({"6C": 0.5, "8C": 0.4}, none=0.1)])
    asked = []

    def read(boxes):
        asked.extend(boxes.tolist())
        return np.array([rank_likelihoods("8")])

    fused = with_rank_opinion(answers, read)
    assert asked == [0]
    assert fused[0, :52].argmax() == classifier_answer({"8C": 1}).argmax()
    assert fused[0, :52].sum() == pytest.approx(0.9) and fused[0, 52] == pytest.approx(0.1)


def test_sure_ranks_and_non_indices_are_not_asked_about():
    answers = np.array([classifier_answer({"6C": 0.9, "6S": 0.05}),  # the rank is sure (0.95)
                        classifier_answer({"6C": 0.2, "8C": 0.2}, none=0.6)])  # most likely no index

    def read(boxes):
        raise AssertionError(f"asked about {boxes}")

    assert np.array_equal(with_rank_opinion(answers, read), answers)


def test_a_box_the_recognizer_cannot_read_keeps_the_classifier_answer():
    answers = np.array([classifier_answer({"6C": 0.5, "8C": 0.4})])
    fused = with_rank_opinion(answers, lambda boxes: np.full((len(boxes), 13), -np.inf))
    assert np.array_equal(fused, answers)


def _court_cards_read(reader, letters: str) -> int:
    """How many of the jack, queen and king printed as ``letters`` (in every font) are read."""
    right = 0
    for font in FONTS:
        for rank, letter in zip("JQK", letters):
            photo, box = index_photo(letter, font, red=False, turn=None)
            right += int(RANKS[reader(photo, box[None])[0].argmax()] == rank)
    return right


def test_a_deck_lettered_differently_is_read_with_its_own_texts(rank_reader):
    # Dutch letters: B, V, H for the jack, queen and king.
    dutch = RankReader(rank_reader_file(), threads=2, texts=(*RANK_TEXTS[:10], "B", "V", "H"))
    assert _court_cards_read(dutch, "BVH") >= 0.9 * 3 * len(FONTS)
    # ... and the decks lettered as most are read as well as ever: its reader knows both strings.
    assert _court_cards_read(dutch, "JQK") == _court_cards_read(rank_reader, "JQK") >= 2 * len(FONTS)


def test_a_string_the_deck_prints_for_a_rank_means_that_rank_only(rank_reader):
    # A deck printing "K" for its jack (a knave) and "H" for its king: a "K" is a jack.
    knave = RankReader(rank_reader_file(), threads=2, texts=(*RANK_TEXTS[:10], "K", "Q", "H"))
    assert _court_cards_read(knave, "KQH") >= 0.9 * 3 * len(FONTS)


@pytest.mark.parametrize("texts", [(*RANK_TEXTS[:12], ""), RANK_TEXTS[:12], (*RANK_TEXTS[:12], "Q")])
def test_rank_texts_that_are_not_13_different_strings_are_refused(texts):
    with pytest.raises(ValueError, match="13 different strings"):
        RankReader(rank_reader_file(), threads=1, texts=texts)


def test_a_russian_deck_is_read_by_the_latin_lookalikes_of_its_letters(rank_reader):
    # Т, В, Д, К for the ace, jack, queen and king, and the recognizer knows no Cyrillic: В and К
    # are read as the B and K they look like; Д as no letter at all, so the queen as "Q" still.
    russian = RankReader(rank_reader_file(), threads=2,
                         texts=("\u0422", *RANK_TEXTS[1:10], "\u0412", "\u0414", "\u041a"))
    assert not russian.can_spell("\u0414") and russian.texts[11] == "\u0414"
    assert _court_cards_read(russian, "BQK") >= 0.9 * 3 * len(FONTS)
    assert _court_cards_read(russian, "BQK") == _court_cards_read(
        RankReader(rank_reader_file(), threads=2, texts=(*RANK_TEXTS[:10], "B", "Q", "K")), "BQK")
    # A rank left with no string at all (its own unspellable, its standard one another rank's)
    # has no opinion: as likely as the likeliest other rank.
    knave = RankReader(rank_reader_file(), threads=2, texts=(*RANK_TEXTS[:10], "Q", "\u0414", "K"))
    photo, box = index_photo("Q", cv2.FONT_HERSHEY_SIMPLEX, red=False, turn=None)
    likelihoods = knave(photo, box[None])[0]
    assert likelihoods[RANKS.index("Q")] == likelihoods.max() and likelihoods.argmax() == RANKS.index("J")


def test_a_line_is_spelt_by_its_likeliest_characters(rank_reader):
    photo, box = index_photo("Q", cv2.FONT_HERSHEY_SIMPLEX, red=False, turn=None)
    log_probs, owners = rank_reader.read_lines(photo, box[None])
    assert "Q" in rank_reader.spell(log_probs) and set(owners) == {0}


def test_the_output_s_last_column_is_spelt_as_a_space(rank_reader):
    # The recognizer's last column, after the characters its metadata lists, is the space that
    # PaddleOCR appends: a line read as "Q K" is spelt so, not refused for a column past the list.
    last = rank_reader.session.get_outputs()[0].shape[-1] - 1
    log_probs = np.full((1, 3, last + 1), -9.0, np.float32)
    log_probs[0, [0, 1, 2], [rank_reader.column["Q"], last, rank_reader.column["K"]]] = 0.0
    assert rank_reader.spell(log_probs) == ["Q K"]


def test_a_box_showing_no_rank_as_text_keeps_the_classifier_answer():
    # A pip: the classifier torn between ranks, the recognizer seeing no rank string at all.
    answers = np.array([classifier_answer({"3H": 0.4, "2H": 0.35})])
    unlikely = np.full((1, 13), -9.0)
    unlikely[0, RANKS.index("3")] = -3.0  # the best, yet far from a rank printed as text
    assert np.array_equal(with_rank_opinion(answers, lambda boxes: unlikely), answers)


def test_a_model_folder_may_hold_its_own_rank_reader(tmp_path):
    assert rank_reader_file(tmp_path) == rank_reader_file()  # none there: the bundled one
    own = tmp_path / "rank_reader.onnx"
    shutil.copyfile(rank_reader_file(), own)
    assert rank_reader_file(tmp_path) == own


def test_ranks_scored_on_the_spelt_columns_alone_score_as_on_the_whole_output(rank_reader):
    # The scoring keeps only the blank's and the rank strings' columns; the whole output's
    # log-probabilities give the same likelihoods, a Dutch deck's strings too.
    photos = [index_photo(text, cv2.FONT_HERSHEY_SIMPLEX, red=k % 2 == 1, turn=turn)
              for k, (text, turn) in enumerate([("Q", None), ("10", cv2.ROTATE_90_CLOCKWISE), ("B", cv2.ROTATE_180)])]
    dutch = RankReader(rank_reader_file(), threads=2, texts=(*RANK_TEXTS[:10], "B", "V", "H"))
    for reader in (rank_reader, dutch):
        strings = [*reader.texts, *(t for t in RANK_TEXTS if t not in reader.texts)]
        for photo, box in photos:
            boxes = np.array([box, box * 0.98], np.float32)
            log_probs, owners = reader.read_lines(photo, boxes)
            whole = reader.likelihoods(log_probs, owners, len(boxes), reader.encode(strings))
            expected = np.stack([whole[:, reader.rank_of == rank].max(axis=1) for rank in range(13)], axis=1)
            assert np.allclose(reader(photo, boxes), expected, atol=1e-5)
            assert np.isfinite(expected).all()
