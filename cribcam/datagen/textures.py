"""Procedural table surfaces and the things lying on a cribbage table.

Surfaces (wood, felt, cloth, paper, a plain desk) are BGR images of a patch of table about
``size / 150`` card widths across. Objects are BGRA sprites (straight alpha) drawn at the pixel
size asked for, so that they stay sharp whatever the camera distance: a cribbage board with
pegs, poker chips, coins, a phone, a finger, a palm and thumb, and a card back for decks
without one.
All drawing is vectorised numpy and OpenCV; nothing loops over pixels.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

SURFACES = ("wood", "felt", "cloth", "paper", "desk")


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Smooth random field in [-1, 1]: a ``cells`` grid of random values, upscaled bicubically."""
    small = rng.uniform(-1, 1, size=(max(cells[0], 2), max(cells[1], 2))).astype(np.float32)
    return np.clip(cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC), -1, 1)


def _fbm(rng, size: int, octaves: int = 4, base: int = 4) -> np.ndarray:
    """Fractal noise: smooth noise summed over octaves, each twice as fine and half as strong."""
    total = np.zeros((size, size), np.float32)
    for o in range(octaves):
        total += smooth_noise(rng, (size, size), (base << o, base << o)) / (1 << o)
    return total / 1.875


def _colourise(shade: np.ndarray, colour) -> np.ndarray:
    """BGR image from a brightness factor field and a base colour."""
    out = shade[..., None] * np.asarray(colour, np.float32)[None, None, :]
    return np.clip(out, 0, 255).astype(np.uint8)


