"""Tests of app/viewer/chem."""
