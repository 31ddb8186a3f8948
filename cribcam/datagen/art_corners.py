"""Locate the printed rank+suit indices in the corners of one deck's rendered cards.

Ink is every opaque pixel that differs clearly from the deck's face colour, inside the
border line along the card edge. Thin straight frame lines are taken out, so that a
glyph touching a court card's frame stands alone again. Index glyphs are then the ink
blobs of glyph size that lie wholly in the top-left quadrant and are surrounded by
bare face (art fragments are not).

On the low cards (A, 2, 3), whose pips keep clear of the corners, the index is the
cluster of blobs nearest the corner; the envelope of those clusters over the deck, the
*zone*, is where this design prints its index. On every card the index is made of the
blobs lying mostly in the zone. A glyph that touches art or a pip (a suit sign against a
sword, a "0" against a pip) is recovered by matching the same glyph at the same place on
its sibling cards: the suit sign on the number cards of its suit, the rank on the cards
of the same rank in other suits.

The same is done on each card turned by 180 degrees (bottom-right index), and mirrored
left-right and top-bottom (the other two corners, where some decks print the index too).
The boxes are checked before use: every card has them, they stay in their corner clear
of other ink, their size and place agree across the deck, and the bottom-right index
lies where the top-left one lands when the card is turned, showing the same glyphs
(turned by 180 degrees as usual, or upright as on one deck). A deck failing a check
raises :class:`CornerError`; it is never labelled with doubtful boxes.

Boxes are ``(x1, y1, x2, y2)`` in pixel-edge coordinates: they cover columns
``x1 .. x2-1`` and rows ``y1 .. y2-1``, so a box turns by 180 degrees on a W x H card
as ``(W - x2, H - y2, W - x1, H - y1)``.
"""

from __future__ import annotations

import cv2
import numpy as np

# Bump whenever the located boxes may change, so cached corners are recomputed.
CORNER_VERSION = 1

Box = tuple[float, float, float, float]
IntBox = tuple[int, int, int, int]

# Largest per-channel difference from the face colour for a pixel to count as ink.
INK_DISTANCE = 64
# Ink blobs wider or taller than these fractions of the card are art or frame lines.
MAX_GLYPH_W, MAX_GLYPH_H = 0.35, 0.4
# Smaller specks (leftovers of a border's rounded corner, dust in bitmap art) are no glyph:
# blobs with fewer pixels than a square this fraction of the card width on a side.
MIN_GLYPH = 0.02
# A glyph stands on bare face: at most this share of the ring around it may be ink.
MAX_RING_INK = 0.3
# Straight ink lines at most this thick (pixels) and longer than any stroke of a glyph are
# frames: at least this fraction of the card height when upright (likewise across).
RULE_LENGTH, RULE_WIDTH = 0.3, 5
# Rank and suit of one index (and the two digits of 10) are closer than this, in card widths.
CLUSTER_GAP = 0.08
# Cards used to find where the index is printed: their pips keep clear of the corners.
REFERENCE_RANKS = "A23"
NUMBER_RANKS = "A23456789T"
# The index must end within this fraction of the card from its corner: past it lies the art.
CORNER_LIMIT = 0.45
# Other ink allowed inside an index box, as a fraction of the index's own ink.
MAX_FOREIGN_INK = 0.15
# Agreement across the deck: index height within this ratio of the median, top edge and
# left edge within these fractions of the card size of the median.
HEIGHT_TOLERANCE = 0.3
TOP_TOLERANCE = 0.03
LEFT_TOLERANCE = 0.06
# Two boxes are in the same place if no edge differs by more than this many pixels or
# this fraction of the card width, whichever is more.
PLACE_PIXELS, PLACE_FRACTION = 3.0, 0.02
# A copy of the index (bottom-right, top-right) lies this close to its corner as the top-left
# one, in card widths, has its size within this ratio, and its glyphs correlate at least this well.
COPY_PLACE, COPY_SIZE, MIN_MATCH = 0.03, 0.15, 0.6
# ... and that a glyph touching or partly hidden by art must reach against the same glyph
# on its sibling cards (a sceptre across a spade still scores about 0.77), where more than
# this share of the ink in the glyph's expected place lies outside the blobs found.
MIN_GLYPH_MATCH, UNEXPLAINED_INK = 0.7, 0.3


