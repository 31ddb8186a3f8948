"""Games kept in a database (SQLAlchemy Core): SQLite by default, PostgreSQL for a club.

A game is stored as its setup and its log of entries, one row per entry: the log is the
truth, and the state is always replayed from it. Every change is one transaction that
checks the new entry against the replayed game before writing it, so a refused entry, or a
server killed half-way, leaves the saved game as it was. Every change bumps the game's
version, and a store keeps the games it replayed in memory by version: a game changed by
another server is read and replayed again, one unchanged is not. (Edit a database by hand
only with its servers stopped, or bump the game's version with it.)

The database is ``--db URL``, else the ``CRIBCAM_DB`` environment variable, else the file
``games.sqlite3`` in the user's data folder (``settings.data_dir``: ``$CRIBCAM_DATA``, else
``$XDG_DATA_HOME/cribcam``, by default ``~/.local/share/cribcam``), beside the taught decks. PostgreSQL: ``postgresql://user@host/dbname`` (needs
``pip install 'cribcam[postgres]'``).
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError

from cribcam.game import Game, GameError, Setup, replay, tally
from cribcam.game import undo as undo_entry
from cribcam.settings import database_url

REPLAYED_KEPT = 64  # games kept replayed in memory, the last used first (GameStore._replayed)
# An execution option that marks a transaction that writes (see _sqlite_transactions).
WRITES = "cribcam_writes"
PER_PAGE = 20  # games a page of the list of games, by default
MAX_PER_PAGE = 100

metadata = MetaData()
schema_version = Table("schema_version", metadata, Column("version", Integer, nullable=False))
matches = Table(
    "matches", metadata,
    Column("id", String(16), primary_key=True),
    Column("created", DateTime(timezone=True), nullable=False),
)
games = Table(
    "games", metadata,
    Column("id", String(16), primary_key=True),
    Column("match_id", String(16), ForeignKey("matches.id"), nullable=False, index=True),
    Column("number", Integer, nullable=False),  # 1 for the first game of its match
    Column("setup", JSON, nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    # When an entry was last added or undone (schema 2): the list of games is in this order.
    Column("changed", DateTime(timezone=True), nullable=True, index=True),
    # Bumped by every change to the game's log (schema 3): a server that replayed the game at
    # this version need not read its log again (GameStore._replayed).
    Column("version", Integer, nullable=False, server_default=text("0")),
)
entries = Table(
    "entries", metadata,
    Column("game_id", String(16), ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),  # 0, 1, 2...: the order of the log
    Column("entry", JSON, nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
)


def _create_v1(connection: Connection) -> None:
    # The tables as this cribcam defines them: a new database gets the later columns here
    # already, and the later migrations add only what is missing.
    metadata.create_all(connection, tables=[matches, games, entries])


def _changed_v2(connection: Connection) -> None:
    """``games.changed``: when the game last changed, set from its entries for the games
    kept before."""
    if "changed" not in {column["name"] for column in inspect(connection).get_columns("games")}:
        kind = games.c.changed.type.compile(dialect=connection.dialect)
        connection.execute(text(f"ALTER TABLE games ADD COLUMN changed {kind}"))
        connection.execute(text("CREATE INDEX ix_games_changed ON games (changed)"))
    last_entry = (select(func.max(entries.c.created)).where(entries.c.game_id == games.c.id)
                  .scalar_subquery())
    connection.execute(update(games).where(games.c.changed.is_(None))
                       .values(changed=func.coalesce(last_entry, games.c.created)))


def _version_v3(connection: Connection) -> None:
    """``games.version``: bumped by every change to a game's log."""
    if "version" not in {column["name"] for column in inspect(connection).get_columns("games")}:
        connection.execute(text("ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0"))


# Each migration takes the schema from its index to the next version; append, never edit.
MIGRATIONS = [_create_v1, _changed_v2, _version_v3]
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(GameError):
    """The database cannot be used: a bad URL, a missing driver, a newer schema, a file that
    is no database, a folder that cannot be made..."""


class NoDatabase(StoreError):
    """No SQLite file at the database's path, and a command that only reads makes none."""


class GameNotFound(GameError):
    """No game with that id."""


class GameConflict(GameError):
    """The game changed while an entry was being added (another player's entry came first)."""



