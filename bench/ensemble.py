"""The straightforward vectorized NumPy form of the ensemble measures (SPEC §12), the baseline of
bench/ensemble.ts: member logits z [M, N, K] (float32 on file, float64 math), per member softmax
with the max subtracted, p̄ = mean over members, PE = −Σ p̄ log p̄, EE = mean_m(−Σ p_m log p_m),
MI = PE − EE, VR = 1 − max p̄, votes-based VR and D. Each job computes only what its measure needs,
from the logits to the mean over the samples (the value a metric's compute() gives).

    python3 bench/ensemble.py --warm DIR REPEATS JOB…   # best of REPEATS each (wall, CPU), one JSON object
    python3 bench/ensemble.py --cold DIR JOB            # once, in this fresh process (+ its CPU time)
    python3 bench/ensemble.py --version

The timed part starts from the float32 array in memory (np.fromfile is not timed, as the node
side does not time reading the file either) and includes the conversion to float64.
"""

import json
import sys
import time

import numpy as np


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax(z):
    s = z - z.max(axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


def pe(z, labels):
    pbar = softmax(z).mean(axis=0)
    return np.mean(-(pbar * np.log(pbar)).sum(axis=-1))


def ee(z, labels):
    lp = log_softmax(z)
    return np.mean((-(np.exp(lp) * lp).sum(axis=-1)).mean(axis=0))


def pe_ee(z):
    lp = log_softmax(z)
    p = np.exp(lp)
    pbar = p.mean(axis=0)
    h = -(pbar * np.log(pbar)).sum(axis=-1)
    e = (-(p * lp).sum(axis=-1)).mean(axis=0)
    return pbar, h, e


def mi(z, labels):
    _, h, e = pe_ee(z)
    return np.mean(np.maximum(h - e, 0))


def vr(z, labels):
    return np.mean(1 - softmax(z).mean(axis=0).max(axis=-1))


def counts_of(z):
    m, _, k = z.shape
    votes = z.argmax(axis=-1)  # [M, N]
    return (votes[:, :, None] == np.arange(k)).sum(axis=0)  # [N, K]


def vr_vote(z, labels):
    return np.mean(1 - counts_of(z).max(axis=-1) / z.shape[0])


def disagreement(z, labels):
    m = z.shape[0]
    c = counts_of(z)
    return np.mean(1 - (c * (c - 1)).sum(axis=-1) / (m * (m - 1)))


def all_measures(z, labels):
    """Every per-sample measure (as ensembleUncertainty returns them); the sum of their means."""
    m = z.shape[0]
    pbar, h, e = pe_ee(z)
    info = np.maximum(h - e, 0)
    q = pbar.max(axis=-1)
    c = counts_of(z)
    d = 1 - (c * (c - 1)).sum(axis=-1) / (m * (m - 1))
    return q.mean() + h.mean() + e.mean() + info.mean() + (1 - q).mean() + d.mean()


def cross_entropy(z, labels):
    """ClassificationCrossEntropy on p̄: −mean log p̄_y over the prior entropy."""
    pbar = softmax(z).mean(axis=0)
    logp = np.log(pbar[np.arange(len(labels)), labels])
    pi = np.bincount(labels, minlength=z.shape[2]) / len(labels)
    pi = pi[pi > 0]
    return -logp.mean() / -(pi * np.log(pi)).sum()


def ece(z, labels, bins=10):
    """ClassificationECE on p̄: equal-width bins of q = max p̄, |Σ q − Σ correct| over N."""
    pbar = softmax(z).mean(axis=0)
    q = pbar.max(axis=-1)
    correct = (pbar.argmax(axis=-1) == labels).astype(np.float64)
    b = np.minimum(bins - 1, (q * bins).astype(np.int64))
    sq = np.bincount(b, weights=q, minlength=bins)
    sy = np.bincount(b, weights=correct, minlength=bins)
    return np.abs(sq - sy).sum() / len(q)


JOBS = {
    "pe": pe,
    "ee": ee,
    "mi": mi,
    "vr": vr,
    "vr_vote": vr_vote,
    "disagreement": disagreement,
    "all": all_measures,
    "cross_entropy": cross_entropy,
    "ece": ece,
}


def load(d):
    meta = json.load(open(f"{d}/meta.json"))
    z = np.fromfile(f"{d}/z.f32", dtype="<f4").reshape(meta["m"], meta["n"], meta["k"])
    labels = np.fromfile(f"{d}/labels.i32", dtype="<i4").astype(np.int64)
    return z, labels


def timed(job, z, labels):
    c = time.process_time()
    t = time.perf_counter()
    value = JOBS[job](z.astype(np.float64), labels)
    return (time.perf_counter() - t) * 1000, float(value), (time.process_time() - c) * 1000


def main():
    if sys.argv[1] == "--version":
        return print(np.__version__)
    if sys.argv[1] == "--cold":
        z, labels = load(sys.argv[2])
        ms, value, cpu = timed(sys.argv[3], z, labels)
        return json.dump({"ms": ms, "value": value, "cpuMs": cpu}, sys.stdout)
    z, labels = load(sys.argv[2])
    repeats = int(sys.argv[3])
    out = {}
    for job in sys.argv[4:]:
        best, best_cpu, value = float("inf"), float("inf"), None
        for _ in range(repeats):
            ms, value, cpu = timed(job, z, labels)
            best, best_cpu = min(best, ms), min(best_cpu, cpu)
        out[job] = {"ms": best, "value": value, "cpuMs": best_cpu}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
