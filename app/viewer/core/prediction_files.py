"""A prediction's files, read from its ``output`` as the SDK declares it.

A structure-and-binding prediction's record names its files inside ``output``, each as
``{url, url_expires_at}`` (a presigned URL, no name, no type):

- ``structure``: ``output.best_sample.structure``;
- ``ligand_structure``: ``output.best_sample.ligand_structure``;
- ``structure_sample_<n>``: ``output.all_sample_results[n-1].structure``;
- ``ligand_structure_sample_<n>``: ``output.all_sample_results[n-1].ligand_structure``;
- ``archive``: ``output.archive``.

These role names are the viewer's (its download URLs and ``?sample=`` numbers); the file
names are made up here (``<prediction id>_sample_<n>.cif``...) and the content type follows
the extension, taken from the URL's path when it has a known one. An ADME prediction has
no files. Pure functions over the record: no Flask, no HTTP.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

SAMPLE_ROLE = re.compile(r"(structure|ligand_structure)_sample_([1-9][0-9]{0,3})")
# Extension -> content type of the files a prediction can have.
CONTENT_TYPES = {
    "cif": "chemical/x-mmcif",
    "pdb": "chemical/x-pdb",
    "sdf": "chemical/x-mdl-sdfile",
    "zip": "application/zip",
    "json": "application/json",
}
_URL_EXTENSION = re.compile(r"\.([A-Za-z0-9]{2,5})$")
_MAX_SAMPLES = 9999


def _mapping(value: object) -> dict:
    """Return ``value`` if it is a dict, else an empty one."""
    return value if isinstance(value, dict) else {}


def _extension(url: str, default: str) -> str:
    """Return the file extension of ``url``'s path if it is a known one, else ``default``."""
    match = _URL_EXTENSION.search(urlsplit(url).path)
    found = match.group(1).lower() if match else ""
    if found == "mmcif":
        found = "cif"
    return found if found in CONTENT_TYPES else default


def _file(prediction_id: str, role: str, value: object, stem: str, default: str,
          sample: int | None = None) -> dict | None:
    """Return the viewer's record of one file ``value`` (``{url, url_expires_at}``)."""
    url = _mapping(value).get("url")
    if not url or not isinstance(url, str):
        return None
    extension = _extension(url, default)
    found = {"name": role, "url": url, "url_expires_at": _mapping(value).get("url_expires_at"),
             "filename": f"{prediction_id}_{stem}.{extension}",
             "content_type": CONTENT_TYPES[extension]}
    if sample is not None:
        found["sample"] = sample
    return found


def prediction_files(item: dict) -> list[dict]:
    """Return the files a prediction's ``output`` names, in reading order.

    Each is ``{name, url, url_expires_at, filename, content_type}`` (``name`` the role, see
    the module doc; per-sample files also carry ``sample``): the best sample's structure
    and ligand, then each sample's structure and ligand in sample order, then the archive.
    Entries without a URL are left out.
    """
    prediction_id = str(item.get("id") or "prediction")
    output = _mapping(item.get("output"))
    best = _mapping(output.get("best_sample"))
    files = [
        _file(prediction_id, "structure", best.get("structure"), "best_sample", "cif"),
        _file(prediction_id, "ligand_structure", best.get("ligand_structure"),
              "best_sample_ligand", "cif"),
    ]
    samples = output.get("all_sample_results")
    for number, sample in enumerate(samples if isinstance(samples, list) else [], 1):
        if number > _MAX_SAMPLES:
            break
        sample = _mapping(sample)
        files.append(_file(prediction_id, f"structure_sample_{number}",
                           sample.get("structure"), f"sample_{number}", "cif", number))
        files.append(_file(prediction_id, f"ligand_structure_sample_{number}",
                           sample.get("ligand_structure"), f"sample_{number}_ligand", "cif",
                           number))
    files.append(_file(prediction_id, "archive", output.get("archive"), "all_files", "zip"))
    return [f for f in files if f is not None]


def prediction_file(item: dict, role: str) -> dict | None:
    """Return the prediction's file of ``role`` (see ``prediction_files``), or None."""
    return next((f for f in prediction_files(item) if f["name"] == role), None)
