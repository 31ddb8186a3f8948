"""What a training run on a lent GPU machine needs and that machine lacks, packed here.

The device machine (the tool library's ``device``) has torch, OpenCV, NumPy, onnx,
onnxruntime, Pillow and fontTools, but no ultralytics, no deck art (rendered here by
rsvg-convert from Debian's packages), no fonts and no shared real photos, and it reaches no
network. ``pack`` writes them into one folder of the checkout (``.devpack`` by default, which
git ignores), which the device call carries beside the checkout:

    wheels/        ultralytics and ultralytics-thop, as pip downloads them for Python 3.12
    decks.tar      the training designs' rendered cards, as WebP, with their meta.json
    fonts.tar.xz   the training typefaces, cut down to the glyphs the font decks print
    real.tar       the real *training* photos as WebP, split by capture as `cribcam data real`
                   splits them (the validation photos never leave this machine)
    pack.json      what is packed, with sizes and licences, and the device call to make
                   (written first, so that a pack cut half-way is still known for one)

The finder the run continues travels in the checkout, not the pack: the last device run's,
``models/checkpoints/device-finder.pt``, when one is there (docs/training.md says how one is
brought back), else the shipped ``models/checkpoints/finder.pt``; the device call names it.
Everything travels with the checkout, whose limit is 64 MiB: ``pack`` fails before the call
would. ``training.device_run`` unpacks it there. A pack replaces only an earlier pack: a folder
holding anything else is refused, as is one outside the checkout (it could not travel).
"""

from __future__ import annotations

import io
import json
import multiprocessing
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
from importlib import metadata
from pathlib import Path

import cv2

from cribcam.datagen.card_art import load_decks, manifest_decks
from cribcam.datagen.font_decks import ALPHABETS, FONT_ROOT, SUIT_TEXT, find_fonts
from cribcam.settings import CHECKOUT, DEVICE_PACK_DIR, deck_cache_dir, default_real_photos

TRAVEL_LIMIT = 64 * 2**20  # the device call's working tree, tracked files included
TRAVEL_MARGIN = 2 * 2**20  # for files added after packing (a note, a test)
DECK_WIDTH = 240  # the rendered card width the data builder loads
# Lossy, as the scenes' and photos' own JPEG is; what it takes to travel. Measured on the shared
# photos: q75 is 7.9 MB for all 327 (their JPEGs 14 MB), a mean error of 1.8 levels. The card art
# at 75 rather than 85 is a fifth smaller (decks.tar 7.8 -> 6.3 MB), its cards' PSNR 37.8 against
# 38.9 dB (median of 120 drawn at random); the 1.5 MB is room for what the checkout gains, which
# left 0.4 MiB at 85 (2026-11-29).
ART_QUALITY = 75
PHOTO_QUALITY = 75
WHEELS = ("ultralytics", "ultralytics-thop")
# The glyphs font decks print: ranks, the lettered decks' letters, JOKER and the suits.
FONT_TEXT = "A23456789JQK10JOKER" + "".join(sorted({c for a in ALPHABETS.values() for t in a.values() for c in t})) \
    + "".join(SUIT_TEXT.values())
# The finders a run may continue, from the checkout's root: the last device run's, or the shipped one.
FINDERS = {"device": "models/checkpoints/device-finder.pt", "shipped": "models/checkpoints/finder.pt"}
PIP_PLATFORM = ["--python-version", "3.12", "--implementation", "cp", "--platform", "manylinux_2_28_x86_64",
                "--platform", "manylinux2014_x86_64", "--platform", "any"]


class PackError(RuntimeError):
    """The pack cannot be made (a missing tool or input, or too large to travel)."""


def device_command(minutes: float, pack_dir: str, finder: str = FINDERS["shipped"]) -> str:
    """The shell command the device call runs, in the checkout's root there; ``pack_dir`` and
    ``finder`` (the checkpoint the run continues): their paths from that root."""
    pack_dir = shlex.quote(pack_dir)
    return (f"python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "
            f"{pack_dir}/wheels/*.whl && PYTHONPATH=/tmp/site:. PYTHONUNBUFFERED=1 timeout {int(minutes * 60 + 45)} "
            f"python3 -m cribcam.training.device_run --pack {pack_dir} --out \"$OUT\" --minutes {minutes:g} "
            f"--finder-from {shlex.quote(finder)}")


def choose_finder(choice: str | None, checkout: Path = CHECKOUT) -> str:
    """The finder checkpoint a run continues, as ``FINDERS`` names it from the checkout's root:
    ``choice`` ("device" or "shipped"), or None for the last device run's when the checkout
    holds one, else the shipped one. Raises ``PackError`` for one the checkout lacks."""
    choice = choice or ("device" if (checkout / FINDERS["device"]).is_file() else "shipped")
    if not (checkout / FINDERS[choice]).is_file():
        raise PackError(f"no {FINDERS[choice]} in the checkout ({checkout}) to continue")
    return FINDERS[choice]


