"""Tests of app/viewer/epitope."""
