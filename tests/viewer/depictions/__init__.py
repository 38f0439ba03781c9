"""Tests of app/viewer/depictions."""
