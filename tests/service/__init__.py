"""Tests of app/service."""
