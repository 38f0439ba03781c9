"""viewer store: the exploration index keeps protein properties and liabilities; rebuilt

Revision ID: v0007
Revises: v0006
Create Date: 2026-11-26 20:00:00

``viewer_indexed_results``: the designed chain's ProtParam properties (molecular weight,
pI, net charge at pH 7.4, GRAVY, instability index, extinction coefficient) and its
sequence liabilities (a total and one count per liability), computed at index time
(``app.viewer.proteins``). Indexes are caches of what the API holds: every existing one is
emptied here, so each is rebuilt on its next use with these columns filled.
"""

import sqlalchemy as sa
from alembic import op

revision = "v0007"
down_revision = "v0006"
branch_labels = None
depends_on = None

_INDEX_TABLES = ("viewer_index_frames", "viewer_indexed_records", "viewer_indexed_results",
                 "viewer_result_indexes")
# Written out, not imported from schema.py: a migration must not change with the code.
_NUMBERS = ("protein_weight", "isoelectric_point", "net_charge", "gravy",
            "instability_index", "extinction_coefficient")
_INTEGERS = ("liability_count", "liability_n_glycosylation", "liability_deamidation",
             "liability_isomerization", "liability_unpaired_cysteine", "liability_oxidation")


def upgrade() -> None:
    for name in _INDEX_TABLES:
        op.execute(sa.table(name).delete())
    with op.batch_alter_table("viewer_indexed_results") as batch:
        for name in _NUMBERS:
            batch.add_column(sa.Column(name, sa.Float(), nullable=True))
        for name in _INTEGERS:
            batch.add_column(sa.Column(name, sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("viewer_indexed_results") as batch:
        for name in reversed(_INTEGERS + _NUMBERS):
            batch.drop_column(name)
