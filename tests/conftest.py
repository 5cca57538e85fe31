"""Test-wide settings: one torch thread per test process (pytest -n 2 runs two of them), and
the result stores the store tests run on."""

import os
import uuid

import pytest
import torch

torch.set_num_threads(1)


# -- result stores: SQLite, and PostgreSQL when REWIREKIT_TEST_POSTGRES names a server ----------
POSTGRES_ENV = "REWIREKIT_TEST_POSTGRES"


def _postgres_server() -> str:
    """The server URL of the PostgreSQL tests; skip them (with the reason) when none is given,
    and fail under CI, where PostgreSQL must be tested."""
    url = os.environ.get(POSTGRES_ENV)
    if url:
        return url
    reason = f'{POSTGRES_ENV} is not set (start a server: eval "$(bash .ci/postgres.sh start)")'
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; under CI=true the PostgreSQL tests must run.")
    pytest.skip(reason)


@pytest.fixture
def postgres_database():
    """A function making a fresh, empty PostgreSQL database and returning its URL; all are
    dropped after the test."""
    import sqlalchemy as sa

    from rewirekit.bench.store import database_url

    server = database_url(_postgres_server())
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    made = []

    def make() -> str:
        name = f"rewirekit_{uuid.uuid4().hex[:12]}"
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        made.append(name)
        return server.set(database=name).render_as_string(hide_password=False)

    yield make
    with admin.connect() as conn:
        for name in made:
            conn.execute(sa.text(f'DROP DATABASE "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def new_store(request, tmp_path):
    """A function returning the location of a fresh store: a SQLite file, or a PostgreSQL
    database (the test runs once for each)."""
    if request.param == "postgresql":
        return request.getfixturevalue("postgres_database")
    names = iter(range(1_000_000))
    return lambda: tmp_path / f"store{next(names)}.db"
