"""viewer store: the exploration index of pipelines' results

Revision ID: v0003
Revises: v0002
Create Date: 2026-11-23 15:30:00

``viewer_result_indexes`` (one row per indexed pipeline: build state, lease, last use),
``viewer_indexed_results`` (the sortable and filterable values of each result) and
``viewer_indexed_records`` (the records, for rendering pages of a sorted view, and the
search text) and ``viewer_index_frames`` (a columnar copy per index version). The column
lists are frozen copies of ``schema.py``'s at this revision.
"""

import sqlalchemy as sa
from alembic import op

revision = "v0003"
down_revision = "v0002"
branch_labels = None
depends_on = None

_NUMBERS = (
    "binding_confidence", "iptm", "min_interaction_pae", "structure_confidence",
    "helix_fraction", "sheet_fraction", "loop_fraction", "optimization_score",
    "complex_iplddt", "complex_plddt", "ptm", "lipophilicity", "permeability",
    "mol_weight", "clogp", "tpsa", "qed",
)
_INTEGERS = ("length", "hbd", "hba", "rotatable_bonds", "lipinski_violations",
             "warning_count")


def upgrade() -> None:
    op.create_table(
        "viewer_result_indexes",
        sa.Column("pipeline_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("target_count", sa.Integer(), nullable=False),
        sa.Column("pipeline_status", sa.String(length=32), nullable=False),
        sa.Column("indexed", sa.Integer(), nullable=False),
        sa.Column("last_id", sa.String(length=64), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("warning_codes", sa.Text(), nullable=False, server_default=""),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_until", sa.DateTime(), nullable=True),
        sa.Column("failure", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("last_used_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("pipeline_id", name=op.f("pk_viewer_result_indexes")),
    )
    op.create_index("ix_viewer_result_indexes_last_used_at", "viewer_result_indexes",
                    ["last_used_at"])
    op.create_table(
        "viewer_indexed_results",
        sa.Column("pipeline_id", sa.String(length=64), nullable=False),
        sa.Column("result_id", sa.String(length=64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.String(length=40), nullable=True),
        sa.Column("external_id", sa.String(length=200), nullable=True),
        sa.Column("variant", sa.String(length=32), nullable=True),
        sa.Column("solubility", sa.String(length=32), nullable=True),
        sa.Column("warning_codes", sa.String(length=2000), nullable=False),
        *(sa.Column(name, sa.Float(), nullable=True) for name in _NUMBERS),
        *(sa.Column(name, sa.Integer(), nullable=True) for name in _INTEGERS),
        sa.PrimaryKeyConstraint("pipeline_id", "result_id",
                                name=op.f("pk_viewer_indexed_results")),
    )
    op.create_table(
        "viewer_indexed_records",
        sa.Column("pipeline_id", sa.String(length=64), nullable=False),
        sa.Column("result_id", sa.String(length=64), nullable=False),
        sa.Column("record", sa.Text(), nullable=False),
        sa.Column("search", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("pipeline_id", "result_id",
                                name=op.f("pk_viewer_indexed_records")),
    )
    op.create_table(
        "viewer_index_frames",
        sa.Column("pipeline_id", sa.String(length=64), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("pipeline_id", name=op.f("pk_viewer_index_frames")),
    )


def downgrade() -> None:
    op.drop_table("viewer_index_frames")
    op.drop_table("viewer_indexed_records")
    op.drop_table("viewer_indexed_results")
    op.drop_index("ix_viewer_result_indexes_last_used_at", table_name="viewer_result_indexes")
    op.drop_table("viewer_result_indexes")
