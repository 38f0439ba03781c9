"""Tests of app/viewer/pages (a package: its test_views.py shares a name with others)."""
