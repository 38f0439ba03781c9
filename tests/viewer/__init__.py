"""Tests of app/viewer."""
