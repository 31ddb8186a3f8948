"""Playing-card art for the synthetic data: render and check SVG card decks.

Most decks come from Debian's ``gnome-cards-data`` (aisleriot themes) and
``kdegames-card-data-kf5`` (KDE card decks), installed as system packages
(``.ci/install-system-packages`` installs them; this module reads their files and never
runs apt); a few newer Aisleriot designs, not in Debian 12, are kept in the data package
(``datasets/designs/``). ``datasets/decks.json`` lists which decks are used, their split
(train, held out, or lettered: other letters than A, J, Q, K, read only by the teaching
benches) and why the others are left out. The rendering is cached on disk: one PNG per rendered
card and a ``meta.json`` per deck holding the located index corners, so a second
:func:`load_decks` only decodes PNGs, and needs no package installed.

Cache layout (``<cache>`` is ``datasets/cache/decks`` unless overridden)::

    <cache>/render/<deck>/w<width>/AC.png ... back.png, meta.json
"""

from __future__ import annotations

import fnmatch
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from cribcam.bundled import DATASETS_DIR
from cribcam.datagen.art_corners import CORNER_VERSION, CornerError, locate_corners

# Re-exported: card codes in the classifier's order, suit-major, ace first ("AC" ... "KS").
from cribcam.scoring.cards import CARD_CODES, RANKS, SUITS
from cribcam.settings import deck_cache_dir

__all__ = [
    "CARD_CODES",
    "RANKS",
    "SUITS",
    "Deck",
    "DeckArtError",
    "deck_licence",
    "element_id",
    "install_hint",
    "load_decks",
    "load_manifest",
    "manifest_decks",
    "missing_packages",
    "package_licence",
    "rendered",
    "svg_file",
]

MANIFEST_PATH = DATASETS_DIR / "decks.json"
# Where the card packages are installed: the manifest's paths (``usr/share/...``) are under it.
PACKAGE_ROOT = Path("/")
# The splits a deck may have. The data build draws the first two; lettered decks print other
# letters than A, J, Q, K (the manifest's ``letters``) and are read only by the teaching benches.
SPLITS = ("train", "heldout", "lettered")

# Bump when the rendered PNGs change, so stale caches are rebuilt.
RENDER_VERSION = 1
# The probe render only has to find the card on the element's canvas: ~64 px is plenty.
PROBE_WIDTH = 64
# Cards are rendered at this multiple of the target width, then area-downsampled to it:
# exact sizes without resampling blur, and smoother edges than rsvg's own antialiasing.
SUPERSAMPLE = 2
# A card whose rendered aspect ratio is off by more than this is a failed crop, not art.
MAX_ASPECT_ERROR = 0.06

# Element id of the card back in both Debian packages' decks.
BACK_ID = "back"
_RANK_IDS = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
_SUIT_IDS = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}


@dataclass
class Deck:
    """One rendered deck design.

    Attributes:
        name: Deck name from the manifest, e.g. ``"kde-svg-nicu-ornamental"``.
        split: ``"train"``, ``"heldout"`` (designs never shown to the reader's training) or
            ``"lettered"`` (other letters than A, J, Q, K; never trained on either).
        licence: Licence of the art, from the package's copyright file and the SVG metadata.
        cards: Card code -> BGRA uint8 image; all cards of a deck have the same size.
            Alpha is 0 outside the card's rounded corners.
        back: BGRA card back of the same size, or None if the deck's back did not render.
        corners: Card code -> index boxes ``(x1, y1, x2, y2)`` in that card's pixels:
            top-left and bottom-right, plus top-right and bottom-left for decks that
            print indices in all four corners.
        dark: True if the card face is dark (light print on a dark face).
        letters: What a lettered deck prints for the ranks it letters (``{"J": "W", ...}``);
            empty for every other deck.
    """

    name: str
    split: str
    licence: str
    cards: dict[str, np.ndarray] = field(repr=False)
    back: np.ndarray | None = field(repr=False)
    corners: dict[str, list[tuple[float, float, float, float]]] = field(repr=False)
    dark: bool = False
    letters: dict[str, str] = field(default_factory=dict)


class DeckArtError(RuntimeError):
    """Deck art could not be rendered (a tool or a card package is not installed)."""


