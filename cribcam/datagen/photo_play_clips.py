"""Clips of the play made of real photographs: each card laid is a photo of that one card.

The drawn clips (``play_clips``) render every card; these lay real photos of single cards (the
one-card photos of the shared real photos, CC BY 4.0: ``real-photos/README.md``) on a plain
table instead, a row in front of each player, in the order of play ``play_clips.play_order``
gives and filmed as ``play_clips.film_play`` films it: a hand's blur as each card is laid,
cards laid before nudged now and then, each count turned face down when it ends (a card back
in its place), the light swinging. Each card is cut from its photo with a margin of the photo's
own table, and scaled so that its indices are as large as a card's at this table. The record is
the drawn clips' (``steps``, ``goes``, ...), with the photo each card is, so
``bench/bench_play.py --photos`` judges both alike.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen.clips import write_rendered
from cribcam.datagen.layouts import Deal, Item
from cribcam.datagen.play_clips import PlaySpec, all_places, film_play, play_order, play_record

TILE = 1.1  # a photo's side on the table, in card widths: a row's photos do not overlap (STEP 1.15)
FILL = 0.92  # share of the frame the rows may fill, across and down
FLAT = 2.0  # the card's extent at most this long for its width: 1.4 upright, 1 or so turned
INDEX = 0.27  # an index's longer side, in card widths: 17 mm on a 63 mm card
MARGIN = 0.12  # of the card's longer side, kept around it when it is cut from its photo
TABLE = (46, 92, 38)  # BGR: green baize
BACK = (40, 30, 150)  # BGR: a card back's red


@dataclass(frozen=True)
class CardPhoto:
    """A photo of one card: its file, the card's extent in it (x1, y1, x2, y2: the box around
    both its labelled corner indices) and the longer side of its indices there (pixels)."""

    path: Path
    extent: tuple[float, float, float, float]
    index_side: float

    def card(self) -> np.ndarray:
        """The card cut from the photo with a margin of its table around it: a "one-card" photo
        may show the edge of another card, and that card is not laid."""
        image = cv2.imread(str(self.path))
        x1, y1, x2, y2 = self.extent
        pad = MARGIN * max(x2 - x1, y2 - y1)
        height, width = image.shape[:2]
        left, top = int(max(0, x1 - pad)), int(max(0, y1 - pad))
        return image[top:int(min(height, y2 + pad)), left:int(min(width, x2 + pad))]


def single_card_photos(images: Path, labels: dict) -> dict[str, list[CardPhoto]]:
    """The photos of one card each in ``images`` whose two corner indices are labelled (the
    card lies between them) and which show it from above (no flatter than ``FLAT``), by card
    code. ``labels`` says which cards each photo shows, as the shared ``labels.json`` does:
    ``{name: {"cards": [{"card": "5C", "box": [x1, y1, x2, y2]}]}}``."""
    photos: dict[str, list[CardPhoto]] = {}
    for name, entry in sorted(labels.items()):
        cards = {card["card"] for card in entry["cards"]}
        path = images / name
        if len(cards) == 1 and len(entry["cards"]) == 2 and path.is_file():
            boxes = np.array([card["box"] for card in entry["cards"]], float)
            extent = (*boxes[:, :2].min(axis=0), *boxes[:, 2:].max(axis=0))
            sides = sorted((extent[2] - extent[0], extent[3] - extent[1]))
            if sides[1] > FLAT * sides[0]:  # seen edge-on, as no camera over a table sees a card laid
                continue
            index_side = float(np.mean(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])))
            photos.setdefault(cards.pop(), []).append(CardPhoto(path, tuple(map(float, extent)), index_side))
    return photos


def render_photo_play_clip(spec: PlaySpec, photos: dict[str, list[CardPhoto]]):
    """The clip's frames (BGR, ``spec.height`` x ``spec.width``) and its record.

    Raises:
        ValueError: the spec cannot be filmed, or ``photos`` show fewer different cards than
            the players lay.
    """
    spec.check()
    needed = len(spec.players) * spec.hand_size
    if len(photos) < needed:
        raise ValueError(f"{len(spec.players)} players laying {spec.hand_size} cards each need photos of "
                         f"{needed} different cards, not {len(photos)}")
    rng = np.random.default_rng([spec.seed, 0x7A6])
    hands, steps = play_order(spec, Deal(rng, sorted(photos)))
    chosen = {code: photos[code][rng.integers(len(photos[code]))] for hand in hands.values() for code in hand}
    places = np.array(all_places(spec))
    low, high = places.min(axis=0) - TILE / 2, places.max(axis=0) + TILE / 2
    scale = FILL * min(spec.width / (high[0] - low[0]), spec.height / (high[1] - low[1]))  # pixels a table unit
    centre = np.array([spec.width, spec.height]) / 2 - scale * (low + high) / 2
    tiles = {code: _sized(photo, INDEX * scale, TILE * scale) for code, photo in chosen.items()}
    table = np.full((spec.height, spec.width, 3), TABLE, np.uint8)
    back = _card_back(round(TILE * scale))

    def still(items: list[Item]) -> np.ndarray:
        frame = table.copy()
        for item in items:
            _lay(frame, back if item.kind == "back" else tiles[item.code],
                 centre + scale * np.array([item.x, item.y]), item.angle)
        return frame

    frames = film_play(spec, steps, rng, still)
    record = {"format": "y4m", **asdict(spec), "frames": len(frames),
              "photos": {code: photo.path.name for code, photo in chosen.items()},
              "photos_licence": "CC BY 4.0 (the shared real photos: real-photos/README.md)",
              **play_record(spec, hands, steps)}
    return frames, record


def write_photo_play_clip(path: str | Path, spec: PlaySpec, photos: dict[str, list[CardPhoto]]) -> dict:
    """Renders a clip of the play from photos to ``path`` (``.y4m``) and its record beside it;
    returns the record."""
    return write_rendered(path, lambda: render_photo_play_clip(spec, photos), spec.fps)


def _sized(photo: CardPhoto, index_side: float, most: float) -> np.ndarray:
    """The card cut from ``photo``, scaled so that its indices' longer side is ``index_side``
    pixels, as a card's is at the table's scale (a photo may show its card from near or far,
    upright or steeply tilted), but no side longer than ``most`` pixels."""
    card = photo.card()
    factor = min(index_side / photo.index_side, most / max(card.shape[:2]))
    size = (max(1, round(card.shape[1] * factor)), max(1, round(card.shape[0] * factor)))
    return cv2.resize(card, size, interpolation=cv2.INTER_AREA if factor < 1 else cv2.INTER_LINEAR)


def _card_back(side: int) -> np.ndarray:
    """A plain card back: red, a white border, a lattice."""
    back = np.full((side, side, 3), 255, np.uint8)
    border = max(2, side // 14)
    back[border:-border, border:-border] = BACK
    for offset in range(-side, side, max(4, side // 8)):
        cv2.line(back, (offset + border, border), (offset + side - border, side - border), (90, 80, 200), 1)
        cv2.line(back, (offset + border, side - border), (offset + side - border, border), (90, 80, 200), 1)
    back[:border], back[-border:], back[:, :border], back[:, -border:] = 255, 255, 255, 255
    return back


def _lay(frame: np.ndarray, tile: np.ndarray, centre: np.ndarray, angle: float) -> None:
    """Lays ``tile`` on ``frame`` centred at ``centre`` (pixels), turned ``angle`` degrees."""
    height, width = tile.shape[:2]
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    turn[:, 2] += centre - (width / 2, height / 2)
    size = (frame.shape[1], frame.shape[0])
    laid = cv2.warpAffine(tile, turn, size, flags=cv2.INTER_LINEAR)
    cover = cv2.warpAffine(np.full((height, width), 255, np.uint8), turn, size, flags=cv2.INTER_LINEAR)
    alpha = cover[..., None].astype(np.float32) / 255.0
    frame[:] = (laid * alpha + frame * (1.0 - alpha)).astype(np.uint8)
