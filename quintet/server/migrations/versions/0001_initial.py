"""Tables, seats, actions and analyses.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the first schema."""
    op.create_table(
        "quintet_tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("lone_seat", sa.Integer, nullable=True),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("title", sa.String(80), nullable=False, server_default=""),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("hands_dealt", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.JSON, nullable=True),
    )
    op.create_index("ix_quintet_tables_status", "quintet_tables", ["status"])
    op.create_table(
        "quintet_seats",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("quintet_tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("level", sa.String(64), nullable=True),
        sa.Column("name", sa.String(40), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("invite", sa.String(32), nullable=False),
    )
    op.create_table(
        "quintet_actions",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("quintet_tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("hand", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("action", sa.Integer, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "quintet_analysis",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("quintet_tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("data", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    """Drop everything."""
    op.drop_table("quintet_analysis")
    op.drop_table("quintet_actions")
    op.drop_table("quintet_seats")
    op.drop_index("ix_quintet_tables_status", table_name="quintet_tables")
    op.drop_table("quintet_tables")
