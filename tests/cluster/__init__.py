"""Cluster tests: two gunicorn nodes behind HAProxy, PostgreSQL, Redis, S3."""
