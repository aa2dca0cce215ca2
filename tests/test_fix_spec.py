"""The FIX field tables fix.read types and names columns by (vecfix/fix/fields.tsv.gz):
what tools/fix_spec.py generates from the committed extract of QuickFIX's dictionaries,
and, spot-checked by hand against the FIX specifications, right."""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path

import pytest

from vecfix.fix._read_types import fields

ROOT = Path(__file__).resolve().parent.parent


def _tool():
    spec = importlib.util.spec_from_file_location("fix_spec", ROOT / "tools" / "fix_spec.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_table_is_what_the_generator_writes():
    tool = _tool()
    extracted = gzip.decompress(tool.EXTRACT.read_bytes()).decode()
    committed = gzip.decompress(tool.TABLE.read_bytes()).decode()
    assert tool.generate(extracted) == committed
    assert (
        (ROOT / "tools" / "fix_spec" / "QUICKFIX-LICENSE")
        .read_text()
        .startswith("The QuickFIX Software License")
    )


def test_every_type_is_mapped_as_the_issue_says():
    tool = _tool()
    decimal = {"PRICE", "PRICEOFFSET", "QTY", "AMT", "PERCENTAGE", "FLOAT"}
    ints = {"INT", "LENGTH", "SEQNUM", "NUMINGROUP", "TAGNUM"}
    for typ in [*decimal, *ints, "UTCTIMESTAMP", "STRING", "CHAR", "UTCTIMEONLY", "BOOLEAN"]:
        want = "d" if typ in decimal else "i" if typ in ints else "t" if "STAMP" in typ else "s"
        assert tool.generate(f"4.4\t1\tX\t{typ}") == f"4.4\t1\tX\t{want}\n", typ


@pytest.mark.parametrize(
    ("version", "tag", "name", "kind"),
    [
        ("4.2", 32, "LastShares", "decimal"),  # Qty
        ("4.4", 32, "LastQty", "decimal"),
        ("4.2", 12, "Commission", "decimal"),  # Amt
        ("4.4", 381, "GrossTradeAmt", "decimal"),
        ("4.4", 44, "Price", "decimal"),  # Price
        ("4.4", 211, "PegOffsetValue", "decimal"),  # float in 4.4
        ("4.4", 34, "MsgSeqNum", "int64"),  # SeqNum
        ("4.4", 9, "BodyLength", "int64"),  # Length
        ("4.4", 268, "NoMDEntries", "int64"),  # NumInGroup
        ("4.2", 268, "NoMDEntries", "int64"),  # int in 4.2
        ("4.4", 60, "TransactTime", "timestamp"),
        ("5.0SP2", 52, "SendingTime", "timestamp"),
        ("4.4", 273, "MDEntryTime", "string"),  # UTCTimeOnly
        ("4.4", 55, "Symbol", "string"),
        ("4.4", 54, "Side", "string"),  # char
        ("5.0SP2", 1128, "ApplVerID", "string"),
        ("5.0SP2", 327, "HaltReasonInt", "int64"),
        ("4.4", 327, "HaltReasonChar", "string"),
    ],
)
def test_fields_by_hand(version, tag, name, kind):
    kinds, names = fields(version)
    assert (names[tag], kinds[tag]) == (name, kind)


def test_sizes():
    """FIX 4.2 has 405 fields in QuickFIX's dictionary, 4.4 912, 5.0 SP2 6,028."""
    assert [len(fields(v)[1]) for v in ("4.2", "4.4", "5.0SP2")] == [405, 912, 6028]
    assert 1128 not in fields("4.4")[1]
    with pytest.raises(ValueError, match=r"version must be one of 4\.2, 4\.4, 5\.0SP2, got '4\.3'"):
        fields("4.3")


def test_no_name_is_two_tags():
    """Across the three versions a name is one tag's (columns by name are unique) and
    none is a column fix.read adds."""
    tags_of: dict[str, set[int]] = {}
    for version in ("4.2", "4.4", "5.0SP2"):
        for tag, name in fields(version)[1].items():
            tags_of.setdefault(name, set()).add(tag)
    assert {n: t for n, t in tags_of.items() if len(t) > 1} == {}
    assert not {"msg", "offset", "valid", "prefix", "log"} & set(tags_of)
