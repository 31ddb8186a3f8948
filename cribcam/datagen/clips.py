"""Test clips for live counting: hands held still under a fixed camera, a blurred move between.

A clip is what a webcam over a cribbage table films: a hand (four cards in a row, the
starter a little apart) lies still for a while, then, for a few frames, it is swept away in
a blur and the next one is put down. Each hand is a synthetic scene (``scenes.compose``) of
one deck design on one table, seen by one camera; every frame has fresh sensor noise, as a
real camera's frames do.

The clip is a Y4M file (raw I420 frames behind a one-line header): Chromium's fake camera
(``--use-file-for-fake-video-capture``) and OpenCV both play it. Its record, written beside
it as JSON, says which hand lies there in which frames, with its count, and holds each
hand's scene record (cards, corners and labels in the clip's pixels).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen import textures
from cribcam.datagen.assets import make_assets
from cribcam.datagen.camera import look_at
from cribcam.datagen.layouts import Deal, Item, Layout, card_extent
from cribcam.datagen.scenes import compose
from cribcam.scoring import score_hand

# The starter lies this many card widths beyond the hand's last card (between centres): the
# reader takes a card for the starter when it stands well apart from the others.
STARTER_GAP = 2.6
# Share of the frame the hands may fill, across and down.
FILL = 0.9
# Sensor noise of every frame (standard deviation, in grey levels).
NOISE = 2.5
# Length in pixels, at 640 pixels wide, of the motion blur of a hand being moved.
BLUR = 41


@dataclass(frozen=True)
class ClipSpec:
    """What a clip shows.

    Attributes:
        hands: how many hands, one after another.
        hold_seconds: how long each lies still.
        transition_frames: blurred frames between two hands.
        fps: frames per second.
        width: frame width in pixels (the longer side).
        height: frame height in pixels.
        seed: the random seed: the same seed gives the same clip.
    """

    hands: int = 3
    hold_seconds: float = 3.0
    transition_frames: int = 4
    fps: int = 10
    width: int = 640
    height: int = 480
    seed: int = 0

    def check(self) -> None:
        """Raises ValueError for a spec no clip can follow."""
        if self.hands < 1 or self.hands > 10:  # ten hands of five cards: 50 of the deck's 52
            raise ValueError(f"a clip holds 1 to 10 hands, not {self.hands}")
        if self.fps < 1 or self.hold_frames < 1 or self.transition_frames < 0:
            raise ValueError("fps and hold_seconds must give each hand a frame at least, and "
                             "transition_frames must be 0 or more")
        if self.width < self.height or self.width % 2 or self.height % 2 or self.height < 64:
            raise ValueError("frames must be landscape (width at least height), even sizes, "
                             "at least 64 pixels high")

    @property
    def hold_frames(self) -> int:
        return round(self.hold_seconds * self.fps)

    @property
    def frames(self) -> int:
        return self.hands * self.hold_frames + (self.hands - 1) * self.transition_frames


def _hand_layout(rng: np.random.Generator, deal: Deal, aspect: float) -> Layout:
    """Four cards side by side, a little uneven, and the starter apart on the right."""
    codes = deal.take(5)
    step = float(rng.uniform(1.08, 1.2))
    items = [Item("card", (i - 1.5) * step + float(rng.normal(0, 0.03)), float(rng.normal(0, 0.04)),
                  float(rng.normal(0, 3.0)), code, "hand") for i, code in enumerate(codes[:4])]
    items.append(Item("card", 1.5 * step + STARTER_GAP, float(rng.normal(0, 0.1)),
                      float(rng.normal(0, 5.0)), codes[4], "starter"))
    return Layout("hand_starter", items, codes[4], aspect)


def _shift_record(record: dict, dy: float, width: int, height: int) -> dict:
    """The scene record with every point moved ``dy`` pixels down (to the clip's crop)."""
    def moved(points):
        return None if points is None else [[x, round(y + dy, 1)] for x, y in points]

    for card in record["cards"]:
        card["polygon"] = moved(card["polygon"])
        for corner in card.get("corners", []):
            corner["quad"] = moved(corner["quad"])
    for item in record["distractors"]:
        item["polygon"] = moved(item["polygon"])
    record["width"], record["height"] = width, height
    return record


def render_clip(spec: ClipSpec, decks: list):
    """Draws the clip's frames and record.

    Args:
        spec: what the clip shows.
        decks: deck designs (``decks.load_decks``); one is chosen by the seed.

    Returns:
        The frames (BGR uint8, ``spec.height`` x ``spec.width``), in order, and the record.
    """
    spec.check()
    rng = np.random.default_rng([spec.seed, 0xC11B])
    deck, assets = clip_deck(rng, decks, spec.seed)
    aspect = deck.height / deck.width
    deal = Deal(rng)
    layouts = [_hand_layout(rng, deal, aspect) for _ in range(spec.hands)]

    # One camera for the whole clip, a little tilted, framing the widest hand.
    x0, y0, x1, y1 = np.array([card_extent(layout) for layout in layouts]).T
    x0, y0, x1, y1 = x0.min(), y0.min(), x1.max(), y1.max()
    card_px = FILL * min(spec.width / (x1 - x0), spec.height / (y1 - y0))
    # Azimuth 0 and little roll: the rows stay across the frame, as a webcam set up for them.
    camera = look_at(((x0 + x1) / 2, (y0 + y1) / 2), card_px, tilt=float(rng.uniform(5, 15)),
                     azimuth=0.0, roll=float(rng.normal(0, 2)), size=spec.width)
    top = (spec.width - spec.height) // 2  # the scene is square: the clip is its middle band
    look = {"name": "plain"}
    stills, hands = [], []
    table_seed = int(rng.integers(2**31))
    for layout in layouts:
        # The same seed for every hand: the same table surface and light under each.
        scene = compose(np.random.default_rng(table_seed), layout, camera, deck, assets, look,
                        photographic=False)
        stills.append(scene.image[top:top + spec.height])
        record = _shift_record(scene.record, -top, spec.width, spec.height)
        record["labels"] = [{"code": label.code,
                             "box": [round(label.box[0], 1), round(label.box[1] - top, 1),
                                     round(label.box[2], 1), round(label.box[3] - top, 1)]}
                            for label in scene.labels]
        hand = [item.code for item in layout.items if item.role == "hand"]
        score = score_hand(hand, layout.starter)
        hands.append({"hand": hand, "starter": layout.starter, "total": score.total,
                      "spoken": score.spoken, "scene": record})

    frames: list[np.ndarray] = []
    transitions = []
    for i, still in enumerate(stills):
        if i and spec.transition_frames:
            steps = spec.transition_frames + 1
            transitions.append([len(frames), len(frames) + spec.transition_frames - 1])
            frames += [moving_frame(stills[i - 1], still, k / steps, spec.width) for k in range(1, steps)]
        hands[i]["first_frame"] = len(frames)
        frames += [noisy_frame(rng, still) for _ in range(spec.hold_frames)]
        hands[i]["last_frame"] = len(frames) - 1
    record = {"format": "y4m", **asdict(spec), "frames": len(frames),
              "deck": deck.name, "deck_split": deck.split, "deck_licence": deck.licence,
              "hands": hands, "transitions": transitions}
    return frames, record


def clip_deck(rng: np.random.Generator, decks: list, seed: int):
    """The deck a clip shows, chosen by ``rng`` among ``decks``, prepared with the surfaces to
    lay it on: ``(deck, assets)``."""
    assets = make_assets([decks[int(rng.integers(len(decks)))]], seed, n_surfaces=len(textures.SURFACES))
    return assets.decks[0], assets


def noisy_frame(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    noise = rng.normal(0.0, NOISE, image.shape).astype(np.float32)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def moving_frame(before: np.ndarray, after: np.ndarray, t: float, width: int) -> np.ndarray:
    """A frame of one hand giving way to the next, smeared as a moving hand is."""
    mixed = cv2.addWeighted(before, 1.0 - t, after, t, 0.0)
    length = max(3, round(BLUR * width / 640)) | 1
    angle = 20.0 * math.sin(math.pi * t)  # the sweep curves a little
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0 / length
    turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), angle, 1.0)
    kernel = cv2.warpAffine(kernel, turn, (length, length))
    return cv2.filter2D(mixed, -1, kernel / kernel.sum())


