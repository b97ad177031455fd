"""The TensorBoard environment's smoke check: a scalar written by TensorBoard's own writer into a
scratch directory and found again by its EventAccumulator, as the engine tests read our runs."""

import tempfile

from read_scalars import read
from write_scalars import write

with tempfile.TemporaryDirectory() as scratch:
    write(scratch, [{"step": 3, "scalars": {"smoke/value": 0.5}}])
    found = read(scratch)
    assert found["scalars"] == {"smoke/value": [[3, 0.5]]}, found
    print(f"read back {found['scalars']} from {found['fileVersion']}")
