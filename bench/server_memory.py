"""The server's memory where issue 46 found it unbounded: taught decks, and images of many pixels.

Two parts, each on a `cribcam serve` of its own on loopback (``load_test.start_server``),
with the decks in a data folder of the bench's own (``CRIBCAM_DATA``), never the player's:

1. ``decks``: one photo read with the bundled reader (the baseline), then --decks decks
   taught through the teach API (four rendered layout photos each, one suit a photo, as the
   teach page sends them) and a photo read with each. The server's resident memory after
   each, and at the end against the baseline. Target: within 300 MB of it.
2. ``pixels``: one photo read (the baseline), then 16 PNGs of 7071 x 7071 pixels (a 142 KB
   file each, 150 MB decoded) sent to ``/api/read`` 8 at a time; the server's peak resident
   memory meanwhile (``VmHWM``). Target: below 1.5 GB.

Run from the repository root (the layouts are drawn from the deck art, as the tests draw them):

    python bench/server_memory.py [--decks 6] [--only decks|pixels] [--json out.json]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from load_test import PHOTOS, rss_mb, start_server  # noqa: E402 (beside this script)

from image_tools import png_bomb  # noqa: E402 (the tests' helpers, on the path just above)

PHOTO = PHOTOS / "webcam-5-cards.jpg"
SUITS = "CDHS"


def post(url: str, path: str, body: bytes, content_type: str, timeout: float = 600) -> tuple[int, dict]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request("POST", path, body=body, headers={"Content-Type": content_type})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


def get(url: str, path: str) -> tuple[int, dict]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def form(image: bytes, filename: str, **fields: str) -> tuple[bytes, str]:
    boundary = "benchmemoryboundary"
    body = b"".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
                    for key, value in fields.items())
    body += (f'--{boundary}\r\nContent-Disposition: form-data; name="image"; filename="{filename}"\r\n'
             f"Content-Type: application/octet-stream\r\n\r\n").encode() + image + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def read_photo(url: str, image: bytes, filename: str = "hand.jpg", **fields: str) -> int:
    status, answer = post(url, "/api/read", *form(image, filename, **fields))
    if status != 200 and not (status == 413 and filename.endswith(".png")):
        raise SystemExit(f"/api/read answered {status}: {answer}")
    return status


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise SystemExit("no VmHWM in /proc: this bench needs Linux")


def layouts(count: int) -> list[list[bytes]]:
    """``count`` decks' layout photos (four JPEGs each), drawn from the deck art's designs in turn."""
    from cribcam.datagen.card_art import load_decks
    from cribcam.datagen.layout_photos import render_layout

    designs = load_decks(progress=False)
    decks = []
    for k in range(count):
        design = designs[k % len(designs)]
        decks.append([cv2.imencode(".jpg", render_layout(design, suit, seed=100 * k + i)[0])[1].tobytes()
                      for i, suit in enumerate(SUITS)])
    return decks


def teach(url: str, name: str, photos: list[bytes]) -> dict:
    session = None
    for suit, photo in zip(SUITS, photos):
        fields = {"suit": suit, **({"session": session} if session else {})}
        status, answer = post(url, "/api/teach/photos", *form(photo, f"{suit}.jpg", **fields))
        if status != 200:
            raise SystemExit(f"/api/teach/photos answered {status}: {answer}")
        session = answer["session"]
    status, answer = post(url, "/api/teach/train", json.dumps({"session": session, "name": name, "names": {}}).encode(),
                          "application/json")
    if status != 202:
        raise SystemExit(f"/api/teach/train answered {status}: {answer}")
    while answer["stage"] not in ("done", "failed"):
        time.sleep(2)
        _, answer = get(url, f"/api/teach/status?session={session}")
    if answer["stage"] == "failed":
        raise SystemExit(f"teaching {name} failed: {answer['error']}")
    return answer


def decks_part(count: int) -> dict:
    photos = layouts(count)
    process, url = start_server(None, None)
    try:
        photo = PHOTO.read_bytes()
        read_photo(url, photo)
        before = rss_mb(process.pid)
        print(f"baseline, one photo read: {before:.0f} MB", flush=True)
        steps = []
        for k, deck in enumerate(photos):
            name = f"bench-{k + 1}"
            started = time.monotonic()
            taught = teach(url, name, deck)
            after_teaching = rss_mb(process.pid)
            read_photo(url, photo, deck=name)
            after_reading = rss_mb(process.pid)
            steps.append({"deck": name, "taught_s": round(time.monotonic() - started, 1),
                          "reads_better": taught.get("reads_better"),
                          "rss_after_teaching_mb": round(after_teaching), "rss_after_reading_mb": round(after_reading)})
            print(f"{name}: taught in {steps[-1]['taught_s']} s; {after_teaching:.0f} MB after teaching, "
                  f"{after_reading:.0f} MB after reading with it", flush=True)
        after = rss_mb(process.pid)
        return {"rss_before_mb": round(before), "rss_after_mb": round(after), "growth_mb": round(after - before),
                "peak_mb": round(peak_mb(process.pid)), "decks": steps}
    finally:
        process.terminate()
        process.wait(timeout=30)


def pixels_part(side: int = 7071, images: int = 16, at_once: int = 8) -> dict:
    bomb = png_bomb(side)
    process, url = start_server(None, None)
    try:
        read_photo(url, PHOTO.read_bytes())
        before = rss_mb(process.pid)
        with ThreadPoolExecutor(at_once) as pool:
            statuses = list(pool.map(lambda _: read_photo(url, bomb, "big.png"), range(images)))
        return {"png_bytes": len(bomb), "side": side, "images": images, "at_once": at_once,
                "statuses": sorted(set(statuses)), "rss_before_mb": round(before),
                "rss_after_mb": round(rss_mb(process.pid)), "peak_mb": round(peak_mb(process.pid))}
    finally:
        process.terminate()
        process.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", type=int, default=6, help="decks to teach (default 6)")
    parser.add_argument("--only", choices=("decks", "pixels"), help="run one part alone")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cribcam-bench-memory-") as data:
        os.environ["CRIBCAM_DATA"] = data  # the servers' decks, never the player's
        figures = {"load_average": round(os.getloadavg()[0], 1)}
        if args.only in (None, "pixels"):
            figures["pixels"] = pixels_part()
            print("pixels:", json.dumps(figures["pixels"]), flush=True)
        if args.only in (None, "decks"):
            figures["decks"] = decks_part(args.decks)
            print("decks:", json.dumps({k: v for k, v in figures["decks"].items() if k != "decks"}), flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
