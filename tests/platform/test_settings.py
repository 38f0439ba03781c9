"""The settings table: documented in the README exactly, read only through ``setting``,
typed as declared, and a name that is not declared fails at once."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from app.platform import base_app, settings
from app.platform.settings import SETTINGS, setting

ROOT = Path(__file__).resolve().parents[2]


def _documented() -> set[str]:
    """The ``FLASK_*`` names in the first column of the README's settings table."""
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith("| variable "):
            first_cell = line.split(" | ", 1)[0]
            names.update(re.findall(r"`FLASK_([A-Z0-9_]+)`", first_cell))
    return names


def test_the_readme_documents_exactly_the_declared_settings():
    documented = _documented()
    assert sorted(set(SETTINGS) - documented) == [], "declared but not in README.md"
    assert sorted(documented - set(SETTINGS)) == [], "in README.md but not declared"


def test_every_setting_has_a_meaning_and_a_readable_default():
    for spec in SETTINGS.values():
        assert spec.help.strip(), spec.name
        if spec.default is not None:
            assert setting({}, spec.name) is not None, spec.name


def test_an_undeclared_name_raises_at_once_naming_it():
    with pytest.raises(KeyError, match="MAIL_PROT"):
        setting({"MAIL_PROT": 25}, "MAIL_PROT")
    with pytest.raises(KeyError, match="NO_SUCH_SETTING"):
        settings.from_environment("NO_SUCH_SETTING")


@pytest.mark.parametrize(("name", "raw", "expected"), [
    ("MAIL_PORT", "2525", 2525),
    ("MAIL_PORT", 2525, 2525),
    ("MAIL_PORT", "", 25),  # empty reads as the default, as 0 and None do
    ("MAIL_PORT", 0, 25),
    ("EXPLORE_SYNC_LIMIT", 0, 0),  # 0 is a value here: everything in the background
    ("COMPUTE_API_TIMEOUT", "2.5", 2.5),
    ("COMPUTE_API_TIMEOUT", 3, 3.0),
    ("SIGNIN_SESSION_HOURS", 12, 12.0),
    ("EPITOPE_SCAN", False, False),
    ("EPITOPE_SCAN", True, True),
    ("MAIL_USE_TLS", 1, True),
    ("OIDC_PROVIDERS", '[{"name": "g"}]', [{"name": "g"}]),
    ("OIDC_PROVIDERS", None, []),
    ("TRUSTED_HOSTS", "share.example.org, .lab.example", ["share.example.org", ".lab.example"]),
    ("TRUSTED_HOSTS", ["a.example"], ["a.example"]),
    ("TRUSTED_HOSTS", None, None),
    ("FRAME_CACHE_DIR", "", ""),  # "" is a value here: sharing off
    ("PRODUCT_NAME", "", "Share Viewer"),
    ("JWT_ISSUER", 7, "7"),
])
def test_values_are_read_as_the_declared_type(name, raw, expected):
    value = setting({name: raw}, name)
    assert value == expected
    assert type(value) is type(expected)


def test_a_missing_key_reads_as_the_default():
    assert setting({}, "SIGNIN_CODE_TTL_SECONDS") == 600
    assert setting({}, "RATELIMIT_KEY_PREFIX") == "share-viewer"


@pytest.mark.parametrize(("name", "raw"), [
    ("MAIL_PORT", "twenty-five"),
    ("SIGNIN_MAX_CODE_ATTEMPTS", None),
    ("COMPUTE_API_TIMEOUT", "soon"),
    ("OIDC_PROVIDERS", "[not json"),
])
def test_a_value_that_is_not_of_its_type_is_an_error_naming_the_variable(name, raw):
    with pytest.raises(ValueError, match=f"FLASK_{name}="):
        setting({name: raw}, name)


def test_defaults_are_applied_once_when_the_app_is_made_and_the_environment_wins(
        tmp_path, monkeypatch):
    monkeypatch.setenv("FLASK_EXPENSIVE_WORK_SLOTS", "3")
    monkeypatch.setenv("FLASK_TRUSTED_HOSTS", "share.example.org,.lab.example")
    monkeypatch.setenv("FLASK_MAIL_SENDER", "Lab <lab@example.org>")
    app = base_app.make_flask_app({"SIGNIN_CODE_TTL_SECONDS": 60},
                                  instance_path=str(tmp_path / "instance"))
    assert set(SETTINGS) <= set(app.config)
    assert app.config["WTF_CSRF_SSL_STRICT"] is False  # an extension's key the app changes
    assert setting(app, "EXPENSIVE_WORK_SLOTS") == 3
    assert app.config["TRUSTED_HOSTS"] == ["share.example.org", ".lab.example"]
    assert setting(app, "MAIL_SENDER") == "Lab <lab@example.org>"
    assert setting(app, "SIGNIN_CODE_TTL_SECONDS") == 60
    assert setting(app, "INSTANCE_PATH") == app.instance_path
    assert setting(app, "ARTIFACT_DIR") == str(tmp_path / "instance" / "artifacts")
    assert settings.instance_folder(app, "FRAME_CACHE_DIR") == tmp_path / "instance" / "frame-cache"


def test_defaults_hand_out_copies():
    settings.defaults()["OIDC_PROVIDERS"].append({"name": "x"})
    assert settings.defaults()["OIDC_PROVIDERS"] == []


def test_retired_settings_still_set_are_found():
    config = {"SIGNIN_LIMIT_CODES_PER_LINK": "100 per 15 minutes"}
    assert settings.retired_in(config) == [("SIGNIN_LIMIT_CODES_PER_LINK",
                                            "SIGNIN_LIMIT_CODES_PER_CLIENT")]


def _direct_reads(path: Path) -> list[str]:
    """``config.get("X")``, ``config.setdefault("X", ...)`` and reads of ``config["X"]``
    of a declared setting ``X`` in one module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("get", "setdefault") and node.args
                and isinstance(node.args[0], ast.Constant) and node.args[0].value in SETTINGS):
            found.append(f"{path.name}:{node.lineno} {node.func.attr}({node.args[0].value!r})")
        elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
              and isinstance(node.slice, ast.Constant) and node.slice.value in SETTINGS):
            found.append(f"{path.name}:{node.lineno} [{node.slice.value!r}]")
    return found


def _named_reads(path: Path) -> list[tuple[str, int]]:
    """The literal names handed to ``setting``, ``instance_folder``, ``from_environment``."""
    readers = ("setting", "instance_folder", "from_environment")
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in readers:
                found.extend((arg.value, node.lineno) for arg in node.args
                             if isinstance(arg, ast.Constant) and isinstance(arg.value, str))
    return found


@pytest.mark.slow
def test_the_app_reads_settings_only_through_the_accessor():
    modules = [p for p in (ROOT / "app").rglob("*.py") if p.name != "settings.py"]
    assert [read for path in modules for read in _direct_reads(path)] == []


def test_every_name_the_app_reads_is_declared():
    modules = list((ROOT / "app").rglob("*.py"))
    read = {(path.name, name, line) for path in modules for name, line in _named_reads(path)}
    assert len(read) > 40
    assert sorted(entry for entry in read if entry[1] not in SETTINGS) == []
