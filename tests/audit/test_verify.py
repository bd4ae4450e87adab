"""The independent audit verifier (audit/verify.py) and `manage.py verify_audit`.

Documents are built here synthetically: entries chained with correct hashes, cards dealt from the
shoes that a known seed gives, and a result block written from this file's own expectation (places
from the slow reference evaluator in tests/scoring/reference.py). Each tampering must be caught and
named.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import subprocess
import sys
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from audit.chain import GENESIS, entry_hash
from audit.verify import Verdict, verify, verify_json
from cards.shuffle import HOUSE, STOCK, shuffled
from payouts.allocation import allocate
from tests.scoring.reference import reference_high, reference_low

SEED = bytes.fromhex("5eed" * 16)
PLAYERS = ("Ann", "Bob", "Cy", "Di")  # Di withdraws before her starting selection
PLAYING = PLAYERS[:3]
OUTCOMES = {"Ann": "WLLWLL", "Bob": "LWLLWL", "Cy": "LLWLLW"}
# Per format: starting cards offered, starting cards kept, games that earn a card.
FORMATS = {"league": (3, 1, 6), "switch": (5, 3, 4), "standard-v1": (0, 0, 6)}
ROOT = Path(__file__).resolve().parents[2]

type Document = dict[str, Any]
type Card = dict[str, Any]


class Book:
    """Writes a synthetic audit: hash-chained entries, cards dealt in order from the known seed."""

    def __init__(self, *, format: str = "league", contribution: int = 10) -> None:
        self.format = format
        self.contribution = contribution
        self.shoes = {"stock": shuffled(1, SEED, STOCK), "house": shuffled(1, SEED, HOUSE)}
        self.next = {"stock": 0, "house": 0}
        self.entries: list[dict[str, Any]] = []
        self.players: list[str] = []
        self.kept: dict[str, list[str]] = {}
        self.wilds: dict[str, str] = {}
        self.withdrawn: set[str] = set()
        self.pool = 0
        self.adjustments: list[dict[str, Any]] = []
        self.clock = datetime(2026, 11, 29, 19, 0, tzinfo=UTC)

    def write(
        self, action: str, player: str | None = None, *, actor: str = "system", **details: Any
    ) -> dict[str, Any]:
        self.clock += timedelta(seconds=7)
        entry = {
            "seq": len(self.entries) + 1,
            "at": self.clock.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "actor": actor,
            "action": action,
            "player": player,
            "details": copy.deepcopy(details),  # as in JSON: no dict shared between entries
            "reason": None,
            "prev_hash": "",
        }
        self.entries.append(entry)
        return entry

    def deal(self, shoe: str = "stock", *, face_down: bool = False) -> Card:
        position = self.next[shoe]
        self.next[shoe] += 1
        card: Card = {"shoe": shoe, "position": position}
        if not face_down:
            card["card"] = self.shoes[shoe][position]
        return card

    def revealed(self, card: Card) -> Card:
        return {**card, "card": self.shoes[card["shoe"]][card["position"]]}

    def skip(self, shoe: str = "stock") -> None:
        self.next[shoe] += 1

    def check_in(self, *players: str) -> None:
        for player in players:
            self.write("player_registered", player, actor=player)
            self.write("player_checked_in", player, actor="House: Max", late=False)
            self.players.append(player)
            self.kept[player] = []

    def start(self) -> None:
        self.write(
            "event_started",
            actor="House: Max",
            decks=1,
            house_decks=1,
            reserve_per_place=15,
            supported_places=3,
            commitment=hashlib.sha256(SEED).hexdigest(),
            players=list(self.players),
        )

    def keep(self, player: str, card: Card, source: str, game: int | None = None) -> None:
        self.write("card_kept", player, card=card, source=source, game=game)
        self.kept[player].append(card["card"])

    def reveal_wild(self, player: str) -> None:
        indicator = self.deal("house")
        self.write("wild_revealed", player, indicator=indicator, wild_rank=indicator["card"][0])
        self.wilds[player] = indicator["card"][0]

    def withdraw(self, player: str, voided: Iterable[Card] = ()) -> None:
        self.write("player_withdrawn", player, actor=player, by="self", voided=list(voided))
        self.withdrawn.add(player)

    def confirm_pool(self, adjustments: list[dict[str, Any]]) -> None:
        base = self.contribution * len(self.players)
        self.pool = base + sum(adjustment["amount"] for adjustment in adjustments)
        self.adjustments = adjustments
        self.write(
            "pool_confirmed",
            actor="House: Max",
            pool=self.pool,
            base=base,
            contribution=self.contribution,
            participants=len(self.players),
            adjustments=adjustments,
        )

    def finalize(self) -> Document:
        result = self.expected_result()
        awards = {row["player"]: row["award"] for row in result["players"] if row["award"]}
        self.write(
            "event_finalized",
            actor="House: Max",
            seed=SEED.hex(),
            unallocated=result["unallocated"],
            awards=awards,
        )
        return self.document(seed=SEED.hex(), result=result)

    def document(self, *, seed: str | None = None, result: Any = None) -> Document:
        entries = copy.deepcopy(self.entries)
        reseal(entries)
        event = {"id": 1, "name": "Fall league", "format": self.format}
        return {
            "event": {**event, "contribution": self.contribution},
            "entries": entries,
            "seed": seed,
            "result": result,
        }

    def expected_result(self) -> dict[str, Any]:
        """The result block as this test reads the rules, with the reference evaluator."""
        eligible = [player for player in self.players if player not in self.withdrawn]
        high = {p: reference_high(self.kept[p], self.wilds.get(p)) for p in eligible}
        low = {p: reference_low(self.kept[p]) for p in eligible}
        high_places = {p: 1 + sum(high[q] > high[p] for q in eligible) for p in eligible}
        low_places = {p: 1 + sum(low[q] < low[p] for q in eligible) for p in eligible}
        split = allocate(
            self.pool,
            [p for p in eligible if high_places[p] == 1],
            [p for p in eligible if low_places[p] == 1],
        )
        return {
            "pool": self.pool,
            "adjustments": self.adjustments,
            "unallocated": split.unallocated,
            "players": [
                {
                    "player": player,
                    "status": "withdrawn" if player in self.withdrawn else "eligible",
                    "cards": list(self.kept[player]),
                    "wild_rank": self.wilds.get(player),
                    "high_place": high_places.get(player),
                    "low_place": low_places.get(player),
                    "award": split.awards.get(player, 0),
                }
                for player in self.players
            ],
        }


def reseal(entries: list[dict[str, Any]]) -> None:
    """Chain the entries again after an edit, so that only the edit itself can be wrong."""
    prev_hash = GENESIS
    for entry in entries:
        entry["prev_hash"] = prev_hash
        entry.pop("hash", None)
        entry["hash"] = entry_hash(entry)
        prev_hash = entry["hash"]


def play(
    format: str = "league", *, contribution: int = 10, wilds_for: Iterable[str] = PLAYING
) -> Book:
    """Four players: Di withdraws with her face-down offer voided, the others play every game;
    Bob's win in game 2 is chosen by House."""
    offered, kept, games = FORMATS[format]
    book = Book(format=format, contribution=contribution)
    book.write("event_created", actor="House: Max", name="Fall league", format=format)
    book.check_in(*PLAYERS)
    book.start()
    offers = {}
    for player in PLAYERS:
        if offered:
            offers[player] = [book.deal(face_down=True) for _ in range(offered)]
            book.write("starting_offer_dealt", player, cards=offers[player])
    book.withdraw("Di", [book.revealed(card) for card in offers.get("Di", [])])
    for player in PLAYING:
        if not offered:
            continue
        cards = [book.revealed(card) for card in offers[player]]
        book.write("starting_selection_confirmed", player, kept=cards[:kept], not_kept=cards[kept:])
        for card in cards[:kept]:
            book.keep(player, card, "start")
    for game in range(1, games + 1):
        for player in PLAYING:
            won = OUTCOMES[player][game - 1] == "W"
            book.write("result_submitted", player, game=game, result="win" if won else "loss")
            if not won:
                book.keep(player, book.deal(), "loss", game)
                continue
            choices = [book.deal(), book.deal()]
            book.write("win_cards_dealt", player, game=game, cards=choices)
            by_house = (player, game) == ("Bob", 2)
            book.write(
                "win_choice_confirmed",
                player,
                game=game,
                kept=choices[1],
                discarded=choices[0],
                by_house=by_house,
            )
            book.keep(player, choices[1], "house" if by_house else "win", game)
    for player in wilds_for:
        book.reveal_wild(player)
    book.write("registration_closed", actor="House: Max", no_shows=[])
    book.confirm_pool([{"amount": -3, "explanation": "Refund of a venue fee paid twice"}])
    return book


