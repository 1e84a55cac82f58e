"""The social table: the first dealer, social settings, the chat and take-backs.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-05

``first_dealer`` (0 for every older table, as it was), ``social`` (the turn clock, the
signal meanings, the draw, the series and the rematch of a table; null before), the
chat's lines and the take-backs (their actions are deleted; each row says how many, so
a resumed table's ``seq`` goes on from where it was).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def _table_ref() -> sa.Column[str]:
    return sa.Column(
        "table_id",
        sa.String(32),
        sa.ForeignKey("quintet_tables.id", ondelete="CASCADE"),
        primary_key=True,
    )


def upgrade() -> None:
    """Add the columns and the two tables."""
    with op.batch_alter_table("quintet_tables") as b:
        b.add_column(sa.Column("first_dealer", sa.Integer, nullable=False, server_default="0"))
        b.add_column(sa.Column("social", sa.JSON, nullable=True))
    op.create_table(
        "quintet_chat",
        _table_ref(),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("hand", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("text", sa.String(1000), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "quintet_takebacks",
        _table_ref(),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("hand", sa.Integer, nullable=False),
        sa.Column("kept", sa.Integer, nullable=False),
        sa.Column("removed", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    """Drop what 0003 added."""
    op.drop_table("quintet_takebacks")
    op.drop_table("quintet_chat")
    with op.batch_alter_table("quintet_tables") as b:
        b.drop_column("social")
        b.drop_column("first_dealer")
