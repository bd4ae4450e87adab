"""The salted commitment to a person that the audit records instead of anything about them
(docs/audit.md, "What an export reveals").

Each registration keeps a random salt; `player_registered` records sha256 of the salt and the
account's id. The salt is private: the player's data download gives it to them, so they can show a
registration was theirs; deleting the account erases it, and the commitment then points at no one.
"""

from __future__ import annotations

import hashlib
import secrets

SALT_BYTES = 16


def new_salt() -> str:
    return secrets.token_hex(SALT_BYTES)


def commitment(salt: str, account_id: int) -> str:
    """sha256 of "syndicate-person:<salt>:<account id>", as hex."""
    return hashlib.sha256(f"syndicate-person:{salt}:{account_id}".encode()).hexdigest()