def finished(format: str = "league") -> Document:
    return play(format).finalize()


def entry(document: Document, action: str, *, player: str | None = None, nth: int = 0) -> Any:
    found = [
        e
        for e in document["entries"]
        if e["action"] == action and (player is None or e["player"] == player)
    ]
    return found[nth]


def row(document: Document, player: str) -> dict[str, Any]:
    return next(row for row in document["result"]["players"] if row["player"] == player)


def refused(document: object) -> str:
    verdict = verify(document)
    assert not verdict.ok, verdict
    assert verdict.problem is not None
    return verdict.problem


# A valid event ------------------------------------------------------------------------------------


@pytest.mark.parametrize("format", list(FORMATS))
def test_it_accepts_a_valid_finalized_event(format: str) -> None:
    document = finished(format)
    verdict = verify(document)
    assert verdict == Verdict(ok=True, checked=verdict.checked, problem=None, finalized=True)
    checked = "\n".join(verdict.checked)
    assert f"chain: {len(document['entries'])} entries" in checked
    assert "commitment: sha256 of the revealed seed matches entry seq" in checked
    assert "house cards match the seed" in checked
    assert "pool: $37 = $10 x 4 participants - $3 in adjustments" in checked
    assert "places: High and Low recomputed for 3 eligible players" in checked
    assert "awards:" in checked


