"""What is installed on every response of the viewer: security headers and the CSP, error
pages, compression, fingerprinted and precompressed static files, embedding.

Each module has an ``init_app`` called by the factory (``app.viewer.create_viewer_app``).
"""
