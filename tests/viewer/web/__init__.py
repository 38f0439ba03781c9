"""Tests of app/viewer/web."""
