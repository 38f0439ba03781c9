"""Reading through a share link: the live-link gate, the identical 404, email JWTs, shapes."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from datetime import timedelta

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from app.platform import share_tokens
from app.platform.db import get_engine
from app.service.result_records import PAGE_MODELS
from tests.support import factories
from tests.support.factories import assert_envelope


@pytest.fixture
def shared(app, org):
    """Two pipelines (with artifacts) and two predictions, and a public link over them."""
    artifact_dir = app.config["ARTIFACT_DIR"]
    with get_engine(app).begin() as conn:
        p1, r1 = factories.insert_pipeline(conn, org.workspace_id, "protein_design", 3)
        p2, _ = factories.insert_pipeline(conn, org.workspace_id, "small_molecule_design", 2,
                                          name=None, status="running")
        uncovered, _ = factories.insert_pipeline(conn, org.workspace_id, n_results=2)
        factories.add_result_artifacts(conn, artifact_dir, r1)
        d1 = factories.insert_prediction(conn, org.workspace_id, "adme")
        d2 = factories.insert_prediction(conn, org.workspace_id)
        factories.insert_artifact(conn, artifact_dir, content=b"data_x\n", role="structure",
                                  filename="model.cif", content_type="chemical/x-mmcif",
                                  prediction_id=d2)
    # Registered order differs from creation order on purpose.
    link = factories.make_link(app, org, pipeline_ids=[p2, p1], prediction_ids=[d2, d1])
    return {"link": link, "pipelines": [p2, p1], "predictions": [d2, d1],
            "uncovered": uncovered, "results": r1}


def read(client, link_id: str, **headers):
    """GET what a link exposes."""
    return client.get(f"/compute/v1/share/{link_id}", headers=headers)


def results(client, link_id: str, pipeline_id: str, query: str = "", **headers):
    """GET a results page through a link."""
    return client.get(f"/compute/v1/share/{link_id}/pipelines/{pipeline_id}/results{query}",
                      headers=headers)


@pytest.mark.dialect  # order by position; JSON columns
def test_read_lists_full_records_in_registered_order(client, shared):
    response = read(client, shared["link"].id)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "private, no-store"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    body = response.get_json()
    # Exactly the SDK's ShareLinkReadResponse: no access_mode, no top-level livemode.
    assert set(body) == {"id", "created_at", "expires_at", "workspace_id", "pipelines",
                         "predictions"}
    assert body["id"] == shared["link"].id
    assert body["workspace_id"] == shared["link"].workspace_id
    assert [p["id"] for p in body["pipelines"]] == shared["pipelines"]
    assert [p["id"] for p in body["predictions"]] == shared["predictions"]
    sm, protein = body["pipelines"]
    # Full run records, the same as each run's retrieve; no kind, name or result_count.
    assert sm["pipeline"] == sm["engine"] == "boltzmol" and sm["pipeline_version"] == "1.0"
    assert sm["status"] == "running" and sm["livemode"] is True
    assert sm["progress"]["num_molecules_generated"] == 2
    assert sm["progress"]["latest_result_id"]
    assert protein["progress"] == {"num_proteins_generated": 3,
                                   "total_proteins_to_generate": 3,
                                   "latest_result_id": shared["results"][-1]}
    assert protein["pipeline"] == "boltzprot" and "input" in protein
    for record in body["pipelines"]:
        assert not {"kind", "name", "result_count"} & set(record)
        assert record["workspace_id"] == shared["link"].workspace_id
    first, second = body["predictions"]
    assert first["model"] == "boltz-2.1" and second["model"] == "adme-v1"
    for record in body["predictions"]:
        assert not {"application", "inputs", "outputs", "artifacts", "name"} & set(record)
        assert {"input", "output", "status", "livemode"} <= set(record)
    # The stored output gets its file's presigned URL by role (structure: best sample).
    structure = first["output"]["best_sample"]["structure"]
    assert structure["url"].startswith("http://localhost/compute/v1/artifacts/")
    assert structure["url_expires_at"].endswith("Z")


def test_retrieve_answers_the_same_records_as_the_share_read(client, org, shared):
    body = read(client, shared["link"].id).get_json()
    paths = {"boltzmol": "/small-molecule/design", "boltzprot": "/protein/design"}
    for record in body["pipelines"]:
        one = client.get(f"/compute/v1{paths[record['pipeline']]}/{record['id']}",
                         headers=org.headers).get_json()
        assert one == record
    paths = {"boltz-2.1": "/predictions/structure-and-binding", "adme-v1": "/predictions/adme"}
    for record in body["predictions"]:
        one = client.get(f"/compute/v1{paths[record['model']]}/{record['id']}",
                         headers=org.headers).get_json()
        # Same record; only the URL's signature could differ, were a second to pass.
        assert one.keys() == record.keys() and one["input"] == record["input"]
        assert one["id"] == record["id"] and one["status"] == record["status"]


def test_an_api_key_is_not_needed_and_is_ignored(client, org, shared):
    assert read(client, shared["link"].id, **{"x-api-key": "bogus"}).status_code == 200
    assert read(client, shared["link"].id, **org.headers).status_code == 200
    response = results(client, shared["link"].id, shared["pipelines"][1],
                       **{"x-api-key": "bogus"})
    assert response.status_code == 200


def gone_variants(app, org, shared):
    """Yield (label, link id) for every way a link can fail to grant access."""
    pipelines = shared["pipelines"]
    expired = factories.make_link(app, org, pipeline_ids=pipelines,
                                  expires_in=timedelta(seconds=-1))
    archived = factories.make_link(app, org, pipeline_ids=pipelines)
    factories.set_link(app, archived.id, archived_at=archived.created_at)
    second = factories.add_workspace(app, org)
    with get_engine(app).begin() as conn:
        pipeline, _ = factories.insert_pipeline(conn, second, n_results=1)
    in_archived_ws = factories.make_link(app, org, pipeline_ids=[pipeline],
                                         workspace_id=second)
    factories.archive_workspace(app, second)
    return [("unknown", "sl_" + "A" * 32), ("expired", expired.id), ("archived", archived.id),
            ("archived workspace", in_archived_ws.id)], pipeline


@pytest.mark.dialect  # expiry and archive compared in SQL
def test_the_same_404_for_every_gone_link(app, client, org, shared):
    reference = read(client, "sl_doesnotexist")
    assert_envelope(reference, 404)
    variants, ws_pipeline = gone_variants(app, org, shared)
    for label, link_id in variants:
        for response in (
            read(client, link_id),
            results(client, link_id, shared["pipelines"][1]),
            results(client, link_id, ws_pipeline),
        ):
            assert response.status_code == 404, label
            assert response.data == reference.data, label
            assert response.headers.get("WWW-Authenticate") is None


def test_uncovered_pipelines_get_the_same_404(app, client, org, other_org, shared):
    reference = read(client, "sl_doesnotexist").data
    link_id = shared["link"].id
    with get_engine(app).begin() as conn:
        foreign, _ = factories.insert_pipeline(conn, other_org.workspace_id, n_results=1)
    for pipeline_id in (shared["uncovered"], foreign, "pl_unknown", shared["predictions"][0]):
        response = results(client, link_id, pipeline_id)
        assert response.status_code == 404
        assert response.data == reference


def test_a_link_to_a_foreign_pipeline_id_exposes_nothing(app, client, org, other_org):
    # Even a link row naming another workspace's pipeline (impossible through the API)
    # must not read it: the pipeline is looked up inside the link's workspace.
    with get_engine(app).begin() as conn:
        foreign, _ = factories.insert_pipeline(conn, other_org.workspace_id, n_results=1)
    link = factories.make_link(app, org, pipeline_ids=[foreign])
    assert read(client, link.id).get_json()["pipelines"] == []
    assert_envelope(results(client, link.id, foreign), 404)


@pytest.mark.dialect  # archived_at compared in SQL
def test_archiving_stops_access_at_once(client, org, shared):
    link_id = shared["link"].id
    assert read(client, link_id).status_code == 200
    client.post(f"/compute/v1/share-links/{link_id}/archive", headers=org.headers)
    assert_envelope(read(client, link_id), 404)


# Email-mode links and their bearer JWTs.

EMAILS = ["Ada@Example.org", "bob@example.org"]


@pytest.fixture
def email_link(app, org, shared):
    """An email-mode link over the shared pipelines."""
    return factories.make_link(app, org, pipeline_ids=shared["pipelines"],
                               access_mode="email", allowed_emails=EMAILS)


def bearer(token: str) -> dict[str, str]:
    """Return an Authorization header carrying ``token``."""
    return {"Authorization": f"Bearer {token}"}


def claims(app, link_id: str, email: str, **overrides) -> dict:
    """Return valid token claims, with ``overrides`` applied."""
    now = int(time.time())
    base = {"email": email, "share_link_id": link_id, "aud": app.config["JWT_AUDIENCE"],
            "iss": app.config["JWT_ISSUER"], "iat": now, "nbf": now, "exp": now + 300}
    return {**base, **overrides}


def sign(app, payload: dict, key=None, algorithm: str = "EdDSA") -> str:
    """Sign ``payload`` with the viewer's key (or ``key``)."""
    with app.app_context():
        return jwt.encode(payload, key or share_tokens.private_key(app), algorithm=algorithm)


