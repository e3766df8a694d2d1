"""The Python side of bench/forecast.ts: sample and quantile forecasts (SPEC §15) on the same
float32 data, in the straightforward vectorized NumPy forms.

- `crps`, `crps_fair`: np.sort along the rows, then the sorted-order formula
  A/M − S/M² (fair: S/(M(M − 1))), A = Σ|x − y|, S = Σ_k k(M − k)(x_(k+1) − x_(k)).
- `picp_samples`: np.quantile (linear, type 7) at 0.025 and 0.975 along the rows.
- `pinball`, `qce`, `picp_quantiles` (level 0.9: the columns at 0.05 and 0.95), `wis`: the
  quantile formulas on the [N, Q] array.

    python3 bench/forecast.py --warm DIR REPEATS JOB…   # best of REPEATS each (wall, CPU), one JSON object
    python3 bench/forecast.py --cold DIR JOB            # once, in this fresh process (+ its CPU time)
    python3 bench/forecast.py --versions                # {"numpy": …}

The timed part starts from the float32 arrays in memory (reading the files is not timed, as the
node side does not time it either) and includes the conversion to float64.
"""

import json

import numpy as np
from harness import serve


def crps(x, y, fair=False):
    x = np.sort(x, axis=1)
    m = x.shape[1]
    a = np.abs(x - y[:, None]).sum(axis=1)
    k = np.arange(1, m)
    s = (np.diff(x, axis=1) * (k * (m - k))).sum(axis=1)
    return float(np.mean(a / m - s / (m * (m - 1) if fair else m * m)))


def picp_samples(x, y, level=0.95):
    lo, hi = np.quantile(x, [(1 - level) / 2, (1 + level) / 2], axis=1)
    return float(np.mean((lo <= y) & (y <= hi)))


def pinball(q, y, tau):
    d = y[:, None] - q
    return float(np.mean(np.where(d >= 0, tau * d, (tau - 1) * d)))


def qce(q, y, tau):
    return float(np.mean(np.abs(np.mean(y[:, None] <= q, axis=0) - tau)))


def picp_quantiles(q, y, tau, level=0.9):
    lo = int(np.argmin(np.abs(tau - (1 - level) / 2)))
    hi = int(np.argmin(np.abs(tau - (1 + level) / 2)))
    return float(np.mean((q[:, lo] <= y) & (y <= q[:, hi])))


def wis(q, y, tau):
    k = (len(tau) - 1) // 2
    lo, hi = q[:, :k], q[:, ::-1][:, :k]
    yy = y[:, None]
    pairs = tau[:k] * (hi - lo) + np.maximum(lo - yy, 0) + np.maximum(yy - hi, 0)
    return float(np.mean((0.5 * np.abs(y - q[:, k]) + pairs.sum(axis=1)) / (k + 0.5)))


JOBS = {
    "crps": lambda d: crps(d["samples"].astype(np.float64), d["y"].astype(np.float64)),
    "crps_fair": lambda d: crps(d["samples"].astype(np.float64), d["y"].astype(np.float64), fair=True),
    "picp_samples": lambda d: picp_samples(d["samples"].astype(np.float64), d["y"].astype(np.float64)),
    "pinball": lambda d: pinball(d["quantiles"].astype(np.float64), d["y"].astype(np.float64), d["tau"]),
    "qce": lambda d: qce(d["quantiles"].astype(np.float64), d["y"].astype(np.float64), d["tau"]),
    "picp_quantiles": lambda d: picp_quantiles(d["quantiles"].astype(np.float64), d["y"].astype(np.float64), d["tau"]),
    "wis": lambda d: wis(d["quantiles"].astype(np.float64), d["y"].astype(np.float64), d["tau"]),
}


def load(d):
    meta = json.load(open(f"{d}/meta.json"))
    tau = np.array(meta["levels"], dtype=np.float64)
    y = np.fromfile(f"{d}/ytrue.f32", dtype="<f4")
    n = len(y)
    samples = np.fromfile(f"{d}/samples.f32", dtype="<f4").reshape(n, meta["members"])
    quantiles = np.fromfile(f"{d}/quantiles.f32", dtype="<f4").reshape(n, len(tau))
    return ({"samples": samples, "quantiles": quantiles, "y": y, "tau": tau},)


if __name__ == "__main__":
    serve(JOBS, load, {"numpy": np.__version__})
