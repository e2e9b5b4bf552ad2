"""swath.read_csv against pyarrow.csv.read_csv, polars.read_csv and
pandas.read_csv(engine="pyarrow"), and swath.scan_csv streamed into a
Polars aggregation: wall time and peak RSS, all in one Python process (as
a user would call them; `--fresh` runs each call in a new process).

    swath gen csv --rows 5M /tmp/5m.csv
    python bench/python/bench.py /tmp/5m.csv --threads 2 --runs 3

In one process the peak RSS of each call is measured by resetting the
kernel's high-water mark first (`/proc/self/clear_refs`, "5"), so it is the
call's peak over what the process already held (its "base", shown too).

Each reader's row count is checked against `swath csv count`'s answer
(swath.csv_count), so a fast wrong reader cannot win.
"""

import argparse
import gc
import json
import os
import subprocess
import sys
import time


def swath_read(path, threads):
    import swath
    return swath.read_csv(path, threads=threads).num_rows


def swath_scan_polars(path, threads):
    import polars as pl
    import swath
    df = pl.DataFrame(swath.scan_csv(path, columns=["score"], threads=threads))
    df["score"].sum()
    return df.height


def pyarrow_read(path, threads):
    import pyarrow as pa
    import pyarrow.csv as c
    pa.set_cpu_count(threads)
    pa.set_io_thread_count(threads)
    opts = c.ParseOptions(newlines_in_values=True)
    return c.read_csv(path, parse_options=opts).num_rows


def polars_read(path, threads):
    # POLARS_MAX_THREADS is read once, when polars is first imported
    # (set in main before that).
    import polars as pl
    return pl.read_csv(path).height


def pandas_read(path, threads):
    import pandas as pd
    import pyarrow as pa
    pa.set_cpu_count(threads)
    return len(pd.read_csv(path, engine="pyarrow"))


READERS = {
    "swath.read_csv": swath_read,
    "swath.scan_csv -> polars sum": swath_scan_polars,
    "pyarrow.csv.read_csv": pyarrow_read,
    "polars.read_csv": polars_read,
    "pandas.read_csv(engine=pyarrow)": pandas_read,
}


def rss(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def import_all():
    """Import every library before any is timed: an import is not a read."""
    import pandas  # noqa: F401
    import polars  # noqa: F401
    import pyarrow.csv  # noqa: F401
    import swath  # noqa: F401


def measure(name, path, threads):
    """One call in this process: rows, seconds, peak RSS, RSS before."""
    import_all()
    gc.collect()
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    base = rss("VmRSS")
    start = time.perf_counter()
    rows = READERS[name](path, threads)
    secs = time.perf_counter() - start
    return rows, secs, rss("VmHWM"), base


def measure_fresh(name, path, threads):
    """One call in a new process (nothing held before it)."""
    code = (
        "import sys, json\n"
        f"sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})\n"
        "import bench\n"
        "print(json.dumps(bench.measure(sys.argv[1], sys.argv[2], int(sys.argv[3]))))\n"
    )
    env = dict(os.environ, POLARS_MAX_THREADS=str(threads))
    out = subprocess.run([sys.executable, "-c", code, name, path, str(threads)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return tuple(json.loads(out.strip().splitlines()[-1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--fresh", action="store_true", help="each call in a new process")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.environ["POLARS_MAX_THREADS"] = str(args.threads)
    import swath

    expected = swath.csv_count(args.csv)
    size = os.path.getsize(args.csv)
    how = measure_fresh if args.fresh else measure
    results = []
    for name in READERS:
        times, peak, base = [], 0, 0
        for _ in range(args.runs):
            rows, secs, p, b = how(name, args.csv, args.threads)
            if rows != expected:
                sys.exit(f"{name}: {rows} rows, expected {expected}")
            times.append(secs)
            peak, base = max(peak, p), b
        times.sort()
        results.append({"reader": name, "seconds": times[len(times) // 2], "min_seconds": times[0],
                        "peak_rss": peak, "base_rss": base, "mb_per_s": size / times[len(times) // 2] / 1e6})
    if args.json:
        print(json.dumps(results, indent=2))
        return
    where = "each call in a fresh process" if args.fresh else "one process"
    print(f"{args.csv}: {size / 1e6:.1f} MB, {expected} rows, {args.threads} threads, "
          f"median of {args.runs}, {where}")
    fastest_peer = min(r["seconds"] for r in results if not r["reader"].startswith("swath"))
    print(f"{'reader':34} {'median s':>9} {'min s':>7} {'MB/s':>6} {'peak RSS MiB':>13} "
          f"{'base MiB':>9} {'x fastest peer':>15}")
    for r in results:
        print(f"{r['reader']:34} {r['seconds']:9.3f} {r['min_seconds']:7.3f} {r['mb_per_s']:6.0f} "
              f"{r['peak_rss'] / 2**20:13.0f} {r['base_rss'] / 2**20:9.0f} "
              f"{fastest_peer / r['seconds']:15.2f}")
    print("(x fastest peer: the fastest of pyarrow, polars and pandas over this reader's time; "
          "peak RSS: the call's high-water mark, base: RSS held before it)")


if __name__ == "__main__":
    main()