def b64(data: dict) -> str:
    """Return unpadded base64url JSON."""
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def bad_tokens(app, link_id: str, other_link_id: str) -> dict[str, str]:
    """Return tokens that must all be refused with 401, by defect."""
    good = claims(app, link_id, "bob@example.org")
    with app.app_context():
        public_pem = share_tokens.private_key(app).public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    # Algorithm confusion: HS256 keyed with the (public) verification key.
    signing_input = f"{b64({'alg': 'HS256', 'typ': 'JWT'})}.{b64(good)}"
    mac = hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()
    confused = f"{signing_input}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"
    return {
        "garbage": "not-a-jwt",
        "alg none": f"{b64({'alg': 'none', 'typ': 'JWT'})}.{b64(good)}.",
        "wrong key": sign(app, good, key=ed25519.Ed25519PrivateKey.generate()),
        "hmac with the public key": confused,
        "expired": sign(app, claims(app, link_id, "bob@example.org",
                                    exp=int(time.time()) - 60, iat=int(time.time()) - 400,
                                    nbf=int(time.time()) - 400)),
        "other link": sign(app, claims(app, other_link_id, "bob@example.org")),
        "wrong audience": sign(app, claims(app, link_id, "bob@example.org", aud="elsewhere")),
        "no email": sign(app, {k: v for k, v in good.items() if k != "email"}),
    }


