"""swath.read_csv against pyarrow.csv.read_csv, polars.read_csv and
pandas.read_csv(engine="pyarrow"), and swath.scan_csv streamed into a
Polars aggregation: wall time and peak RSS, each in a fresh process.

    swath gen csv --rows 5M /tmp/5m.csv
    python bench/python/bench.py /tmp/5m.csv --threads 2 --runs 3

Each reader's row count is checked against `swath csv count`'s answer
(swath.csv_count), so a fast wrong reader cannot win.
"""

import argparse
import json
import os
import subprocess
import sys

READERS = {
    "swath.read_csv": "t = swath.read_csv(path, threads=threads); rows = t.num_rows",
    "swath.scan_csv -> polars sum": (
        "import polars as pl\n"
        "df = pl.DataFrame(swath.scan_csv(path, columns=['score'], threads=threads))\n"
        "rows = df.height; df['score'].sum()"
    ),
    "pyarrow.csv.read_csv": (
        "import pyarrow as pa, pyarrow.csv as c\n"
        "pa.set_cpu_count(threads); pa.set_io_thread_count(threads)\n"
        "t = c.read_csv(path, parse_options=c.ParseOptions(newlines_in_values=True)); rows = t.num_rows"
    ),
    "polars.read_csv": (
        "os.environ['POLARS_MAX_THREADS'] = str(threads)\n"
        "import polars as pl\n"
        "rows = pl.read_csv(path).height"
    ),
    "pandas.read_csv(engine=pyarrow)": (
        "import pyarrow as pa; pa.set_cpu_count(threads)\n"
        "import pandas as pd\n"
        "rows = len(pd.read_csv(path, engine='pyarrow'))"
    ),
}

CHILD = """
import os, sys, time
path, threads = sys.argv[1], int(sys.argv[2])
import swath
start = time.perf_counter()
{body}
secs = time.perf_counter() - start
peak = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]
print(rows, secs, peak * 1024)
"""


def run(name, path, threads):
    code = CHILD.format(body=READERS[name])
    env = dict(os.environ, POLARS_MAX_THREADS=str(threads))
    out = subprocess.run([sys.executable, "-c", code, path, str(threads)], env=env,
                         capture_output=True, text=True, check=True).stdout
    rows, secs, peak = out.strip().splitlines()[-1].split()
    return int(rows), float(secs), int(peak)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    import swath

    expected = swath.csv_count(args.csv)
    size = os.path.getsize(args.csv)
    results = []
    for name in READERS:
        best = None
        for _ in range(args.runs):
            rows, secs, peak = run(name, args.csv, args.threads)
            if rows != expected:
                sys.exit(f"{name}: {rows} rows, expected {expected}")
            if best is None or secs < best[0]:
                best = (secs, peak)
        results.append({"reader": name, "seconds": best[0], "peak_rss": best[1],
                        "mb_per_s": size / best[0] / 1e6})
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{args.csv}: {size / 1e6:.1f} MB, {expected} rows, {args.threads} threads, "
          f"best of {args.runs}")
    print(f"{'reader':34} {'time s':>8} {'MB/s':>8} {'peak RSS MiB':>13}")
    for r in results:
        print(f"{r['reader']:34} {r['seconds']:8.3f} {r['mb_per_s']:8.0f} {r['peak_rss'] / 2**20:13.0f}")


if __name__ == "__main__":
    main()
