"""Deck looks and the camera's photometric effects.

Two kinds of change, both label-preserving (no pixel moves, so boxes stay exact):

* ``restyle`` repaints a card face: ivory paper, a dark face with gold or silver print (the
  black-and-gold look of some real decks), a dark face with light print, or faded, washed-out
  red. Each is a colour transform of the rendered card, driven by how much ink a pixel holds.
* ``photograph`` turns a clean composite into a camera photo: uneven light, vignetting, large
  soft shadows, glare on the glossy cards, colour casts and dimmed red, exposure and gamma,
  defocus and motion blur, a soft low-resolution camera, sensor noise, salt-and-pepper noise
  and, for some images, grayscale so that suits must be told by shape. JPEG artefacts come from
  the quality the image is saved with (``jpeg_quality``).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from cribcam.datagen.textures import smooth_noise

# Look name -> relative frequency.
LOOKS = {"plain": 55, "ivory": 14, "dark_gold": 12, "dark_light_ink": 6, "faded": 13}

# Rec. 601 luma weights in BGR order.
LUMA = np.array([0.114, 0.587, 0.299], np.float32)


def sample_look(rng: np.random.Generator) -> dict:
    """Draws a deck look: its name and the colours it uses."""
    names = list(LOOKS)
    weights = np.array([LOOKS[n] for n in names], float)
    name = names[rng.choice(len(names), p=weights / weights.sum())]
    look: dict = {"name": name}
    if name == "ivory":
        look["paper"] = [float(rng.uniform(0.78, 0.93)), float(rng.uniform(0.9, 0.98)), 1.0]
    elif name in ("dark_gold", "dark_light_ink"):
        look["face"] = [float(v) for v in rng.uniform(5, 45, 3)]
        gold = [float(rng.uniform(30, 80)), float(rng.uniform(140, 190)), float(rng.uniform(190, 235))]
        silver = [float(rng.uniform(190, 240))] * 3
        if name == "dark_gold":
            look["red_ink"] = gold
            look["black_ink"] = gold if rng.random() < 0.5 else silver
        else:
            look["red_ink"] = [float(rng.uniform(60, 120)), float(rng.uniform(60, 120)), float(rng.uniform(200, 255))]
            look["black_ink"] = silver
    elif name == "faded":
        look["saturation"] = float(rng.uniform(0.2, 0.6))
        look["contrast"] = float(rng.uniform(0.55, 0.85))
    return look


def _ink_lut(face, ink) -> np.ndarray:
    """3-channel lookup table from luma to colour: paper (luma >= 235) gives ``face``, print
    gives ``ink``, blending linearly over the 170 luma levels in between."""
    amount = np.clip((235.0 - np.arange(256)) / 170.0, 0, 1)[:, None]
    colour = (1 - amount) * np.asarray(face, np.float32) + amount * np.asarray(ink, np.float32)
    return np.clip(colour, 0, 255).astype(np.uint8).reshape(256, 1, 3)


def restyle(bgra: np.ndarray, look: dict) -> np.ndarray:
    """Repaints a card face (BGRA, straight alpha) in ``look``; alpha is kept.

    Uses only whole-image OpenCV operations (colour matrices, lookup tables, blends): this
    runs for several cards of every other image.
    """
    name = look["name"]
    if name == "plain":
        return bgra
    bgr = cv2.cvtColor(bgra, cv2.COLOR_BGRA2BGR)
    if name == "ivory":
        bgr = cv2.multiply(bgr, tuple(look["paper"]) + (1.0,))
    elif name == "faded":
        # Pull colours towards grey (washed-out red), then lift the print towards the paper.
        s, c = look["saturation"], look["contrast"]
        matrix = c * (s * np.eye(3) + (1 - s) * np.tile(LUMA, (3, 1)))
        bgr = cv2.transform(bgr, np.hstack([matrix, np.full((3, 1), 255.0 * (1 - c))]))
    else:
        luma = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
        luma3 = cv2.merge([luma, luma, luma])
        black = cv2.LUT(luma3, _ink_lut(look["face"], look["black_ink"]))
        red = cv2.LUT(luma3, _ink_lut(look["face"], look["red_ink"]))
        b, g, r = cv2.split(bgr)
        redness = cv2.subtract(r, cv2.max(b, g)).astype(np.float32) * (1 / 110)  # red print: 1
        redness = cv2.min(redness, 1.0)
        bgr = cv2.blendLinear(red, black, redness, 1.0 - redness)
    out = cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA)
    out[..., 3] = bgra[..., 3]
    return out


def _light_field(rng, size: int) -> tuple[np.ndarray, list[str]]:
    """Multiplicative light over the frame: uneven light, vignetting, a soft cast shadow.

    All of it is smooth, so it is drawn at an eighth of the size and scaled up.
    """
    effects = []
    small = max(size // 8, 8)
    gain = np.ones((small, small), np.float32)
    if rng.random() < 0.7:
        gain += float(rng.uniform(0.1, 0.45)) * smooth_noise(rng, (small, small), (3, 3))
        effects.append("uneven_light")
    if rng.random() < 0.4:
        yy, xx = np.mgrid[0:small, 0:small].astype(np.float32) / small - 0.5
        gain *= 1.0 - float(rng.uniform(0.2, 0.7)) * (xx * xx + yy * yy)
        effects.append("vignette")
    if rng.random() < 0.25:
        # The shadow of a phone or a head: a dark polygon with a soft edge.
        shadow = np.zeros((small, small), np.float32)
        pts = (rng.uniform(-0.3, 1.3, (int(rng.integers(3, 7)), 2)) * small).astype(np.int32)
        cv2.fillConvexPoly(shadow, cv2.convexHull(pts), 1.0)
        shadow = cv2.GaussianBlur(shadow, (0, 0), float(rng.uniform(0.03, 0.12)) * small)
        gain *= 1.0 - float(rng.uniform(0.25, 0.55)) * shadow
        effects.append("shadow")
    return cv2.resize(gain, (size, size), interpolation=cv2.INTER_LINEAR), effects


def _glare(rng, size: int, card_mask: np.ndarray) -> np.ndarray | None:
    """A specular highlight on the glossy cards (never on the cloth), to add; None if no card
    is big enough to catch one."""
    ys, xs = np.nonzero(card_mask[::8, ::8])
    if len(ys) == 0:
        return None
    k = int(rng.integers(len(ys)))
    small = size // 8
    sx, sy = rng.uniform(0.03, 0.2, 2) * small
    yy, xx = np.ogrid[0:small, 0:small]
    blob = np.exp(-(((xx - xs[k]) / sx) ** 2 + ((yy - ys[k]) / sy) ** 2)).astype(np.float32)
    blob = cv2.resize(blob, (size, size), interpolation=cv2.INTER_LINEAR)
    glare = cv2.multiply(blob, card_mask, scale=float(rng.uniform(50, 150)))
    return cv2.merge([glare, glare, glare])


def _colour_matrix(rng) -> tuple[np.ndarray, list[str]]:
    """3x3 BGR matrix: exposure, white balance and saturation (dimmed or washed-out red)."""
    effects = []
    gains = np.ones(3, np.float32)
    if rng.random() < 0.6:
        gains = np.exp(rng.normal(0, 0.12, 3)).astype(np.float32)
        effects.append("colour_cast")
    sat = 1.0
    if rng.random() < 0.3:
        sat = float(rng.uniform(0.25, 0.75))
        effects.append("dim_colour")
    elif rng.random() < 0.2:
        sat = float(rng.uniform(1.1, 1.4))
    grey = np.tile(LUMA, (3, 1))
    matrix = sat * np.eye(3, dtype=np.float32) + (1 - sat) * grey
    return (gains[:, None] * matrix) * float(np.exp(rng.normal(0, 0.2))), effects


def motion_kernel(rng: np.random.Generator, length: int) -> np.ndarray:
    """A normalised line ``length`` pixels long at a random angle, to filter an image with: the
    smear of a camera or a hand moving while the frame is exposed (the scenes' motion blur, and
    the classifier's crops', ``teach.crop_bank.augment``)."""
    kernel = np.zeros((length, length), np.float32)
    angle = float(rng.uniform(0, math.pi))
    centre = (length - 1) / 2
    dx, dy = math.cos(angle) * centre, math.sin(angle) * centre
    cv2.line(kernel, (round(centre - dx), round(centre - dy)), (round(centre + dx), round(centre + dy)), 1.0, 1)
    return kernel / kernel.sum()


def _blur(rng, img: np.ndarray) -> tuple[np.ndarray, list[str]]:
    u = rng.random()
    if u < 0.22:
        return cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.6, 2.2))), ["defocus"]
    if u < 0.34:
        return cv2.filter2D(img, -1, motion_kernel(rng, int(rng.integers(2, 6)) * 2 + 1)), ["motion_blur"]
    if u < 0.46:
        size = img.shape[0]
        small = int(size / rng.uniform(1.5, 3.0))
        low = cv2.resize(img, (small, small), interpolation=cv2.INTER_AREA)
        return cv2.resize(low, (size, size), interpolation=cv2.INTER_LINEAR), ["low_resolution"]
    return img, []


def _noise(rng, img: np.ndarray, noise_bank: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Gaussian sensor noise (a random crop of a precomputed field) and salt-and-pepper."""
    effects = []
    size = img.shape[0]
    if rng.random() < 0.65:
        sigma = float(rng.uniform(2, 10) if rng.random() < 0.85 else rng.uniform(10, 28))
        oy, ox = rng.integers(0, noise_bank.shape[0] - size + 1, 2)
        out = img.astype(np.float32)
        cv2.scaleAdd(noise_bank[oy:oy + size, ox:ox + size], sigma, out, dst=out)
        img = np.clip(out, 0, 255, out=out).astype(np.uint8)
        effects.append("noise")
    if rng.random() < 0.12:
        n = int(size * size * rng.uniform(0.002, 0.05))
        ys, xs = rng.integers(0, size, n), rng.integers(0, size, n)
        img[ys, xs] = np.where(rng.random(n) < 0.5, 0, 255)[:, None].astype(np.uint8)
        effects.append("salt_and_pepper")
    return img, effects


