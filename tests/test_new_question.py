"""`make new-question` refuses what would break the contract; that the question it writes passes the tests
and the build is tests/test_contributing.py."""

from __future__ import annotations

import pytest

from tests.tools.new_question import new_question


@pytest.mark.parametrize(
    ("page", "name", "number", "message"),
    [
        ("tensors/nope", "x", 1, "docs/tensors/nope.md does not exist"),
        ("tensors/anatomy", "Bad-Name", 1, "snake_case"),
        ("tensors/anatomy", "attributes", 1, "already exists"),
        ("tensors/anatomy", "fresh", 1, "already has a Q1"),
    ],
)
def test_the_scaffold_refuses_what_would_break_the_contract(project_copy, page, name, number, message) -> None:
    with pytest.raises(SystemExit, match=message):
        new_question(project_copy, page, name, number, "A question?")
