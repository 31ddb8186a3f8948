"""Plain decks drawn with the machine's fonts, to show the classifier index glyphs of many typefaces.

Debian's decks set their indices in a handful of typefaces, and crops of designs held out of
training were read far worse than crops of the training designs: a player's deck may use any
typeface. These decks are plain (a white face, the index in two opposite corners, one pip in
the middle), each drawn with one installed font that has every rank's glyphs, in a random
size, weight and width; the suit symbols come from a font that has them. They go through the
classifier's art bank like the real designs, which adds the looks, angles and backgrounds.
A deck may print its court cards and aces in the letters of another language
(``ALPHABETS``): the decks that teaching a deck its own index alphabet is measured on.
Jokers are drawn too (``joker_faces``), for the classifier to learn that their corners are
no index.

Needs Pillow and fontTools (both come with the ``train`` extra) and fonts under
``/usr/share/fonts`` (`.ci/install-system-packages` installs a few families).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cribcam.datagen.card_art import Deck
from cribcam.scoring.cards import CARD_CODES, RED_SUITS

FONT_ROOT = Path("/usr/share/fonts")
WIDTH, HEIGHT = 240, 336  # the rendered size of the Debian decks
RANK_TEXT = {"T": "10"}  # every other rank prints as its own letter
# What decks lettered differently print for the ranks they letter (the rest as RANK_TEXT).
ALPHABETS = {
    "dutch": {"A": "1", "J": "B", "Q": "V", "K": "H"},
    "german": {"J": "B", "Q": "D", "K": "K"},
    "french": {"A": "1", "J": "V", "Q": "D", "K": "R"},
    "scandinavian": {"J": "Kn", "Q": "D", "K": "K"},
    "russian": {"A": "Т", "J": "В", "Q": "Д", "K": "К"},
}
SUIT_TEXT = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
# Font families too far from any printed index (symbols, mathematics, script).
SKIPPED = ("Symbol", "Math", "Dingbats", "D050000L", "Z003")


def find_fonts(root: Path = FONT_ROOT, letters: str = "") -> tuple[list[Path], list[Path]]:
    """The fonts with a glyph for every rank (and every one of ``letters``), and those that
    also have the four suit symbols."""
    from fontTools.ttLib import TTFont

    ranks, suits = [], []
    for path in sorted([*root.rglob("*.ttf"), *root.rglob("*.otf")]):
        if any(word in path.name for word in SKIPPED):
            continue
        try:
            cmap = TTFont(path, lazy=True, fontNumber=0).getBestCmap() or {}
        except Exception:  # a font file fontTools cannot read is simply not used
            continue
        if all(ord(ch) in cmap for ch in "A23456789JQK10" + letters):
            ranks.append(path)
            if all(ord(ch) in cmap for ch in SUIT_TEXT.values()):
                suits.append(path)
    return ranks, suits


def font_decks(count: int, seed: int, root: Path = FONT_ROOT, alphabet: str | None = None,
               found: tuple[list[Path], list[Path]] | None = None) -> list[Deck]:
    """``count`` decks, each in a randomly chosen font and style (none if no font is usable),
    lettered as ``ALPHABETS[alphabet]`` says when one is named. ``found`` is what
    ``find_fonts(root, letters)`` returns, when the caller has it: reading 600 fonts' tables
    takes longer than drawing a few decks (several processes drawing decks find them once)."""
    letters = ALPHABETS[alphabet] if alphabet else {}
    ranks, suits = found or find_fonts(root, "".join(letters.values()))
    if not ranks or not suits:
        return []
    rng = np.random.default_rng(seed)
    return [font_deck(ranks[int(rng.integers(len(ranks)))], suits[int(rng.integers(len(suits)))], rng, letters)
            for _ in range(count)]


def named_deck(rank_font: str, suit_font: str, seed: int, alphabet: str | None = None,
               root: Path = FONT_ROOT) -> Deck:
    """One deck in the font files named (``"Arimo-Regular.ttf"``, found under ``root``), in the
    style ``seed`` draws: the same deck on every machine that has those files, where
    ``font_decks`` picks from whatever fonts are installed.

    Raises:
        FileNotFoundError: a named font is not installed.
    """
    paths = []
    for name in (rank_font, suit_font):
        found = sorted(root.rglob(name))
        if not found:
            raise FileNotFoundError(f"the font {name} is not under {root} (bash bin/install-training-fonts installs it)")
        paths.append(found[0])
    return font_deck(*paths, np.random.default_rng(seed), ALPHABETS[alphabet] if alphabet else None)


def font_deck(rank_font: Path, suit_font: Path, rng: np.random.Generator, letters: dict | None = None) -> Deck:
    """One plain deck: every card's index set in ``rank_font`` over a ``suit_font`` symbol, the
    ranks in ``letters`` printed as it says ("B" for the jack, say)."""
    style = _style(rank_font, suit_font, rng, letters)
    cards, corners = {}, {}
    for code in CARD_CODES:
        cards[code], corners[code] = _face(code, style)
    name = f"font-{rank_font.stem}-{suit_font.stem}" + "".join(f"-{r}{t}" for r, t in (letters or {}).items())
    return Deck(name=name, split="train", licence=f"drawn with the fonts {rank_font.name} and {suit_font.name}",
                cards=cards, back=None, corners=corners)


def _style(rank_font: Path, suit_font: Path, rng: np.random.Generator, letters: dict | None) -> dict:
    """A deck's look: the fonts at a random size, weight, width, spacing and inks."""
    from PIL import ImageFont

    height = int(rng.integers(26, 44))  # the rank's size on a 240-pixel-wide card
    return {
        "rank": ImageFont.truetype(str(rank_font), height),
        "suit": ImageFont.truetype(str(suit_font), int(height * rng.uniform(0.7, 1.0))),
        "bold": int(rng.integers(0, 2)),  # extra stroke width
        "squeeze": float(rng.uniform(0.6, 1.0)),  # the width of a two-glyph rank (10, Kn)
        "gap": int(rng.integers(0, 6)),
        "margin": (int(rng.integers(6, 16)), int(rng.integers(8, 18))),
        "red": (int(rng.integers(0, 60)), int(rng.integers(0, 60)), int(rng.integers(170, 235))),  # BGR
        "black": tuple(int(rng.integers(0, 50)) for _ in range(3)),
        "text": {**RANK_TEXT, **(letters or {})},
    }


