"""The text kernels on their own: ``parse_decimal`` against :mod:`decimal` on short text
(the values an 8-byte step reads at once) in every row layout, at a buffer's end and away
from it, and ``copy_rows`` (rows of up to 8 bytes are one masked word) against slicing."""

from __future__ import annotations

import decimal
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vecfix._kernels import BIG, EXPONENT_RANGE, INVALID, OK
from vecfix._kernels.text import copy_rows, parse_decimal

_GRAMMAR = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_NO_VALID = np.zeros(0, dtype=np.uint8)

EDGES = [
    "", ".", "-", "+", "-.", "+.", "0", "-0", "+0", "00", "0.", ".0", "-.5", "1.", "5000.25",
    "12345678", "-12345678", "1234567.", ".1234567", "1234.5678", "99999999", "0000000.1",
    "1.2.3", "1..2", "..", "1-2", "1+", "1e5", "1E-2", ".e1", "1.5e", "1 2", " 1", "1 ", "+-1",
    "--1", "12345678.", "123456789", "1.23456789", "-0.0000001", "9.9999999", "a", "1a", "1/",
    "1:", "/", ":", "-/", ".:",
]  # fmt: skip


def reference(text: str) -> tuple[int, int, int]:
    """``(coefficient, exponent, status)`` of ``text`` by :mod:`decimal`: the coefficient is
    every digit of the mantissa as one integer, the exponent the written one less the
    digits after the point."""
    if not _GRAMMAR.fullmatch(text):
        return 0, 0, INVALID
    sign, digits, exponent = decimal.Decimal(text).as_tuple()
    assert isinstance(exponent, int)
    if not -(2**31) <= exponent < 2**31:
        return 0, 0, EXPONENT_RANGE
    coef = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    if not -(2**63) <= coef < 2**63:
        return 0, exponent, BIG
    return coef, exponent, OK


def parse_all(data: np.ndarray, offsets: np.ndarray, width: int, gap: int, n: int):
    coef = np.full(n, 77, dtype=np.int64)
    exps = np.full(n, 77, dtype=np.int32)
    status = np.full(n, 77, dtype=np.uint8)
    parse_decimal(data, offsets, width, gap, _NO_VALID, coef, exps, status)
    return [(int(c), int(e), int(s)) for c, e, s in zip(coef, exps, status, strict=True)]


def check(texts: list[str]) -> None:
    want = [reference(t) for t in texts]
    raw = [t.encode() for t in texts]
    n = len(raw)
    joined = b"".join(raw)
    bounds = np.cumsum([0, *map(len, raw)]).astype(np.int64)
    # (start, stop) pairs, with 8 spare bytes after every row (the 8-byte step) ...
    spaced = b"".join(r + b"\x01" * 8 for r in raw)
    starts = np.cumsum([0, *(len(r) + 8 for r in raw[:-1])]).astype(np.int64)
    pairs = np.column_stack([starts, starts + [len(r) for r in raw]]).reshape(-1)
    assert parse_all(np.frombuffer(spaced, np.uint8), pairs, 0, -1, n) == want
    # ... and back to back, the last row at the buffer's very end (byte by byte there)
    pairs = np.column_stack([bounds[:-1], bounds[1:]]).reshape(-1)
    assert parse_all(np.frombuffer(joined, np.uint8), pairs, 0, -1, n) == want
    # Arrow offsets, and rows joined by a separator
    assert parse_all(np.frombuffer(joined, np.uint8), bounds, 0, 0, n) == want
    sep = np.frombuffer(b"".join(r + b"|" for r in raw), np.uint8)
    assert parse_all(sep, bounds + np.arange(n + 1), 0, 1, n) == want
    # a NumPy S matrix (trailing NULs dropped)
    width = max(1, *map(len, raw))
    matrix = np.array(raw, dtype=f"S{width}").view(np.uint8)
    trimmed = [reference(t.rstrip("\0")) for t in texts]
    assert parse_all(matrix, np.zeros(0, np.int64), width, 0, n) == trimmed


def test_short_decimal_text_edges():
    check(EDGES)
    check([t.rjust(8, "0") for t in ("5", "5.", ".5", "-5")])


@given(st.lists(st.text(alphabet="0123456789.-+eE", max_size=12), min_size=1, max_size=40))
@settings(max_examples=300, deadline=None)
def test_short_decimal_text_agrees_with_decimal(texts):
    check(texts)


@given(
    st.lists(
        st.from_regex(r"-?[0-9]{0,9}(\.[0-9]{0,9})?", fullmatch=True).filter(lambda t: t != ""),
        min_size=1,
        max_size=40,
    )
)
@settings(max_examples=300, deadline=None)
def test_plain_decimals_of_up_to_nineteen_characters(texts):
    check(texts)


@pytest.mark.parametrize("room", [0, 3, 8, 20])
@given(rows=st.lists(st.binary(max_size=20), max_size=30))
@settings(max_examples=100, deadline=None)
def test_copy_rows_agrees_with_slicing(rows, room):
    src = np.frombuffer(b"".join(rows) + b"\xee" * room, np.uint8)
    starts = np.cumsum([0, *map(len, rows)])[:-1].astype(np.int64)
    lengths = np.array([len(r) for r in rows], dtype=np.int32)
    at = np.cumsum([0, *map(len, rows)])[:-1].astype(np.int64)
    dst = np.full(int(lengths.sum()) + room, 0xAA, dtype=np.uint8)
    assert copy_rows(src, starts, 0, lengths, dst, at) == lengths.sum()
    assert dst[: lengths.sum()].tobytes() == b"".join(rows)
    tail = dst[lengths.sum() :]
    assert set(tail.tolist()) <= {0, 0xAA}  # past the rows: the last word's zeros, or as was
