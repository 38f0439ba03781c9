"""Tests of app/viewer/structure."""
