"""Tests of app/viewer/pages."""
