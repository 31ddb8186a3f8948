"""A pinhole camera over the table: any rotation, from straight above to steep.

World coordinates are table units (1 = a card width) with the table at Z = 0 and the camera
on the side of negative Z, so that a camera looking straight down with no roll sees table X
to the right and table Y downwards, as in an image. Every flat object maps to the image by a
homography, which keeps labels exact: the same matrix warps the pixels and the index boxes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

# Rays may not come closer than this to the table's horizon: beyond it the table would end.
MAX_RAY_ANGLE = 78.0
# A card filling the frame and more: its width at most this many image widths.
MAX_CARD_FRACTION = 1.6


def _rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@dataclass
class Camera:
    """Intrinsics ``K`` and the world-to-camera pose ``R``, ``t`` for a square image of ``size``."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray
    size: int
    info: dict = field(default_factory=dict)

    def homography(self, plane: np.ndarray) -> np.ndarray:
        """Homography from a flat object's local pixels to the image.

        Args:
            plane: 3x3 matrix whose columns are the world vectors of one local pixel step
                along u and along v, and the world point of local (0, 0).
        """
        H = self.K @ (self.R @ plane + np.outer(self.t, [0.0, 0.0, 1.0]))
        return H / H[2, 2]

    def table(self) -> np.ndarray:
        """Homography from table coordinates (X, Y) to the image."""
        return self.homography(np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 0]]))


def look_at(target: tuple[float, float], card_px: float, tilt: float, azimuth: float, roll: float,
            size: int, fov: float = 60.0, stretch: float = 1.0) -> Camera:
    """A camera aimed at a table point.

    Args:
        target: Table point at the image centre.
        card_px: Width in pixels of a card lying at the target (for a camera looking down).
        tilt: Angle of the optical axis from the vertical, degrees.
        azimuth: Direction the camera leans towards, degrees.
        roll: Rotation of the image about the optical axis, degrees.
        size: Image width and height in pixels.
        fov: Horizontal field of view, degrees.
        stretch: Vertical / horizontal pixel scale; photos squeezed into a square have one.
    """
    fx = size / 2 / math.tan(math.radians(fov) / 2)
    fy = fx * stretch
    K = np.array([[fx, 0, size / 2], [0, fy, size / 2], [0, 0, 1.0]])
    R = _rz(math.radians(roll)) @ _rx(math.radians(tilt)) @ _rz(math.radians(azimuth))
    distance = fx / card_px
    centre = np.array([target[0], target[1], 0.0]) - distance * R[2]  # R[2]: optical axis in world
    info = {"tilt_deg": tilt, "roll_deg": roll, "fov_deg": fov, "card_px": card_px, "stretch": stretch}
    return Camera(K, R, -R @ centre, size, info)


def sample_camera(rng: np.random.Generator, size: int, extent: tuple[float, float, float, float],
                  focus: list[tuple[float, float]], min_card_px: float) -> Camera:
    """Draws a camera that frames a layout the way people photograph cards.

    Most shots frame the whole layout; some are taken from far away (cards down to
    ``min_card_px`` wide, the size at which an index is about 10 pixels tall); some are
    close-ups of one card, up to a card wider than the frame.

    Args:
        rng: Random source.
        size: Image size in pixels.
        extent: Bounding box of the cards on the table (x0, y0, x1, y1).
        focus: Card centres, candidates for a close-up.
        min_card_px: Smallest card width in pixels to use.
    """
    fov = float(rng.uniform(45, 75))
    stretch = float(math.exp(rng.uniform(-0.3, 0.3))) if rng.random() < 0.35 else 1.0
    half = size / 2 / math.tan(math.radians(fov) / 2)
    corner_ray = math.degrees(math.atan(math.hypot(size / 2 / half, size / 2 / (half * stretch))))
    steepest = max(5.0, min(60.0, MAX_RAY_ANGLE - corner_ray))
    u = rng.random()
    tilt = float(rng.uniform(0, 12) if u < 0.4 else rng.uniform(12, 35) if u < 0.8 else rng.uniform(35, 60))
    tilt = min(tilt, steepest)

    x0, y0, x1, y1 = extent
    radius = 0.5 * math.hypot(x1 - x0, y1 - y0)
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    fit = size / (2 * radius)
    largest = MAX_CARD_FRACTION * size
    mode = rng.random()
    if mode < 0.6:
        card_px = fit * float(rng.uniform(0.6, 1.3))
    elif mode < 0.75:
        card_px = float(math.exp(rng.uniform(math.log(min_card_px), math.log(max(fit, min_card_px * 1.01)))))
    else:
        low = min(max(fit, 0.3 * size), largest)
        card_px = float(math.exp(rng.uniform(math.log(low), math.log(largest))))
    card_px = float(np.clip(card_px, min_card_px, largest))

    if mode >= 0.75:
        fx, fy = focus[int(rng.integers(len(focus)))]
        target = (fx + float(rng.normal(0, 0.3)), fy + float(rng.normal(0, 0.3)))
    else:
        slack = max(0.0, size / 2 - radius * card_px) / card_px  # room to move without cutting cards
        target = (centre[0] + float(rng.uniform(-1, 1)) * slack + float(rng.normal(0, 0.1 * radius)),
                  centre[1] + float(rng.uniform(-1, 1)) * slack + float(rng.normal(0, 0.1 * radius)))
    return look_at(target, card_px, tilt, float(rng.uniform(0, 360)), float(rng.uniform(0, 360)),
                   size, fov, stretch)
