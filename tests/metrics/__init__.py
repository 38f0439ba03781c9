"""Tests of app/metrics."""
