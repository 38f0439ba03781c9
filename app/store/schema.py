"""The compute API's database schema, as SQLAlchemy Core tables.

Times are stored as naive UTC datetimes (both SQLite and PostgreSQL compare them the same
way); usage records keep an integer epoch-seconds column instead, so that UTC hour and day
buckets are one integer division in either dialect and the aggregate stays index-friendly.
Alembic migrations in ``app/store/migrations`` create exactly these tables. What the
viewer keeps for itself (sign-ins) is in ``app.viewer.store.schema``, its own database.
"""

from __future__ import annotations

import sqlalchemy as sa

from app.domain import MAX_ID_LENGTH

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
    }
)

ID = sa.String(MAX_ID_LENGTH)

organizations = sa.Table(
    "organizations",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
)

workspaces = sa.Table(
    "workspaces",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("organization_id", ID, sa.ForeignKey("organizations.id"), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    sa.Column("is_default", sa.Boolean, nullable=False, default=False),
    sa.Column("data_retention_unit", sa.String(8), nullable=False),
    sa.Column("data_retention_value", sa.Integer, nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("updated_at", sa.DateTime, nullable=False),
    sa.Column("archived_at", sa.DateTime, nullable=True),
    # When the workspace's synthetic test-mode data was seeded (first use with a test key);
    # null until then. Setting it is the race-safe claim: see app.store.workspaces.claim_test_data.
    sa.Column("test_data_seeded_at", sa.DateTime, nullable=True),
    sa.Index("ix_workspaces_org_id", "organization_id", "id"),
)

api_keys = sa.Table(
    "api_keys",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("organization_id", ID, sa.ForeignKey("organizations.id"), nullable=False),
    # Null for admin keys, which act on the whole organization.
    sa.Column("workspace_id", ID, sa.ForeignKey("workspaces.id"), nullable=True),
    sa.Column("key_type", sa.String(16), nullable=False),
    sa.Column("name", sa.String(200), nullable=False),
    # SHA-256 of the full key, hex; the key itself is never stored.
    sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("key_prefix", sa.String(12), nullable=False),
    sa.Column("allowed_ips", sa.JSON, nullable=False),
    sa.Column("livemode", sa.Boolean, nullable=False),
    sa.Column("is_active", sa.Boolean, nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("expires_at", sa.DateTime, nullable=True),
    sa.Column("last_used_at", sa.DateTime, nullable=True),
    sa.Index("ix_api_keys_org_id", "organization_id", "id"),
)

pipelines = sa.Table(
    "pipelines",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("workspace_id", ID, sa.ForeignKey("workspaces.id"), nullable=False),
    # One of the seven result kinds of app.domain.KINDS: protein_design, ...
    sa.Column("kind", sa.String(64), nullable=False),
    sa.Column("name", sa.String(200), nullable=True),
    sa.Column("status", sa.String(32), nullable=False),
    sa.Column("input", sa.JSON, nullable=True),
    sa.Column("result_count", sa.Integer, nullable=False, default=0),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("completed_at", sa.DateTime, nullable=True),
    # Live or test mode: a test key sees and creates only test-mode rows.
    sa.Column("livemode", sa.Boolean, nullable=False, server_default=sa.true()),
    # The stored part of the SDK's progress: requested totals, failed counts,
    # phase, rejection_summary. Counts of results and latest_result_id are derived.
    sa.Column("progress", sa.JSON, nullable=True),
    sa.Column("started_at", sa.DateTime, nullable=True),
    sa.Column("stopped_at", sa.DateTime, nullable=True),
    # Why the run failed: {code, message, details?}; null otherwise.
    sa.Column("error", sa.JSON, nullable=True),
    # When retention deleted the run's data (input, results, files); the row stays as a
    # stub that says so (the SDK's data_deleted_at). Null: not deleted.
    sa.Column("data_deleted_at", sa.DateTime, nullable=True),
    # Lists of one workspace's pipelines of one mode, in id order.
    sa.Index("ix_pipelines_workspace_livemode_id", "workspace_id", "livemode", "id"),
)

predictions = sa.Table(
    "predictions",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("workspace_id", ID, sa.ForeignKey("workspaces.id"), nullable=False),
    sa.Column("application", sa.String(64), nullable=False),
    sa.Column("name", sa.String(200), nullable=True),
    sa.Column("status", sa.String(32), nullable=False),
    sa.Column("inputs", sa.JSON, nullable=True),
    sa.Column("outputs", sa.JSON, nullable=True),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("completed_at", sa.DateTime, nullable=True),
    # Live or test mode: a test key sees and creates only test-mode rows.
    sa.Column("livemode", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Column("started_at", sa.DateTime, nullable=True),
    # Why the prediction failed: {code, message, details?}; null otherwise.
    sa.Column("error", sa.JSON, nullable=True),
    # When retention deleted its inputs, outputs and files (the row stays as a stub).
    sa.Column("data_deleted_at", sa.DateTime, nullable=True),
    sa.Index("ix_predictions_workspace_livemode_id", "workspace_id", "livemode", "id"),
)

results = sa.Table(
    "results",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("pipeline_id", ID, sa.ForeignKey("pipelines.id"), nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    # binder / generic for protein_sequence_redesign, else null.
    sa.Column("variant", sa.String(16), nullable=True),
    sa.Column("entities", sa.JSON, nullable=True),
    sa.Column("metrics", sa.JSON, nullable=False),
    sa.Column("warnings", sa.JSON, nullable=True),
    sa.Column("smiles", sa.Text, nullable=True),
    sa.Column("adme", sa.JSON, nullable=True),
    sa.Column("external_id", sa.String(200), nullable=True),
    # Keyset pagination within a pipeline: (pipeline_id, id) is the seek key.
    sa.Index("ix_results_pipeline_id_id", "pipeline_id", "id", unique=True),
)

artifacts = sa.Table(
    "artifacts",
    metadata,
    sa.Column("id", ID, primary_key=True),
    # Exactly one owner: a result or a prediction.
    sa.Column("result_id", ID, sa.ForeignKey("results.id"), nullable=True),
    sa.Column("prediction_id", ID, sa.ForeignKey("predictions.id"), nullable=True),
    # archive, structure, ligand_structure (results) or a free name (predictions).
    sa.Column("role", sa.String(64), nullable=False),
    sa.Column("filename", sa.String(255), nullable=False),
    sa.Column("content_type", sa.String(100), nullable=False),
    sa.Column("size", sa.BigInteger, nullable=False),
    sa.Column("sha256", sa.String(64), nullable=False),
    # Path relative to ARTIFACT_DIR.
    sa.Column("storage_path", sa.String(500), nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Index("ix_artifacts_result_id", "result_id"),
    sa.Index("ix_artifacts_prediction_id", "prediction_id"),
    # Whether a (shared, content-addressed) file is still named: the retention purge.
    sa.Index("ix_artifacts_storage_path", "storage_path"),
)

share_links = sa.Table(
    "share_links",
    metadata,
    sa.Column("id", ID, primary_key=True),
    sa.Column("organization_id", ID, sa.ForeignKey("organizations.id"), nullable=False),
    sa.Column("workspace_id", ID, sa.ForeignKey("workspaces.id"), nullable=False),
    sa.Column("access_mode", sa.String(16), nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("expires_at", sa.DateTime, nullable=False),
    sa.Column("archived_at", sa.DateTime, nullable=True),
    # Live or test mode: a test key sees and creates only test-mode rows.
    sa.Column("livemode", sa.Boolean, nullable=False, server_default=sa.true()),
)

# The pipelines and predictions a link covers, in the order they were registered.
share_link_resources = sa.Table(
    "share_link_resources",
    metadata,
    sa.Column("share_link_id", ID, sa.ForeignKey("share_links.id"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("resource_type", sa.String(16), nullable=False),  # pipeline | prediction
    sa.Column("resource_id", ID, nullable=False),
    sa.Index("ix_share_link_resources_lookup", "share_link_id", "resource_type", "resource_id"),
    # The links covering a purged pipeline or prediction (retention).
    sa.Index("ix_share_link_resources_resource", "resource_type", "resource_id"),
)

# Addresses allowed on an email-mode link, lower-cased for comparison, in given order.
share_link_emails = sa.Table(
    "share_link_emails",
    metadata,
    sa.Column("share_link_id", ID, sa.ForeignKey("share_links.id"), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("email", sa.String(320), nullable=False),
    sa.Column("email_normalized", sa.String(320), nullable=False),
)

usage_records = sa.Table(
    "usage_records",
    metadata,
    sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True,
              autoincrement=True),
    sa.Column("organization_id", ID, sa.ForeignKey("organizations.id"), nullable=False),
    sa.Column("workspace_id", ID, sa.ForeignKey("workspaces.id"), nullable=False),
    sa.Column("application", sa.String(64), nullable=False),
    sa.Column("quantity", sa.BigInteger, nullable=False),
    # Seconds since the epoch, UTC.
    sa.Column("recorded_at", sa.BigInteger, nullable=False),
    # Covering index: the usage report reads only these columns over a time range.
    sa.Index(
        "ix_usage_records_org_time",
        "organization_id", "recorded_at", "application", "workspace_id", "quantity",
    ),
)
