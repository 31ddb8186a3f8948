"""Helpers of the web tests (a module of its own: every conftest.py is named "conftest")."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from cribcam.vision.reading import Reading, SeenCard
from cribcam.web.server import make_server, server_url
from image_tools import DATA, encode  # noqa: F401 (the web tests take them from here too)
from processes import stop_with_ctrl_c

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHOTOS = sorted(DATA.glob("*.jpg"))
LABELS = json.loads((DATA / "labels.json").read_text())

# Whether an input's placeholder fits inside it, in its own font (a page's JavaScript to evaluate on it).
PLACEHOLDER_FITS = """f => {
  const style = getComputedStyle(f), text = document.createElement("canvas").getContext("2d");
  text.font = style.font;
  return text.measureText(f.placeholder).width <= f.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
}"""


class StubReader:
    """Stands in for ``CardReader``: "reads" the given cards, laid out left to right; those in
    ``unsure`` as the reader reads a card it is not sure of (``"unsure": true``), and the
    ``unreadable`` boxes as marks where no card could be read, and the ``guesses`` after the
    cards as cards it could only guess; its ``problems`` are ``Problem``s, as the reader's.

    It records each call, so tests can see what the API asked of it.
    """

    def __init__(self, cards=("AS", "QH", "KC", "AC", "QS"), starter=None, problems=(), unsure=(), unreadable=(),
                 guesses=()):
        self.cards, self.starter, self.problems = list(cards), starter, tuple(problems)
        self.unsure, self.unreadable, self.guesses = set(unsure), tuple(unreadable), list(guesses)
        self.calls: list[tuple[tuple[int, ...], int | None]] = []
        self.starters: list[bool] = []  # each call's ``starter`` argument
        self.lock = threading.Lock()

    def read(self, image, expected=None, starter=True) -> Reading:
        with self.lock:
            self.calls.append((image.shape, expected))
            self.starters.append(starter)
        height, width = image.shape[:2]
        step = width / (len(self.cards) + len(self.guesses) + 1)
        seen = [SeenCard(card, 0.4 if card in self.unsure or guessed else 0.9,
                         ((step * (i + 0.6), height * 0.3, step * (i + 1.2), height * 0.45),),
                         unsure=card in self.unsure or guessed, guessed=guessed)
                for i, (card, guessed) in enumerate([(c, False) for c in self.cards] + [(c, True) for c in self.guesses])]
        return Reading(tuple(s for s in seen if not s.guessed), self.starter, self.problems, width, height,
                       self.unreadable, tuple(s for s in seen if s.guessed))


class LiveServer:
    """A waitress server on a free loopback port, run in a thread of this process."""

    def __init__(self, app, threads: int = 4, **options):
        """``options``: more of ``make_server``'s (its deadlines for slow clients, say)."""
        self.app = app
        self.server = make_server(app, "127.0.0.1", 0, threads, **options)
        self.url = server_url(self.server).rstrip("/")
        self.port = self.server.effective_port
        self.thread = threading.Thread(target=self.server.run, daemon=True, name="live-server")
        self.thread.start()

    def close(self) -> None:
        # Let the request threads finish, then close every socket from the loop's own thread
        # (closing them from here races with its select()), which ends the loop.
        self.server.task_dispatcher.shutdown(timeout=5)

        def close_all():
            for channel in list(self.server._map.values()):
                channel.close()

        try:
            self.server.trigger.pull_trigger(close_all)
        except OSError:
            # The loop's wake-up pipe is already closed (EBADF, seen now and then at teardown in
            # CI): it cannot be woken to close them itself, so they are closed from here.
            close_all()
        self.thread.join(timeout=5)


def serve(*args: str) -> subprocess.Popen:
    """Starts `cribcam serve ARGS` as its own process, its output piped as text."""
    return subprocess.Popen([sys.executable, "-m", "cribcam", "serve", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@contextmanager
def serving(*args: str):
    """`cribcam serve ARGS` while the block runs; Ctrl-C must then stop it cleanly (exit 0)."""
    process = serve(*args)
    try:
        yield process
    finally:
        stop_with_ctrl_c(process)


class CountingReader(StubReader):
    """A stand-in reader that records how many frames it reads at once."""

    def __init__(self, cards=()):
        super().__init__(cards=cards, starter=cards[-1] if cards else None)
        self.in_flight = self.most_at_once = 0
        self.last_size = None  # the last frame's (width, height)

    def show(self, cards) -> None:
        with self.lock:
            self.cards, self.starter = list(cards), (cards[-1] if cards else None)

    def read(self, image, expected=None, starter=True):
        with self.lock:
            self.in_flight += 1
            self.most_at_once = max(self.most_at_once, self.in_flight)
            self.last_size = (image.shape[1], image.shape[0])
        try:
            threading.Event().wait(0.01)  # a little reading time, so overlaps could happen
            return super().read(image, expected)
        finally:
            with self.lock:
                self.in_flight -= 1
