"""The Python side of bench/detection.ts: binary detection (SPEC §13) on the same float32 scores
and 0/1 positives, in two forms.

- `numpy`: the six §13.1 values from one stable argsort, in the straightforward vectorized form
  (tie blocks of equal scores by np.flatnonzero, cumulative TP/FP at the block ends, then each
  formula on the threshold points): AUROC (trapezoid), AP, FPR at TPR 0.95 (nearest rule), TPR
  at FPR 0.05, EER, detection error.
- `sklearn`: what a scikit-learn user calls for the same job: roc_auc_score,
  average_precision_score and roc_curve (three sorts); absent when scikit-learn is not installed.

    python3 bench/detection.py --warm DIR REPEATS JOB…   # best of REPEATS each (wall, CPU), one JSON object
    python3 bench/detection.py --cold DIR JOB            # once, in this fresh process (+ its CPU time)
    python3 bench/detection.py --reference DIR           # every value the JS rows compute, untimed
    python3 bench/detection.py --versions                # {"numpy": …, "sklearn": … or null}

The timed part starts from the float32 array in memory (reading the file is not timed, as the
node side does not time it either) and includes the conversion to float64.
"""

import numpy as np
from harness import serve

try:
    import sklearn
    from sklearn.metrics import average_precision_score, roc_auc_score, roc_curve
except ImportError:  # the row is skipped with a note
    sklearn = None


def sweep(score, pos):
    """Cumulative TP and FP at the thresholds j = 0..m (j = 0 accepts nothing), descending score."""
    order = np.argsort(-score, kind="stable")
    s = score[order]
    p = pos[order]
    ends = np.r_[np.flatnonzero(s[1:] != s[:-1]), len(s) - 1]
    tp = np.r_[0, np.cumsum(p)[ends]].astype(np.float64)
    fp = (np.r_[0, ends + 1] - tp).astype(np.float64)
    return tp, fp


def auroc(tp, fp):
    p, q = tp[-1], fp[-1]
    if p == 0 or q == 0:
        return float("nan")
    return float(np.sum(np.diff(fp) * (tp[1:] + tp[:-1])) / (2 * p * q))


def average_precision(tp, fp):
    p, q = tp[-1], fp[-1]
    if p == 0:
        return float("nan")
    if q == 0:
        return 1.0
    gained = np.diff(tp)
    return float(np.sum(gained * tp[1:] / (tp[1:] + fp[1:])) / p)


def fpr_at_tpr(tp, fp, r=0.95):
    p, q = tp[-1], fp[-1]
    if p == 0 or q == 0:
        return float("nan")
    last = int(np.argmax(tp == p))  # L, the first threshold with every positive
    d = np.abs(tp[1 : last + 1] - r * p)
    j = 1 + (len(d) - 1 - int(np.argmin(d[::-1])))  # ties → the larger j
    return float(fp[j] / q)


def tpr_at_fpr(tp, fp, f=0.05):
    p, q = tp[-1], fp[-1]
    if p == 0 or q == 0:
        return float("nan")
    return float(tp[fp / q <= f].max() / p)


def eer(tp, fp):
    p, q = tp[-1], fp[-1]
    if p == 0 or q == 0:
        return float("nan")
    i = int(np.argmin(np.abs(fp * p - (p - tp) * q)))  # first on ties
    return float((fp[i] / q + (p - tp[i]) / p) / 2)


def detection_error(tp, fp):
    p, q = tp[-1], fp[-1]
    if p == 0 or q == 0:
        return float("nan")
    return float(np.min((p - tp) * q + fp * p) / (2 * p * q))


def six(score, pos):
    tp, fp = sweep(score, pos)
    return [
        auroc(tp, fp),
        average_precision(tp, fp),
        fpr_at_tpr(tp, fp),
        tpr_at_fpr(tp, fp),
        eer(tp, fp),
        detection_error(tp, fp),
    ]


def with_sklearn(score, pos):
    a = roc_auc_score(pos, score)
    ap = average_precision_score(pos, score)
    fpr, tpr, _ = roc_curve(pos, score)
    return [float(a), float(ap), float(fpr[np.argmax(tpr >= 0.95)])]


JOBS = {"numpy": six, "sklearn": with_sklearn}


def load(d):
    score = np.fromfile(f"{d}/scores.f32", dtype="<f4")
    pos = np.fromfile(f"{d}/positives.i32", dtype="<i4").astype(np.int64)
    return score, pos


def reference(score, pos):
    """The value of every JS row: the six on (s, y), and the OOD four with isOod = y."""
    s = score.astype(np.float64)
    tp, fp = sweep(s, pos)
    ftp, ffp = sweep(-s, 1 - pos)  # ID positive, −oodScores
    return {
        "auroc": auroc(tp, fp),
        "ap": average_precision(tp, fp),
        "fprAtTpr": fpr_at_tpr(tp, fp),
        "tprAtFpr": tpr_at_fpr(tp, fp),
        "eer": eer(tp, fp),
        "detectionError": detection_error(tp, fp),
        "oodAuprIn": average_precision(ftp, ffp),
        "oodFpr95": fpr_at_tpr(ftp, ffp),
    }


if __name__ == "__main__":
    # the scores in float64 inside the timed part, as the library converts them there too
    serve(
        {job: (lambda score, pos, f=f: f(score.astype(np.float64), pos)) for job, f in JOBS.items()},
        load,
        {"numpy": np.__version__, "sklearn": sklearn and sklearn.__version__},
        reference,
    )
