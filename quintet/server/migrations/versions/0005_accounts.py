"""Accounts, sessions, ratings, results and friends (docs/server.md, "Accounts").

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01

Adds the accounts (each acting as one person id), their sessions (kept as hashes),
ratings per game and variant, each person's finished tables with their figures,
friendships, and a ``rated`` flag on tables (false for every table made before).
Nothing stored before is changed: every table, seat, action and pad is kept as it was.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def _account_ref(name: str = "account_id", primary_key: bool = True) -> sa.Column[str]:
    return sa.Column(
        name,
        sa.String(32),
        sa.ForeignKey("quintet_accounts.id", ondelete="CASCADE"),
        primary_key=primary_key,
    )


def upgrade() -> None:
    """Add the accounts' tables and the tables' ``rated`` flag."""
    # A plain ADD COLUMN, never a batch copy: on SQLite a batch recreates the table, and
    # dropping the old one would cascade to every seat, action and chat line.
    op.add_column(
        "quintet_tables",
        sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "quintet_accounts",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("name_key", sa.String(40), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(256), nullable=False),
        sa.Column("person", sa.String(64), nullable=False, unique=True),
        sa.Column("disabled", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "quintet_sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        _account_ref(primary_key=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_quintet_sessions_account", "quintet_sessions", ["account_id"])
    op.create_table(
        "quintet_ratings",
        _account_ref(),
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("variant", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "quintet_results",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("quintet_tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("person", sa.String(64), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("variant", sa.String(16), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("won", sa.Boolean, nullable=True),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("points", sa.Float, nullable=False),
        sa.Column("stats", sa.JSON, nullable=False),
        sa.Column("rating", sa.JSON, nullable=True),
    )
    op.create_index("ix_quintet_results_person", "quintet_results", ["person", "finished_at"])
    op.create_table(
        "quintet_friends",
        _account_ref(),
        _account_ref("friend_id"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_quintet_friends_friend", "quintet_friends", ["friend_id"])


def downgrade() -> None:
    """Drop the accounts' tables and the ``rated`` flag."""
    op.drop_index("ix_quintet_friends_friend", table_name="quintet_friends")
    op.drop_table("quintet_friends")
    op.drop_index("ix_quintet_results_person", table_name="quintet_results")
    op.drop_table("quintet_results")
    op.drop_table("quintet_ratings")
    op.drop_index("ix_quintet_sessions_account", table_name="quintet_sessions")
    op.drop_table("quintet_sessions")
    op.drop_table("quintet_accounts")
    op.execute("ALTER TABLE quintet_tables DROP COLUMN rated")  # SQLite 3.35+ and PostgreSQL
