"""Probe L on robeval.core.seeding: an int stream key outside 0 .. 2**32 - 1 no longer aliases the key of its low
32 bits (L3), and spawn takes a whole number of children (L6: 2.7 and "3" were read as 2 and 3; L8: -1 stopped in
numpy's OverflowError). Keys in range keep their streams."""

import numpy as np
import pytest

from robeval.core.seeding import key_of, keyed, spawn


@pytest.mark.parametrize("key, low", [(2**32, 0), (-1, 2**32 - 1), (2**63 - 1, 2**32 - 1)])
def test_an_int_key_outside_32_bits_is_refused(key, low):
    # L3: key_of(2**32) == key_of(0) and key_of(-1) == key_of(2**32 - 1): two keys, one stream
    with pytest.raises(
        ValueError,
        match=rf"^a stream key int must lie in 0 \.\. 2\*\*32 - 1, got {key}, which would share the stream of {low}",
    ):
        keyed(0, key)


def test_keys_in_range_keep_their_streams():
    assert key_of(0) == 0 and key_of(2**32 - 1) == 2**32 - 1 and key_of(np.uint32(7)) == 7 and key_of(True) == 1
    assert keyed(0, 3, 1).entropy == [0, 3, 1] and keyed(5, "run", 2).entropy[2] == 2


@pytest.mark.parametrize(
    "n, kind, said", [(2.7, TypeError, "float 2.7"), ("3", TypeError, "str '3'"), (-1, ValueError, "-1")]
)
def test_spawn_takes_a_whole_number_of_children(n, kind, said):
    with pytest.raises(kind, match=r"^n must be a whole number of child seeds >= 0, got " + said):
        spawn(0, n)
    assert len(spawn(0, 3)) == 3 and len(spawn(0, np.int64(2))) == 2 and spawn(0, 0) == []
