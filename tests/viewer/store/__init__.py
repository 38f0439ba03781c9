"""Tests of app/viewer/store."""
