"""Tests of app/viewer/proteins."""
