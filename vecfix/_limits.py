"""The integer bounds vecfix checks against, stated once (no imports: the command line's
``--help`` reads them without loading NumPy)."""

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