def pack(out: Path = DEVICE_PACK_DIR, real: Path | None = None, fonts: Path = FONT_ROOT, minutes: float = 8.0,
         wheels_from: Path | None = None, checkout: Path = CHECKOUT, log=print, finder: str | None = None) -> dict:
    """Writes the pack into ``out`` (an earlier pack there is replaced) and returns what
    ``pack.json`` records. The inputs and ``out`` are checked before anything is written.

    Args:
        real: the shared real photos (``labels.json`` and ``images/``), or None for none.
        fonts: where the training typefaces are installed (`bin/install-training-fonts`).
        minutes: the run's length there, written into the device command.
        wheels_from: a folder that holds the wheels, which pip then takes from it alone, with
            no network (as the tests do); None: pip downloads them (`bin/train-on-device`, at
            pack time: the run on the device installs them from the pack).
        checkout: the checkout the pack travels with, which must hold ``out``.
        finder: the finder the run continues, as ``choose_finder`` takes it.

    Raises:
        PackError: as the class says.
    """
    place = pack_place(out, checkout)
    typefaces = usable_fonts(fonts)
    pins = wheel_pins()
    finder_from = choose_finder(finder, checkout)
    if finder_from not in travelling_files(checkout):
        raise PackError(f"{finder_from} would not travel: git ignores it (commit it, or pack with the shipped finder)")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    record = {"command": device_command(minutes, place, finder_from), "carry": [place], "finder": finder_from}
    (out / "pack.json").write_text(json.dumps(record, indent=1) + "\n")
    record = {"wheels": pack_wheels(out / "wheels", pins, wheels_from),
              "decks": pack_decks(out / "decks.tar"),
              "fonts": pack_fonts(out / "fonts.tar.xz", typefaces, fonts),
              "real": pack_real(out / "real.tar", real) if real is not None else None, **record}
    record["bytes"] = sum(path.stat().st_size for path in out.rglob("*") if path.is_file())
    (out / "pack.json").write_text(json.dumps(record, indent=1) + "\n")
    check_travel_size(out, checkout)
    log(f"pack: {record['bytes'] / 2**20:.1f} MiB in {out}; the run continues {finder_from}")
    return record


def pack_place(out: Path, checkout: Path = CHECKOUT) -> str:
    """``out`` as the device call names it, from the checkout's root (what it carries is
    there); raises ``PackError`` for a folder outside the checkout, or one that holds
    anything but an earlier pack (which ``pack`` empties)."""
    try:
        place = out.resolve().relative_to(checkout.resolve()).as_posix()
    except ValueError:
        raise PackError(f"{out} is outside the checkout ({checkout}): the device call carries only folders "
                        f"inside it") from None
    if out.exists() and not (out.is_dir() and (_is_pack(out) or not any(out.iterdir()))):
        raise PackError(f"{out} is not a pack that bin/train-on-device made, and a pack would replace "
                        f"what it holds: give a new or empty folder")
    return place


def _is_pack(folder: Path) -> bool:
    """Whether ``folder`` is a pack (its pack.json, written first, names the device run)."""
    try:
        return "cribcam.training.device_run" in json.loads((folder / "pack.json").read_text())["command"]
    except (OSError, ValueError, KeyError, TypeError):
        return False


def wheel_pins() -> list[str]:
    """The installed versions of ``WHEELS``, as pip pins them."""
    try:
        return [f"{name}=={metadata.version(name)}" for name in WHEELS]
    except metadata.PackageNotFoundError as missing:
        raise PackError(f"{missing.name} is not installed here: pip install -e '.[train]'") from None


def pack_wheels(out: Path, pins: list[str], source: Path | None = None) -> list[str]:
    """pip downloads ``pins`` (``wheel_pins``) for the device's Python into ``out``: from the
    package index, or, given a ``source`` folder, from that folder alone."""
    out.mkdir(parents=True, exist_ok=True)
    where = ["--no-index", "--find-links", str(source)] if source is not None else []
    result = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                             "--no-deps", "--only-binary=:all:", *where, *PIP_PLATFORM, "-d", str(out), *pins],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise PackError(f"pip download {' '.join(pins)}{f' from {source}' if source else ''} failed: "
                        f"{result.stderr.strip()[-400:]}")
    return sorted(path.name for path in out.glob("*.whl"))