def element_id(code: str, style: str) -> str:
    """SVG element id of a card in a deck file, or its file's name in a deck of one file a card.

    Args:
        code: Card code such as ``"TH"``.
        style: ``"gnome"`` (``heart_10``), ``"kde"`` (``10_heart``) or ``"files"`` (``TH``: the
            deck's ``path`` is a folder of ``TH.svgz`` and the like, and ``back.svgz``).
    """
    if style == "files":
        return code
    rank = _RANK_IDS.get(code[0], code[0])
    suit = _SUIT_IDS[code[1]]
    return f"{suit}_{rank}" if style == "gnome" else f"{rank}_{suit}"


def load_manifest(path: str | Path = MANIFEST_PATH) -> dict:
    """Read the deck manifest (``datasets/decks.json``)."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def load_decks(
    split: str | None = None,
    cache_dir: str | Path | None = None,
    width: int = 240,
    progress: bool = True,
) -> list[Deck]:
    """Render (rsvg-convert, cached) and check every usable deck of the manifest.

    Decks whose index corners cannot be located or fail the checks are left out with
    a message on stderr, never returned with doubtful boxes.

    Args:
        split: ``"train"``, ``"heldout"``, ``"lettered"``, or None for the decks the data build
            draws (train and held out).
        cache_dir: Cache folder; default ``cribcam.settings.deck_cache_dir()``.
        width: Card width in pixels; the height follows the deck's aspect ratio.
        progress: Show a progress bar.

    Returns:
        The decks of the manifest that passed, in manifest order.

    Raises:
        DeckArtError: A deck has to be rendered and a tool or card package is not installed
            (the message says which package to install).
        ValueError: ``split`` is not one of the above.
    """
    cache = Path(cache_dir) if cache_dir is not None else deck_cache_dir()
    entries = manifest_decks(split)
    missing = missing_packages([e for e in entries if not rendered(e, cache, width)])
    if missing:
        raise DeckArtError(f"decks are not rendered yet in {cache}, and {install_hint(missing)}")
    decks = []
    for entry in tqdm(entries, desc="decks", unit="deck", disable=not progress, file=sys.stderr):
        deck = _load_deck(entry, cache, width)
        if deck is not None:
            decks.append(deck)
    return decks


def manifest_decks(split: str | None) -> list[dict]:
    """The manifest's decks of one split (None: train and held out, the decks the data build draws).

    Raises:
        ValueError: ``split`` is not one of ``SPLITS`` or None.
    """
    if split not in (None, *SPLITS):
        raise ValueError(f"split must be one of {', '.join(SPLITS)} or None, not {split!r}")
    wanted = (split,) if split else SPLITS[:2]
    return [e for e in load_manifest()["decks"] if e["split"] in wanted]


def rendered(entry: dict, cache: Path, width: int) -> bool:
    """Whether the cache holds this manifest deck rendered as this module renders it now."""
    meta = _read_meta(cache / "render" / entry["name"] / f"w{width}" / "meta.json")
    return meta.get("render_version") == RENDER_VERSION and meta.get("path") == entry["path"]


def _read_meta(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):  # none yet, or cut short: rendered again
        return {}


def _load_deck(entry: dict, cache: Path, width: int) -> Deck | None:
    """Load one deck from the cache, rendering and locating corners where the cache is stale."""
    folder = cache / "render" / entry["name"] / f"w{width}"
    meta_path = folder / "meta.json"
    if rendered(entry, cache, width):
        meta = _read_meta(meta_path)
    else:
        meta = _render_deck(entry, folder, width)
    if meta.get("render_error"):
        _report(entry["name"], meta["render_error"])
        return None
    cards = None
    if meta.get("corner_version") != CORNER_VERSION:
        cards = _read_cards(folder)
        try:
            meta["corners"], meta["corner_error"] = locate_corners(cards), None
        except CornerError as err:
            meta["corners"], meta["corner_error"] = None, str(err)
        meta["corner_version"] = CORNER_VERSION
        meta_path.write_text(json.dumps(meta, indent=1))
    if meta["corner_error"]:
        _report(entry["name"], f"its card art shows no index corner cribcam can place "
                               f"({meta['corner_error']})")
        return None  # a cached rejection needs no images (a cache may travel without them)
    if cards is None:
        cards = _read_cards(folder)
    back_path = folder / "back.png"
    return Deck(
        name=entry["name"],
        split=entry["split"],
        licence=meta["licence"],
        cards=cards,
        back=_read_png(back_path) if back_path.exists() else None,
        corners={code: [tuple(box) for box in boxes] for code, boxes in meta["corners"].items()},
        dark=entry["dark"],
        letters=entry.get("letters", {}),
    )


def _report(name: str, message: str) -> None:
    # Said as a player reads it: which design the set goes without, and why.
    tqdm.write(f"the deck design {name} is left out: {message}", file=sys.stderr)


def _read_cards(folder: Path) -> dict[str, np.ndarray]:
    return {code: _read_png(folder / f"{code}.png") for code in CARD_CODES}


def _read_png(path: Path) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim != 3 or image.shape[2] != 4:
        raise DeckArtError(f"{path} is not a BGRA PNG; delete the cache folder and retry")
    return image


# --- the installed packages ------------------------------------------------------------


def missing_packages(entries: list[dict]) -> list[str]:
    """The Debian packages of these manifest decks that are not installed, in manifest order.

    The data build only reads the installed SVG files: it never runs apt, so a fresh machine
    installs the packages first (``sudo apt-get install gnome-cards-data
    kdegames-card-data-kf5``, or ``bash .ci/install-system-packages``).
    """
    return list(dict.fromkeys(e["package"] for e in entries if e["package"] and not svg_file(e).is_file()))


def svg_file(entry: dict) -> Path:
    """Where a manifest deck's SVG is (its folder, for a deck of one file a card): in its installed
    package, or in the data package (``package`` null: kept in ``datasets/designs/``)."""
    return PACKAGE_ROOT / entry["path"] if entry["package"] else DATASETS_DIR / entry["path"]


def install_hint(packages: list[str]) -> str:
    """The sentence naming the card packages to install, said by every error that lacks them."""
    return (f"the card art comes from the Debian package{'s' if len(packages) != 1 else ''} "
            f"{' and '.join(packages)}, not installed: sudo apt-get install {' '.join(packages)}")


def _package_version(package: str) -> str:
    """The installed version, kept in a rendered deck's meta.json as a record of its source."""
    return subprocess.run(["dpkg-query", "--show", "--showformat=${Version}", package],
                          check=True, capture_output=True, text=True).stdout.strip()


