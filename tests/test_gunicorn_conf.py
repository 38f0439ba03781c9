"""gunicorn.conf.py as a running server sees it: no control socket at a path shared by every
gunicorn of the user, one of the instance's own when asked for."""

from __future__ import annotations

import pytest

from tests.support.servers import start_gunicorn, stop_gunicorn


def _sockets(folder):
    return sorted(path.name for path in folder.rglob("*.ctl"))


@pytest.mark.slow  # starts gunicorn
def test_no_control_socket_at_the_shared_default_path(tmp_path):
    # gunicorn's default is ~/.gunicorn/gunicorn.ctl (or under $XDG_RUNTIME_DIR): a second
    # server on the host would take it over.
    home, runtime = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    runtime.mkdir()
    env = {"HOME": str(home), "XDG_RUNTIME_DIR": str(runtime),
           "FLASK_INSTANCE_PATH": str(tmp_path / "instance"), "FLASK_SECRET_KEY": "ctl"}
    server = start_gunicorn(env, tmp_path, workers=1)
    try:
        assert _sockets(home) == [] and _sockets(runtime) == []
    finally:
        stop_gunicorn(server)


@pytest.mark.slow  # starts gunicorn
def test_a_control_socket_of_the_instances_own_when_configured(tmp_path):
    own = tmp_path / "instance-a.ctl"
    env = {"HOME": str(tmp_path), "GUNICORN_CONTROL_SOCKET": str(own),
           "FLASK_INSTANCE_PATH": str(tmp_path / "instance"), "FLASK_SECRET_KEY": "ctl"}
    server = start_gunicorn(env, tmp_path, workers=1)
    try:
        assert _sockets(tmp_path) == ["instance-a.ctl"] and own.is_socket()
    finally:
        stop_gunicorn(server)