def _wood(rng, size: int, height: int | None = None) -> np.ndarray:
    """Planks with growth rings and fine grain running along x; ``size`` wide, ``height`` high
    (square by default)."""
    h, w = height or size, size
    palette = [(70, 120, 170), (45, 85, 135), (30, 55, 90), (110, 160, 200), (60, 100, 150), (25, 40, 60)]
    colour = np.array(palette[rng.integers(len(palette))], np.float32) * rng.uniform(0.85, 1.15, 3)
    y = np.arange(h, dtype=np.float32)[:, None]
    plank = float(rng.uniform(180, 420))
    index = np.floor(y / plank)
    # Each plank gets its own ring phase; rings wander with a smooth field.
    phase = (index * 97.31) % 1.0 * 2 * math.pi
    wander = smooth_noise(rng, (h, w), (6, 3)) * float(rng.uniform(20, 60))
    rings = np.sin((y + wander) * 2 * math.pi / float(rng.uniform(12, 40)) + phase) ** 2
    grain = cv2.resize(rng.uniform(-1, 1, (h, max(w // 40, 2))).astype(np.float32), (w, h),
                       interpolation=cv2.INTER_LINEAR)
    shade = 1.0 - 0.18 * rings - 0.08 * grain + 0.06 * smooth_noise(rng, (h, w), (3, 3))
    shade += ((index * 13.7) % 1.0 - 0.5) * 0.12  # planks differ a little in tone
    seams = (y % plank) < float(rng.uniform(1.5, 4))
    shade = np.where(seams, shade * 0.55, shade)
    return _colourise(shade, colour)


def _felt(rng, size: int) -> np.ndarray:
    palette = [(40, 110, 30), (30, 80, 20), (110, 60, 20), (40, 40, 130), (60, 60, 60), (90, 40, 40), (25, 25, 90)]
    colour = np.array(palette[rng.integers(len(palette))], np.float32) * rng.uniform(0.8, 1.2, 3)
    shade = 1.0 + 0.07 * _fbm(rng, size) + 0.05 * rng.uniform(-1, 1, (size, size)).astype(np.float32)
    return _colourise(shade, colour)


def _cloth(rng, size: int) -> np.ndarray:
    """A woven tablecloth: plain, striped or checked, with the weave visible up close."""
    colours = rng.uniform(40, 235, (2, 3)).astype(np.float32)
    x = np.arange(size, dtype=np.float32)
    period = float(rng.uniform(40, 160))
    kind = rng.integers(3)
    bands_x = (np.sin(x * 2 * math.pi / period) > 0).astype(np.float32)
    mix = np.zeros((size, size), np.float32) if kind == 0 else (
        np.broadcast_to(bands_x[None, :], (size, size)) if kind == 1
        else 0.5 * (bands_x[None, :] + bands_x[:, None]))
    weave_p = float(rng.uniform(3, 6))
    weave = np.sin(x * 2 * math.pi / weave_p)[None, :] * np.sin(x * 2 * math.pi / weave_p)[:, None]
    shade = 1.0 + 0.06 * weave + 0.05 * _fbm(rng, size, 3, 3)
    img = colours[0] * (1 - mix[..., None]) + colours[1] * mix[..., None]
    return np.clip(img * shade[..., None], 0, 255).astype(np.uint8)


def _paper(rng, size: int) -> np.ndarray:
    """White, cream or kraft paper with fibres; sometimes ruled or squared."""
    palette = [(245, 245, 245), (215, 235, 245), (120, 160, 195), (230, 230, 225)]
    colour = np.array(palette[rng.integers(len(palette))], np.float32) * rng.uniform(0.9, 1.0)
    fibres = cv2.resize(rng.uniform(-1, 1, (size // 2, size // 16)).astype(np.float32), (size, size))
    shade = 1.0 + 0.02 * fibres + 0.03 * _fbm(rng, size, 3, 2)
    img = _colourise(shade, colour)
    if rng.random() < 0.4:
        step = int(rng.integers(40, 90))
        line = (int(rng.integers(120, 220)), int(rng.integers(80, 180)), int(rng.integers(40, 120)))
        for v in range(step // 2, size, step):
            cv2.line(img, (0, v), (size, v), line, 2)
            if rng.random() < 0.5 and v < size:
                cv2.line(img, (v, 0), (v, size), line, 2)
    return img


def _desk(rng, size: int) -> np.ndarray:
    """A plain laminate desk, often flecked, like the webcam photos' white desk."""
    grey = float(rng.uniform(20, 245))
    colour = np.full(3, grey, np.float32) * rng.uniform(0.92, 1.08, 3)
    shade = 1.0 + 0.03 * _fbm(rng, size, 3, 2)
    img = _colourise(shade, colour)
    if rng.random() < 0.7:
        n = int(size * size * rng.uniform(0.0005, 0.004))
        ys, xs = rng.integers(0, size, n), rng.integers(0, size, n)
        fleck = rng.uniform(-90, 90, (n, 1)).astype(np.float32)
        img[ys, xs] = np.clip(img[ys, xs].astype(np.float32) + fleck, 0, 255).astype(np.uint8)
        img = cv2.GaussianBlur(img, (3, 3), 0.6)
    return img


def table_surface(rng: np.random.Generator, kind: str, size: int = 1024) -> np.ndarray:
    """A BGR table surface of one of ``SURFACES``."""
    makers = {"wood": _wood, "felt": _felt, "cloth": _cloth, "paper": _paper, "desk": _desk}
    return makers[kind](rng, size)


def _rounded_alpha(w: int, h: int, radius: float) -> np.ndarray:
    """Alpha of a rounded rectangle filling a w x h sprite, antialiased."""
    alpha = np.zeros((h * 4, w * 4), np.uint8)
    r = int(radius * 4)
    cv2.rectangle(alpha, (r, 0), (w * 4 - 1 - r, h * 4 - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w * 4 - 1, h * 4 - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * 4 - 1 - r, r), (r, h * 4 - 1 - r), (w * 4 - 1 - r, h * 4 - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1)
    return cv2.resize(alpha, (w, h), interpolation=cv2.INTER_AREA)


def card_back(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A card back (BGRA): white border round a coloured lattice, for decks without a back."""
    palette = [(40, 40, 170), (150, 70, 20), (40, 110, 30), (30, 30, 30), (120, 40, 110)]
    ink = tuple(int(c) for c in palette[rng.integers(len(palette))])
    img = np.full((h, w, 3), 245, np.uint8)
    m = int(w * rng.uniform(0.05, 0.09))
    cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), ink, -1)
    step = int(w * rng.uniform(0.06, 0.12))
    light = tuple(int(min(255, c + 90)) for c in ink)
    for k in range(-h, w + h, step):
        cv2.line(img, (k, m), (k + h, m + h), light, max(1, w // 120))
        cv2.line(img, (k, m), (k - h, m + h), light, max(1, w // 120))
    img[:m], img[-m:], img[:, :m], img[:, -m:] = 245, 245, 245, 245
    return np.dstack([img, _rounded_alpha(w, h, w * 0.06)])


def _disc(d: int) -> np.ndarray:
    return _rounded_alpha(d, d, d / 2 - 0.01)


def chip(rng: np.random.Generator, d: int) -> np.ndarray:
    """A poker chip (BGRA): coloured disc, white edge spots, an inner ring."""
    d = max(d, 8)
    palette = [(40, 40, 200), (200, 80, 30), (40, 140, 40), (30, 30, 30), (230, 230, 230), (160, 40, 150)]
    colour = tuple(int(c) for c in palette[rng.integers(len(palette))])
    img = np.zeros((d, d, 3), np.uint8)
    c = (d // 2, d // 2)
    cv2.circle(img, c, d // 2, colour, -1)
    spot = (245, 245, 245) if sum(colour) < 600 else (40, 40, 200)
    for k in range(6):
        cv2.ellipse(img, c, (d // 2 - 1, d // 2 - 1), 0, k * 60, k * 60 + 20, spot, max(1, d // 8))
    cv2.circle(img, c, int(d * 0.32), spot, max(1, d // 30))
    return np.dstack([img, _disc(d)])


def coin(rng: np.random.Generator, d: int) -> np.ndarray:
    """A coin (BGRA): metallic disc with a lit side, a rim and an embossed relief."""
    d = max(d, 8)
    metal = np.array([(60, 150, 190), (170, 170, 170), (80, 120, 160)][rng.integers(3)], np.float32)
    yy, xx = np.mgrid[0:d, 0:d].astype(np.float32) / d - 0.5
    a = float(rng.uniform(0, 2 * math.pi))
    shade = 0.85 + 0.35 * (xx * math.cos(a) + yy * math.sin(a))
    shade += 0.15 * smooth_noise(rng, (d, d), (5, 5))
    rim = np.hypot(xx, yy) > 0.42
    shade = np.where(rim, shade * 0.8, shade)
    return np.dstack([_colourise(shade, metal), _disc(d)])


def skin_tone(rng: np.random.Generator) -> np.ndarray:
    """A BGR skin colour, light to dark."""
    tones = [(160, 190, 235), (120, 160, 215), (90, 130, 190), (60, 90, 140), (40, 60, 95)]
    return np.array(tones[rng.integers(len(tones))], np.float32) * rng.uniform(0.9, 1.1, 3)


def _shaded_capsule(mask: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Colours a blob so that it is darker towards its edges, as a rounded body under light."""
    depth = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 3)
    depth = depth / max(float(depth.max()), 1.0)
    shade = 0.6 + 0.45 * np.sqrt(depth)
    return _colourise(shade, colour)


def finger(rng: np.random.Generator, length: int, colour: np.ndarray | None = None,
           thickness: float = 0.23) -> np.ndarray:
    """A finger or thumb (BGRA) lying along +x with the nail at the right end.

    Args:
        rng: Random source.
        length: Length in pixels.
        colour: BGR skin colour; drawn at random when None.
        thickness: Width over length (a thumb is stubbier than a finger).
    """
    length = max(length, 12)
    w = max(int(length * thickness * rng.uniform(0.9, 1.1)), 4)
    mask = np.zeros((w, length), np.uint8)
    cv2.line(mask, (w // 2, w // 2), (length - 1 - w // 2, w // 2), 255, w)
    cv2.circle(mask, (length - 1 - w // 2, w // 2), w // 2, 255, -1)
    colour = skin_tone(rng) if colour is None else colour
    img = _shaded_capsule(mask, colour)
    nail = (int(length - w * 0.95), w // 2)
    cv2.ellipse(img, nail, (max(int(w * 0.4), 1), max(int(w * 0.3), 1)), 0, 0, 360,
                tuple(float(c) for c in np.clip(colour * 1.15 + 20, 0, 255)), -1)
    return np.dstack([img, cv2.GaussianBlur(mask, (3, 3), 0)])


def palm(rng: np.random.Generator, width: int, colour: np.ndarray | None = None) -> np.ndarray:
    """The back of a hand holding cards (BGRA), seen from above: a broad rounded blob."""
    width = max(width, 16)
    h = int(width * rng.uniform(0.7, 0.9))
    mask = np.zeros((h, width), np.uint8)
    cv2.ellipse(mask, (width // 2, h // 2), (width // 2 - 1, h // 2 - 1), 0, 0, 360, 255, -1)
    colour = skin_tone(rng) if colour is None else colour
    return np.dstack([_shaded_capsule(mask, colour), cv2.GaussianBlur(mask, (3, 3), 0)])


def phone(rng: np.random.Generator, length: int) -> np.ndarray:
    """A phone lying on the table (BGRA), long side along x: dark glass with a sheen across it."""
    length = max(length, 16)
    h = max(int(length * rng.uniform(0.45, 0.5)), 8)
    yy, xx = np.mgrid[0:h, 0:length].astype(np.float32)
    a = float(rng.uniform(0, math.pi))
    sheen = np.clip(1 - np.abs((xx * math.cos(a) + yy * math.sin(a)) / length - rng.uniform(0.2, 0.8)) * 4, 0, 1)
    base = float(rng.uniform(15, 60))
    img = _colourise(1.0 + sheen * float(rng.uniform(0.5, 2.0)), np.full(3, base, np.float32))
    cv2.rectangle(img, (0, 0), (length - 1, h - 1), (base * 0.5,) * 3, max(1, h // 25))
    return np.dstack([img, _rounded_alpha(length, h, h * 0.12)])


def cribbage_board(rng: np.random.Generator, length: int) -> np.ndarray:
    """A cribbage board (BGRA): a wooden bar with three tracks of holes in fives, and pegs."""
    length = max(length, 40)
    h = max(int(length / 4.0), 10)
    img = _wood(rng, length, h)
    holes = 60
    margin = length * 0.06
    pitch = (length - 2 * margin) / (holes + holes // 5)
    r = max(1, int(pitch * 0.28))
    pegs = [tuple(int(c) for c in rng.uniform(0, 255, 3)) for _ in range(3)]
    for track in range(3):
        y = int(h * (0.22 + 0.28 * track))
        for row_off in (-0.07, 0.07):
            yy = int(y + row_off * h)
            for k in range(holes):
                x = int(margin + (k + k // 5) * pitch)
                cv2.circle(img, (x, yy), r, (15, 20, 25), -1)
        for _ in range(2):  # each player moves two pegs
            k = int(rng.integers(holes))
            x = int(margin + (k + k // 5) * pitch)
            cv2.circle(img, (x, y - int(0.07 * h)), r * 2, pegs[track], -1)
            cv2.circle(img, (x - r // 2, y - int(0.07 * h) - r // 2), max(1, r // 2), (255, 255, 255), -1)
    return np.dstack([img, _rounded_alpha(length, h, h * 0.2)])