class CornerError(ValueError):
    """A deck's index corners could not be located or failed a check."""


def locate_corners(cards: dict[str, np.ndarray]) -> dict[str, list[Box]]:
    """Find the index boxes of every card of one deck.

    Args:
        cards: Card code (``"AC"`` ... ``"KS"``) -> BGRA image, all the same size.

    Returns:
        Card code -> boxes, each located on its own ink: top-left, bottom-right, and for
        decks that print the index in all four corners also top-right and bottom-left.

    Raises:
        CornerError: The index could not be located on some card, or a check failed.
    """
    height, width = next(iter(cards.values())).shape[:2]
    face = face_colour(cards)
    border = border_width(cards, face)
    ink = {code: ink_mask(card, face, border) for code, card in cards.items()}

    top_left = _locate(ink, "top-left")
    turned = _locate({c: _turned(m) for c, m in ink.items()}, "bottom-right")
    _check_copy(top_left, turned, _turned, width, "bottom-right", required=True)
    corners = {code: [top_left[code][0], _turn(turned[code][0], width, height)] for code in cards}

    # Some decks print the index in all four corners; most have pips or nothing there.
    try:
        mirrored = _locate({c: _mirrored(m) for c, m in ink.items()}, "top-right")
        flipped = _locate({c: _flipped(m) for c, m in ink.items()}, "bottom-left")
    except CornerError:
        return corners
    if _check_copy(top_left, mirrored, _mirrored, width, "top-right", required=False) and _check_copy(
        top_left, flipped, _flipped, width, "bottom-left", required=False
    ):
        for code in cards:
            x1, y1, x2, y2 = mirrored[code][0]
            corners[code].append((width - x2, y1, width - x1, y2))
            x1, y1, x2, y2 = flipped[code][0]
            corners[code].append((x1, height - y2, x2, height - y1))
    return corners


def face_colour(cards: dict[str, np.ndarray]) -> np.ndarray:
    """Face colour of a deck (BGR float): the mean of the most common opaque colour.

    Counted on the number cards only, whose faces are mostly bare; colours are grouped
    in bins of 32 levels per channel so a gentle gradient still forms one mode.
    """
    samples = [card[::3, ::3] for code, card in cards.items() if code[0] in NUMBER_RANKS]
    pixels = np.concatenate([sample[sample[:, :, 3] >= 250][:, :3] for sample in samples])
    bins = pixels.astype(np.int32) // 32
    keys = bins[:, 0] * 64 + bins[:, 1] * 8 + bins[:, 2]
    mode = np.bincount(keys).argmax()
    return pixels[keys == mode].astype(np.float64).mean(axis=0)


def border_width(cards: dict[str, np.ndarray], face: np.ndarray) -> int:
    """Width in pixels of the border line drawn along the card edge (0 if none).

    Measured as the run of ink inward from the left edge, halfway down the number cards.
    """
    runs = []
    for code, card in cards.items():
        if code[0] not in NUMBER_RANKS:
            continue
        height = card.shape[0]
        for y in range(height // 3, 2 * height // 3, 8):
            row = card[y]
            opaque = np.nonzero(row[:, 3] >= 128)[0]
            ink = _distance(row[opaque[0] :], face) > INK_DISTANCE
            runs.append(int(np.argmin(ink)) if not ink.all() else len(ink))
    return int(np.median(runs))


def ink_mask(card: np.ndarray, face: np.ndarray, border: int) -> np.ndarray:
    """Opaque pixels clearly unlike the face colour, inside the card's border line.

    Pixels within ``border`` + 2 of the card's outline are left out, so a border line
    drawn along the edge never joins the index glyphs that come close to it.
    """
    # The card's silhouette, holes filled: see-through art inside the card is no outline.
    opaque = (card[:, :, 3] >= 128).astype(np.uint8)
    outlines, _ = cv2.findContours(opaque, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    silhouette = cv2.drawContours(np.zeros_like(opaque), outlines, -1, 1, cv2.FILLED)
    inset = 2 * (border + 2) + 1
    # Outside the image counts as transparent: the card's outline runs along the image edge.
    kernel = np.ones((inset, inset), np.uint8)
    inside = cv2.erode(silhouette, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0).astype(bool)
    return inside & (_distance(card, face) > INK_DISTANCE)


def _distance(pixels: np.ndarray, face: np.ndarray) -> np.ndarray:
    """Largest per-channel difference of each pixel's colour from the face colour."""
    return np.abs(pixels[..., :3].astype(np.float32) - face.astype(np.float32)).max(axis=-1)


def _without_rules(mask: np.ndarray) -> np.ndarray:
    """The ink mask without long thin straight lines (frames around court art).

    A line counts as a frame when it is longer than any glyph can be and at most
    ``RULE_WIDTH`` thick; thick strokes are kept whatever their length.
    """
    height, width = mask.shape
    ink = mask.astype(np.uint8)
    tall = max(3, int(RULE_LENGTH * height))
    wide = max(3, int((MAX_GLYPH_W + RULE_LENGTH - MAX_GLYPH_H) * width))
    long = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((tall, 1), np.uint8))
    long |= cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, wide), np.uint8))
    thick = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((RULE_WIDTH + 1, RULE_WIDTH + 1), np.uint8))
    return mask & ~(long.astype(bool) & ~thick.astype(bool))


