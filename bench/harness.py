"""The command line of the NumPy baselines of bench/ (detection, conformal, intervals, forecast).

    python3 bench/X.py --versions                 the library versions, as JSON
    python3 bench/X.py --reference DIR            every reference value (where the baseline has them)
    python3 bench/X.py --cold DIR JOB             one timed run of JOB in this fresh process
    python3 bench/X.py --warm DIR REPEATS JOB...  the best of REPEATS runs of each JOB

A timed run goes from the arrays in memory (as `load` returns them) to the value: wall time
(`ms`) and process CPU time (`cpuMs`), with the value under `key`.
"""

import json
import sys
import time


def timed(f, data):
    c = time.process_time()
    t = time.perf_counter()
    value = f(*data)
    return (time.perf_counter() - t) * 1000, value, (time.process_time() - c) * 1000


def serve(jobs, load, versions, reference=None, key="value"):
    """Answers the command line above: `jobs` by name, `load(DIR)` → the jobs' arguments (a tuple)."""
    if sys.argv[1] == "--versions":
        return json.dump(versions, sys.stdout)
    data = load(sys.argv[2])
    if sys.argv[1] == "--reference":
        return json.dump(reference(*data), sys.stdout)
    if sys.argv[1] == "--cold":
        ms, value, cpu = timed(jobs[sys.argv[3]], data)
        return json.dump({"ms": ms, key: value, "cpuMs": cpu}, sys.stdout)
    repeats = int(sys.argv[3])
    out = {}
    for job in sys.argv[4:]:
        best, best_cpu, value = float("inf"), float("inf"), None
        for _ in range(repeats):
            ms, value, cpu = timed(jobs[job], data)
            best, best_cpu = min(best, ms), min(best_cpu, cpu)
        out[job] = {"ms": best, key: value, "cpuMs": best_cpu}
    json.dump(out, sys.stdout)
