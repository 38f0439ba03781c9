"""What every part of the app stands on: settings, the Flask app base, databases, ids,
time, logging, request ids, share-link tokens, the public URL and the WSGI dispatch.
"""