def test_it_counts_the_dealt_cards_of_each_shoe() -> None:
    book = play("league")
    verdict = verify(book.finalize())
    shuffle_line = next(line for line in verdict.checked if line.startswith("shuffle:"))
    assert shuffle_line.startswith(
        f"shuffle: {book.next['stock']} stock cards and 3 house cards match the seed"
    )


def test_it_accepts_a_free_event_with_no_cash_pool() -> None:
    book = play("league", contribution=0)
    book.entries.pop()  # the pool confirmation with its refund
    book.confirm_pool([])
    verdict = verify(book.finalize())
    assert verdict.ok, verdict.problem
    assert any(line.startswith("awards:") and "$0 unallocated" in line for line in verdict.checked)


def test_it_accepts_details_whose_keys_come_back_in_another_order() -> None:
    # PostgreSQL's jsonb does not keep key order; the hash uses sorted keys, so order is free.
    document = finished()
    for e in document["entries"]:
        e["details"] = dict(reversed(list(e["details"].items())))
    reseal(document["entries"])
    assert verify(document).ok


def test_it_takes_the_positions_one_entry_deals_in_any_order() -> None:
    # One entry is one transaction; its object keys need not come back in dealing order.
    book = Book()
    book.check_in("Bob", "Ann")
    book.start()
    bob = [book.deal(face_down=True) for _ in range(3)]
    ann = [book.deal(face_down=True) for _ in range(3)]
    book.write("starting_offers_dealt", offers={"Ann": ann, "Bob": bob})
    for player, offer in (("Bob", bob), ("Ann", ann)):
        cards = [book.revealed(card) for card in offer]
        book.write("starting_selection_confirmed", player, kept=cards[:1], not_kept=cards[1:])
    book.write("event_finalized", seed=SEED.hex())
    verdict = verify(book.document(seed=SEED.hex()))
    # It gets past every dealt card and stops only at the missing result block.
    assert verdict.problem == "The event is finalized, but the document has no result block."
    assert any(line.startswith("shuffle: 6 stock cards") for line in verdict.checked)


def test_it_says_an_unfinalized_event_is_not_yet_verifiable() -> None:
    document = play().document()
    verdict = verify(document)
    assert verdict.ok
    assert not verdict.finalized
    count = len(document["entries"])
    assert verdict.checked[0] == f"chain: {count} entries, seq 1 to {count}, every hash intact"
    assert "not yet verifiable" in verdict.checked[-1]


