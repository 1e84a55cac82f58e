"""The fencing token of a table's owner (several server processes, docs/server.md).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02

Adds ``quintet_tables.fence``: the token of the process that last took the table over
(:mod:`quintet.server.cluster`). A process taking a table increments it; every write of
the table's owner first checks that it is still its own, so a process that lost the
table can store nothing more. 0 for every table made before, and for ever on a server
of one process.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``quintet_tables.fence`` (0)."""
    # A plain ADD COLUMN, never a batch copy (see 0005): the seats and actions stay.
    op.add_column(
        "quintet_tables",
        sa.Column("fence", sa.BigInteger, nullable=False, server_default="0"),
    )


def downgrade() -> None:
    """Drop ``quintet_tables.fence``."""
    op.execute("ALTER TABLE quintet_tables DROP COLUMN fence")  # SQLite 3.35+ and PostgreSQL
