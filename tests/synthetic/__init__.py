"""Tests of app/demo_data."""
