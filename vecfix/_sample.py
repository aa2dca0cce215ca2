"""A deterministic sample market-data snapshot for ``vecfix demo``, the notebooks and tests.

The snapshot is a market-by-order book: for each instrument, its resting orders (bids,
then offers, best price first), as a FIX MarketDataSnapshotFullRefresh (``35=W``) would
list them. Prices are CME-style ``PRICE9`` mantissas (int64, exponent −9) on each
product's real tick size; a few are ``PRICENULL9`` (``2**63 - 1``, "no price"); calendar
spreads trade at negative prices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .columns.rules import show_value

SEED = 20261129
"""The seed of every sample: the same arguments give the same snapshot on every machine."""

PRICE_EXPONENT = -9
"""The exponent of every price mantissa (CME MDP 3.0 ``PRICE9``)."""

PRICENULL9 = 2**63 - 1
"""CME's null ``PRICE9`` mantissa: the order has no price (it must never be printed)."""

# root, tick size in units of 1e-9, decimals to print (the tick's), typical price in ticks.
# Ticks are the exchanges' (CME Globex, COMEX, NYMEX, CBOT); the spreads are calendar
# spreads, quoted at negative prices.
_PRODUCTS: tuple[tuple[str, int, int, int], ...] = (
    ("ES", 250_000_000, 2, 20_000),  # E-mini S&P 500: 0.25 index points, ~5000.00
    ("NQ", 250_000_000, 2, 72_000),  # E-mini Nasdaq-100: 0.25, ~18000.00
    ("YM", 1_000_000_000, 0, 39_000),  # E-mini Dow: 1 point, ~39000
    ("RTY", 100_000_000, 1, 20_500),  # E-mini Russell 2000: 0.10, ~2050.0
    ("CL", 10_000_000, 2, 7_600),  # WTI crude: $0.01, ~76.00
    ("NG", 1_000_000, 3, 2_600),  # Henry Hub natural gas: $0.001, ~2.600
    ("GC", 100_000_000, 1, 23_400),  # gold: $0.10, ~2340.0
    ("SI", 5_000_000, 3, 5_900),  # silver: $0.005, ~29.500
    ("HG", 500_000, 4, 9_000),  # copper: $0.0005, ~4.5000
    ("ZN", 15_625_000, 6, 7_040),  # 10-year note: 1/64 point, ~110.000000
    ("ZB", 31_250_000, 5, 3_780),  # 30-year bond: 1/32 point, ~118.12500
    ("ZF", 7_812_500, 7, 13_570),  # 5-year note: 1/128 point, ~106.0156250
    ("6E", 50_000, 5, 21_700),  # euro FX: $0.00005, ~1.08500
    ("6J", 500, 7, 13_400),  # Japanese yen: $0.0000005, ~0.0067000
    ("ZC", 250_000_000, 2, 1_800),  # corn: 1/4 cent, ~450.00 cents
    ("BTC", 5_000_000_000, 0, 13_000),  # bitcoin futures: $5, ~65000
    ("ES-CAL", 50_000_000, 2, -600),  # E-mini calendar spread: 0.05, ~-30.00
    ("CL-CAL", 10_000_000, 2, -45),  # crude calendar spread: $0.01, ~-0.45
)
_MONTHS = "FGHJKMNQUVXZ"


@dataclass(frozen=True)
class Snapshot:
    """A book snapshot: ``n`` entries over ``len(symbols)`` instruments; instrument ``i``
    owns entries ``starts[i]:starts[i] + entry_counts[i]`` (its bids, then its offers, best
    first).

    Attributes
    ----------
    symbols : list of str
        One per instrument (``55``), e.g. ``"ESZ4"`` or ``"ESZ4-ESH5"`` for a spread.
    tick_e9, decimals : numpy.ndarray
        Per instrument: the tick size in units of 1e-9 (int64) and its decimals (int32).
    entry_counts : numpy.ndarray
        int64: entries per instrument, each at least 1.
    instrument, entry_types : numpy.ndarray
        Per entry: its instrument (int32) and FIX MDEntryType (uint8: 0 bid, 1 offer).
    price_e9, size : numpy.ndarray
        Per entry (int64): the PRICE9 mantissa (:data:`PRICENULL9` where missing), the
        order quantity.
    """

    symbols: list[str]
    tick_e9: np.ndarray
    decimals: np.ndarray
    entry_counts: np.ndarray
    instrument: np.ndarray
    entry_types: np.ndarray
    price_e9: np.ndarray
    size: np.ndarray

    def __len__(self) -> int:
        return self.price_e9.size

    @property
    def price_valid(self) -> np.ndarray:
        """``(n,)`` bool: ``True`` where the entry has a price."""
        return self.price_e9 != PRICENULL9

    @property
    def scales(self) -> np.ndarray:
        """``(n,)`` int32: each entry's instrument's decimals."""
        return self.decimals[self.instrument]


