"""The viewer store's tables, as SQLAlchemy Core, apart from the API's ``app.store.schema``.

Table names start with ``viewer_`` so that the store can share a database (and, on
PostgreSQL, a schema's index namespace) with the API. Times are naive UTC datetimes, as in
the API's schema. The Alembic migrations in ``migrations/`` create exactly these tables.
"""

from __future__ import annotations

import sqlalchemy as sa

from app import domain

metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
    }
)

# Pending e-mail sign-ins (signin_requests.py): only hashes of the link token, the code,
# the share link id and the requesting browser's nonce are kept, never the secrets.
signin_requests = sa.Table(
    "viewer_signin_requests",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("share_link_hash", sa.String(64), nullable=False),
    sa.Column("email", sa.String(320), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
    sa.Column("code_hash", sa.String(64), nullable=False),
    sa.Column("browser_hash", sa.String(64), nullable=False),
    # Page to return to, relative to /share/<id> (the id itself is not stored).
    sa.Column("next_path", sa.String(2000), nullable=False),
    # Wrong codes typed in the browser that asked, and with the message's link in
    # another browser: counted apart, so an outsider who asked for a listed reader's
    # message and typed wrong codes cannot stop its link from working for its owner.
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("link_attempts", sa.Integer, nullable=False, server_default="0"),
    sa.Column("created_at", sa.DateTime, nullable=False),
    # Indexed: every new sign-in purges the rows that expired a while ago.
    sa.Column("expires_at", sa.DateTime, nullable=False),
    sa.Column("used_at", sa.DateTime, nullable=True),
    sa.Index("ix_viewer_signin_requests_expires_at", "expires_at"),
)

# Browser sessions (sessions.py; app.viewer.access.sessions): the cookie holds a random id,
# the row is keyed by its keyed hash, so a copy of the table signs nobody in. ``data`` is
# the session dict (Flask's tagged JSON): CSRF token, browser nonce, pending sign-ins,
# the proved address. Deleting the row is signing out, wherever the cookie was copied to.
sessions = sa.Table(
    "viewer_sessions",
    metadata,
    sa.Column("id_hash", sa.String(64), primary_key=True),
    # The proved address (NULL before sign-in), apart from ``data`` for an operator's eyes.
    sa.Column("email", sa.String(320), nullable=True),
    sa.Column("data", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime, nullable=False),
    # Checked on every read; indexed for the purge of expired rows.
    sa.Column("expires_at", sa.DateTime, nullable=False),
    sa.Index("ix_viewer_sessions_expires_at", "expires_at"),
)

# Sign-in rate limits counted in the store (rate_limits.py), exact across workers and
# servers: one row per key (its lock: every hit of a key first updates this row) and one
# row per counted hit in the key's moving window. Keys are keyed hashes, never addresses.
rate_limit_keys = sa.Table(
    "viewer_rate_limit_keys",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    # The end of the last hit's window: after it the key and its hits can go.
    sa.Column("expires_at", sa.DateTime, nullable=False),
    sa.Index("ix_viewer_rate_limit_keys_expires_at", "expires_at"),
)

rate_limit_hits = sa.Table(
    "viewer_rate_limit_hits",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("key", sa.String(64), nullable=False),
    sa.Column("at", sa.DateTime, nullable=False),
    sa.Column("expires_at", sa.DateTime, nullable=False),
    sa.Index("ix_viewer_rate_limit_hits_key_at", "key", "at"),
    sa.Index("ix_viewer_rate_limit_hits_expires_at", "expires_at"),
)

# The exploration index (result_index.py, index_queries.py): one row per pipeline with the
# state of its build, and one row per result with every sortable and filterable value.
# An index belongs to a pipeline, not to a link: every link that covers the pipeline uses
# it, and the API decides on every request whether the visitor may (views read the link
# first). ``lease_owner``/``lease_until`` make sure two workers never build it at once.
result_indexes = sa.Table(
    "viewer_result_indexes",
    metadata,
    sa.Column("pipeline_id", sa.String(64), primary_key=True),
    sa.Column("kind", sa.String(64), nullable=False),
    # "building" until the first build has read every page, then "ready" for good (a
    # refresh appends to a ready index, which stays readable meanwhile).
    sa.Column("state", sa.String(16), nullable=False),
    # The pipeline's result count (its run record's ``progress``), status and latest
    # result id (``progress.latest_result_id``) the index is (or is being) brought up to.
    sa.Column("target_count", sa.Integer, nullable=False),
    sa.Column("pipeline_status", sa.String(32), nullable=False),
    sa.Column("latest_result_id", sa.String(64), nullable=True),
    sa.Column("indexed", sa.Integer, nullable=False),
    sa.Column("last_id", sa.String(64), nullable=True),
    # Bumped by every append, so caches of answers know the set changed.
    sa.Column("version", sa.Integer, nullable=False),
    # No longer written (left empty): the index's frame finds a run's warning codes in
    # its rows (``explore.index.warning_flags``). Kept while a release that still reads
    # it may run beside this one (migrations add before they take away).
    sa.Column("warning_codes", sa.Text, nullable=False, server_default=""),
    sa.Column("lease_owner", sa.String(64), nullable=True),
    sa.Column("lease_until", sa.DateTime, nullable=True),
    sa.Column("failure", sa.String(200), nullable=True),
    sa.Column("created_at", sa.DateTime, nullable=False),
    sa.Column("updated_at", sa.DateTime, nullable=False),
    # Indexed: indexes nobody used for a while are deleted (delete_unused).
    sa.Column("last_used_at", sa.DateTime, nullable=False),
    sa.Index("ix_viewer_result_indexes_last_used_at", "last_used_at"),
)

# The designed chain's computed properties and liability counts (v0007; app.viewer.proteins).
PROTEIN_NUMBER_COLUMNS = ("protein_weight", "isoelectric_point", "net_charge", "gravy",
                          "instability_index", "extinction_coefficient")
PROTEIN_INTEGER_COLUMNS = ("liability_count", "liability_n_glycosylation",
                           "liability_deamidation", "liability_isomerization",
                           "liability_unpaired_cysteine", "liability_oxidation")

# The sortable and filterable values of each indexed result: narrow on purpose (no record
# text), so that a whole-set sort or count scans little. ``position`` is the API's order.
# Every metric of the vocabulary (a new one needs a migration, as any new column does),
# the ADME numbers and the computed chemistry.
INDEX_NUMBER_COLUMNS = (*domain.METRICS, "lipophilicity", "permeability", "mol_weight",
                        "clogp", "tpsa", "qed", *PROTEIN_NUMBER_COLUMNS)
INDEX_INTEGER_COLUMNS = ("length", "hbd", "hba", "rotatable_bonds", "lipinski_violations",
                         "warning_count", *PROTEIN_INTEGER_COLUMNS)
indexed_results = sa.Table(
    "viewer_indexed_results",
    metadata,
    sa.Column("pipeline_id", sa.String(64), primary_key=True),
    sa.Column("result_id", sa.String(64), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("created_at", sa.String(40), nullable=True),
    sa.Column("external_id", sa.String(200), nullable=True),
    sa.Column("variant", sa.String(32), nullable=True),
    sa.Column("solubility", sa.String(32), nullable=True),
    # ";code;code;" so that one code matches with LIKE '%;code;%'.
    sa.Column("warning_codes", sa.String(2000), nullable=False),
    *(sa.Column(name, sa.Float, nullable=True) for name in INDEX_NUMBER_COLUMNS),
    *(sa.Column(name, sa.Integer, nullable=True) for name in INDEX_INTEGER_COLUMNS),
    # Small-molecule kinds: matched by ``smarts=`` (each distinct SMILES once per query).
    sa.Column("smiles", sa.Text, nullable=True),
    # The record's metrics the vocabulary does not know, as JSON (explore.extra_metrics:
    # validated keys, finite numbers, at most 32); NULL when it has none.
    sa.Column("extra_metrics", sa.Text, nullable=True),
)

# The records themselves (JSON, without artifact URLs, which expire), for rendering a page
# of a sorted view and for ``q=``; apart from the values so that reading those stays fast.
indexed_records = sa.Table(
    "viewer_indexed_records",
    metadata,
    sa.Column("pipeline_id", sa.String(64), primary_key=True),
    sa.Column("result_id", sa.String(64), primary_key=True),
    sa.Column("record", sa.Text, nullable=False),
    # Lower-cased id, external id, sequences and SMILES: what ``q=`` searches. Here, not
    # in the values table, whose whole-column reads it would slow down several times.
    sa.Column("search", sa.Text, nullable=False),
)

# A worker's columnar copy of an index (``index_frame``), saved once per index version so
# that every other worker and server loads it in one read instead of rebuilding it from
# the rows. NumPy's .npz format (no pickles), compressed.
index_frames = sa.Table(
    "viewer_index_frames",
    metadata,
    sa.Column("pipeline_id", sa.String(64), primary_key=True),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("data", sa.LargeBinary, nullable=False),
)

# Epitopes (app.viewer.epitope, v0008): per design of a protein pipeline, the target
# residues it contacts and its exposed M/W, read from its structure file by a background
# scan after the index is built. Shared by every worker; a scan resumes where it stopped.
epitope_contacts = sa.Table(
    "viewer_epitope_contacts",
    metadata,
    sa.Column("pipeline_id", sa.String(64), primary_key=True),
    sa.Column("result_id", sa.String(64), primary_key=True),
    # "ok", "no_structure" (the result has none) or "unreadable" (too big, malformed).
    sa.Column("state", sa.String(16), nullable=False),
    # " B:12 B:15 " (space-delimited, so that one residue matches LIKE '% B:12 %').
    sa.Column("contacts", sa.Text, nullable=False, server_default=""),
    # Exposed M/W positions of the designed chain, "," joined; NULL: not measured.
    sa.Column("exposed", sa.Text, nullable=True),
)

# One row per scanned pipeline: its lease (one worker scans it at a time) and progress.
epitope_scans = sa.Table(
    "viewer_epitope_scans",
    metadata,
    sa.Column("pipeline_id", sa.String(64), primary_key=True),
    sa.Column("done", sa.Integer, nullable=False),
    # The index version (its result count) the scan last finished at.
    sa.Column("finished_count", sa.Integer, nullable=True),
    sa.Column("lease_owner", sa.String(64), nullable=True),
    sa.Column("lease_until", sa.DateTime, nullable=True),
    sa.Column("failure", sa.String(200), nullable=True),
    sa.Column("updated_at", sa.DateTime, nullable=False),
)
