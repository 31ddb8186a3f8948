"""Benchmark live pegging on generated clips of whole plays: every card read once, every peg right.

Run: python bench/bench_play.py [--clips 20] [--photos] [--model DIR] [--keep DIR] [--size WxH] [--only SEED ...]

Renders ``--clips`` clips of the play (``datagen.play_clips``: two to four players, the held-out
deck designs, seeds 0 to N-1, 10 frames a second, 1280x960 as the play's frames are taken,
``live.play.FRAME_SIZE``; with ``--photos``, ``datagen.photo_play_clips``:
each card a real photo of that one card, from the shared real photos' validation part as
``cribcam data real`` builds it, never trained on), follows each as ``cribcam live play`` does
(``live.play.follow_play``, the goes given at the frames the clip's record says) and compares
the events with the play the clip shows: the cards laid (each read once: none missed, none
doubled, none read as another), every event's count and pegs in order, and the delay from the
first frame a card lies still to its event (in frames, and in seconds at the clip's rate plus
the time the frames took to read here). A move refused (a card misread as one laid out of
turn, say) is counted apart: it changes nothing in the play. Issue 33's targets: every card read
once and every peg right on at least 20 clips; a peg at most 1 s after its card is laid, on 2
cores.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

import cv2

from cribcam.datagen.card_art import load_decks
from cribcam.datagen.photo_play_clips import single_card_photos, write_photo_play_clip
from cribcam.datagen.play_clips import PlaySpec, write_play_clip
from cribcam.game.table_play import TablePlay
from cribcam.live.desktop import frames as video_frames
from cribcam.live.play import FRAME_SIZE, follow_play, table_reader
from cribcam.vision import CardReader
from cribcam.vision.evaluate import load_labels

REAL = Path(__file__).resolve().parents[1] / "datasets" / "build" / "real"


def follow_clip(path: Path, record: dict, reader: CardReader) -> tuple[list[dict], float]:
    """The events of the play followed on the clip, and the seconds a frame took to follow."""
    players = list(record["players"])
    goes: dict[int, list[str]] = {}
    for said in record["goes"]:
        frame, player = said.split(":")
        goes.setdefault(int(frame), []).append(player)
    capture = cv2.VideoCapture(str(path))
    table = TablePlay(players, record["dealer"], record["hand_size"])
    read = table_reader(reader.read, table)
    started = time.perf_counter()
    events = list(follow_play(video_frames(capture), read, table, record["fps"], goes))
    capture.release()
    return events, (time.perf_counter() - started) / record["frames"]


def judge(record: dict, events: list[dict]) -> dict:
    """The clip's play against what was followed."""
    truth = record["steps"]
    # The play's steps as followed: a move refused changes nothing in the play (it is said, and
    # counted apart): a card misread as one laid out of turn, say.
    followed = [e for e in events if "refused" not in e and ("card" in e or e.get("go"))]
    laid = [e["card"] for e in followed if "card" in e]
    shown = [s["card"] for s in truth if "card" in s]
    same = [(t["event"]["said"], t["event"]["pegged"]) for t in truth] == \
        [(e.get("said"), e.get("pegged")) for e in followed]
    delays = [e["frame"] - t["frame"] for t, e in zip(truth, followed) if "card" in t and e.get("card") == t["card"]]
    return {"cards": len(shown), "missed": len(set(shown) - set(laid)), "doubled": len(laid) - len(set(laid)),
            "wrong": len(set(laid) - set(shown)), "refused": sum("refused" in e for e in events),
            "pegs_right": same, "delays": delays}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=20)
    parser.add_argument("--model", type=Path)
    parser.add_argument("--keep", type=Path, help="keep the clips in this folder (else each is deleted once followed)")
    parser.add_argument("--size", default="x".join(map(str, FRAME_SIZE)), help="the frames' WIDTHxHEIGHT")
    parser.add_argument("--only", type=int, nargs="+", help="only the clips of these seeds")
    parser.add_argument("--photos", action="store_true",
                        help="lay real photos of single cards (the validation part of --real) instead of drawn cards")
    parser.add_argument("--real", type=Path, default=REAL,
                        help="the real photos as `cribcam data real` builds them (default datasets/build/real)")
    args = parser.parse_args()
    if args.photos:
        if not (args.real / "labels-val.json").is_file():
            raise SystemExit(f"no real photos built at {args.real}: run `cribcam data real --out {args.real}`")
        photos = single_card_photos(args.real / "images" / "val", load_labels(args.real / "labels-val.json"))
        write = lambda path, spec: write_photo_play_clip(path, spec, photos)  # noqa: E731 (a one-line stand-in, named for what it stands for)
    else:
        decks = load_decks(split="heldout", progress=False)
        write = lambda path, spec: write_play_clip(path, spec, decks)  # noqa: E731 (a one-line stand-in, named for what it stands for)
    reader = CardReader(args.model)
    folder = args.keep or Path(tempfile.mkdtemp(prefix="bench-play-"))
    results, per_frame = [], []
    width, height = map(int, args.size.split("x"))
    for seed in args.only or range(args.clips):
        players = ("Ann", "Bob", "Cat", "Dan")[:2 + seed % 3]
        spec = PlaySpec(players=players, seed=seed, width=width, height=height)  # 4 cards each, as dealt
        path = folder / f"play-{seed}.y4m"
        record = write(path, spec)
        events, seconds = follow_clip(path, record, reader)
        if args.keep is None:  # 280 MB a clip at 1280x960
            path.unlink()
        result = judge(record, events)
        results.append(result)
        per_frame.append(seconds)
        print(f"clip {seed}: {len(players)} players, {record.get('deck', 'real photos')}, {result['cards']} cards: missed "
              f"{result['missed']}, doubled {result['doubled']}, read as another {result['wrong']}, refused "
              f"{result['refused']}; pegs {'all right' if result['pegs_right'] else 'NOT all right'}; "
              f"{seconds * 1000:.0f} ms a frame", flush=True)
    delays = [d for r in results for d in r["delays"]]
    clean = sum(not (r["missed"] or r["doubled"] or r["wrong"]) and r["pegs_right"] for r in results)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} "
          f"cores; frames {width}x{height}; {'clips' if args.keep else 'their records'} in {folder}")
    print(f"{clean} of {len(results)} clips: every card read once and every peg right; cards "
          f"{sum(r['cards'] for r in results)}, missed {sum(r['missed'] for r in results)}, doubled "
          f"{sum(r['doubled'] for r in results)}, read as another {sum(r['wrong'] for r in results)}; moves "
          f"refused {sum(r['refused'] for r in results)} (in {sum(bool(r['refused']) for r in results)} clips)")
    if delays:
        frame_s = statistics.median(per_frame)
        print(f"a card's event came {statistics.median(delays)} frames (median; most {max(delays)}) after it lay "
              f"still: {statistics.median(delays) / 10:.1f} s at 10 frames a second; a frame took "
              f"{frame_s * 1000:.0f} ms to follow here (median over the clips)")


if __name__ == "__main__":
    main()