def test_it_still_checks_the_chain_of_an_unfinalized_event() -> None:
    document = play().document()
    document["entries"][3]["actor"] = "House: Eve"
    assert refused(document).startswith("Entry seq 4: its hash does not match its contents")


# The hash chain -----------------------------------------------------------------------------------


def test_it_names_an_edited_detail() -> None:
    document = finished()
    kept = entry(document, "card_kept", player="Ann", nth=2)
    kept["details"]["source"] = "house"
    assert refused(document) == (
        f"Entry seq {kept['seq']}: its hash does not match its contents; "
        "the entry was changed after it was written."
    )


def test_it_names_a_broken_prev_hash() -> None:
    document = finished()
    tampered = document["entries"][5]
    tampered["prev_hash"] = "f" * 64
    tampered["hash"] = entry_hash({k: v for k, v in tampered.items() if k != "hash"})
    assert refused(document) == "Entry seq 6: prev_hash does not equal the hash of entry seq 5."


def test_it_names_a_first_entry_not_chained_to_the_genesis_hash() -> None:
    document = finished()
    document["entries"][0]["prev_hash"] = "1" * 64
    reseal_from = document["entries"][0]
    reseal_from["hash"] = entry_hash({k: v for k, v in reseal_from.items() if k != "hash"})
    assert refused(document) == "Entry seq 1: prev_hash is not the genesis hash (64 zeros)."


def test_it_names_a_gap_in_seq() -> None:
    document = finished()
    del document["entries"][7]
    reseal(document["entries"])
    assert refused(document) == "Entry seq 9 follows entry seq 7: seq 8 is missing."


def test_it_names_a_repeated_seq() -> None:
    document = finished()
    document["entries"][4]["seq"] = 4
    reseal(document["entries"])
    assert refused(document) == (
        "Entry seq 4 follows entry seq 4: seq must rise by one, with no repeat."
    )


def test_it_names_a_chain_that_does_not_start_at_seq_1() -> None:
    document = finished()
    for e in document["entries"]:
        e["seq"] += 1
    reseal(document["entries"])
    assert refused(document) == "The first entry has seq 2; the chain starts at seq 1."


# The seed and its commitment ----------------------------------------------------------------------


def test_it_names_a_wrong_commitment() -> None:
    document = finished()
    started = entry(document, "event_started")
    started["details"]["commitment"] = hashlib.sha256(b"another seed").hexdigest()
    reseal(document["entries"])
    assert refused(document).startswith(
        f"Entry seq {started['seq']} (event_started): the commitment is not sha256 of the "
        "revealed seed"
    )


def test_it_names_a_seed_that_differs_from_the_finalization_entry() -> None:
    document = finished()
    document["seed"] = "00" * 32
    finalized = entry(document, "event_finalized")
    assert refused(document) == (
        f"Entry seq {finalized['seq']} (event_finalized): details.seed is not the document's seed."
    )


def test_it_names_a_finalization_without_a_revealed_seed() -> None:
    document = finished()
    document["seed"] = None
    assert "the document's seed is null" in refused(document)


# Dealt cards --------------------------------------------------------------------------------------


def test_it_names_a_card_that_does_not_match_its_position() -> None:
    document = finished()
    kept = entry(document, "card_kept", player="Cy", nth=1)  # Cy's game 1 loss: first mention
    card = kept["details"]["card"]
    real = card["card"]
    card["card"] = "As" if real != "As" else "Kd"
    reseal(document["entries"])
    assert refused(document) == (
        f"Entry seq {kept['seq']} (card_kept): stock position {card['position']} is named "
        f"{card['card']}, but the revealed seed puts {real} there."
    )


def test_it_names_a_later_mention_that_disagrees_with_an_earlier_one() -> None:
    document = finished()
    kept = entry(document, "card_kept", player="Ann", nth=1)  # Ann's game 1 win, dealt face up
    card = kept["details"]["card"]
    real = card["card"]
    card["card"] = "As" if real != "As" else "Kd"
    reseal(document["entries"])
    problem = refused(document)
    assert problem.startswith(f"Entry seq {kept['seq']} (card_kept): stock position")
    assert problem.endswith(
        f"the revealed seed puts {real} there (entry seq {kept['seq'] - 2} named it {real})."
    )


