"""Cards in words, for screen readers and the board ("Queen of hearts")."""

from __future__ import annotations

from django.utils.translation import pgettext, pgettext_lazy

RANK_NAMES = {
    "2": "Two",
    "3": "Three",
    "4": "Four",
    "5": "Five",
    "6": "Six",
    "7": "Seven",
    "8": "Eight",
    "9": "Nine",
    "T": "Ten",
    "J": "Jack",
    "Q": "Queen",
    "K": "King",
    "A": "Ace",
}
RANK_PLURALS = {
    "2": "2s",
    "3": "3s",
    "4": "4s",
    "5": "5s",
    "6": "6s",
    "7": "7s",
    "8": "8s",
    "9": "9s",
    "T": "10s",
    "J": "Jacks",
    "Q": "Queens",
    "K": "Kings",
    "A": "Aces",
}
RANK_FACES = {"T": "10"}
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def card_name(card: str) -> str:
    """'Qh' -> 'Queen of hearts'."""
    return f"{RANK_NAMES[card[0].upper()]} of {SUIT_NAMES[card[1].lower()]}"


def card_face(card: str) -> dict[str, str]:
    """What a card shows: rank as printed, suit symbol and name, and its words."""
    rank, suit = card[0].upper(), card[1].lower()
    return {
        "code": rank + suit,
        "rank": RANK_FACES.get(rank, rank),
        "suit": suit,
        "symbol": SUIT_SYMBOLS[suit],
        "name": card_name(card),
    }


# A card's words in the active language (`card_words`); `card_name` stays English for the API.
_RANK_WORDS = {
    "2": pgettext_lazy("card rank", "Two"),
    "3": pgettext_lazy("card rank", "Three"),
    "4": pgettext_lazy("card rank", "Four"),
    "5": pgettext_lazy("card rank", "Five"),
    "6": pgettext_lazy("card rank", "Six"),
    "7": pgettext_lazy("card rank", "Seven"),
    "8": pgettext_lazy("card rank", "Eight"),
    "9": pgettext_lazy("card rank", "Nine"),
    "T": pgettext_lazy("card rank", "Ten"),
    "J": pgettext_lazy("card rank", "Jack"),
    "Q": pgettext_lazy("card rank", "Queen"),
    "K": pgettext_lazy("card rank", "King"),
    "A": pgettext_lazy("card rank", "Ace"),
}
_SUIT_WORDS = {
    "c": pgettext_lazy("card suit", "clubs"),
    "d": pgettext_lazy("card suit", "diamonds"),
    "h": pgettext_lazy("card suit", "hearts"),
    "s": pgettext_lazy("card suit", "spades"),
}


def card_words(card: str) -> str:
    """'Qh' -> 'Queen of hearts' in the active language ('Reina de corazones', 'Dame de cœur')."""
    rank, suit = card[0].upper(), card[1].lower()
    return pgettext("a card", "%(rank)s of %(suit)s") % {
        "rank": str(_RANK_WORDS[rank]),
        "suit": str(_SUIT_WORDS[suit]),
    }
