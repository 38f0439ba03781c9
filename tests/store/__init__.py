"""Tests of app/store."""
