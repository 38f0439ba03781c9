"""Tests of app/s3."""
