"""The error codes are a documented, stable list (docs/rules.md section 11.2)."""

from pathlib import Path

from events.errors import ALL_ERRORS, ERRORS_BY_CODE

DOC = Path(__file__).resolve().parents[2] / "docs" / "errors.md"


def test_it_documents_every_error_code_with_its_status() -> None:
    text = DOC.read_text()
    for error in ALL_ERRORS:
        assert f"| `{error.code}` | {error.status} |" in text, error.code


def test_it_gives_every_error_a_unique_snake_case_code() -> None:
    assert len(ERRORS_BY_CODE) == len(ALL_ERRORS)
    for code in ERRORS_BY_CODE:
        assert code == code.lower() and " " not in code and "-" not in code


def test_it_maps_each_kind_of_refusal_to_its_documented_status() -> None:
    statuses = {error.status for error in ALL_ERRORS}
    assert statuses == {400, 403, 404, 409, 422}
    assert ERRORS_BY_CODE["idempotency_conflict"].status == 422
    assert ERRORS_BY_CODE["not_found"].status == 404
    assert ERRORS_BY_CODE["not_allowed"].status == 403
