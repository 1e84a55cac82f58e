"""Score pads: games played with real cards, scored hand by hand (docs/pad.md).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01

One row a pad: its owner (the person id of the browser that made it), the codes of its
read-only and edit links, and its JSON document (``quintet.pad``). Nothing of the
tables before is changed.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the pads' table."""
    op.create_table(
        "quintet_pads",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("title", sa.String(80), nullable=False, server_default=""),
        sa.Column("view_key", sa.String(32), nullable=False),
        sa.Column("edit_key", sa.String(32), nullable=False),
        sa.Column("doc", sa.JSON, nullable=False),
        sa.Column("entries", sa.Integer, nullable=False, server_default="0"),
        sa.Column("version", sa.Integer, nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_quintet_pads_owner", "quintet_pads", ["owner"])


def downgrade() -> None:
    """Drop the pads' table."""
    op.drop_index("ix_quintet_pads_owner", table_name="quintet_pads")
    op.drop_table("quintet_pads")
