"""The Python side of bench/intervals.ts: prediction-interval metrics (SPEC §14.3) and split-conformal
regression (SPEC §14.4) on the same float32 data, in the straightforward vectorized NumPy form.

- `coverage`: mean((l <= y) & (y <= u)); `width`: mean(u - l); `score`: mean of the interval score
  (u - l) + (2/α)(l - y)[y < l] + (2/α)(y - u)[y > u], α = 0.1.
- `fit`: scores |y - μ| in float64, k = ⌈(n + 1)(1 - α)⌉ exact (fractions), q̂ = np.sort(scores)[k - 1];
  `fit_normalized`: the same on |y - μ|/σ.

    python3 bench/intervals.py --warm DIR REPEATS JOB…   # best of REPEATS each (wall, CPU), one JSON object
    python3 bench/intervals.py --cold DIR JOB            # once, in this fresh process (+ its CPU time)
    python3 bench/intervals.py --reference DIR           # every value the JS rows compute, untimed
    python3 bench/intervals.py --versions                # {"numpy": …}

The timed part starts from the float32 arrays in memory (reading the files is not timed, as the
node side does not time it either) and includes the conversion to float64.
"""

import math

from fractions import Fraction

import numpy as np
from harness import serve

ALPHA = 0.1


def rank(n, alpha):
    """k = ⌈(n + 1)(1 − α)⌉ for the decimal α prints as, exactly."""
    return math.ceil((n + 1) * (1 - Fraction(repr(alpha))))


def coverage(d):
    lo, up, y = (d[k].astype(np.float64) for k in ("lower", "upper", "y"))
    return [float(np.mean((lo <= y) & (y <= up)))]


def width(d):
    lo, up = (d[k].astype(np.float64) for k in ("lower", "upper"))
    return [float(np.mean(up - lo))]


def score(d):
    lo, up, y = (d[k].astype(np.float64) for k in ("lower", "upper", "y"))
    s = (up - lo) + (2 / ALPHA) * np.maximum(lo - y, 0) + (2 / ALPHA) * np.maximum(y - up, 0)
    return [float(np.mean(s))]


def three(d):
    return coverage(d) + width(d) + score(d)


def fit(d, normalized=False):
    mu, y = d["mu"].astype(np.float64), d["y"].astype(np.float64)
    r = np.abs(y - mu)
    if normalized:
        r = r / d["sigma"].astype(np.float64)
    k = rank(len(r), ALPHA)
    return [float(np.sort(r)[k - 1]) if k <= len(r) else float("inf")]


JOBS = {
    "coverage": coverage,
    "width": width,
    "score": score,
    "three": three,
    "fit": fit,
    "fit_normalized": lambda d: fit(d, True),
}


def load(directory):
    return ({k: np.fromfile(f"{directory}/{k}.f32", dtype="<f4") for k in ("mu", "sigma", "y", "lower", "upper")},)


if __name__ == "__main__":
    serve(JOBS, load, {"numpy": np.__version__}, lambda d: {job: f(d) for job, f in JOBS.items()}, key="values")
