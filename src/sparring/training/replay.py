"""The replay queue of AlphaDDA app. 1.3: the last ``N_queue`` training positions.

Positions are stored compactly (input planes as int8: they hold only 0, 1 and -1) in
preallocated arrays used as a ring, and saved to / loaded from one compressed ``.npz`` file.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import numpy.typing as npt


class ReplayQueue:
    """A ring buffer of (planes, search probabilities pi, outcome z) samples."""

    def __init__(self, capacity: int, plane_shape: tuple[int, ...], num_actions: int) -> None:
        self.capacity = capacity
        self.planes = np.zeros((capacity, *plane_shape), dtype=np.int8)
        self.pi = np.zeros((capacity, num_actions), dtype=np.float32)
        self.z = np.zeros(capacity, dtype=np.float32)
        self.added = 0
        """Samples ever added (the ring position is ``added % capacity``)."""

    def __len__(self) -> int:
        return min(self.added, self.capacity)

    def add(
        self,
        planes: npt.NDArray[np.float32],
        pi: npt.NDArray[np.float32],
        z: npt.NDArray[np.float32],
    ) -> None:
        """Append a batch of samples, overwriting the oldest when full."""
        n = len(z)
        if n > self.capacity:
            planes, pi, z = planes[-self.capacity :], pi[-self.capacity :], z[-self.capacity :]
            self.added += n - self.capacity
            n = self.capacity
        idx = (self.added + np.arange(n)) % self.capacity
        self.planes[idx] = np.rint(planes).astype(np.int8)
        self.pi[idx] = pi
        self.z[idx] = z
        self.added += n

    def arrays(
        self,
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Views of the filled part: planes, pi, z."""
        n = len(self)
        return self.planes[:n], self.pi[:n], self.z[:n]

    def save(self, path: Path) -> None:
        """Write atomically (a temporary file renamed over ``path``)."""
        tmp = path.with_name(path.name + ".tmp")
        planes, pi, z = self.arrays()
        with open(tmp, "wb") as fh:
            np.savez_compressed(
                fh, planes=planes, pi=pi, z=z.astype(np.int8), added=self.added
            )  # pi as float32: a resumed run learns from exactly the uninterrupted run's targets
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    def load(self, path: Path) -> None:
        """Replace the contents with those saved at ``path`` (oldest dropped if they overflow);
        a ring of this queue's capacity comes back exactly as saved (layout and count), so
        a resumed run's mini-batches are the uninterrupted run's.  Files with float16 ``pi``
        (before it was saved as float32) load too."""
        with np.load(path) as data:
            planes, pi, z = data["planes"], data["pi"].astype(np.float32), data["z"]
            added = int(data["added"])
        m = len(z)
        if m == self.capacity:  # the same ring: restore its layout and count exactly
            self.planes[:], self.pi[:], self.z[:] = planes, pi, z.astype(np.float32)
            self.added = added
            return
        if added > m:  # the saved ring was full: its oldest sample sits at added % m
            shift = added % m
            planes, pi, z = (np.roll(a, -shift, axis=0) for a in (planes, pi, z))
        n = min(m, self.capacity)
        self.planes[:n] = planes[m - n :]
        self.pi[:n] = pi[m - n :]
        self.z[:n] = z[m - n :].astype(np.float32)
        self.added = n
