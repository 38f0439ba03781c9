"""Result archives: deterministic zip files holding the structure and metrics.json."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import datetime


def build_zip(files: dict[str, bytes], when: datetime) -> bytes:
    """Return a zip of ``files`` (name -> bytes), every entry stamped ``when``.

    Fixed timestamps and permissions make the bytes depend only on the content, so equal
    archives are stored once by the content-addressed artifact store.
    """
    buffer = io.BytesIO()
    stamp = (max(when.year, 1980), when.month, when.day, when.hour, when.minute,
             when.second - when.second % 2)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data, compresslevel=1)  # speed over ratio
    return buffer.getvalue()


def metrics_json(record: dict) -> bytes:
    """Return the metrics.json of an archive: the result record, pretty-printed."""
    return (json.dumps(record, indent=2, sort_keys=True) + "\n").encode()
