"""Tests of app/viewer/results (a package: its test_views.py shares a name with others)."""
