"""The spec's example records score exactly as the spec says."""

import json

import pytest

from quintet.record import dumps, example_text, read_record, score

EXAMPLES = ["quinto-partnership", "quinto-dummy", "quintus-base", "quintus-bidding"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_record_scores_as_specified(name: str) -> None:
    record = read_record(example_text(name))
    assert score(record) == json.loads(example_text(name + ".score"))


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_record_round_trips(name: str) -> None:
    record = read_record(example_text(name))
    assert read_record(dumps(record)) == record