def _glyphs(text: str, font, bold: int) -> np.ndarray:
    """The ink of ``text`` in ``font`` as a tight uint8 mask."""
    from PIL import Image, ImageDraw

    left, top, right, bottom = font.getbbox(text, stroke_width=bold)
    canvas = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(canvas).text((2 - left, 2 - top), text, fill=255, font=font, stroke_width=bold, stroke_fill=255)
    mask = np.asarray(canvas)
    ys, xs = np.nonzero(mask > 40)
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _index(code: str, style: dict) -> np.ndarray:
    """The printed index (rank over suit, centred) as a uint8 ink mask."""
    import cv2

    text = style["text"].get(code[0], code[0])
    rank = _glyphs(text, style["rank"], style["bold"])
    if len(text) > 1:  # two glyphs ("10", "Kn") squeezed to about one's width
        rank = cv2.resize(rank, (max(2, round(rank.shape[1] * style["squeeze"])), rank.shape[0]),
                          interpolation=cv2.INTER_AREA)
    suit = _glyphs(SUIT_TEXT[code[1]], style["suit"], 0)
    width = max(rank.shape[1], suit.shape[1])
    index = np.zeros((rank.shape[0] + style["gap"] + suit.shape[0], width), np.uint8)
    index[:rank.shape[0], (width - rank.shape[1]) // 2:][:, :rank.shape[1]] = rank
    index[rank.shape[0] + style["gap"]:, (width - suit.shape[1]) // 2:][:, :suit.shape[1]] = suit
    return index


def _face(code: str, style: dict) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """A BGRA card face with the index in the top-left and (turned) bottom-right corners."""
    import cv2

    ink = np.array(style["red"] if code[1] in RED_SUITS else style["black"], np.float32)
    face, boxes = _printed_corners(_index(code, style), ink, style["margin"])
    pip = cv2.resize(_glyphs(SUIT_TEXT[code[1]], style["suit"], 0), None, fx=2.0, fy=2.0,
                     interpolation=cv2.INTER_LINEAR)
    _print(face, pip, (WIDTH - pip.shape[1]) // 2, (HEIGHT - pip.shape[0]) // 2, ink)
    return face, boxes


def joker_faces(count: int, seed: int, root: Path = FONT_ROOT) -> list[tuple[np.ndarray, list]]:
    """``count`` jokers as many decks print them: the letters of JOKER stacked in two opposite
    corners, in a random installed font and style, each a BGRA face and its two corner boxes.

    A joker is no card in cribbage, yet a player's photo may show one, and its corner is as
    like an index as any: the classifier learns it for no index (none if no font is usable).
    """
    ranks, _ = find_fonts(root, "JOKER")
    rng = np.random.default_rng(seed)
    jokers = []
    for _ in range(count if ranks else 0):
        font = ranks[int(rng.integers(len(ranks)))]
        style = _style(font, font, rng, None)
        letters = [_glyphs(letter, style["rank"], style["bold"]) for letter in "JOKER"]
        scale = rng.uniform(0.45, 0.75)  # a letter's height against a rank's
        letters = [_scaled(letter, scale) for letter in letters]
        width = max(letter.shape[1] for letter in letters)
        gap = int(rng.integers(0, 3))
        index = np.zeros((sum(letter.shape[0] + gap for letter in letters) - gap, width), np.uint8)
        y = 0
        for letter in letters:
            index[y:y + letter.shape[0], (width - letter.shape[1]) // 2:][:, :letter.shape[1]] = letter
            y += letter.shape[0] + gap
        ink = np.array(style["red"] if rng.random() < 0.5 else style["black"], np.float32)
        jokers.append(_printed_corners(index, ink, style["margin"]))
    return jokers


def _scaled(mask: np.ndarray, scale: float) -> np.ndarray:
    """An ink mask resized by ``scale``."""
    import cv2

    return cv2.resize(mask, (max(2, round(mask.shape[1] * scale)), max(2, round(mask.shape[0] * scale))),
                      interpolation=cv2.INTER_AREA)


def _printed_corners(index: np.ndarray, ink: np.ndarray, margin: tuple[int, int]):
    """A blank BGRA face with the ``index`` ink mask printed in the top-left corner and turned
    in the bottom-right, and the two boxes it was printed in."""
    face = _blank_face()
    h, w = index.shape
    mx, my = margin
    boxes = []
    for mask, (x, y) in ((index, (mx, my)), (index[::-1, ::-1], (WIDTH - mx - w, HEIGHT - my - h))):
        _print(face, mask, x, y, ink)
        boxes.append((float(x), float(y), float(x + w), float(y + h)))
    return face, boxes


def _blank_face() -> np.ndarray:
    """A white BGRA card face with rounded corners."""
    import cv2

    face = np.full((HEIGHT, WIDTH, 4), 255, np.uint8)
    alpha = np.zeros((HEIGHT, WIDTH), np.uint8)
    cv2.rectangle(alpha, (0, 0), (WIDTH - 1, HEIGHT - 1), 255, -1)
    for x, y in ((0, 0), (WIDTH - 1, 0), (0, HEIGHT - 1), (WIDTH - 1, HEIGHT - 1)):  # rounded corners
        cv2.rectangle(alpha, (max(0, x - 11), max(0, y - 11)), (min(WIDTH - 1, x + 11), min(HEIGHT - 1, y + 11)), 0, -1)
    for cx, cy in ((12, 12), (WIDTH - 13, 12), (12, HEIGHT - 13), (WIDTH - 13, HEIGHT - 13)):
        cv2.circle(alpha, (cx, cy), 12, 255, -1)
    face[..., 3] = alpha
    return face


def _print(face: np.ndarray, mask: np.ndarray, x: int, y: int, ink: np.ndarray) -> None:
    """Inks the uint8 ``mask`` onto ``face`` with its top-left corner at (x, y)."""
    h, w = mask.shape
    share = (mask.astype(np.float32) / 255)[..., None]
    face[y:y + h, x:x + w, :3] = (face[y:y + h, x:x + w, :3] * (1 - share) + ink * share).astype(np.uint8)
