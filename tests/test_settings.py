"""The user's settings, read in one place (cribcam/settings.py): the data folder, the games'
database, the finder's runtime."""

from pathlib import Path

from cribcam.settings import DATA_ENV, DB_ENV, RUNTIME_ENV, data_dir, database_url, openvino_allowed


def test_the_data_folder_is_the_xdg_one_unless_cribcam_data_is_set(tmp_path, monkeypatch):
    monkeypatch.delenv(DATA_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "cribcam"
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "mine"))
    assert data_dir() == tmp_path / "mine"


def test_the_data_folder_is_never_the_repository(monkeypatch):
    monkeypatch.delenv(DATA_ENV, raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    repository = Path(__file__).resolve().parents[1]
    assert data_dir() == Path.home() / ".local" / "share" / "cribcam"
    assert repository not in data_dir().parents


def test_the_games_database_is_in_the_data_folder_unless_cribcam_db_is_set(monkeypatch, tmp_path):
    monkeypatch.delenv(DB_ENV, raising=False)
    monkeypatch.delenv(DATA_ENV, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert database_url() == f"sqlite:///{tmp_path}/cribcam/games.sqlite3"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert database_url() == f"sqlite:///{tmp_path}/.local/share/cribcam/games.sqlite3"
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "club"))  # the whole data folder moved, decks and games
    assert database_url() == f"sqlite:///{tmp_path}/club/games.sqlite3"
    monkeypatch.setenv(DB_ENV, "sqlite:///elsewhere.sqlite3")
    assert database_url() == "sqlite:///elsewhere.sqlite3"


def test_openvino_is_turned_off_by_naming_onnxruntime(monkeypatch):
    monkeypatch.delenv(RUNTIME_ENV, raising=False)
    assert openvino_allowed()
    monkeypatch.setenv(RUNTIME_ENV, "ONNXRuntime")
    assert not openvino_allowed()
