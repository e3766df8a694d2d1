"""The Python side of bench/conformal.ts: split-conformal classification (SPEC §14.1) on the same
float32 logits [N, K] and labels, in the straightforward vectorized NumPy form, and the set metrics
(SPEC §14.2) on the same 0/1 sets.

- `aps`: softmax (float64), a sort per row (argsort of −p) + cumsum, the label's cumulative mass
  taken at its position, then the exact k-th smallest score by np.partition (no np.quantile),
  k = ceil((n + 1)(1 − α)). Not tie-inclusive (ties broken by sort position), no input checks.
- `lac`: softmax, 1 − p_label, np.partition.
- `sets`: coverage, mean size, empty rate, size-stratified and class-conditional coverage of the
  sets from the row masks (np.bincount), in one process from the uint8 mask in memory.

    python3 bench/conformal.py --warm DIR REPEATS JOB…   # best of REPEATS each (wall, CPU), one JSON object
    python3 bench/conformal.py --cold DIR JOB            # once, in this fresh process (+ its CPU time)
    python3 bench/conformal.py --versions                # {"numpy": …}

The timed part starts from the arrays in memory (reading the files is not timed, as the node side
does not time it either) and includes the conversion to float64.
"""

import json
import math

import numpy as np
from harness import serve

ALPHA = 0.1


def softmax(z):
    z = z.astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def kth(scores, alpha):
    n = len(scores)
    k = math.ceil((n + 1) * (1 - alpha))
    return float("inf") if k > n else float(np.partition(scores, k - 1)[k - 1])


def aps(z, y, _sets):
    p = softmax(z)
    order = np.argsort(-p, axis=1)
    cum = np.cumsum(np.take_along_axis(p, order, axis=1), axis=1)
    pos = np.argmax(order == y[:, None], axis=1)
    return [kth(cum[np.arange(len(y)), pos], ALPHA)]


def lac(z, y, _sets):
    p = softmax(z)
    return [kth(1 - p[np.arange(len(y)), y], ALPHA)]


def set_metrics(_z, y, sets):
    n, k = sets.shape
    covered = sets[np.arange(n), y].astype(np.int64)
    size = sets.sum(axis=1, dtype=np.int64)
    by_size = np.bincount(size, minlength=k + 1)
    cov_size = np.bincount(size, weights=covered, minlength=k + 1)
    by_class = np.bincount(y, minlength=k)
    cov_class = np.bincount(y, weights=covered, minlength=k)
    present = by_class > 0
    return [
        float(covered.mean()),
        float(size.mean()),
        float((size == 0).mean()),
        float((cov_size[by_size > 0] / by_size[by_size > 0]).min()),
        float((cov_class[present] / by_class[present]).min()),
    ]


JOBS = {"aps": aps, "lac": lac, "sets": set_metrics}


def load(d):
    with open(f"{d}/shape.json") as f:
        n, k = json.load(f)
    z = np.fromfile(f"{d}/logits.f32", dtype="<f4").reshape(n, k)
    y = np.fromfile(f"{d}/labels.i32", dtype="<i4").astype(np.int64)
    sets = np.fromfile(f"{d}/sets.u8", dtype=np.uint8).reshape(n, k)
    return z, y, sets


if __name__ == "__main__":
    serve(JOBS, load, {"numpy": np.__version__}, key="values")
