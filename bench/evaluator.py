"""Benchmark of scoring.evaluator against phevaluator and treys (a script, not a test).

Run from the project root: ``.venv/bin/python bench/evaluator.py [--hands N] [--rounds R]``.

Every evaluator reads the same card strings (fixed seed), string handling included in its time:
ours straight from the strings, phevaluator as ``evaluate_cards(*strings)``, treys with
``Card.new`` on each string. Rounds are interleaved and each figure is the median over rounds.
"""

import argparse
import gc
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from phevaluator import evaluate_cards
from treys import Card, Evaluator

from scoring.evaluator import evaluate_high, evaluate_low

RANKS = "23456789TJQKA"
DECK = [rank + suit for rank in RANKS for suit in "cdhs"]

type Hand = list[str]


def natural_hands(rng: random.Random, count: int) -> list[Hand]:
    """Seven distinct cards from one deck."""
    return [rng.sample(DECK, 7) for _ in range(count)]


def wild_hands(rng: random.Random, count: int) -> list[tuple[Hand, str]]:
    """Seven distinct cards holding two or three cards of a random wild rank, with that rank."""
    hands = []
    for _ in range(count):
        wild = rng.choice(RANKS)
        wilds = rng.sample([card for card in DECK if card[0] == wild], rng.choice((2, 3)))
        others = rng.sample([card for card in DECK if card[0] != wild], 7 - len(wilds))
        hand = wilds + others
        rng.shuffle(hand)
        hands.append((hand, wild))
    return hands


def timed(run: Callable[[], object], count: int) -> float:
    """CPU microseconds per hand for one pass, the garbage collector paused.

    CPU time of this process rather than wall time, so that other work on a shared machine
    does not count (it still competes for the caches).
    """
    gc.disable()
    try:
        start = time.process_time_ns()
        run()
        return (time.process_time_ns() - start) / count / 1000
    finally:
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000, help="hands per set (default 20000)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    parser.add_argument("--seed", type=int, default=20_240_607)
    options = parser.parse_args()

    rng = random.Random(options.seed)
    hands = natural_hands(rng, options.hands)
    wild = wild_hands(rng, options.hands)
    count = options.hands

    start = time.process_time()
    evaluate_high(hands[0])
    first_call = time.process_time() - start  # builds the natural tables
    cold_wild = timed(lambda: [evaluate_high(hand, rank) for hand, rank in wild], count)

    treys = Evaluator()
    new = Card.new

    def ours() -> None:
        for hand in hands:
            evaluate_high(hand)

    def ours_wild() -> None:
        for hand, rank in wild:
            evaluate_high(hand, rank)

    def ours_low() -> None:
        for hand in hands:
            evaluate_low(hand)

    def phevaluator() -> None:
        for hand in hands:
            evaluate_cards(*hand)

    def treys_() -> None:
        for hand in hands:
            treys.evaluate([new(card) for card in hand[:2]], [new(card) for card in hand[2:]])

    runs = {
        "evaluate_high, 7 natural cards": ours,
        "phevaluator.evaluate_cards, same hands": phevaluator,
        "treys Evaluator().evaluate + Card.new, same hands": treys_,
        "evaluate_high, 7 cards with 2-3 wild": ours_wild,
        "evaluate_low, 7 cards": ours_low,
    }
    # The same hands must rank alike: check ours against phevaluator once, untimed.
    for hand, other in pairwise(hands[:2000]):
        ours_says = (evaluate_high(hand) > evaluate_high(other)) - (
            evaluate_high(hand) < evaluate_high(other)
        )
        theirs_says = (evaluate_cards(*other) > evaluate_cards(*hand)) - (
            evaluate_cards(*other) < evaluate_cards(*hand)
        )
        assert ours_says == theirs_says, (hand, other)
    for run in runs.values():  # warm every table and cache once
        run()

    samples: dict[str, list[float]] = {name: [] for name in runs}
    names = list(runs)
    for round_ in range(options.rounds):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            samples[name].append(timed(runs[name], count))
    median = {name: statistics.median(times) for name, times in samples.items()}

    natural = median["evaluate_high, 7 natural cards"]
    wild_time = median["evaluate_high, 7 cards with 2-3 wild"]
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{len(os.sched_getaffinity(0))} cores; {count} hands per set, "
        f"{options.rounds} interleaved rounds, seed {options.seed}; CPU-time medians.\n"
    )
    print("| Measurement | µs/hand |")
    print("|---|---:|")
    for name in names:
        print(f"| {name} | {median[name]:.2f} |")
    print(f"| first pass over the wild hands (fills the joker tables) | {cold_wild:.2f} |")
    print(f"\nFirst call in a process (builds the natural tables): {first_call * 1000:.0f} ms.\n")
    print("| Ratio | Goal | Measured |")
    print("|---|---:|---:|")
    phevaluator_ratio = median["phevaluator.evaluate_cards, same hands"] / natural
    treys_ratio = median["treys Evaluator().evaluate + Card.new, same hands"] / natural
    print(f"| ours vs phevaluator (times faster) | >= 3 | {phevaluator_ratio:.2f} |")
    print(f"| ours vs treys (times faster) | >= 10 | {treys_ratio:.2f} |")
    print(f"| wild speed / natural speed | >= 0.35 | {natural / wild_time:.2f} |")


if __name__ == "__main__":
    main()