def connect(url: str | None = None, create: bool = True) -> Engine:
    """An engine on ``url`` (``settings.database_url()`` when None) with the schema brought up to date.

    Args:
        create: make the SQLite file, and its folder, when they are not there yet (a new
            game does); False to raise ``NoDatabase`` instead, so that reading from a
            mistyped path makes nothing.

    Raises:
        StoreError: the database cannot be used (``NoDatabase``: there is none to open).
    """
    url = url or database_url()
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise StoreError(f"{url!r} is not a database URL: use sqlite:///path/games.sqlite3 or "
                         f"postgresql://user@host/dbname") from None
    shown = parsed.render_as_string()  # as given, the password hidden
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")  # psycopg 3, the postgres extra
    if parsed.drivername.startswith("sqlite") and parsed.database not in (None, "", ":memory:"):
        # SQLite opens the path as it is: ~ is expanded here, so that the file checked or
        # made is the one opened.
        path = Path(parsed.database).expanduser()
        parsed = parsed.set(database=str(path))
        try:
            missing = not path.exists()
            if missing and create:
                path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a folder that cannot be made or looked into
            raise _unusable(shown, f"{exc.filename}: {exc.strerror}") from None
        if missing and not create:
            raise NoDatabase(f"no games database at {path}")
    try:
        engine = create_engine(parsed)
    except ModuleNotFoundError as exc:
        raise StoreError(f"no driver for {parsed.drivername} ({exc.name} is not installed): "
                         f"pip install 'cribcam[postgres]'") from None
    except ArgumentError as exc:
        raise _unusable(shown, str(exc)) from None
    if engine.dialect.name == "sqlite":
        _sqlite_transactions(engine)
    try:
        migrate(engine)
    except DBAPIError as exc:  # no server, a file that is no database, no permission...
        engine.dispose()
        raise _unusable(shown, " ".join(str(exc.orig).split())) from None  # on one line
    return engine


