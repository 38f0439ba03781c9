"""In-process tests of app/viewer/results (a package: its test modules share basenames)."""
