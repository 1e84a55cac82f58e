"""Alembic environment: migrations run on the connection ``quintet serve`` hands over.

Run programmatically by :func:`quintet.server.db.migrate`; ``alembic`` on the command
line also works with ``-x url=...``.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from quintet.server.db import metadata

config = context.config
target_metadata = metadata


def run() -> None:
    """Run the migrations on the given connection (or on ``-x url=``)."""
    conn = config.attributes.get("connection")
    if conn is not None:
        context.configure(connection=conn, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option(
        "sqlalchemy.url"
    )
    if not url:
        raise SystemExit("give the database: alembic -x url=sqlite:///quintet.db upgrade head")
    engine = create_engine(url)
    with engine.begin() as connection:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()


run()