def pack_decks(tar_path: Path, cache: Path | None = None) -> list[dict]:
    """The training designs' cards as WebP (alpha kept) with each deck's meta.json, as
    ``render/<deck>/w240/`` of the deck cache; a deck whose corners were rejected travels as
    its meta.json alone, as the cache keeps it. Renders what the cache lacks first."""
    cache = cache or deck_cache_dir()
    load_decks(split="train", cache_dir=cache, width=DECK_WIDTH, progress=False)
    packed = []
    with tarfile.open(tar_path, "w") as tar:
        for entry in manifest_decks("train"):  # held-out and lettered designs never reach training
            folder = cache / "render" / entry["name"] / f"w{DECK_WIDTH}"
            meta = json.loads((folder / "meta.json").read_text())
            arcname = f"render/{entry['name']}/w{DECK_WIDTH}"
            tar.add(folder / "meta.json", f"{arcname}/meta.json")
            usable = not (meta.get("render_error") or meta.get("corner_error"))
            for png in sorted(folder.glob("*.png")) if usable else []:
                _add_webp(tar, f"{arcname}/{png.stem}.webp", png, ART_QUALITY)
            packed.append({"name": entry["name"], "licence": meta.get("licence"), "usable": usable})
    return packed


def unpack(pack_dir: Path, into: Path) -> dict[str, Path]:
    """The other end of ``pack``, in ``into``: "decks", a deck cache as the data builder reads
    it (PNGs; set ``CRIBCAM_CACHE`` to ``into``), "fonts", the typefaces in one folder, and
    "real", the real training photos as a data set (JPEGs)."""
    places = {"decks": into / "decks", "fonts": into, "real": into}  # fonts/ and real/ are in their tars
    for tar_name, key in (("decks.tar", "decks"), ("fonts.tar.xz", "fonts"), ("real.tar", "real")):
        if (pack_dir / tar_name).is_file():
            with tarfile.open(pack_dir / tar_name) as tar:
                tar.extractall(places[key], filter="data")
    for webp in (into / "decks").rglob("*.webp"):  # BGRA, as the deck cache holds them
        image = cv2.imread(str(webp), cv2.IMREAD_UNCHANGED)
        if image.shape[2] == 3:  # WebP drops an alpha that is opaque everywhere
            image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
        cv2.imwrite(str(webp.with_suffix(".png")), image, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        webp.unlink()
    for webp in (into / "real").rglob("*.webp"):
        cv2.imwrite(str(webp.with_suffix(".jpg")), cv2.imread(str(webp)), [cv2.IMWRITE_JPEG_QUALITY, 95])
        webp.unlink()
    return {"decks": into / "decks", "fonts": into / "fonts", "real": into / "real"}


def usable_fonts(root: Path) -> list[Path]:
    """Every typeface under ``root`` that ``font_decks`` can use; raises ``PackError`` when
    there are none (or none for the suits)."""
    ranks, suits = find_fonts(root)
    if not ranks or not suits:
        raise PackError(f"no usable fonts under {root}: run bin/install-training-fonts")
    return ranks


def pack_fonts(tar_path: Path, ranks: list[Path], root: Path) -> dict:
    """The typefaces ``ranks`` (``usable_fonts`` of ``root``), cut down to ``FONT_TEXT``'s
    glyphs (a few KB each instead of a few hundred), flat in one folder."""
    with multiprocessing.get_context("fork").Pool() as pool:
        subsets = pool.map(_font_subset, ranks)
    names = set()
    with tarfile.open(tar_path, "w:xz") as tar:
        for path, data in zip(ranks, subsets):
            if data is None or path.name in names:
                continue  # fontTools cannot cut it, or a font of that file name is packed already
            names.add(path.name)
            _add_bytes(tar, f"fonts/{path.name}", data)
    return {"typefaces": len(names), "from": str(root),
            "licences": "each package's /usr/share/doc/PACKAGE/copyright (bin/install-training-fonts)"}


def _font_subset(path: Path) -> bytes | None:
    import logging

    from fontTools import subset
    from fontTools.ttLib import TTFont

    logging.getLogger("fontTools").setLevel(logging.ERROR)  # a line for each quirk of 600 files

    options = subset.Options()
    options.hinting, options.layout_features, options.notdef_outline = False, [], True
    options.name_IDs = ["*"]  # the names say which typeface it is
    try:
        font = TTFont(path, fontNumber=0)
        subsetter = subset.Subsetter(options)
        subsetter.populate(text=FONT_TEXT)
        subsetter.subset(font)
        data = io.BytesIO()
        font.save(data)
    except Exception:  # a font fontTools cannot cut is left out, as find_fonts leaves out what it cannot read
        return None
    return data.getvalue()


def pack_real(tar_path: Path, real: Path) -> dict:
    """The real photos' training part, as `cribcam data real` splits them by capture."""
    from cribcam.datagen.real_photos import convert

    with tempfile.TemporaryDirectory(prefix="devpack-real-") as scratch:
        counts = convert(real, Path(scratch) / "real")
        with tarfile.open(tar_path, "w") as tar:
            for name in ("labels/train", "meta/train", "labels-train.json", "ATTRIBUTION.txt"):
                tar.add(Path(scratch) / "real" / name, f"real/{name}")
            for photo in sorted((Path(scratch) / "real" / "images" / "train").glob("*.jpg")):
                _add_webp(tar, f"real/images/train/{photo.stem}.webp", photo, PHOTO_QUALITY)
    return {"train_photos": counts["train"], "from": str(real), "licence": "CC BY 4.0 (real/ATTRIBUTION.txt)"}


def _add_webp(tar: tarfile.TarFile, name: str, image_path: Path, quality: int) -> None:
    image = cv2.imread(str(image_path), cv2.IMREAD_UNCHANGED)
    ok, webp = cv2.imencode(".webp", image, [cv2.IMWRITE_WEBP_QUALITY, quality])
    if not ok:
        raise PackError(f"could not encode {image_path} as WebP")
    _add_bytes(tar, name, webp.tobytes())


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def travelling_files(checkout: Path = CHECKOUT) -> list[str]:
    """The checkout's files the device call sends: tracked, and untracked that git does not ignore."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=checkout, capture_output=True, check=True).stdout.decode().split("\0")
    return [name for name in listed if name and (checkout / name).is_file()]


def check_travel_size(pack_dir: Path, checkout: Path = CHECKOUT) -> int:
    """The bytes the device call would send (``travelling_files`` and the pack); raises
    ``PackError`` over the limit less a margin."""
    tree = sum((checkout / name).stat().st_size for name in travelling_files(checkout))
    packed = sum(path.stat().st_size for path in pack_dir.rglob("*") if path.is_file())
    if tree + packed > TRAVEL_LIMIT - TRAVEL_MARGIN:
        device = checkout / FINDERS["device"]
        among = (f"; {FINDERS['device']} ({device.stat().st_size / 2**20:.1f} MiB) travels in the checkout"
                 if device.is_file() else "")
        raise PackError(f"the checkout ({tree / 2**20:.1f} MiB) and the pack ({packed / 2**20:.1f} MiB) "
                        f"would not travel: at most {(TRAVEL_LIMIT - TRAVEL_MARGIN) / 2**20:.0f} MiB{among}")
    return tree + packed


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="bin/train-on-device", description="Pack what a training run on a lent GPU machine needs, and print "
                                                "the device call to make (the tool library's device: run).")
    parser.add_argument("--out", type=Path, default=DEVICE_PACK_DIR,
                        help="the pack folder, inside the checkout (it travels with it): a new or empty "
                             "folder, or an earlier pack, which is replaced (default .devpack)")
    parser.add_argument("--real", type=Path, default=default_real_photos(),
                        help="the shared real photos (default %(default)s)")
    parser.add_argument("--fonts", type=Path, default=FONT_ROOT, help="the training typefaces (default %(default)s)")
    parser.add_argument("--finder", choices=sorted(FINDERS),
                        help=f"the finder the run continues: the last device run's ({FINDERS['device']}) or the "
                             f"shipped one ({FINDERS['shipped']}); default the device run's when the checkout holds it")
    parser.add_argument("--minutes", type=float, default=8.0,
                        help="the run's length there, start to last file (default %(default)s; the device "
                             "allows 10 a command, 15 a session with the machine's start)")
    args = parser.parse_args(argv)
    if not (args.real / "labels.json").is_file():
        print(f"train-on-device: no real photos at {args.real} (labels.json and images/): pass --real DIR",
              file=sys.stderr)
        return 2
    if not 1 <= args.minutes <= 9:
        print("train-on-device: --minutes must be between 1 and 9 (10 a command, less the install)", file=sys.stderr)
        return 2
    try:
        pack_place(args.out)
    except PackError as error:
        print(f"train-on-device: --out {error}", file=sys.stderr)
        return 2
    try:
        choose_finder(args.finder, CHECKOUT)
    except PackError as error:
        print(f"train-on-device: --finder {args.finder}: {error}", file=sys.stderr)
        return 2
    try:
        record = pack(args.out, args.real, args.fonts, args.minutes, finder=args.finder)
    except PackError as error:
        print(f"train-on-device: {error}", file=sys.stderr)
        return 1
    call = {"command": record["command"], "carry": record["carry"], "timeout_s": int(args.minutes * 60 + 60)}
    print("The device call (the tool library's device: run), then the ship rule in models/README.md:")
    print(json.dumps(call, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
