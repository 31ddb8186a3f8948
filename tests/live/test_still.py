"""Following without rereading: a still card keeps its reading, a moved or changed one is read."""

import cv2
import numpy as np

from cribcam.live.still import MAX_REUSED, StillFrames
from cribcam.vision.reading import Reading, SeenCard


def table(card_at: int = 200, rank: str = "5", noise_seed: int | None = None) -> np.ndarray:
    """A 640x480 webcam-like frame: a green table, a white card at ``card_at`` with its index."""
    frame = np.full((480, 640, 3), (40, 110, 40), np.uint8)
    cv2.rectangle(frame, (card_at, 150), (card_at + 120, 320), (245, 245, 245), -1)
    cv2.putText(frame, rank, (card_at + 8, 185), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 200), 2)
    if noise_seed is not None:  # a webcam's noise, frame to frame
        noise = np.random.default_rng(noise_seed).normal(0, 3, frame.shape)
        frame = np.clip(frame + noise, 0, 255).astype(np.uint8)
    return frame


class CountingReader:
    """Reads "the card" as many times as it is asked, and says how often; sure of it or not."""

    def __init__(self, confidence: float = 0.9):
        self.reads, self.confidence = 0, confidence

    def __call__(self, image) -> Reading:
        self.reads += 1
        card = SeenCard("5H", self.confidence, ((0.0, 0.0, 10.0, 10.0),), unsure=self.confidence < 0.7)
        return Reading((card,), width=image.shape[1], height=image.shape[0])


def test_a_still_card_is_read_until_settled_then_keeps_its_reading_through_the_noise():
    still, reader = StillFrames(), CountingReader()
    readings = [still.read(table(noise_seed=seed), reader) for seed in range(12)]
    # The first frame has nothing to settle against; the second settles it; the rest reuse.
    assert reader.reads == 2 and (still.frames, still.read_anew) == (12, 2)
    assert all(r is readings[1] for r in readings[2:])


def test_a_card_moved_or_changed_is_read_again():
    still, reader = StillFrames(), CountingReader()
    for seed in range(3):
        still.read(table(noise_seed=seed), reader)
    assert reader.reads == 2
    still.read(table(card_at=207, noise_seed=3), reader)  # slid by 7 pixels
    assert reader.reads == 3
    for seed in range(4, 7):
        still.read(table(card_at=207, noise_seed=seed), reader)
    assert reader.reads == 4  # settled again on the card where it lies now, then reused
    still.read(table(card_at=207, rank="6", noise_seed=7), reader)  # another card put in its place
    assert reader.reads == 5


def test_another_reader_or_count_reads_again_and_no_reading_stands_for_ever():
    still, reader = StillFrames(), CountingReader()
    for seed in range(3):
        still.read(table(noise_seed=seed), reader, key=("deck", 5))
    still.read(table(noise_seed=3), reader, key=("deck", 4))  # the crib chosen: another count
    assert reader.reads == 3
    for seed in range(4, 4 + MAX_REUSED + 1):
        still.read(table(noise_seed=seed), reader, key=("deck", 4))
    assert reader.reads == 4  # the fourth frame, read settled, stood for MAX_REUSED frames, then one more read


def test_a_frame_of_another_size_is_read():
    still, reader = StillFrames(), CountingReader()
    for seed in range(3):
        still.read(table(noise_seed=seed), reader)
    still.read(cv2.resize(table(), (320, 240)), reader)
    assert reader.reads == 3


def test_a_reading_that_warns_is_read_again_on_every_frame():
    still, reader = StillFrames(), CountingReader(confidence=0.4)  # the card read unsure
    for seed in range(6):
        still.read(table(noise_seed=seed), reader)
    assert reader.reads == 6  # another look may settle it; the lock waits on the frames' say


def test_a_reading_that_lost_a_card_is_not_reused_so_a_card_missed_once_is_seen_again():
    """A real photo's 7D, still, was read in 7 frames of 10: the reading of a frame that missed
    it had stood for the next dozen, and the play never saw it lie still."""
    both = (SeenCard("5H", 0.9, ((0.0, 0.0, 10.0, 10.0),)), SeenCard("7D", 0.75, ((50.0, 0.0, 60.0, 10.0),)))
    answers = iter([both, both[:1], both, both])

    def flaky(image) -> Reading:
        return Reading(next(answers), width=image.shape[1], height=image.shape[0])

    still = StillFrames()
    seen = [" ".join(c.card for c in still.read(table(noise_seed=seed), flaky).cards) for seed in range(8)]
    # The second frame, settled, misses the 7D: read again on the third, whose reading then stands.
    assert seen == ["5H 7D", "5H"] + ["5H 7D"] * 6
    assert still.read_anew == 3