def write_y4m(path: Path, frames: list[np.ndarray], fps: int) -> None:
    """Writes BGR frames as a Y4M clip (I420, progressive, square pixels)."""
    height, width = frames[0].shape[:2]
    with open(path, "wb") as out:
        out.write(f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for frame in frames:
            out.write(b"FRAME\n")
            out.write(cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes())


def record_path(path: Path) -> Path:
    """Where a clip's record is written: beside it, ``.json`` for ``.y4m``."""
    return path.with_suffix(".json")


def write_clip(path: str | Path, spec: ClipSpec, decks: list) -> dict:
    """Renders a clip to ``path`` (``.y4m``) and its record beside it; returns the record."""
    return write_rendered(path, lambda: render_clip(spec, decks), spec.fps)


def write_rendered(path: str | Path, render, fps: int) -> dict:
    """Writes the frames ``render()`` draws to ``path`` (``.y4m``) and the record it gives
    beside it; returns the record."""
    path = Path(path)
    if path.suffix.lower() != ".y4m":
        raise ValueError(f"clips are written as Y4M: name the file .y4m, not {path.name}")
    frames, record = render()
    path.parent.mkdir(parents=True, exist_ok=True)
    write_y4m(path, frames, fps)
    record_path(path).write_text(json.dumps(record, indent=1) + "\n")
    return record