def photograph(rng: np.random.Generator, canvas: np.ndarray, card_mask: np.ndarray, noise_bank: np.ndarray,
               shadows: np.ndarray | None = None) -> tuple[np.ndarray, list[str]]:
    """Applies the camera and light effects to a clean composite.

    Args:
        rng: Random source.
        canvas: Clean composite, BGR uint8.
        card_mask: float32 mask of card pixels (where glare can fall).
        noise_bank: Precomputed standard normal noise (BGR), larger than the image.
        shadows: Light factor of the objects' cast shadows, or None.

    Returns:
        The photo as BGR uint8 and the names of the effects applied.
    """
    size = canvas.shape[0]
    # The colour matrix is linear, so it can go first, on the uint8 image (saturating).
    matrix, colour_effects = _colour_matrix(rng)
    img = cv2.transform(canvas, matrix)
    gain, effects = _light_field(rng, size)
    if shadows is not None:
        gain *= shadows
    img = cv2.multiply(img, cv2.merge([gain, gain, gain]), dtype=cv2.CV_8U)
    if rng.random() < 0.3:
        glare = _glare(rng, size, card_mask)
        if glare is not None:
            img = cv2.add(img, glare, dtype=cv2.CV_8U)
            effects.append("glare")
    effects += colour_effects
    if rng.random() < 0.4:
        gamma = float(rng.uniform(0.6, 1.6))
        img = cv2.LUT(img, (255.0 * (np.arange(256) / 255.0) ** gamma).astype(np.uint8))
    img, blur_effects = _blur(rng, img)
    img, noise_effects = _noise(rng, img, noise_bank)
    effects += blur_effects + noise_effects
    if rng.random() < 0.1:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        effects.append("grayscale")
    return img, effects


def jpeg_quality(rng: np.random.Generator) -> int:
    """Quality to save with: mostly high, sometimes low enough for blocky artefacts."""
    return int(rng.integers(70, 96) if rng.random() < 0.75 else rng.integers(25, 70))