def test_email_link_needs_a_bearer_token(client, email_link, shared):
    for response in (read(client, email_link.id),
                     results(client, email_link.id, shared["pipelines"][1])):
        body = assert_envelope(response, 401)
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
        assert "Bearer" in body["message"]
    response = read(client, email_link.id, Authorization="Basic Ym9iOng=")
    assert_envelope(response, 401)


def test_defective_tokens_are_401(app, client, email_link, shared):
    for label, token in bad_tokens(app, email_link.id, shared["link"].id).items():
        for response in (read(client, email_link.id, **bearer(token)),
                         results(client, email_link.id, shared["pipelines"][1],
                                 **bearer(token))):
            assert response.status_code == 401, label
            assert response.headers["WWW-Authenticate"].startswith("Bearer"), label


def test_an_address_not_on_the_list_is_403(app, client, email_link, shared):
    token = sign(app, claims(app, email_link.id, "eve@example.org"))
    assert_envelope(read(client, email_link.id, **bearer(token)), 403)
    assert_envelope(results(client, email_link.id, shared["pipelines"][1], **bearer(token)),
                    403)


def test_addresses_match_case_insensitively(app, client, email_link, shared):
    for address in ("ada@example.org", "ADA@EXAMPLE.ORG", "Bob@Example.Org"):
        with app.app_context():
            token = share_tokens.mint(email_link.id, address, app)
        response = read(client, email_link.id, **bearer(token))
        assert response.status_code == 200, address
        # The SDK's read says nothing of the access mode, nor who may read.
        assert not {"access_mode", "allowed_emails"} & set(response.get_json())
        page = results(client, email_link.id, shared["pipelines"][1], **bearer(token))
        assert page.status_code == 200


def test_a_gone_email_link_is_404_before_any_token_check(app, client, org, email_link):
    factories.set_link(app, email_link.id, archived_at=email_link.created_at)
    response = read(client, email_link.id)
    assert response.data == read(client, "sl_unknown").data


# Record shapes of the pipeline kinds.

@pytest.mark.dialect  # every kind's JSON columns read back
def test_record_shapes_per_kind(app, client, org):
    artifact_dir = app.config["ARTIFACT_DIR"]
    pipelines = {}
    with get_engine(app).begin() as conn:
        for kind in factories.KINDS:
            pipeline_id, ids = factories.insert_pipeline(conn, org.workspace_id, kind, 4)
            factories.add_result_artifacts(conn, artifact_dir, ids,
                                           ligand=kind.startswith("small_molecule"))
            pipelines[kind] = pipeline_id
    link = factories.make_link(app, org, pipeline_ids=list(pipelines.values()))
    common = {"id", "artifacts", "created_at", "metrics"}
    for kind, pipeline_id in pipelines.items():
        page = results(client, link.id, pipeline_id).get_json()
        assert len(page["data"]) == 4, kind
        for index, record in enumerate(page["data"]):
            optional = set()
            if index % 3 == 0:
                optional.add("warnings")
            if kind.startswith("protein"):
                expected = common | {"entities"}
                assert record["entities"][0]["type"] == "protein"
                assert "binding_confidence" in record["metrics"] or kind == (
                    "protein_sequence_redesign")
            else:
                expected = common | {"smiles"}
                if index % 2 == 0 and kind != "small_molecule_explore":  # explore: no ADME
                    optional.add("adme")
                assert set(record["artifacts"]) == {"archive", "structure",
                                                    "ligand_structure"}
            if kind == "protein_sequence_redesign":
                expected |= {"type"}
                assert record["type"] == ("generic" if index % 2 else "binder")
                assert ("binding_confidence" in record["metrics"]) == (
                    record["type"] == "binder")
            if kind.endswith("library_screen"):
                optional.add("external_id")
                assert record["external_id"] == f"ext-{index}"
            elif kind == "small_molecule_explore" and "external_id" in record:
                optional.add("external_id")
            assert set(record) == expected | optional, (kind, index)
            assert None not in record.values()
            for artifact in record["artifacts"].values():
                assert set(artifact) == {"url", "url_expires_at"}
            assert {"archive", "structure"} <= set(record["artifacts"])
        # The documented page model of the kind accepts the page and names every field.
        model = PAGE_MODELS[kind]
        parsed = model.model_validate(page)
        assert parsed.model_dump(exclude_unset=True) == page, kind