def _sqlite_transactions(engine: Engine) -> None:
    """Transactions that hold what they read, on SQLite as on PostgreSQL.

    Python's sqlite3 begins a transaction only at the first write, so a change that reads a
    game's log and then rewrites it read it outside any transaction, and two changes at once
    each wrote over the other's (an undo racing an entry lost entries answered 200). Here
    every transaction begins with SQLAlchemy's (the recipe of its SQLite dialect's docs), and
    one marked ``WRITES`` with ``BEGIN IMMEDIATE``: it takes the database's write lock before
    reading, so changes come one at a time, as PostgreSQL's row lock makes them (``_load``).
    Reads stay concurrent."""

    @event.listens_for(engine, "connect")
    def _driver_begins_nothing(dbapi_connection, _record):
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(connection):
        writes = connection.get_execution_options().get(WRITES, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")


def _unusable(shown: str, why: str) -> StoreError:
    return StoreError(f"the games database {shown} cannot be used: {why}")


def migrate(engine: Engine) -> int:
    """Brings the schema to ``SCHEMA_VERSION`` in one transaction; returns the version."""
    with engine.execution_options(**{WRITES: True}).begin() as connection:
        if not inspect(connection).has_table("schema_version"):
            schema_version.create(connection)
            connection.execute(insert(schema_version).values(version=0))
        version = connection.execute(select(schema_version.c.version)).scalar_one()
        if version > SCHEMA_VERSION:
            raise StoreError(f"the database has schema version {version}, newer than this "
                             f"cribcam's {SCHEMA_VERSION}: upgrade cribcam")
        for migration in MIGRATIONS[version:]:
            migration(connection)
        connection.execute(update(schema_version).values(version=SCHEMA_VERSION))
    return SCHEMA_VERSION


def list_page(found: dict, page: int, per_page: int) -> dict:
    """``found`` (as ``GameStore.games`` gives it) as page ``page`` of the list of games, as
    ``GET /api/games`` answers: ``{"games", "unreadable", "page", "per_page", "total",
    "pages"}`` (``unreadable``: the games of the page that cannot be replayed, each
    ``{"id", "error"}``; counted in ``total``)."""
    pages = max(1, -(-found["total"] // per_page))
    return {"games": found["games"], "unreadable": found.get("unreadable", []), "page": page,
            "per_page": per_page, "total": found["total"], "pages": pages}


class GameStore:
    """Saved games: create one, add an entry, undo, read the state, export, list them.

    Args:
        url: a database URL; None for ``settings.database_url()``.
    """

    def __init__(self, url: str | None = None, create: bool = True):
        self.engine = connect(url, create)
        # Every change reads the game and writes it in one transaction that holds the game
        # from its first read (SQLite: BEGIN IMMEDIATE; PostgreSQL: the row lock of _load).
        self._changes = self.engine.execution_options(**{WRITES: True})
        # Games replayed, by id: the version replayed, the number its last entry is kept
        # under, and the game. A game still at that version is not read nor replayed again
        # (replaying the whole log at every entry made adding entry 500 take a second).
        self._games: OrderedDict[str, tuple[int, int, Game]] = OrderedDict()
        self._games_lock = threading.Lock()

    def _kept(self, game_id: str, version: int) -> tuple[int, Game] | None:
        """The last entry's number and the game, when the game replayed is at ``version``;
        the game is shared: read it, go on from a ``fork`` of it."""
        with self._games_lock:
            kept = self._games.get(game_id)
            if kept is None or kept[0] != version:
                return None
            self._games.move_to_end(game_id)
            return kept[1], kept[2]

    def _remember(self, game_id: str, version: int, last_seq: int, game: Game) -> None:
        with self._games_lock:
            self._games[game_id] = (version, last_seq, game)
            self._games.move_to_end(game_id)
            while len(self._games) > REPLAYED_KEPT:
                self._games.popitem(last=False)

    def _replayed(self, connection: Connection, game_id: str, for_update: bool = False) -> tuple[Game, int, int]:
        """The game, its version and its last entry's number (-1 for none): from memory when
        it was replayed at this version, else read and replayed."""
        setup, version = self._load_setup(connection, game_id, for_update)
        kept = self._kept(game_id, version)
        if kept is not None:
            return kept[1], version, kept[0]
        log, seqs = self._load_log(connection, game_id)
        game = replay(setup, log)
        last_seq = seqs[-1] if seqs else -1
        self._remember(game_id, version, last_seq, game)
        return game, version, last_seq

    def create(self, setup: Setup, match_id: str | None = None) -> str:
        """Saves a new game (the first of a new match unless ``match_id``); returns its id."""
        with self._changes.begin() as connection:
            return self._create(connection, setup, match_id)

    def _create(self, connection: Connection, setup: Setup, match_id: str | None) -> str:
        now = _now()
        if match_id is None:
            match_id = _new_id()
            connection.execute(insert(matches).values(id=match_id, created=now))
        number = connection.execute(select(func.count()).select_from(games)
                                    .where(games.c.match_id == match_id)).scalar_one() + 1
        game_id = _new_id()
        connection.execute(insert(games).values(id=game_id, match_id=match_id, number=number,
                                                setup=setup.as_dict(), created=now,
                                                changed=now))
        return game_id

    def game(self, game_id: str) -> Game:
        """The game as its log replays it (shared with the store: read it, do not apply to it)."""
        with self.engine.connect() as connection:
            return self._replayed(connection, game_id)[0]

    def add(self, game_id: str, entry: dict) -> Game:
        """Checks ``entry`` against the game and saves it; returns the game after it.

        Raises:
            GameError (or CardError): the entry does not fit; nothing is saved.
            GameConflict: another entry was saved first.
        """
        try:
            with self._changes.begin() as connection:
                replayed, version, last_seq = self._replayed(connection, game_id, for_update=True)
                game = replayed.fork()
                line = game.apply(entry)
                now = _now()
                # After the last entry kept, whatever its number (a log with a gap in its
                # numbers, left by an earlier cribcam, still takes entries).
                connection.execute(insert(entries).values(game_id=game_id, seq=last_seq + 1,
                                                          entry=line.entry, created=now))
                connection.execute(update(games).where(games.c.id == game_id)
                                   .values(changed=now, version=version + 1))
        except IntegrityError:
            raise GameConflict("another entry was saved at the same moment: reload the game "
                               "and enter it again") from None
        self._remember(game_id, version + 1, last_seq + 1, game)
        return game

    def undo(self, game_id: str, number: int | None = None) -> Game:
        """Drops entry ``number`` (1 for the first; by default the last) if the entries after
        it still fit without it; returns the game without it."""
        with self._changes.begin() as connection:
            setup, version = self._load_setup(connection, game_id, for_update=True)
            log, seqs = self._load_log(connection, game_id)
            _check_no_game_follows(connection, game_id, "undo in {following} instead")
            game, kept = undo_entry(setup, log, number)
            start = len(log) - 1 if number is None else number - 1
            # The entries after the one dropped move down into its place.
            connection.execute(delete(entries).where(entries.c.game_id == game_id,
                                                     entries.c.seq >= seqs[start]))
            now = _now()
            if kept[start:]:
                connection.execute(insert(entries), [
                    {"game_id": game_id, "seq": seq, "entry": entry, "created": now}
                    for seq, entry in enumerate(kept[start:], seqs[start])])
            connection.execute(update(games).where(games.c.id == game_id)
                               .values(changed=now, version=version + 1))
        # The last entry kept: the last of those moved down, else the one before the dropped.
        last_seq = seqs[start] + len(kept) - start - 1 if kept[start:] else (seqs[start - 1] if start else -1)
        self._remember(game_id, version + 1, last_seq, game)
        return game

    def delete(self, game_id: str) -> None:
        """Deletes a game and its log, and its match when it was the match's only game: the
        way out for a game that cannot be replayed. The last game of its match only.

        Raises:
            GameNotFound: no such game.
            GameError: the match's next game has begun from this one.
        """
        with self._changes.begin() as connection:
            self._load_setup(connection, game_id, for_update=True)
            match_id = _check_no_game_follows(connection, game_id,
                                              "delete {following} first")
            connection.execute(delete(entries).where(entries.c.game_id == game_id))
            connection.execute(delete(games).where(games.c.id == game_id))
            others = connection.execute(select(func.count()).select_from(games)
                                        .where(games.c.match_id == match_id)).scalar_one()
            if not others:
                connection.execute(delete(matches).where(matches.c.id == match_id))
        with self._games_lock:
            self._games.pop(game_id, None)

    def page(self, page: int = 1, per_page: int = PER_PAGE) -> dict:
        """Page ``page`` (1 for the first) of the games kept, as ``list_page`` makes it."""
        return list_page(self.games(limit=per_page, offset=(page - 1) * per_page), page,
                         per_page)

    def games(self, limit: int = PER_PAGE, offset: int = 0) -> dict:
        """The games kept, the last changed first: ``{"games": [...], "total": N}``.

        Each game is a summary for a list to pick it from: its id, its match and number in
        the match, the players, each side's score, its state (in play, with what comes next,
        or over, with the winner) and when it was created and last changed. A game whose log
        cannot be replayed is in ``"unreadable"`` instead, with why.
        """
        with self.engine.connect() as connection:
            total = connection.execute(select(func.count()).select_from(games)).scalar_one()
            rows = connection.execute(
                select(games.c.id, games.c.match_id, games.c.number, games.c.setup,
                       games.c.created, games.c.changed, games.c.version)
                .order_by(games.c.changed.desc(), games.c.id).limit(limit).offset(offset)).all()
            logs: dict[str, list] = {row.id: [] for row in rows}
            if rows:
                for game_id, entry in connection.execute(
                        select(entries.c.game_id, entries.c.entry)
                        .where(entries.c.game_id.in_(list(logs)))
                        .order_by(entries.c.game_id, entries.c.seq)):
                    logs[game_id].append(entry)
        listed, unreadable = [], []
        for row in rows:
            try:
                kept = self._kept(row.id, row.version)
                game = kept[1] if kept else replay(Setup.from_dict(row.setup), logs[row.id])
                listed.append(_summary(row, game))
            except (ValueError, KeyError, TypeError) as exc:
                # A log damaged outside cribcam (or by an earlier one) is said beside the
                # list, never takes the list down for every game: delete it, or fix it by hand.
                unreadable.append({"id": row.id, "error": f"it cannot be replayed: {exc}"})
        return {"games": listed, "unreadable": unreadable, "total": total}

    def next_game(self, game_id: str) -> str:
        """Starts the next game of a finished game's match (the loser deals first), or gives
        the one started from it already: "next game" pressed twice starts one game, not two.
        Once started, the finished game can no longer be undone."""
        with self._changes.begin() as connection:
            # The game's row locked as undo locks it (see _load): on PostgreSQL an undo and
            # the next game come one at a time.
            game = self._replayed(connection, game_id, for_update=True)[0]
            setup = game.setup
            if not game.over:
                raise GameError("the game is not over yet: finish it before starting the next")
            this = _following(connection, game_id)
            if this.next_id is not None:
                return this.next_id
            loser = min(range(len(game.scores)), key=game.scores.__getitem__)
            first = setup.sides[loser][0]
            return self._create(connection, Setup.from_dict({**setup.as_dict(),
                                                             "first_dealer": first}),
                                this.match_id)

    def state(self, game_id: str) -> dict:
        """The game's state with its id and the tally of its match, as JSON for the API."""
        game = self.game(game_id)
        return {"id": game_id, **game.as_dict(), "match": self.match(self._match_of(game_id))}

    def match(self, match_id: str) -> dict:
        """The games of a match and the games each side has won (games still in play: none)."""
        with self.engine.connect() as connection:
            ids = connection.execute(select(games.c.id).where(games.c.match_id == match_id)
                                     .order_by(games.c.number)).scalars().all()
        played = [self.game(game_id) for game_id in ids]
        setup = played[0].setup
        won = tally(setup, [game.result for game in played if game.over])
        return {"id": match_id, "games": ids,
                "tally": [{"side": setup.side_name(i), "games": n} for i, n in enumerate(won)]}

    def export(self, game_id: str) -> dict:
        """Everything about a game as one JSON object: its setup, log and state."""
        with self.engine.connect() as connection:
            setup, _ = self._load_setup(connection, game_id, for_update=False)
            log, _ = self._load_log(connection, game_id)
            state = self._replayed(connection, game_id)[0].as_dict()
        return {"format": "cribcam game", "schema": SCHEMA_VERSION, "id": game_id,
                "match": self._match_of(game_id), "setup": setup.as_dict(), "entries": log,
                "state": state}

    def _load_log(self, connection: Connection, game_id: str) -> tuple[list, list[int]]:
        """The game's log, and the number each entry of it is kept under."""
        rows = connection.execute(select(entries.c.seq, entries.c.entry)
                                  .where(entries.c.game_id == game_id)
                                  .order_by(entries.c.seq)).all()
        return [row.entry for row in rows], [row.seq for row in rows]

    def _load_setup(self, connection: Connection, game_id: str, for_update: bool) -> tuple[Setup, int]:
        """The game's setup and version."""
        query = select(games.c.setup, games.c.version).where(games.c.id == game_id)
        # PostgreSQL: lock the game's row so that two changes to one game come one at a
        # time (SQLite: the transaction's BEGIN IMMEDIATE, see _sqlite_transactions).
        row = connection.execute(query.with_for_update() if for_update else query).first()
        if row is None:
            raise GameNotFound(f"no game {game_id!r}")
        return Setup.from_dict(row.setup), row.version

    def _match_of(self, game_id: str) -> str:
        with self.engine.connect() as connection:
            match_id = connection.execute(select(games.c.match_id)
                                          .where(games.c.id == game_id)).scalar()
        if match_id is None:
            raise GameNotFound(f"no game {game_id!r}")
        return match_id


def _check_no_game_follows(connection: Connection, game_id: str, instead: str) -> str:
    """The game's match; ``GameError`` when the match's next game has begun from it: its
    first dealer is this one's loser and the match tallies this one's result, so changing
    it would leave the match inconsistent (``instead``: what to do, with ``{following}``)."""
    this = _following(connection, game_id)
    if this.next_id is not None:
        raise GameError(f"game {game_id}'s result stands: the match's next game "
                        f"{this.next_id} has begun from it; "
                        + instead.format(following=this.next_id))
    return this.match_id


def _following(connection: Connection, game_id: str):
    """The game's ``match_id``, and the ``next_id`` of the next game of its match (None until
    it is started)."""
    following = games.alias("following")
    return connection.execute(
        select(games.c.match_id, following.c.id.label("next_id"))
        .outerjoin(following, (following.c.match_id == games.c.match_id)
                   & (following.c.number == games.c.number + 1))
        .where(games.c.id == game_id)).one()


def _summary(row, game: Game) -> dict:
    setup = game.setup
    return {
        "id": row.id, "match": row.match_id, "number": row.number,
        "players": list(setup.players), "variant": setup.variant, "target": setup.target,
        "sides": [{"name": setup.side_name(i), "score": score}
                  for i, score in enumerate(game.scores)],
        "entries": len(game.log), "over": game.over,
        "winner": setup.side_name(game.winner) if game.over else None,
        "next": game.expecting(), "status": status(game),
        "created": _iso(row.created), "changed": _iso(row.changed or row.created),
    }


def status(game: Game) -> str:
    """Where a game stands, in a few words: "Ann won (lurch)", "deal 2: Bob's hand next"."""
    if game.over:
        result = game.result
        kinds = sorted({loss.kind for loss in result.losses})
        return f"{game.setup.side_name(game.winner)} won ({', '.join(kinds)})"
    step = game.expecting()
    if step["step"] == "deal":
        # An irregularity of a hand dealt wrong may come before the first deal's entry.
        return "not started" if not game.log else f"{step['player']} to deal"
    what = {"play": "the play", "show": f"{step['player']}'s {'crib' if step['crib'] else 'hand'}"}
    return f"deal {game.deal.number}: {what[step['step']]} next"


def _iso(moment: datetime) -> str:
    """A stored time as ISO 8601 in UTC (SQLite gives it back without its time zone)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds")


def _new_id() -> str:
    return secrets.token_hex(5)


def _now() -> datetime:
    return datetime.now(timezone.utc)
