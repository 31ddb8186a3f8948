"""Image bytes for the tests of image loading, the API and the pages: encoded test images,
an EXIF orientation, a "PNG bomb"; a card drawn with its pips, for the pip count; and a card
of a deck design as a dim, blurred webcam takes it, for the face reading."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "photos"


def encode(image: np.ndarray, ext: str = ".jpg", params=()) -> bytes:
    ok, data = cv2.imencode(ext, image, list(params))
    assert ok
    return data.tobytes()


def test_image(width=120, height=80) -> np.ndarray:
    """An asymmetric image: a red block top left, a blue block bottom right."""
    image = np.full((height, width, 3), 200, np.uint8)
    image[: height // 4, : width // 4] = (0, 0, 255)
    image[-height // 4:, -width // 4:] = (255, 0, 0)
    return image


test_image.__test__ = False  # a helper, not a test


def with_exif_orientation(jpeg: bytes, orientation: int, byte_order: str = "<") -> bytes:
    """``jpeg`` with an EXIF APP1 segment holding only the orientation tag."""
    tiff = (b"II*\x00" if byte_order == "<" else b"MM\x00*") + struct.pack(byte_order + "I", 8)
    tiff += struct.pack(byte_order + "H", 1)
    tiff += struct.pack(byte_order + "HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff += struct.pack(byte_order + "I", 0)
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def png_bomb(side: int) -> bytes:
    """A real PNG of side x side black 1-bit pixels: a small file of a huge image."""
    def chunk(kind: bytes, payload: bytes) -> bytes:
        return (struct.pack(">I", len(payload)) + kind + payload
                + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))

    row = b"\x00" * (1 + (side + 7) // 8)  # filter byte + packed bits
    compressor = zlib.compressobj(9)
    idat = b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat)
            + chunk(b"IEND", b""))


WIDTH, HEIGHT = 200, 280  # a drawn card, in pixels
INDEX = (82, 110)  # its index centres from its middle, across and along
INDEX_SIZE = (24, 44)
SIX = [(u, v) for u in (-45, 45) for v in (-90, 0, 90)]
NINE = [(u, v) for u in (-45, 45) for v in (-100, -33, 33, 100)] + [(0, -60)]


def drawn_card(pips, angle: float = 0.0, radius=12):
    """A white card on a dark table turned ``angle`` degrees, its pips drawn at ``pips`` (across,
    along, from its middle; ``radius`` a number or one per pip), and its two index boxes."""
    image = np.full((640, 640, 3), 60, np.uint8)
    turn = np.deg2rad(angle)
    across, along = np.array([np.cos(turn), np.sin(turn)]), np.array([-np.sin(turn), np.cos(turn)])

    def at(u, v):
        return np.array([320, 320]) + u * across + v * along

    outline = np.array([at(i * WIDTH / 2, j * HEIGHT / 2) for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    cv2.fillConvexPoly(image, np.round(outline).astype(np.int32), (235, 240, 240))
    radii = radius if isinstance(radius, list) else [radius] * len(pips)
    for (u, v), r in zip(pips, radii):
        cv2.circle(image, tuple(int(round(c)) for c in at(u, v)), r, (20, 20, 200), -1)
    boxes = []
    for sign in (-1, 1):
        middle = at(sign * INDEX[0], sign * INDEX[1])
        corners = np.array([middle + i * INDEX_SIZE[0] / 2 * across + j * INDEX_SIZE[1] / 2 * along
                            for i, j in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
        cv2.ellipse(image, tuple(int(round(c)) for c in middle), (8, 16), angle, 0, 360, (20, 20, 200), 3)  # its rank
        boxes.append((*corners.min(axis=0), *corners.max(axis=0)))
    return image, boxes


def blurred_card(design, code: str, card_px: float = 130.0, sigma: float = 3.5):
    """One card of a deck ``design`` (``datagen.card_art.Deck``) alone on a table, ``card_px``
    wide, as a dim webcam out of focus takes it: half as bright, blurred by ``sigma`` pixels, so
    its index corners are a blur and its pips still plain (bench/dim_webcam_singles.py)."""
    from cribcam.datagen.assets import make_assets
    from cribcam.datagen.camera import look_at
    from cribcam.datagen.layouts import Item, Layout
    from cribcam.datagen.scenes import compose

    assets = make_assets([design], 3, n_surfaces=1)
    deck = assets.decks[0]
    layout = Layout("single", [Item("card", 0.0, 0.0, 20.0, code)], aspect=deck.height / deck.width)
    camera = look_at((0.0, 0.0), card_px, tilt=10.0, azimuth=0.0, roll=0.0, size=640)
    sharp = compose(np.random.default_rng(1), layout, camera, deck, assets, {"name": "plain"},
                    photographic=False).image
    return (cv2.GaussianBlur(sharp, (0, 0), sigma) * 0.5).astype(np.uint8), sharp