def _glyph_blobs(mask: np.ndarray) -> list[IntBox]:
    """Boxes of the glyph-like ink blobs of one card's top-left quadrant.

    A glyph blob lies wholly in the quadrant (centre pips, court art and frames reach
    past it), has glyph size, and stands on bare face: blobs cut out of art by taking
    the frame lines away are still hemmed in by ink.
    """
    height, width = mask.shape
    cleaned = _without_rules(mask)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(cleaned.astype(np.uint8), connectivity=8)
    ring_kernel = np.ones((5, 5), np.uint8)
    blobs = []
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        if x + w > width // 2 or y + h > height // 2 or area < (MIN_GLYPH * width) ** 2:
            continue
        if w > MAX_GLYPH_W * width or h > MAX_GLYPH_H * height:
            continue
        y0, x0 = max(y - 3, 0), max(x - 3, 0)
        own = (labels[y0 : y + h + 3, x0 : x + w + 3] == label).astype(np.uint8)
        ring = cv2.dilate(own, ring_kernel).astype(bool) & ~own.astype(bool)
        if mask[y0 : y + h + 3, x0 : x + w + 3][ring].mean() > MAX_RING_INK:
            continue
        blobs.append((x, y, x + w, y + h))
    return blobs


def _locate(ink: dict[str, np.ndarray], where: str) -> dict[str, tuple[Box, np.ndarray]]:
    """Index in the top-left corner of each mask, checked for agreement across the deck.

    Returns:
        Card code -> (index box, the index's own ink inside that box).
    """
    height, width = next(iter(ink.values())).shape
    gap = CLUSTER_GAP * width
    blobs = {code: _glyph_blobs(mask) for code, mask in ink.items()}

    zone = _index_zone([_corner_cluster(blobs[c], gap) for c in ink if c[0] in REFERENCE_RANKS], width, where)
    # A blob belongs to the index if it lies mostly in the zone, its centre near it, and
    # strays no further: pips and art beside the index fail one of these.
    reach, bound = _grown(zone, gap / 2), _grown(zone, gap)
    parts = {
        code: [b for b in code_blobs if _centre_inside(b, reach) and _inside(b, bound) and _mostly_in(b, zone)]
        for code, code_blobs in blobs.items()
    }
    templates = _glyph_templates(ink, parts, width)

    indices = {}
    for code, mask in ink.items():
        found = parts[code]
        for box, template in templates[code]:
            if _unexplained(mask, box, found) and _match(_crop(mask, box), template) >= MIN_GLYPH_MATCH:
                found = found + [box]
        indices[code] = _checked_index(code, mask, found, where)
    _check_agreement({code: box for code, (box, _) in indices.items()}, width, height, where)
    return indices