def package_licence(copyright_text: str, path: str) -> str:
    """Licence of one file according to a machine-readable Debian copyright file.

    Args:
        copyright_text: Contents of ``/usr/share/doc/PKG/copyright`` (DEP-5 format).
        path: The file's path in the upstream tree, e.g. ``carddecks/svg-standard/standard.svgz``;
            an installed path works too, since ``Files: carddecks/...`` patterns are also tried
            against each of its suffixes.

    Returns:
        The short licence name of the last matching ``Files`` stanza (DEP-5: last match wins),
        or ``""`` if none matches.
    """
    parts = path.split("/")
    suffixes = ["/".join(parts[i:]) for i in range(len(parts))]
    licence = ""
    for stanza in re.split(r"\n\s*\n", copyright_text):
        files = re.search(r"^Files:(.*(?:\n[ \t].*)*)", stanza, re.MULTILINE)
        lic = re.search(r"^License:[ \t]*(.+)$", stanza, re.MULTILINE)
        if not files or not lic:
            continue
        patterns = files.group(1).split()
        if any(fnmatch.fnmatchcase(s, p) for p in patterns for s in suffixes):
            licence = lic.group(1).strip()
    return licence


def _svg_licence(svg: Path) -> str:
    """Licence URL from the SVG's Creative Commons metadata, or ``""``."""
    text = _svg_text(svg)
    match = re.search(r"<cc:license[^>]*?resource=\"([^\"]+)\"", text)
    return match.group(1) if match else ""


def _svg_text(svg: Path) -> str:
    data = svg.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