def test_it_names_a_skipped_position() -> None:
    book = Book()
    book.check_in("Ann", "Bob")
    book.start()
    book.keep("Ann", book.deal(), "loss", 1)
    book.skip()
    book.keep("Bob", book.deal(), "loss", 1)
    book.write("event_finalized", seed=SEED.hex())
    document = book.document(seed=SEED.hex())
    assert refused(document) == (
        "Entry seq 7 (card_kept) deals stock position 2, but stock position 1 was never dealt "
        "before it; cards leave the shoe strictly in order."
    )


def test_it_names_a_position_dealt_into_two_hands() -> None:
    book = Book()
    book.check_in("Ann", "Bob")
    book.start()
    card = book.deal()
    book.keep("Ann", card, "loss", 1)
    book.keep("Bob", card, "loss", 1)
    book.write("event_finalized", seed=SEED.hex())
    document = book.document(seed=SEED.hex())
    assert refused(document) == (
        "Entry seq 7 (card_kept): stock position 0 enters Bob's hand, but it already entered "
        "Ann's hand at entry seq 6."
    )


def test_it_names_a_position_kept_twice_in_one_hand() -> None:
    document = finished()
    first = entry(document, "card_kept", player="Ann", nth=0)
    again = entry(document, "card_kept", player="Ann", nth=1)
    again["details"]["card"] = copy.deepcopy(first["details"]["card"])
    reseal(document["entries"])
    assert refused(document) == (
        f"Entry seq {again['seq']} (card_kept): stock position "
        f"{first['details']['card']['position']} enters Ann's hand, but it already entered "
        f"Ann's hand at entry seq {first['seq']}."
    )


def test_it_names_a_face_down_card_never_revealed() -> None:
    book = Book()
    book.check_in("Ann", "Bob")
    book.start()
    book.write("starting_offer_dealt", "Ann", cards=[book.deal(face_down=True) for _ in range(3)])
    book.write("event_finalized", seed=SEED.hex())
    document = book.document(seed=SEED.hex())
    assert refused(document) == (
        "Entry seq 6 (starting_offer_dealt) records stock position 0 face down, and no later entry "
        "reveals it."
    )


def test_it_names_a_card_dealt_before_the_commitment() -> None:
    book = Book()
    book.check_in("Ann", "Bob")
    book.keep("Ann", book.deal(), "loss", 1)
    book.start()
    book.write("event_finalized", seed=SEED.hex())
    assert refused(book.document(seed=SEED.hex())) == (
        "Entry seq 5 (card_kept) deals stock position 0 before the shuffle commitment (seq 6)."
    )


def test_it_names_a_position_beyond_the_shoe() -> None:
    document = finished()
    kept = entry(document, "card_kept", player="Bob", nth=4)
    kept["details"]["card"]["position"] = 52
    reseal(document["entries"])
    assert refused(document) == (
        f"Entry seq {kept['seq']} (card_kept): stock position 52 is beyond the stock shoe's "
        "52 cards."
    )


# Hands and wilds ----------------------------------------------------------------------------------


def test_it_names_a_wild_rank_that_is_not_the_indicator_rank() -> None:
    document = finished()
    wild = entry(document, "wild_revealed", player="Cy")
    indicator = wild["details"]["indicator"]["card"]
    wild["details"]["wild_rank"] = "2" if indicator[0] != "2" else "3"
    reseal(document["entries"])
    assert refused(document).startswith(
        f"Entry seq {wild['seq']} (wild_revealed): the wild rank is "
        f"'{wild['details']['wild_rank']}', but the indicator {indicator} has the rank"
    )


def test_it_names_an_indicator_from_the_stock() -> None:
    book = Book()
    book.check_in("Ann", "Bob")
    book.start()
    indicator = book.deal()
    book.write("wild_revealed", "Ann", indicator=indicator, wild_rank=indicator["card"][0])
    book.write("event_finalized", seed=SEED.hex())
    assert refused(book.document(seed=SEED.hex())) == (
        "Entry seq 6 (wild_revealed): the indicator comes from the stock shoe, not house."
    )