def _corner_cluster(blobs: list[IntBox], gap: float) -> IntBox | None:
    """Box of the blobs chained to the blob nearest the corner by gaps below ``gap``."""
    if not blobs:
        return None
    cluster = [min(blobs, key=lambda b: b[0] + b[1])]
    rest = [b for b in blobs if b is not cluster[0]]
    grown = True
    while grown:
        grown = False
        box = _union(cluster)
        for blob in list(rest):
            if _gap(box, blob) <= gap:
                cluster.append(blob)
                rest.remove(blob)
                grown = True
    return _union(cluster)


def _index_zone(references: list[IntBox | None], width: int, where: str) -> IntBox:
    """Envelope of the reference cards' index clusters, after setting odd ones aside.

    A reference cluster can pick up a stray mark (one ace carries a tiny copyright line
    near its corner); clusters whose edges stray from the median are left out, as long
    as most agree.
    """
    found = np.array([r for r in references if r is not None], dtype=float)
    if len(found) < len(references) * 3 / 4:
        raise CornerError(f"no ink in the {where} corner of most low cards")
    # Left, top and bottom edges line up; the right edge moves with the rank's width.
    off = np.abs(found - np.median(found, axis=0))
    agree = (off[:, [0, 1, 3]].max(axis=1) <= 2 * _place_tolerance(width)) & (off[:, 2] <= LEFT_TOLERANCE * width)
    if agree.sum() < len(references) * 3 / 4:
        raise CornerError(f"the {where} index clusters of the low cards disagree")
    return _union([tuple(int(v) for v in r) for r in found[agree]])


def _glyph_templates(ink: dict[str, np.ndarray], parts: dict[str, list[IntBox]], width: int) -> dict:
    """Card code -> [(box, ink)] of the glyphs its index should show, learnt from its siblings.

    The suit sign is the lowest blob of the index; where the number cards of a suit mostly
    show it in one place, it is expected there on all thirteen cards of that suit. The rank
    is the rest of the index; where at least two cards of a rank show it in one place, it
    is expected there on all four. A glyph touching art on one card is thus recovered from
    the cards where it stands alone.
    """
    templates: dict[str, list] = {code: [] for code in ink}
    signs = {}
    for suit in {code[1] for code in ink}:
        lowest = {c: max(parts[c], key=lambda b: b[1] + b[3]) for c in (r + suit for r in NUMBER_RANKS) if parts.get(c)}
        agreeing = _agreeing(lowest, width)
        if len(agreeing) >= len(NUMBER_RANKS) * 0.7:
            signs[suit] = lowest[agreeing[0]]
            for code in ink:
                if code[1] == suit:
                    templates[code].append((signs[suit], _crop(ink[agreeing[0]], signs[suit])))
    for rank in {code[0] for code in ink}:
        ranks = {}
        for code in (c for c in ink if c[0] == rank and c[1] in signs):
            rest = [b for b in parts[code] if not _same_place(b, signs[code[1]], width)]
            if rest:
                ranks[code] = _union(rest)
        agreeing = _agreeing(ranks, width)
        if len(agreeing) >= 2:
            box = ranks[agreeing[0]]
            for code in ink:
                if code[0] == rank:
                    templates[code].append((box, _crop(ink[agreeing[0]], box)))
    return templates


def _agreeing(boxes: dict[str, IntBox], width: int) -> list[str]:
    """Codes whose box lies in the same place as the median box."""
    if not boxes:
        return []
    typical = np.median(np.array(list(boxes.values()), dtype=float), axis=0)
    return [code for code, box in boxes.items() if _same_place(box, typical, width)]


def _unexplained(mask: np.ndarray, box: IntBox, found: list[IntBox]) -> bool:
    """Whether much of the ink in ``box`` lies outside the blobs found for the index."""
    x1, y1, x2, y2 = box
    inside = mask[y1:y2, x1:x2]
    covered = np.zeros_like(inside)
    for fx1, fy1, fx2, fy2 in found:
        covered[max(fy1 - y1, 0) : max(fy2 - y1, 0), max(fx1 - x1, 0) : max(fx2 - x1, 0)] = True
    return (inside & ~covered).sum() > UNEXPLAINED_INK * max(inside.sum(), 1)


