"""Generate vecfix's FIX field tables (tag, name, column kind per FIX version) from
QuickFIX's data dictionaries.

Two steps, the first run once by hand, the second checked by the tests:

1. ``python tools/fix_spec.py extract SPEC_DIR``: from QuickFIX's ``FIX42.xml``,
   ``FIX44.xml`` and ``FIX50SP2.xml`` (the ``spec/`` folder of its sdist: ``pip download
   --no-deps --no-binary :all: quickfix==1.16.0``), every field's tag, name and QuickFIX
   type into ``tools/fix_spec/quickfix_fields.tsv.gz`` (QuickFIX's licence beside it).
2. ``python tools/fix_spec.py generate``: that extract into ``vecfix/fix/fields.tsv.gz``,
   each type mapped to the kind of column :func:`vecfix.fix.read` makes of it
   (:data:`KINDS`); ``tests/test_fix_spec.py`` checks the committed table is what this
   step writes.
"""

from __future__ import annotations

import gzip
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTRACT = ROOT / "tools" / "fix_spec" / "quickfix_fields.tsv.gz"
TABLE = ROOT / "vecfix" / "fix" / "fields.tsv.gz"
VERSIONS = {"FIX42": "4.2", "FIX44": "4.4", "FIX50SP2": "5.0SP2"}

#: QuickFIX type -> the kind of column (d: decimal, i: int64, t: timestamp); the rest are
#: strings (s). FLOAT is decimal text in FIX (no exponent), read exactly as the others.
KINDS = {
    "PRICE": "d", "PRICEOFFSET": "d", "QTY": "d", "AMT": "d", "PERCENTAGE": "d", "FLOAT": "d",
    "INT": "i", "LENGTH": "i", "SEQNUM": "i", "NUMINGROUP": "i", "TAGNUM": "i",
    "UTCTIMESTAMP": "t",
}  # fmt: skip


def extract(spec_dir: Path) -> str:
    """``version, tag, name, type`` lines of every field of the three dictionaries."""
    lines = []
    for stem, version in VERSIONS.items():
        fields = ET.parse(spec_dir / f"{stem}.xml").getroot().find("fields")
        assert fields is not None, stem
        rows = sorted((int(f.get("number", "")), f.get("name"), f.get("type")) for f in fields)
        lines += [f"{version}\t{tag}\t{name}\t{typ}\n" for tag, name, typ in rows]
    return "".join(lines)


def generate(extracted: str) -> str:
    """``version, tag, name, kind`` lines: the extract with each type's kind."""
    out = []
    for line in extracted.splitlines():
        version, tag, name, typ = line.split("\t")
        out.append(f"{version}\t{tag}\t{name}\t{KINDS.get(typ, 's')}\n")
    return "".join(out)


def main(argv: list[str]) -> None:
    if argv[:1] == ["extract"] and len(argv) == 2:
        EXTRACT.write_bytes(gzip.compress(extract(Path(argv[1])).encode(), mtime=0))
    elif argv == ["generate"]:
        text = gzip.decompress(EXTRACT.read_bytes()).decode()
        TABLE.write_bytes(gzip.compress(generate(text).encode(), mtime=0))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
