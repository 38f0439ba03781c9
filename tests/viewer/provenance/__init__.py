"""Tests of app/viewer/provenance."""
