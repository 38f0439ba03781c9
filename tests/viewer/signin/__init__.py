"""Tests of app/viewer/signin."""
