"""Tests of app/viewer/results."""
