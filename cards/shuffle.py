"""The provably fair shuffle (docs/rules.md section 2.3), pure Python so that anyone can recompute
it.

At start the server draws `seed = secrets.token_bytes(32)` and publishes
`sha256(seed).hexdigest()` as the commitment before any card is dealt; the seed is revealed at
finalization. The random stream is HMAC-SHA256 keyed with the seed over
`label + b":" + k.to_bytes(8, "big")` for k = 0, 1, 2, ...; each block gives one 64-bit number;
draws below `n` reject numbers at or above the largest multiple of `n`. The shuffle is Fisher-Yates
from the last position down, over the canonical order: for each deck, for rank `23456789TJQKA`,
for suit `cdhs`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterator

RANKS = "23456789TJQKA"
SUITS = "cdhs"
DECK = tuple(rank + suit for rank in RANKS for suit in SUITS)
STOCK = b"stock"
HOUSE = b"house"
_TWO_64 = 2**64


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    """What the audit publishes before the first card: sha256 of the seed, hex."""
    return hashlib.sha256(seed).hexdigest()


def canonical_order(decks: int) -> list[str]:
    if decks < 0:
        raise ValueError(f"decks must not be negative: {decks}")
    return list(DECK) * decks


def random_stream(seed: bytes, label: bytes) -> Iterator[int]:
    """64-bit numbers from HMAC-SHA256(key=seed, msg=label:k), k = 0, 1, 2, ..."""
    k = 0
    while True:
        block = hmac.new(seed, label + b":" + k.to_bytes(8, "big"), hashlib.sha256).digest()
        yield int.from_bytes(block[:8], "big")
        k += 1


def shuffled(decks: int, seed: bytes, label: bytes) -> list[str]:
    """The shoe's card order: position 0 is dealt first."""
    cards = canonical_order(decks)
    stream = random_stream(seed, label)
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        limit = (_TWO_64 // n) * n
        x = next(stream)
        while x >= limit:
            x = next(stream)
        j = x % n
        cards[i], cards[j] = cards[j], cards[i]
    return cards
