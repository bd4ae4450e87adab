"""The audit hash chain (docs/rules.md section 10.3), shared by the writer and the independent
verifier.

`hash = sha256(prev_hash + canonical JSON of the entry without "hash")`, where canonical JSON
has sorted keys, no spaces and keeps non-ASCII characters as they are. The first `prev_hash` is
64 zeros.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

GENESIS = "0" * 64


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_hash(entry_without_hash: Mapping[str, Any]) -> str:
    """The hash of an entry; `entry_without_hash` holds every stored key but `hash`."""
    prev_hash = entry_without_hash["prev_hash"]
    payload = prev_hash + canonical_json(dict(entry_without_hash))
    return hashlib.sha256(payload.encode()).hexdigest()