def _checked_index(code: str, mask: np.ndarray, parts: list[IntBox], where: str) -> tuple[Box, np.ndarray]:
    """Box and own ink of one card's index parts, checked to stay in the corner clear of other ink."""
    height, width = mask.shape
    if not parts:
        raise CornerError(f"{code}: no ink in the {where} index zone")
    x1, y1, x2, y2 = _union(parts)
    if x2 > CORNER_LIMIT * width or y2 > CORNER_LIMIT * height:
        raise CornerError(f"{code}: {where} index runs into the card centre ({x1},{y1},{x2},{y2})")
    own = np.zeros((y2 - y1, x2 - x1), bool)
    for px1, py1, px2, py2 in parts:
        own[py1 - y1 : py2 - y1, px1 - x1 : px2 - x1] = True
    inside = mask[y1:y2, x1:x2]
    foreign = int((inside & ~own).sum())
    if foreign > MAX_FOREIGN_INK * int((inside & own).sum()):
        raise CornerError(f"{code}: other ink (pips or art) inside the {where} index box ({x1},{y1},{x2},{y2})")
    return (float(x1), float(y1), float(x2), float(y2)), (inside & own).astype(np.float32)


def _check_agreement(boxes: dict[str, Box], width: int, height: int, where: str) -> None:
    """Raise CornerError unless the index boxes share place and height across the deck."""
    lefts = np.array([b[0] for b in boxes.values()])
    tops = np.array([b[1] for b in boxes.values()])
    heights = np.array([b[3] - b[1] for b in boxes.values()])
    left, top, tall = np.median(lefts), np.median(tops), np.median(heights)
    for code, (x1, y1, _, y2) in boxes.items():
        if abs((y2 - y1) / tall - 1) > HEIGHT_TOLERANCE:
            raise CornerError(f"{code}: {where} index {y2 - y1:.0f} px tall, deck median {tall:.0f}")
        if abs(y1 - top) > TOP_TOLERANCE * height or abs(x1 - left) > LEFT_TOLERANCE * width:
            raise CornerError(f"{code}: {where} index at ({x1:.0f},{y1:.0f}), deck median ({left:.0f},{top:.0f})")


def _check_copy(first, copies, frame, width: int, where: str, required: bool) -> bool:
    """Whether each card's copy of the index shows the same glyphs as its top-left index.

    Args:
        first: Card code -> (box, ink) of the top-left index.
        copies: Card code -> (box, ink) of the index found on the card turned or mirrored by
            ``frame``, so that the copy sits in the top-left corner.
        frame: The turn or mirror applied to the card. The copy's glyphs, set back upright
            by ``frame``, are compared both as they are and turned by 180 degrees, since most
            decks print the bottom-right index turned but one prints it upright; the index is
            also compared whole, for glyphs that touch and so do not split into rows.
        width: Card width in pixels.
        where: Name of the copy's corner, for messages.
        required: Raise instead of returning False.

    Raises:
        CornerError: If ``required`` and some card does not match.
    """
    for code in first:
        (a, ink_a), (b, ink_b) = first[code], copies[code]
        if not _same_corner(a, b, width):
            if required:
                raise CornerError(
                    f"{code}: {where} index is not where the top-left one lands (boxes {_ints(a)} and "
                    f"{_ints(b)}, the second with the {where} corner turned to the top left)"
                )
            return False
        mine, theirs = _glyphs(ink_a), _glyphs(ink_b)
        score = max(
            max(_glyphs_match(mine, [variant(g) for g in theirs]), _glyphs_match([ink_a], [variant(ink_b)]))
            for variant in (frame, lambda g: _turned(frame(g)))
        )
        if score < MIN_MATCH:
            if required:
                raise CornerError(f"{code}: {where} index shows other glyphs than the top-left one ({score:.2f})")
            return False
    return True


def _same_corner(a: Box, b: Box, width: int) -> bool:
    """Same distance from the corner (left and top edges) and about the same size."""
    near = max(abs(a[0] - b[0]), abs(a[1] - b[1])) <= COPY_PLACE * width
    sizes = [(a[2] - a[0]) / (b[2] - b[0]), (a[3] - a[1]) / (b[3] - b[1])]
    return near and all(abs(r - 1) <= COPY_SIZE for r in sizes)


