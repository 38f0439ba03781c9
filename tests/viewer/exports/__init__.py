"""Tests of app/viewer/exports."""
