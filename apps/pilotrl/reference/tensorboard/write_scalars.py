"""An event file written by TensorBoard's own writer (EventFileWriter, as the PyTorch and tensorboardX
writers use it): one event per step with scalar values, from JSON on stdin
  [{"step": 1, "scalars": {"loss": 0.5}}, ...]
into <dir>; prints the file's path.
  python write_scalars.py <dir> < events.json"""

import glob
import json
import os
import sys

from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter


def write(directory: str, events: list) -> str:
    writer = EventFileWriter(directory)
    for event in events:
        values = [
            summary_pb2.Summary.Value(tag=tag, simple_value=value)
            for tag, value in event["scalars"].items()
        ]
        writer.add_event(
            event_pb2.Event(step=event["step"], summary=summary_pb2.Summary(value=values))
        )
    writer.close()
    (path,) = glob.glob(os.path.join(directory, "events.out.tfevents.*"))
    return path


if __name__ == "__main__":
    print(write(sys.argv[1], json.load(sys.stdin)))
