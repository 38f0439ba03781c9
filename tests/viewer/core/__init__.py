"""Tests of app/viewer/core."""
