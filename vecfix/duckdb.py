"""vecfix's formatting as DuckDB SQL functions: ``vecfix.duckdb.register(con)``.

Two scalar functions, written by vecfix's kernels a DuckDB vector (2,048 rows) at a time
through Arrow (DuckDB's ``type="arrow"`` Python functions)::

    vecfix_fixed(coefficient, exponent, scale)   -- integers: coefficient × 10^exponent
    vecfix_fixed_decimal(value, scale)           -- DECIMAL, or VARCHAR decimal text

Each gives the text :func:`vecfix.format_fixed` gives (shopspring/decimal's
``StringFixed``): rounded half away from zero on the exact value, exactly ``scale``
decimals. A NULL argument gives a NULL row. A row vecfix refuses fails the query with a
SQL error that names the function and the row's values (a row number in vecfix's reason
counts within DuckDB's vector, not the table). DuckDB's Python functions cannot
be overloaded by name, hence two names. Install with ``pip install "vecfix[duckdb]"``;
``import vecfix`` never imports duckdb.
"""

from __future__ import annotations

from typing import Any

from . import _format
from .columns import RowError

__all__ = ["register"]

#: At most this many characters of a value are quoted in an error message.
_QUOTED = 24


def register(con: Any, *, prefix: str = "vecfix_") -> None:
    """Register vecfix's SQL functions on a DuckDB connection.

    ``{prefix}fixed(coefficient, exponent, scale)`` takes integers (any DuckDB integer type
    that casts to BIGINT) and prints ``coefficient × 10^exponent`` with ``scale``
    decimals. ``{prefix}fixed_decimal(value, scale)`` takes a DECIMAL of any width (read
    as Arrow ``decimal128``, no cast) or VARCHAR decimal text (``'-12.5'``, ``'1e-3'``).
    Both return VARCHAR, NULL where an argument is NULL, and are written by vecfix's
    kernels a vector of rows at a time.

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        The connection to register the functions on (they live as long as it does).
    prefix : str, default "vecfix_"
        The start of the functions' names.

    Raises
    ------
    ImportError
        If pyarrow is not installed.

    Examples
    --------
    >>> import duckdb, vecfix.duckdb
    >>> con = duckdb.connect()
    >>> vecfix.duckdb.register(con)
    >>> con.sql("SELECT vecfix_fixed(5000250000000, -9, 2)").fetchall()
    [('5000.25',)]
    >>> con.sql("SELECT vecfix_fixed_decimal(2.675, 2), vecfix_fixed_decimal('1e-3', 4)").fetchall()
    [('2.68', '0.0010')]
    >>> con.sql("SELECT vecfix_fixed(x, -3, 2) FROM (VALUES (125), (NULL), (-4)) t(x)").fetchall()
    [('0.13',), (None,), ('0.00',)]
    """
    try:  # DuckDB's Arrow functions need pyarrow: say so now, not inside a query
        import pyarrow  # noqa: F401
    except ImportError:
        raise ImportError(
            "vecfix.duckdb.register needs pyarrow, which is not installed:"
            " pip install pyarrow (or pip install 'vecfix[duckdb]')"
        ) from None

    def fixed(coefficient: Any, exponent: Any, scale: Any) -> Any:
        return _format_rows(f"{prefix}fixed", coefficient, exponent, scale)

    def fixed_decimal(value: Any, scale: Any) -> Any:
        return _format_rows(f"{prefix}fixed_decimal", value, None, scale)

    # (types are named by their SQL text, which every duckdb version takes)
    options = {"type": "arrow", "null_handling": "special", "side_effects": False}
    con.create_function(f"{prefix}fixed", fixed, ["BIGINT"] * 3, "VARCHAR", **options)
    # No parameter types: DuckDB hands over any type as it is (a DECIMAL keeps its width
    # and scale); _format_rows refuses what is neither decimal nor text.
    con.create_function(f"{prefix}fixed_decimal", fixed_decimal, None, "VARCHAR", **options)


def _format_rows(function: str, values: Any, exponent: Any, scale: Any) -> Any:
    """One DuckDB vector formatted: the Arrow arguments in, an Arrow string array out."""
    import pyarrow as pa

    values, scale = _one_array(values), _one_array(scale)
    exponent = None if exponent is None else _one_array(exponent)
    if exponent is None:
        arguments = {"value": values, "scale": scale}
        kind = values.type
        if not (pa.types.is_decimal(kind) or pa.types.is_string(kind)
                or pa.types.is_large_string(kind) or pa.types.is_null(kind)):  # fmt: skip
            way = (
                f"for integers, {function.removesuffix('_decimal')}(coefficient, exponent, scale)"
                if pa.types.is_integer(kind)
                else "CAST it (e.g. CAST(x AS DECIMAL(18, 9)))"
            )
            raise TypeError(
                f"{function}: value is {kind}, not DECIMAL or VARCHAR decimal text; {way}"
            )
    else:
        arguments = {"coefficient": values, "exponent": exponent, "scale": scale}
    if any(pa.types.is_null(a.type) for a in arguments.values()):  # a NULL literal
        return pa.nulls(len(values), pa.string())
    # (a NULL exponent or scale gives a NULL row: format_fixed's rule)
    # BIGINT rows without NULLs go to the kernels as a NumPy view: the fewest checks a call
    plain = exponent is not None and not values.null_count
    try:
        out = _format.format_fixed(
            values.to_numpy(zero_copy_only=True) if plain else values,
            None if exponent is None else _constant_or_column(exponent),
            _constant_or_column(scale),
            threads=1,  # DuckDB runs its vectors on its own threads
            layout="arrow",
        )
    except (RowError, ValueError, TypeError) as exc:
        kind = TypeError if isinstance(exc, TypeError) else ValueError  # (DuckDB shows it)
        raise kind(_error_text(function, arguments, exc)) from exc
    return out.to_arrow()


def _one_array(column: Any) -> Any:
    """A pyarrow Array from the ChunkedArray DuckDB passes (one chunk: no copy)."""
    chunks = getattr(column, "chunks", None)
    if chunks is None:
        return column
    if len(chunks) == 1:
        return chunks[0]
    return column.combine_chunks()


def _constant_or_column(column: Any) -> Any:
    """A Python int where every row holds the same value (a SQL constant, usually), else
    the column as it is (its nulls are null rows)."""
    if column.null_count or not len(column):
        return column
    values = column.to_numpy(zero_copy_only=True)
    first = values[0]
    return int(first) if (values == first).all() else column


def _error_text(function: str, arguments: dict[str, Any], exc: Exception) -> str:
    """The SQL error: the call with the failing row's values, then vecfix's reason (its
    row counts within DuckDB's vector). Where the values would push the first line past
    200 characters, the reason alone (vecfix's reasons name the row's values)."""
    row = getattr(exc, "row", None)
    plain = f"{function}: {exc}"
    if row is None:
        return plain
    shown = []
    for name, column in arguments.items():
        value = column[row].as_py()
        text = "NULL" if value is None else repr(value) if isinstance(value, str) else str(value)
        if len(text) > _QUOTED:
            text = text[: _QUOTED - 4] + "...'"
        shown.append(f"{name}={text}")
    full = f"{function}({', '.join(shown)}): {exc}"
    return full if len(full.partition("\n")[0]) <= 200 else plain
