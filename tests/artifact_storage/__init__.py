"""Tests of app/artifact_storage."""
