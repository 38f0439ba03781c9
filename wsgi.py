"""WSGI entry points.

- ``gunicorn wsgi:app``: the viewer and the embedded compute API, composed.
- ``gunicorn 'wsgi:service_app'``: only the compute API (``/compute/v1``).
- ``gunicorn 'wsgi:viewer_app'``: only the viewer, reading ``FLASK_COMPUTE_API_URL``.

Each object is created when first asked for (PEP 562), so serving one half never builds
the other (the viewer alone would refuse to start without ``FLASK_COMPUTE_API_URL``).
"""

from app import create_app, create_service_app, create_viewer_app

_FACTORIES = {"app": create_app, "service_app": create_service_app,
              "viewer_app": create_viewer_app}


def __getattr__(name: str):
    """Create ``app``, ``service_app`` or ``viewer_app`` on first access."""
    factory = _FACTORIES.get(name)
    if factory is None:
        raise AttributeError(name)
    application = factory()
    globals()[name] = application
    return application
