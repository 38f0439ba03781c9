"""Tests of app/signin."""
