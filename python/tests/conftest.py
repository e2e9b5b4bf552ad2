"""Shared helpers: generated CSV files, the swath CLI, subprocess runs."""

import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def generated_rows(n, seed=7):
    """Rows with nulls, quoted newlines, commas, doubled quotes, Unicode,
    timestamps (naive and UTC), dates, booleans, ints and floats."""
    rng = random.Random(seed)
    words = ["plain", "Zoë", "naïve café", "日本語", "emoji 🚀", "a,b", 'say "hi"',
             "two\nlines", "crlf\r\ninside", "  spaced  "]
    rows = []
    for i in range(n):
        ts = f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
        rows.append([
            str(i),
            "" if i % 7 == 3 else str(rng.randint(-10**12, 10**12)),
            "" if i % 11 == 5 else repr(rng.uniform(-1e6, 1e6)),
            "" if i % 13 == 2 else rng.choice(words) + f" {i}",
            "" if i % 17 == 4 else rng.choice(["true", "false"]),
            "" if i % 5 == 1 else ts,
            ts + "Z",
            f"20{rng.randint(10, 29)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        ])
    return ["id", "n", "x", "text", "flag", "ts", "tsz", "day"], rows


def csv_field(v):
    if any(c in v for c in ',"\r\n') or v != v.strip():
        return '"' + v.replace('"', '""') + '"'
    return v


def write_csv(path, header, rows, delimiter=","):
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(delimiter.join(header) + "\n")
        for r in rows:
            f.write(delimiter.join(csv_field(v) for v in r) + "\n")
    return path


@pytest.fixture(scope="session")
def mixed_csv(tmp_path_factory):
    header, rows = generated_rows(3000)
    return write_csv(tmp_path_factory.mktemp("data") / "mixed.csv", header, rows)


@pytest.fixture(scope="session")
def big_csv(tmp_path_factory):
    """About 200 MB of `id,value,score,name` rows (one block repeated, ids
    running on), for memory tests; and the same rows' first 200,000 (~6 MB,
    enough to fill every batch in flight), whose peak is the fixed cost of
    a reading (the consumer's own setup, thread stacks) to subtract.
    Returns (big path, its rows, small path, its rows)."""
    d = tmp_path_factory.mktemp("big")
    block_rows = 20000
    small_blocks = 10

    def block(i):
        return "".join(
            f'{i + k},{(i + k) * 7 % 1000003},{(k % 1000) / 8},"name, {k % 97}"\n'
            for k in range(block_rows)
        )

    path, small = d / "big.csv", d / "small.csv"
    target = 200 << 20
    with open(path, "w", encoding="utf-8") as f, open(small, "w", encoding="utf-8") as s:
        f.write("id,value,score,name\n")
        s.write("id,value,score,name\n")
        i = 0
        while f.tell() < target:
            b = block(i)
            f.write(b)
            if i < small_blocks * block_rows:
                s.write(b)
            i += block_rows
    return path, i, small, small_blocks * block_rows


def swath_cli():
    """The swath binary: $SWATH_CLI, else the root workspace's target dir.
    In CI (CI=true) a missing binary fails the test instead of skipping it."""
    found = os.environ.get("SWATH_CLI") or shutil.which("swath")
    if not found:
        target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
        for kind in ("debug", "release"):
            if (target / kind / "swath").exists():
                found = str(target / kind / "swath")
                break
    if not found:
        msg = "no swath CLI found: set SWATH_CLI or run `cargo build -p swath-cli`"
        if os.environ.get("CI"):
            pytest.fail(msg)
        print(f"\n*** SKIPPING: {msg} ***", file=sys.stderr)
        pytest.skip(msg)
    return found


def run_python(code, timeout=300):
    """Run `code` in a fresh interpreter (for peak-memory and signal
    tests); returns its stdout, failing on a non-zero exit."""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=timeout)
    assert p.returncode == 0, f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p.stdout


# Peak RSS since a reset, in a subprocess: Linux resets VmHWM when "5"
# is written to /proc/self/clear_refs.
MEMORY_HELPERS = '''
def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
'''