def _glyphs(crop: np.ndarray) -> list[np.ndarray]:
    """Ink of an index split into its rows of glyphs (rank, suit), each cropped tight."""
    rows = np.flatnonzero(crop.any(axis=1))
    runs = np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1)
    glyphs = []
    for run in runs:
        part = crop[run[0] : run[-1] + 1]
        cols = np.flatnonzero(part.any(axis=0))
        glyphs.append(part[:, cols[0] : cols[-1] + 1])
    return glyphs


def _glyphs_match(mine: list[np.ndarray], theirs: list[np.ndarray]) -> float:
    """Worst correlation between glyphs in the same order (0 if their number differs)."""
    if len(mine) != len(theirs):
        return 0.0
    scores = []
    for a, b in zip(mine, theirs):
        h, w = max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1])
        scores.append(
            _match(
                np.pad(a, ((0, h - a.shape[0]), (0, w - a.shape[1]))),
                np.pad(b, ((0, h - b.shape[0]), (0, w - b.shape[1]))),
            )
        )
    return min(scores)


def _crop(mask: np.ndarray, box: tuple, size: tuple[int, int] | None = None) -> np.ndarray:
    """Ink of ``box`` as floats, ``size`` = (w, h) from the box's top-left corner if given."""
    x, y = int(box[0]), int(box[1])
    w, h = size if size is not None else (int(box[2]) - x, int(box[3]) - y)
    crop = np.zeros((h, w), np.float32)
    part = mask[y : y + h, x : x + w]
    crop[: part.shape[0], : part.shape[1]] = part
    return crop


def _match(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised correlation of two ink crops of the same size."""
    # A shift of a pixel or two is rounding, not a different glyph: blur before comparing.
    a, b = cv2.GaussianBlur(a, (5, 5), 1.5), cv2.GaussianBlur(b, (5, 5), 1.5)
    a, b = a - a.mean(), b - b.mean()
    norm = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum() / norm) if norm > 0 else 0.0


def _ints(box: tuple) -> tuple[int, ...]:
    return tuple(int(v) for v in box)


def _place_tolerance(width: int) -> float:
    return max(PLACE_PIXELS, PLACE_FRACTION * width)


def _same_place(a: tuple, b: tuple, width: int) -> bool:
    return max(abs(p - q) for p, q in zip(a, b)) <= _place_tolerance(width)


def _gap(a: tuple, b: tuple) -> float:
    """Distance between two boxes (0 when they touch or overlap)."""
    dx = max(a[0] - b[2], b[0] - a[2], 0)
    dy = max(a[1] - b[3], b[1] - a[3], 0)
    return float(np.hypot(dx, dy))


def _centre_inside(blob: tuple, box: tuple) -> bool:
    """Whether a blob's centre lies in a box: a pip beside the index may touch it, not enter it."""
    cx, cy = (blob[0] + blob[2]) / 2, (blob[1] + blob[3]) / 2
    return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]


def _mostly_in(blob: tuple, box: tuple) -> bool:
    """Whether at least half of a blob's box lies in ``box``."""
    w = min(blob[2], box[2]) - max(blob[0], box[0])
    h = min(blob[3], box[3]) - max(blob[1], box[1])
    return w > 0 and h > 0 and 2 * w * h >= (blob[2] - blob[0]) * (blob[3] - blob[1])


def _inside(blob: tuple, box: tuple) -> bool:
    return box[0] <= blob[0] and box[1] <= blob[1] and blob[2] <= box[2] and blob[3] <= box[3]


def _grown(box: tuple, margin: float) -> tuple:
    return (box[0] - margin, box[1] - margin, box[2] + margin, box[3] + margin)


def _union(boxes: list[tuple]) -> IntBox:
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def _turned(image: np.ndarray) -> np.ndarray:
    return image[::-1, ::-1]


def _mirrored(image: np.ndarray) -> np.ndarray:
    return image[:, ::-1]


def _flipped(image: np.ndarray) -> np.ndarray:
    return image[::-1, :]


def _turn(box: Box, width: int, height: int) -> Box:
    """A box found on the card turned by 180 degrees, in the unturned card's pixels."""
    x1, y1, x2, y2 = box
    return (width - x2, height - y2, width - x1, height - y1)
