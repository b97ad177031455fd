"""Every scalar TensorBoard finds in a run directory, read with its own EventAccumulator (the loader
behind `tensorboard --logdir`), keeping all of them (no sampling), as JSON on stdout:
  {"fileVersion": "brain.Event:2", "scalars": {tag: [[step, value], ...]}}
  python read_scalars.py <run-dir>"""

import json
import sys

from tensorboard.backend.event_processing import event_accumulator


def read(run_dir: str) -> dict:
    accumulator = event_accumulator.EventAccumulator(
        run_dir, size_guidance={event_accumulator.SCALARS: 0}
    )
    accumulator.Reload()
    return {
        "fileVersion": accumulator.file_version and f"brain.Event:{accumulator.file_version:g}",
        "scalars": {
            tag: [[event.step, event.value] for event in accumulator.Scalars(tag)]
            for tag in accumulator.Tags()[event_accumulator.SCALARS]
        },
    }


if __name__ == "__main__":
    json.dump(read(sys.argv[1]), sys.stdout)