def test_it_names_a_player_with_kept_cards_missing_from_the_result() -> None:
    document = finished()
    document["result"]["players"] = [
        r for r in document["result"]["players"] if r["player"] != "Cy"
    ]
    confirmed = entry(document, "pool_confirmed")
    confirmed["details"].update(pool=27, base=30, participants=3)
    reseal(document["entries"])
    document["result"]["pool"] = 27
    first = entry(document, "card_kept", player="Cy")
    assert refused(document) == (
        f"Entry seq {first['seq']} (card_kept) concerns Cy, who is not in result.players."
    )


def test_it_names_a_participant_count_that_differs_from_the_confirmation() -> None:
    document = finished()
    document["result"]["players"] = [
        r for r in document["result"]["players"] if r["player"] != "Cy"
    ]
    confirmed = entry(document, "pool_confirmed")
    assert refused(document) == (
        f"Entry seq {confirmed['seq']} (pool_confirmed): details.participants is 4, but the "
        "export has 3 (result.players)."
    )


def test_it_names_cards_that_differ_from_the_kept_cards() -> None:
    document = finished()
    ann = row(document, "Ann")
    ann["cards"] = ann["cards"][1:] + ann["cards"][:1]
    assert refused(document).startswith("Result for Ann: the cards are ")


def test_it_names_a_wrong_status() -> None:
    document = finished()
    row(document, "Di")["status"] = "eligible"
    withdrawn = entry(document, "player_withdrawn", player="Di")
    assert refused(document) == (
        f"Result for Di: the status is eligible, but the entries make it withdrawn "
        f"(entry seq {withdrawn['seq']})."
    )


def test_it_names_an_eligible_player_without_a_full_hand() -> None:
    book = play("league")
    kept = [e for e in book.entries if e["action"] == "card_kept" and e["player"] == "Bob"][-1]
    kept["action"] = "card_discarded"
    book.kept["Bob"].pop()
    document = book.finalize()
    assert refused(document) == "Result for Bob: eligible with 6 kept cards; a full hand is 7."


def test_it_names_an_eligible_player_without_a_wild() -> None:
    document = play("league", wilds_for=["Ann", "Cy"]).finalize()
    assert refused(document) == (
        "Result for Bob: eligible, but no wild_revealed entry reveals a wild."
    )


# Pool, places and awards --------------------------------------------------------------------------


def test_it_names_a_wrong_pool_in_the_result() -> None:
    document = finished()
    document["result"]["pool"] = 40
    confirmed = entry(document, "pool_confirmed")
    assert refused(document) == (
        f"result.pool is $40, but Entry seq {confirmed['seq']} (pool_confirmed) confirmed $37 "
        f"(seq {confirmed['seq']})."
    )


def test_it_names_a_confirmed_pool_that_is_not_base_plus_adjustments() -> None:
    document = finished()
    confirmed = entry(document, "pool_confirmed")
    confirmed["details"]["pool"] = 40
    reseal(document["entries"])
    assert refused(document) == (
        f"Entry seq {confirmed['seq']} (pool_confirmed): the pool is $40, but $10 x 4 "
        "participants - $3 in adjustments is $37."
    )


def test_it_names_result_adjustments_that_differ_from_the_confirmation() -> None:
    document = finished()
    document["result"]["adjustments"] = []
    assert refused(document).startswith("result.adjustments differ from the adjustments")


def test_it_uses_the_last_pool_confirmation() -> None:
    book = play("league")
    book.confirm_pool(
        [{"amount": -3, "explanation": "Refund"}, {"amount": 5, "explanation": "Gift"}]
    )
    document = book.finalize()
    assert verify(document).ok
    assert document["result"]["pool"] == 42


def test_it_names_a_wrong_place() -> None:
    document = finished()
    ann = row(document, "Ann")
    written = ann["high_place"]
    ann["high_place"] = written + 1
    assert refused(document) == (
        f"Result for Ann: the High place is {written + 1}, but the recomputed High place is "
        f"{written}."
    )


