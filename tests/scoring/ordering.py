"""Checks that the evaluator's values order hands exactly as reference keys do."""

from collections.abc import Sequence
from itertools import combinations, pairwise
from typing import Any


def compare(a: Any, b: Any) -> int:
    """1, 0 or -1 from the value's own operators, which must agree with each other."""
    greater, less, equal, unequal = a > b, a < b, a == b, a != b
    assert [greater, less, equal].count(True) == 1, (a, b, greater, less, equal)
    assert unequal is not equal, (a, b, equal, unequal)
    return 1 if greater else -1 if less else 0


def expected_compare(a: Any, b: Any) -> int:
    return (a > b) - (a < b)


def assert_pairs_ordered(values: Sequence[Any], keys: Sequence[Any], hands: Sequence[Any]) -> None:
    """Every pair of values compares as its pair of reference keys does."""
    for i, j in combinations(range(len(values)), 2):
        expected = expected_compare(keys[i], keys[j])
        got = compare(values[i], values[j])
        assert got == expected, (
            f"{hands[i]} vs {hands[j]}: expected {expected}, got {got} "
            f"(reference {keys[i]} vs {keys[j]}; values {values[i]!r} vs {values[j]!r})"
        )


def assert_chain_ordered(values: Sequence[Any], keys: Sequence[Any], hands: Sequence[Any]) -> None:
    """Sorted by reference key, each neighbour compares as its key does: equal keys, equal values.

    With N-1 comparisons this pins the whole order of N hands, given that the values' order is
    transitive (the pairwise checks cover that on smaller samples).
    """
    order = sorted(range(len(keys)), key=keys.__getitem__)
    failures = []
    for i, j in pairwise(order):
        expected = expected_compare(keys[i], keys[j])
        got = compare(values[i], values[j])
        if got != expected:
            failures.append(
                f"{hands[i]} vs {hands[j]}: expected {expected}, got {got} "
                f"(reference {keys[i]} vs {keys[j]})"
            )
    assert not failures, f"{len(failures)} misordered neighbours, e.g.\n" + "\n".join(failures[:10])