def sample_snapshot(rows: int = 1_000_000, instruments: int = 300, seed: int = SEED) -> Snapshot:
    """A deterministic market-by-order snapshot of ``rows`` entries (at least 1) over
    ``instruments`` instruments (at most ``rows`` and 432), from ``seed``.

    Examples
    --------
    >>> from vecfix._sample import sample_snapshot
    >>> snap = sample_snapshot(1000, instruments=20)
    >>> len(snap), len(snap.symbols), int(snap.entry_counts.sum())
    (1000, 20, 1000)
    >>> snap.symbols[:3], snap.symbols[16]
    (['ESH5', 'NQH5', 'YMH5'], 'ESH5-ESM5')
    """
    if isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or rows < 1:
        raise ValueError(f"rows must be a positive int, got {show_value(rows)}")
    limit = len(_PRODUCTS) * len(_MONTHS) * 2
    if not 1 <= instruments <= limit:
        raise ValueError(f"instruments must be between 1 and {limit}, got {instruments!r}")
    rng = np.random.default_rng(seed)
    k = min(int(instruments), int(rows))
    symbols, product = _instruments(k)
    tick = np.array([p[1] for p in _PRODUCTS], dtype=np.int64)[product]
    decimals = np.array([p[2] for p in _PRODUCTS], dtype=np.int32)[product]
    typical = np.array([p[3] for p in _PRODUCTS], dtype=np.int64)[product]
    # the best bid, in ticks: within ±3% of the product's typical price
    best_bid = typical + np.round(typical * rng.uniform(-0.03, 0.03, size=k)).astype(np.int64)

    # Busier front months: Zipf-like weights, every instrument at least one entry.
    weights = 1.0 / (1.0 + np.arange(k) // len(_PRODUCTS))
    counts = 1 + rng.multinomial(rows - k, weights / weights.sum()).astype(np.int64)
    instrument = np.repeat(np.arange(k, dtype=np.int32), counts)
    side = (rng.random(rows) < 0.5).astype(np.uint8)  # 0 bid, 1 offer
    level = np.minimum(rng.geometric(0.12, size=rows) - 1, 400).astype(np.int64)
    # bids, then offers, best price first, within each instrument (stable: a time priority)
    order = np.lexsort((level, side, instrument))
    side, level = side[order], level[order]

    ticks_away = np.where(side == 0, -level, level + 1)
    price = (best_bid[instrument] + ticks_away) * tick[instrument]
    price[rng.random(rows) < 0.0005] = PRICENULL9
    size = np.minimum(rng.geometric(0.08, size=rows), 500).astype(np.int64)
    size[rng.random(rows) < 0.02] *= 100  # a few block-sized orders
    return Snapshot(symbols, tick, decimals, counts, instrument, side, price, size)


def _instruments(k: int) -> tuple[list[str], np.ndarray]:
    """``k`` symbols, cycling over products first (so a small sample has many), and the
    product index of each."""
    symbols, product = [], []
    for n in range(k):
        p, m = n % len(_PRODUCTS), n // len(_PRODUCTS)
        root = _PRODUCTS[p][0]
        month, year = _MONTHS[(2 + m) % 12], 5 + (2 + m) // 12
        code = f"{month}{year % 10}"
        if root.endswith("-CAL"):  # this month against the quarter after it
            base = root.removesuffix("-CAL")
            nxt = _MONTHS[(5 + m) % 12] + str((5 + (5 + m) // 12) % 10)
            symbols.append(f"{base}{code}-{base}{nxt}")
        else:
            symbols.append(f"{root}{code}")
        product.append(p)
    return symbols, np.array(product, dtype=np.int64)


def sample_prices(n: int, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """``n`` PRICE9 mantissas and sizes from :func:`sample_snapshot`, without its nulls.

    Examples
    --------
    >>> from vecfix._sample import sample_prices
    >>> px, sizes = sample_prices(5)
    >>> px.dtype, sizes.dtype, len(px)
    (dtype('int64'), dtype('int64'), 5)
    """
    snap = sample_snapshot(n, seed=seed)
    px = np.where(snap.price_valid, snap.price_e9, 0)
    return px, snap.size
