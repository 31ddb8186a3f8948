"""Where the commands write what they make (``--out``, ``--write-labels``, ``--annotate``,
``--sheet``), the same way for every command: a folder not there yet is made, as `cribcam data
build --out` has always made its own, and a place that cannot be written is said in one line."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from cribcam.cli.main import UsageError


def output_folder(folder: Path, option: str) -> Path:
    """``folder``, made with the folders above it when it is not there yet.

    Raises:
        UsageError: it cannot be made (a file is in the way, no permission).
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"{option} {folder}: the folder cannot be made ({exc.strerror or exc})") from None
    return folder


def output_file(path: Path, option: str) -> TextIO:
    """``path`` opened to write text (UTF-8), the folder it goes in made first.

    Raises:
        UsageError: it is a folder, or it or its folder cannot be written.
    """
    if path.is_dir():
        raise UsageError(f"{option} {path} is a folder: name a file to write")
    output_folder(path.parent, option)
    try:
        return path.open("w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot be written ({exc.strerror or exc})") from None
