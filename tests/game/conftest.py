"""Databases for the storage tests: a SQLite file, and a real PostgreSQL server when Debian's
``postgresql`` package is installed (started here on a unix socket in a temporary folder)."""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

_databases = itertools.count()


def _server_binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


@pytest.fixture(scope="session")
def postgres_server():
    """The URL prefix of a throw-away PostgreSQL server, stopped and deleted at the end."""
    binaries = _server_binaries()
    if binaries is None:
        pytest.skip("no PostgreSQL server (/usr/lib/postgresql/*/bin/initdb): "
                    "apt-get install postgresql to run the storage tests on it too")
    pytest.importorskip("psycopg", reason="pip install -e '.[postgres]' for the driver")
    folder = Path(tempfile.mkdtemp(prefix="cribcam-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root: run the server as postgres
        try:
            account = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root, and no postgres user to run the server as")
        os.chown(folder, account.pw_uid, account.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data = folder / "data"
    pg_ctl = [*as_user, str(binaries / "pg_ctl"), "-D", str(data)]
    subprocess.run([*as_user, str(binaries / "initdb"), "-D", str(data), "-U", "cribcam",
                    "--auth=trust", "-E", "UTF8", "--no-sync"], check=True, capture_output=True)
    # No TCP at all: a unix socket in the private folder; fsync off, the data is thrown away.
    subprocess.run([*pg_ctl, "-l", str(folder / "server.log"), "-w", "-o",
                    f"-k {folder} -c listen_addresses='' -c fsync=off", "start"],
                   check=True, capture_output=True)
    try:
        yield f"postgresql://cribcam@/{{database}}?host={folder}"
    finally:
        subprocess.run([*pg_ctl, "-m", "immediate", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path) -> str:
    """A fresh, empty database: a SQLite file, then a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'data' / 'games.sqlite3'}"
    server = request.getfixturevalue("postgres_server")
    import psycopg

    name = f"test{next(_databases)}"
    with psycopg.connect(server.format(database="postgres"), autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return server.format(database=name)
