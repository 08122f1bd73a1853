"""What a Python restored from the page's memory snapshot must renew (see site/js/snapshot.js).

A memory snapshot is the heap of one Python, so every restore starts with the state it had: the
`random` module's generator and `tempfile`'s name sequence would repeat the same numbers and names
in every browser tab. The worker calls `renew()` right after a restore. (The str hash seed is fixed
in the snapshot too; it cannot change after start-up, and like a fixed PYTHONHASHSEED it only makes
set and dict orders of str keys the same in every tab.)
"""

import random
import tempfile


def renew() -> None:
    """Reseed `random` from the operating system's entropy and make `tempfile` draw new names.

    Takes no arguments and returns None; raises nothing.
    """
    random.seed()
    tempfile._name_sequence = None  # made again, freshly seeded, on first use
