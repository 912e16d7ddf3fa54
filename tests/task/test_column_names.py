"""One column name written two ways (``task.column_names``): the matcher every reader of task
files by other authors shares."""

from __future__ import annotations

import pytest

from mlestar_jupyter.task.column_names import column_key, find_column


@pytest.mark.parametrize(
    ("name", "columns", "loose", "found"),
    [
        ("label", ["id", "label"], False, "label"),  # as written
        ("Label", ["ImageId", "label", "pixel0"], False, "label"),  # the digit recognizer
        (" Survived ", ["PassengerId", "Survived"], False, "Survived"),  # pasted with spaces
        ("SalePrice", ["Id", "sale_price"], False, None),  # only a loose match
        ("SalePrice", ["Id", "sale_price"], True, "sale_price"),
        ("sale-price", ["Id", "Sale Price"], True, "Sale Price"),
        ("id", ["ID", "Id"], False, None),  # two spellings: unclear, none
        ("ID", ["ID", "Id"], False, "ID"),  # itself first
        ("target", ["a", "b"], True, None),
    ],
)
def test_find_column(name: str, columns: list[str], loose: bool, found: str | None) -> None:
    assert find_column(name, columns, loose=loose) == found


def test_column_key_keeps_words_apart_unless_loose() -> None:
    assert column_key(" Sale_Price ") == "sale_price"
    assert column_key(" Sale_Price ", loose=True) == "saleprice"
    assert find_column("sale price", [1, "sale_price"]) is None  # numbers as column names
