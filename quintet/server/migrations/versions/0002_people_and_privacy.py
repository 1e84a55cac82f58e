"""People and privacy: who held which seat, private links, the public log's notices.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01

Every table gets a view key (a private table's link carries it), existing tables
included: their old links keep working for their players (seat tokens) and invites.
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the columns and tables, and a view key to every table."""
    with op.batch_alter_table("quintet_tables") as b:
        b.add_column(sa.Column("view_key", sa.String(32), nullable=True))
        b.add_column(sa.Column("creator", sa.String(64), nullable=True))
    with op.batch_alter_table("quintet_seats") as b:
        b.add_column(sa.Column("person", sa.String(64), nullable=True))
    op.create_table(
        "quintet_holders",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("quintet_tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("person", sa.String(64), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "quintet_notices",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("quintet_tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("hand", sa.Integer, nullable=False),
        sa.Column("actions", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("text", sa.String(200), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    conn = op.get_bind()
    tables = sa.table("quintet_tables", sa.column("id"), sa.column("view_key"))
    for (table_id,) in conn.execute(sa.select(tables.c.id)).all():
        conn.execute(
            tables.update()
            .where(tables.c.id == table_id)
            .values(view_key=secrets.token_urlsafe(12))
        )


def downgrade() -> None:
    """Drop what 0002 added."""
    op.drop_table("quintet_notices")
    op.drop_table("quintet_holders")
    with op.batch_alter_table("quintet_seats") as b:
        b.drop_column("person")
    with op.batch_alter_table("quintet_tables") as b:
        b.drop_column("creator")
        b.drop_column("view_key")
