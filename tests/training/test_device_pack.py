"""`bin/train-on-device --out`: a pack replaces only an earlier pack, inside the checkout, and
only once its inputs are found (the pack itself is made in test_device_run.py)."""

import json

import pytest

from cribcam.settings import CHECKOUT
from cribcam.training import device_pack


@pytest.fixture
def checkout(tmp_path):
    root = tmp_path / "checkout"
    root.mkdir()
    return root


def earlier_pack(folder, cut=False):
    """A pack as ``pack`` leaves it: whole, or cut after its first file."""
    folder.mkdir(parents=True)
    (folder / "pack.json").write_text(json.dumps({"command": device_pack.device_command(8, ".devpack"),
                                                  "carry": [".devpack"]}))
    if not cut:
        (folder / "decks.tar").write_bytes(b"decks")
    return folder


def test_a_folder_holding_anything_else_is_never_emptied(checkout):
    precious = checkout / "notes"
    precious.mkdir()
    (precious / "thesis.txt").write_text("important")
    with pytest.raises(device_pack.PackError, match="is not a pack that bin/train-on-device made"):
        device_pack.pack(precious, checkout=checkout)
    assert (precious / "thesis.txt").read_text() == "important"
    (checkout / "a-file").write_text("x")
    with pytest.raises(device_pack.PackError, match="is not a pack"):
        device_pack.pack_place(checkout / "a-file", checkout)


def test_the_inputs_are_checked_before_an_earlier_pack_is_replaced(checkout, tmp_path):
    pack = earlier_pack(checkout / ".devpack")
    with pytest.raises(device_pack.PackError, match="no usable fonts under"):
        device_pack.pack(pack, fonts=tmp_path / "no-fonts", checkout=checkout)
    assert sorted(path.name for path in pack.iterdir()) == ["decks.tar", "pack.json"]


@pytest.mark.parametrize("made", ["missing", "empty", "an earlier pack", "a pack cut half-way"])
def test_the_device_call_names_the_pack_from_the_checkouts_root(checkout, made):
    out = checkout / "packs" / "first pack"
    if made == "empty":
        out.mkdir(parents=True)
    elif made != "missing":
        earlier_pack(out, cut=made == "a pack cut half-way")
    place = device_pack.pack_place(out, checkout)
    assert place == "packs/first pack"
    command = device_pack.device_command(2, place)
    assert "'packs/first pack'/wheels/*.whl" in command and "--pack 'packs/first pack' --out" in command


def test_a_pack_outside_the_checkout_is_refused_in_one_line(tmp_path, real_photos, capsys):
    outside = tmp_path / "pack"
    outside.mkdir()
    (outside / "thesis.txt").write_text("important")
    assert device_pack.main(["--out", str(outside), "--real", str(real_photos)]) == 2
    err = capsys.readouterr().err
    assert err == (f"train-on-device: --out {outside} is outside the checkout ({CHECKOUT}): "
                   f"the device call carries only folders inside it\n")
    assert [path.name for path in outside.iterdir()] == ["thesis.txt"]


def finder_in(checkout, which):
    path = checkout / device_pack.FINDERS[which]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(which.encode())
    return path


def test_the_run_continues_the_last_device_runs_finder_when_the_checkout_holds_one(checkout):
    finder_in(checkout, "shipped")
    assert device_pack.choose_finder(None, checkout) == "models/checkpoints/finder.pt"
    finder_in(checkout, "device")
    assert device_pack.choose_finder(None, checkout) == "models/checkpoints/device-finder.pt"
    assert device_pack.choose_finder("shipped", checkout) == "models/checkpoints/finder.pt"
    command = device_pack.device_command(8, ".devpack", device_pack.choose_finder(None, checkout))
    assert command.endswith("--minutes 8 --finder-from models/checkpoints/device-finder.pt")


def test_a_device_finder_asked_for_and_missing_is_said_in_one_line(checkout, real_photos, capsys, monkeypatch):
    finder_in(checkout, "shipped")
    with pytest.raises(device_pack.PackError, match="no models/checkpoints/device-finder.pt in the checkout"):
        device_pack.choose_finder("device", checkout)
    monkeypatch.setattr(device_pack, "CHECKOUT", checkout)  # the command's checkout, which holds no device finder
    assert device_pack.main(["--finder", "device", "--real", str(real_photos)]) == 2
    assert capsys.readouterr().err == (f"train-on-device: --finder device: no models/checkpoints/device-finder.pt in "
                                       f"the checkout ({checkout}) to continue\n")