def deck_licence(entry: dict, package_root: Path) -> str:
    """Licence string of a manifest deck: Debian copyright licence, plus the SVG's own if it names one.

    A deck kept in the data package has its licence in the manifest (from the upstream notice
    in ``datasets/designs/*/README.md``)."""
    if not entry["package"]:
        return entry["licence"]
    copyright_text = (package_root / "usr/share/doc" / entry["package"] / "copyright").read_text()
    licence = package_licence(copyright_text, entry["path"].removeprefix("usr/share/"))
    svg_licence = _svg_licence(package_root / entry["path"])
    return f"{licence} (SVG metadata: {svg_licence})" if svg_licence else licence


# --- rendering ------------------------------------------------------------------------


def _rsvg(svg: Path, element: str, zoom: float, window: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """Render one SVG element with rsvg-convert.

    Args:
        svg: SVG or SVGZ file; or the folder of a deck of one file a card, whose file
            ``element.svgz`` is rendered whole.
        element: Element id (the file's name in a folder).
        zoom: Scale factor from SVG user units to pixels.
        window: ``(x, y, w, h)`` part of the element's canvas to render, in output pixels;
            None renders the whole canvas (the element's extent, which may be far larger
            than the card when a deck has invisible stray content in the group).

    Returns:
        BGRA image.
    """
    if svg.is_dir():
        svg, cmd = svg / f"{element}.svgz", ["rsvg-convert", f"--zoom={zoom:.6f}"]
    else:
        cmd = ["rsvg-convert", f"--export-id={element}", f"--zoom={zoom:.6f}"]
    if window is not None:
        x, y, w, h = window
        cmd += [f"--left={-x}", f"--top={-y}", f"--page-width={w}", f"--page-height={h}"]
    result = subprocess.run(cmd + [str(svg)], check=False, capture_output=True)
    if result.returncode != 0:
        raise DeckArtError(f"rsvg-convert failed on {svg.name}#{element}: {result.stderr.decode()[:200]}")
    image = cv2.imdecode(np.frombuffer(result.stdout, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None or image.shape[2] != 4:
        raise DeckArtError(f"rsvg-convert gave no RGBA PNG for {svg.name}#{element}")
    return image


def _card_box(image: np.ndarray) -> tuple[int, int, int, int]:
    """Bounding box ``(x, y, w, h)`` of the largest solid blob: the card itself.

    Faint content (soft shadows, near-transparent leftovers) is ignored by the alpha threshold.
    """
    solid = (image[:, :, 3] >= 128).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(solid, connectivity=8)
    if count < 2:
        raise DeckArtError("element rendered empty")
    x, y, w, h, _ = stats[1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))]
    return int(x), int(y), int(w), int(h)


def _render_deck(entry: dict, folder: Path, width: int) -> dict:
    """Render one deck's cards and back into ``folder`` and return its new meta record."""
    if shutil.which("rsvg-convert") is None:
        raise DeckArtError("rsvg-convert not found: install it with `apt-get install librsvg2-bin`")
    svg = svg_file(entry)
    ids = {code: element_id(code, entry["style"]) for code in CARD_CODES} | {"back": BACK_ID}
    meta = {
        "render_version": RENDER_VERSION,
        "path": entry["path"],
        "package": f"{entry['package']} {_package_version(entry['package'])}" if entry["package"] else entry["upstream"],
        "licence": deck_licence(entry, PACKAGE_ROOT),
    }
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        images = _render_cards(svg, ids, width)
        if entry.get("corner_radius"):
            images = {key: rounded(image, entry["corner_radius"]) for key, image in images.items()}
    except DeckArtError as err:
        meta["render_error"] = str(err)
    else:
        for key, image in images.items():
            cv2.imwrite(str(folder / f"{key}.png"), image)
        meta["render_seconds"] = round(time.perf_counter() - started, 1)
    (folder / "meta.json").write_text(json.dumps(meta, indent=1))
    return meta


def _render_cards(svg: Path, ids: dict[str, str], width: int) -> dict[str, np.ndarray]:
    """Render the 52 cards of ``ids`` (card code -> element id) and the back ``width`` pixels wide.

    A low-zoom probe of each element finds where the card lies on the element's canvas;
    the full-size render then covers only that window, which keeps decks whose groups
    have huge invisible extents fast. Each card is cropped to its own outline and resized
    to the deck's common size, as KDE does when it stretches elements to the card size.

    Returns:
        Card code -> BGRA image, plus ``"back"`` unless the back failed to render.

    Raises:
        DeckArtError: rsvg-convert failed on a card, or a card's shape is far from the deck's.
    """
    first_zoom = 0.25
    probe_zoom = first_zoom * PROBE_WIDTH / _card_box(_rsvg(svg, ids["AC"], first_zoom))[2]
    with ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        probes = dict(zip(CARD_CODES, pool.map(lambda c: _card_box(_rsvg(svg, ids[c], probe_zoom)), CARD_CODES)))
        probe_width = float(np.median([probes[c][2] for c in CARD_CODES]))
        probe_height = float(np.median([probes[c][3] for c in CARD_CODES]))
        size = (width, round(width * probe_height / probe_width))
        zoom = probe_zoom * SUPERSAMPLE * width / probe_width

        def full(code: str, probe: tuple[int, int, int, int]) -> np.ndarray:
            return _render_card(svg, ids[code], probe, probe_zoom, zoom, size, code)

        cards = dict(zip(CARD_CODES, pool.map(lambda c: full(c, probes[c]), CARD_CODES)))
    try:
        cards["back"] = full("back", _card_box(_rsvg(svg, BACK_ID, probe_zoom)))
    except DeckArtError as err:
        tqdm.write(f"{svg.name}: no card back ({err})", file=sys.stderr)
    return cards


def _render_card(svg, element, probe, probe_zoom, zoom, size, name) -> np.ndarray:
    """Render the window of one element where its probe found the card, crop and resize it.

    Raises:
        DeckArtError: The card's aspect ratio is off the deck's by more than MAX_ASPECT_ERROR.
    """
    scale = zoom / probe_zoom
    x, y, w, h = probe
    pad = 3  # probe pixels: covers the probe's rounding
    window = (
        math.floor((x - pad) * scale),
        math.floor((y - pad) * scale),
        math.ceil((w + 2 * pad) * scale),
        math.ceil((h + 2 * pad) * scale),
    )
    image = _rsvg(svg, element, zoom, window)
    bx, by, bw, bh = _card_box(image)
    aspect = size[1] / size[0]
    error = abs(bh / bw - aspect) / aspect
    if error > MAX_ASPECT_ERROR:
        raise DeckArtError(f"{name} renders {bw}x{bh}, {error:.0%} off the deck's aspect ratio")
    return _resize_bgra(image[by : by + bh, bx : bx + bw], size)


def rounded(card: np.ndarray, radius: float) -> np.ndarray:
    """A BGRA card with its corners cut round, ``radius`` a share of its width: for a deck drawn
    square-cornered, to be clipped by a page's style, as no printed card is. Antialiased: the
    mask is drawn at four times the size and area-averaged down."""
    height, width = card.shape[:2]
    scale = 4
    r = round(radius * width * scale)
    mask = np.zeros((height * scale, width * scale), np.uint8)
    cv2.rectangle(mask, (r, 0), (width * scale - 1 - r, height * scale - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (width * scale - 1, height * scale - 1 - r), 255, -1)
    for x in (r, width * scale - 1 - r):
        for y in (r, height * scale - 1 - r):
            cv2.circle(mask, (x, y), r, 255, -1, lineType=cv2.LINE_AA)
    alpha = cv2.resize(mask, (width, height), interpolation=cv2.INTER_AREA).astype(np.uint16)
    out = card.copy()
    out[:, :, 3] = (out[:, :, 3].astype(np.uint16) * alpha // 255).astype(np.uint8)
    return out


def _resize_bgra(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Area-resize a straight-alpha BGRA image.

    Colours are premultiplied by alpha first: rsvg stores transparent pixels as black,
    and averaging those in unweighted would leave a dark fringe along the card outline.
    """
    alpha = image[:, :, 3:4].astype(np.float32) / 255.0
    premultiplied = np.concatenate([image[:, :, :3].astype(np.float32) * alpha, alpha * 255.0], axis=2)
    small = cv2.resize(premultiplied, size, interpolation=cv2.INTER_AREA)
    a = small[:, :, 3:4]
    colour = np.where(a > 0, small[:, :, :3] * 255.0 / np.maximum(a, 1e-6), 0.0)
    return np.clip(np.concatenate([colour, a], axis=2) + 0.5, 0, 255).astype(np.uint8)