def test_it_names_a_place_given_to_a_withdrawn_player() -> None:
    document = finished()
    row(document, "Di")["low_place"] = 1
    assert refused(document) == (
        "Result for Di: the Low place is 1, but the recomputed Low place is none."
    )


def test_it_names_a_wrong_award() -> None:
    document = finished()
    winner = next(r for r in document["result"]["players"] if r["award"] > 0)
    winner["award"] += 1
    assert refused(document) == (
        f"Result for {winner['player']}: the award is ${winner['award']}, but the split of the "
        f"$37 pool gives ${winner['award'] - 1}."
    )


def test_it_names_a_wrong_unallocated() -> None:
    document = finished()
    written = document["result"]["unallocated"]
    document["result"]["unallocated"] = written + 2
    assert refused(document) == (
        f"result.unallocated is ${written + 2}, but the split of the $37 pool leaves "
        f"${written} unallocated."
    )


def test_it_names_awards_in_the_finalization_entry_that_differ() -> None:
    document = finished()
    finalized = entry(document, "event_finalized")
    finalized["details"]["awards"]["Di"] = 5
    reseal(document["entries"])
    assert refused(document) == (
        f"Entry seq {finalized['seq']} (event_finalized): the award of Di is 5, but the split "
        "gives $0."
    )


# Shapes -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ([], "The document is not a JSON object with event, entries, seed and result."),
        ({"event": {}, "seed": None}, "The document has no entries list."),
        ({"entries": [], "seed": None}, "The document has no event object."),
        ({"event": {}, "entries": [7]}, "Entry number 1 in the file is not a JSON object."),
        (
            {"event": {}, "entries": [{"seq": "1"}]},
            "Entry number 1 in the file has no whole-number seq.",
        ),
    ],
)
def test_it_names_a_document_of_the_wrong_shape(document: object, problem: str) -> None:
    assert refused(document) == problem


def test_it_names_a_result_block_of_the_wrong_shape() -> None:
    document = finished()
    document["result"]["players"][0]["award"] = 8.0
    assert refused(document) == "Result for Ann: award is 8.0, not a whole number."


def test_it_names_text_that_is_not_json() -> None:
    verdict = verify_json("{not json")
    assert not verdict.ok
    assert verdict.problem is not None
    assert verdict.problem.startswith("The file is not JSON: ")


# The command --------------------------------------------------------------------------------------


def write(tmp_path: Path, document: object) -> Path:
    path = tmp_path / "audit.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_it_prints_what_the_command_checked(tmp_path: Path) -> None:
    out = io.StringIO()
    call_command("verify_audit", str(write(tmp_path, finished())), stdout=out)
    printed = out.getvalue()
    assert "checked chain:" in printed
    assert "checked awards:" in printed
    assert "OK: the audit verifies." in printed


def test_it_raises_a_command_error_naming_the_problem(tmp_path: Path) -> None:
    document = finished()
    document["result"]["unallocated"] += 1
    with pytest.raises(CommandError, match=r"^result\.unallocated is \$"):
        call_command("verify_audit", str(write(tmp_path, document)), stdout=io.StringIO())


def test_it_reads_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(play().document())))
    out = io.StringIO()
    call_command("verify_audit", "-", stdout=out)
    assert "the shuffle is not yet verifiable" in out.getvalue()


def test_it_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"^Cannot read "):
        call_command("verify_audit", str(tmp_path / "nowhere.json"))


def test_it_exits_non_zero_with_the_problem_on_stderr(tmp_path: Path) -> None:
    document = finished()
    row(document, "Ann")["high_place"] = 9
    completed = subprocess.run(
        [sys.executable, "manage.py", "verify_audit", str(write(tmp_path, document))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 1
    assert "Result for Ann: the High place is 9" in completed.stderr
    assert "Traceback" not in completed.stderr
    assert "checked chain:" in completed.stdout


def test_it_names_a_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "audit.json"
    path.write_bytes(b"\xff\xfe not json")
    with pytest.raises(CommandError, match=r"^The file is not JSON: "):
        call_command("verify_audit", str(path), stdout=io.StringIO())
