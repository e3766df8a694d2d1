"""Vectorized NumPy baseline for the ecuas benchmark.

Reads the benchmark data written by bench/run.ts (raw little-endian arrays), computes every
benchmarked metric with plain vectorized NumPy in float64 (ties averaged like ecuas), and prints
one JSON object: {"<suite>/<metric>": {"ms": best time, "value": result}}.

Each metric implements the same contract as ecuas (SPEC §1): inputs are checked (confidences
in [0, 1] with NaN read as 0.5, flags 0/1, logits finite, labels in range) before the math.

    python3 bench/baseline.py DATA_DIR [REPEATS]
    python3 bench/baseline.py --cold DATA_DIR SUITE METRIC   # one metric, once, in this process
    python3 bench/baseline.py --list                         # the metrics it implements
"""

import json
import sys
import time

import numpy as np

EPS = 1e-7


# ---------------------------------------------------------------------------------------------
# Confidence metrics on (c, y)

def tie_blocks(score, loss):
    """Blocks of equal score in descending order: (sizes, loss sums)."""
    order = np.argsort(-score, kind="stable")
    s = score[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    sizes = np.diff(np.r_[starts, len(s)])
    sums = np.add.reduceat(loss[order], starts)
    return sizes, sums


def expected_cumloss(sizes, sums):
    """Tie-expected cumulative loss E_k for k = 1..N."""
    n = int(sizes.sum())
    block = np.repeat(np.arange(len(sizes)), sizes)
    start = np.cumsum(sizes) - sizes
    cum_before = np.cumsum(sums) - sums
    j = np.arange(1, n + 1) - start[block]
    return cum_before[block] + j * (sums / sizes)[block]


def trapezoid_mean(r):
    return (r.sum() - (r[0] + r[-1]) / 2) / (len(r) - 1)


def aurc_from(sizes, sums):
    e = expected_cumloss(sizes, sums)
    return trapezoid_mean(e / np.arange(1, len(e) + 1))


def augrc_from(sizes, sums):
    e = expected_cumloss(sizes, sums)
    return trapezoid_mean(e / len(e))


def oracle_blocks(loss):
    n_err = int(loss.sum())
    sizes, sums = np.array([len(loss) - n_err, n_err]), np.array([0.0, n_err])
    return sizes[sizes > 0], sums[sizes > 0]


def conf_error_rate(c, y):
    return 1 - y.mean()


def conf_brier(c, y):
    return np.mean((c - y) ** 2)


def conf_cross_entropy(c, y):
    cc = np.clip(c, EPS, 1 - EPS)
    return -np.mean(np.where(y == 1, np.log(cc), np.log1p(-cc)))


def conf_ece(c, y, bins=10):
    b = np.minimum(bins - 1, np.floor(c * bins)).astype(np.int64)
    sc = np.bincount(b, weights=c, minlength=bins)
    sy = np.bincount(b, weights=y, minlength=bins)
    return np.abs(sc - sy).sum() / len(c)


def conf_auc(c, y):
    sizes, neg = tie_blocks(c, 1.0 - y)
    pos = sizes - neg
    q, p = neg.sum(), pos.sum()
    above = np.cumsum(neg) - neg
    return np.sum(pos * (q - above - neg / 2)) / p / q


def conf_ecuas(c, y, n=0):
    u = np.clip(1 - c, EPS, 1 - EPS)
    if n == 0:
        cost = np.where(y == 1, u, u - np.log(u))
    else:
        cost = np.where(y == 1, u ** (n + 1), u ** (n + 1) - (n + 1) / n * np.expm1(n * np.log(u)))
    return cost.mean()


def conf_gamma(c, y, g=0.5):
    u = 1 - c
    return np.mean(np.where(u > g, g, 1 - y))


def conf_aurc(c, y):
    return aurc_from(*tie_blocks(c, 1.0 - y))


def conf_augrc(c, y):
    return augrc_from(*tie_blocks(c, 1.0 - y))


def conf_eaurc(c, y):
    return aurc_from(*tie_blocks(c, 1.0 - y)) - aurc_from(*oracle_blocks(1.0 - y))


def conf_eaugrc(c, y):
    return augrc_from(*tie_blocks(c, 1.0 - y)) - augrc_from(*oracle_blocks(1.0 - y))


def conf_fpr95(c, y):
    sizes, neg = tie_blocks(c, 1.0 - y)
    tp = np.cumsum(sizes - neg)
    fp = np.cumsum(neg)
    p, q = tp[-1], fp[-1]
    last = int(np.argmax(tp == p))
    d = np.abs(tp[: last + 1] - 0.95 * p)
    j = last - int(np.argmin(d[::-1]))  # ties → larger j
    return fp[j] / q


CONFIDENCE = {
    "ConfidenceErrorRate": conf_error_rate,
    "ConfidenceBrierScore": conf_brier,
    "ConfidenceCrossEntropy": conf_cross_entropy,
    "ExpectedCalibrationError": conf_ece,
    "ConfidenceAUCScore": conf_auc,
    "ConfidenceECUAS": conf_ecuas,
    "CCAS": conf_ecuas,
    "ConfidenceGammaECUAS": conf_gamma,
    "ConfidenceAURC": conf_aurc,
    "ConfidenceAUGRC": conf_augrc,
    "ConfidenceEAURC": conf_eaurc,
    "ConfidenceEAUGRC": conf_eaugrc,
    "FPR95": conf_fpr95,
}


# ---------------------------------------------------------------------------------------------
# Classification metrics on (z, labels)

def softmax_stats(z):
    m = z.max(axis=1)
    a = z.argmax(axis=1)
    e = np.exp(z - m[:, None])
    s = e.sum(axis=1) - 1.0
    return m, a, e, s


def priors(labels, k):
    return np.bincount(labels, minlength=k) / len(labels)


def cls_error_rate(z, labels):
    _, a, _, _ = softmax_stats(z)
    pi = priors(labels, z.shape[1])
    return np.mean(a != labels) / (1 - pi.max())


def cls_cross_entropy(z, labels):
    m, _, _, s = softmax_stats(z)
    logp = z[np.arange(len(labels)), labels] - m - np.log1p(s)
    pi = priors(labels, z.shape[1])
    pi = pi[pi > 0]
    return -logp.mean() / -(pi * np.log(pi)).sum()


def cls_brier(z, labels):
    _, _, e, s = softmax_stats(z)
    p = e / (1 + s)[:, None]
    p[np.arange(len(labels)), labels] -= 1
    pi = priors(labels, z.shape[1])
    return np.mean((p * p).sum(axis=1)) / (1 - (pi * pi).sum())


def cls_ecuas_cost(q, u, correct, k, n=0):
    um = 1 - 1 / k
    v = u / um
    if n == 0:
        ell = np.log(u + q * -np.expm1(-EPS))
        return np.where(correct, v, v + (np.log(um) - ell) / um)
    return np.where(correct, v ** (n + 1), v ** (n + 1) - (n + 1) / (n * um) * np.expm1(n * np.log(v)))


def cls_ecuas(z, labels, n=0):
    _, a, _, s = softmax_stats(z)
    k = z.shape[1]
    q, u = 1 / (1 + s), s / (1 + s)
    value = cls_ecuas_cost(q, u, a == labels, k, n).mean()
    pi = priors(labels, k)
    pm = pi.max()
    base = pm * cls_ecuas_cost(np.array([pm]), np.array([1 - pm]), True, k, n)[0] + (1 - pm) * cls_ecuas_cost(
        np.array([pm]), np.array([1 - pm]), False, k, n
    )[0]
    return value / base


def cls_loglog(z, labels):
    m, _, e, s = softmax_stats(z)
    k = z.shape[1]
    logp = z - m[:, None] - np.log1p(s)[:, None]
    p = e / (1 + s)[:, None]
    h = np.maximum(-(p * logp).sum(axis=1), EPS)
    lpy = logp[np.arange(len(labels)), labels]
    value = np.mean(h - lpy * np.log(np.log(k) / h))
    pi = priors(labels, k)
    pi = pi[pi > 0]
    hp = -(pi * np.log(pi)).sum()
    hf = max(hp, EPS)
    return value / (hf + hp * np.log(np.log(k) / hf))


def cls_gamma(z, labels, g=0.5):
    _, a, _, s = softmax_stats(z)
    u = s / (1 + s)
    value = np.mean(np.where(u > g, g, (a != labels).astype(np.float64)))
    pi = priors(labels, z.shape[1])
    up = 1 - pi.max()
    base = g if up > g else up
    return value / base


def top1(z, labels):
    _, a, _, s = softmax_stats(z)
    return 1 / (1 + s), (a == labels).astype(np.float64)


CLASSIFICATION = {
    "ClassificationErrorRate": cls_error_rate,
    "ClassificationCrossEntropy": cls_cross_entropy,
    "ClassificationBrierScore": cls_brier,
    "ClassificationECUAS": cls_ecuas,
    "ClassificationLogLog": cls_loglog,
    "ClassificationGammaECUAS": cls_gamma,
    "ClassificationAUC": lambda z, l: conf_auc(*top1(z, l)),
    "ClassificationECE": lambda z, l: conf_ece(*top1(z, l)),
    "ClassificationAURC": lambda z, l: conf_aurc(*top1(z, l)),
    "ClassificationAUGRC": lambda z, l: conf_augrc(*top1(z, l)),
    "ClassificationEAURC": lambda z, l: conf_eaurc(*top1(z, l)),
    "ClassificationEAUGRC": lambda z, l: conf_eaugrc(*top1(z, l)),
    "ClassificationFPR95": lambda z, l: conf_fpr95(*top1(z, l)),
}


def checked_confidences(c, y):
    """SPEC §1 for (confidences, correctness): NaN → 0.5, values in [0, 1], flags 0/1."""
    c = np.where(np.isnan(c), 0.5, c)
    if ((c < 0) | (c > 1)).any():
        raise ValueError("confidences outside [0, 1]")
    if ((y != 0) & (y != 1)).any():
        raise ValueError("correctness not 0/1")
    return c, y


def checked_logits(z, labels):
    """SPEC §1 for (logits, labels): finite logits, integer labels in [0, K − 1]."""
    if not np.isfinite(z).all():
        raise ValueError("non-finite logits")
    if (labels < 0).any() or (labels >= z.shape[1]).any():
        raise ValueError("labels out of range")
    return z, labels


def best_of(repeats, fn, *args):
    best, value = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        value = fn(*args)
        best = min(best, (time.perf_counter() - t) * 1000)
    return best, float(value)


# ---------------------------------------------------------------------------------------------
# Cold mode: the straightforward vectorized form of each metric, as a one-off script would write
# it — one argsort + cumsum for the ranking metrics (no tie handling), np.bincount for ECE, no
# input checks — timed once in a fresh process from the data in memory to the result.

def cold_order(c, y):
    """Correctness in descending confidence order."""
    return y[np.argsort(-c)]


def cold_aurc_curve(err):
    return trapezoid_mean(np.cumsum(err) / np.arange(1, len(err) + 1))


def cold_augrc_curve(err):
    return trapezoid_mean(np.cumsum(err) / len(err))


def cold_oracle(err):
    return np.sort(err)


def cold_auc(c, y):
    pos = cold_order(c, y).astype(np.float64)
    neg = 1 - pos
    p, q = pos.sum(), neg.sum()
    return np.sum(pos * (q - np.cumsum(neg))) / p / q


def cold_fpr95(c, y):
    pos = cold_order(c, y)
    tp = np.cumsum(pos)
    fp = np.cumsum(1 - pos)
    j = int(np.argmin(np.abs(tp - 0.95 * tp[-1])))
    return fp[j] / fp[-1]


def cold_aurc(c, y):
    return cold_aurc_curve(1.0 - cold_order(c, y))


def cold_augrc(c, y):
    return cold_augrc_curve(1.0 - cold_order(c, y))


def cold_eaurc(c, y):
    err = 1.0 - cold_order(c, y)
    return cold_aurc_curve(err) - cold_aurc_curve(cold_oracle(err))


def cold_eaugrc(c, y):
    err = 1.0 - cold_order(c, y)
    return cold_augrc_curve(err) - cold_augrc_curve(cold_oracle(err))


def cold_ece(c, y, bins=10):
    b = np.minimum(bins - 1, (c * bins).astype(np.int64))
    sc = np.bincount(b, weights=c, minlength=bins)
    sy = np.bincount(b, weights=y, minlength=bins)
    return np.abs(sc - sy).sum() / len(c)


COLD_RANKING = {
    "ConfidenceAUCScore": cold_auc,
    "ConfidenceAURC": cold_aurc,
    "ConfidenceAUGRC": cold_augrc,
    "ConfidenceEAURC": cold_eaurc,
    "ConfidenceEAUGRC": cold_eaugrc,
    "FPR95": cold_fpr95,
    "ExpectedCalibrationError": cold_ece,
}
COLD_CONFIDENCE = {**CONFIDENCE, **COLD_RANKING}
COLD_CLASSIFICATION = {
    **CLASSIFICATION,
    "ClassificationAUC": lambda z, l: cold_auc(*top1(z, l)),
    "ClassificationECE": lambda z, l: cold_ece(*top1(z, l)),
    "ClassificationAURC": lambda z, l: cold_aurc(*top1(z, l)),
    "ClassificationAUGRC": lambda z, l: cold_augrc(*top1(z, l)),
    "ClassificationEAURC": lambda z, l: cold_eaurc(*top1(z, l)),
    "ClassificationEAUGRC": lambda z, l: cold_eaugrc(*top1(z, l)),
    "ClassificationFPR95": lambda z, l: cold_fpr95(*top1(z, l)),
}


def cold(data, suite_name, metric):
    """One metric, timed once from the data in memory (float32 / int32 as stored) to its value."""
    suite = next(s for s in json.load(open(f"{data}/manifest.json"))["suites"] if s["name"] == suite_name)
    if suite["kind"] == "confidence":
        a = np.fromfile(f"{data}/{suite_name}.c.f32", dtype="<f4")
        b = np.fromfile(f"{data}/{suite_name}.y.i32", dtype="<i4")
        fn = COLD_CONFIDENCE[metric]
    else:
        a = np.fromfile(f"{data}/{suite_name}.z.f32", dtype="<f4").reshape(suite["n"], suite["k"])
        b = np.fromfile(f"{data}/{suite_name}.labels.i32", dtype="<i4")
        fn = COLD_CLASSIFICATION[metric]
    # float64 math, as ecuas computes (the conversion is timed: ecuas reads float32 too)
    c = time.process_time()
    t = time.perf_counter()
    value = fn(a.astype(np.float64), b)
    ms = (time.perf_counter() - t) * 1000
    json.dump({"ms": ms, "cpuMs": (time.process_time() - c) * 1000, "value": float(value)}, sys.stdout)


def main():
    if sys.argv[1] == "--list":
        return json.dump({"confidence": list(CONFIDENCE), "classification": list(CLASSIFICATION)}, sys.stdout)
    if sys.argv[1] == "--cold":
        return cold(*sys.argv[2:5])
    data = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    manifest = json.load(open(f"{data}/manifest.json"))
    out = {}
    for suite in manifest["suites"]:
        name = suite["name"]
        if suite["kind"] == "confidence":
            # the conversion from the float32 file is part of the work, as ecuas reads float32 too
            raw_c = np.fromfile(f"{data}/{name}.c.f32", dtype="<f4")
            raw_y = np.fromfile(f"{data}/{name}.y.i32", dtype="<i4")
            for metric, fn in CONFIDENCE.items():
                ms, v = best_of(repeats, lambda: fn(*checked_confidences(raw_c.astype(np.float64), raw_y.astype(np.float64))))
                out[f"{name}/{metric}"] = {"ms": ms, "value": v}
        else:
            n, k = suite["n"], suite["k"]
            raw_z = np.fromfile(f"{data}/{name}.z.f32", dtype="<f4").reshape(n, k)
            labels = np.fromfile(f"{data}/{name}.labels.i32", dtype="<i4").astype(np.int64)
            for metric, fn in CLASSIFICATION.items():
                ms, v = best_of(repeats, lambda: fn(*checked_logits(raw_z.astype(np.float64), labels)))
                out[f"{name}/{metric}"] = {"ms": ms, "value": v}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
