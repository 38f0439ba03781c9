"""Work that runs outside requests: retention's purge (``purge-expired``).
"""
