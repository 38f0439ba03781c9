"""In-process tests of app/viewer/pages (a package: its test_views.py shares a basename)."""
