"""Exports of a results view: CSV, JSON, FASTA, SDF and ZIP, streamed page by page."""
