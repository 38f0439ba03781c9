"""Tests of app/viewer/structure (a package: its test_views.py shares a name with others)."""
