"""swath.read_csv holds at most two copies of the longest record (the
record, and the Arrow column it is decoded into) over the process's own
footprint, under the record limit and over it (then it raises within the
bound): the model of docs/memory.md. Peak RSS is the child's own
ru_maxrss, from os.wait4, in a fresh interpreter per reading."""

import os
import subprocess
import sys

import pytest

MIB = 1 << 20
# The stated constant over the footprint (docs/memory.md).
OVERHEAD = 4 * MIB

READ = """
import sys, swath
try:
    t = swath.read_csv(sys.argv[1], max_record_size=int(sys.argv[2]), threads=int(sys.argv[3]))
    sys.exit(0 if t.num_rows == 2 else 3)
except swath.CsvError:
    sys.exit(1)
"""


def huge_field_csv(path, field):
    with open(path, "wb") as f:
        f.write(b"id,big,c\n1,")
        left = field
        block = b"a" * (1 << 16)
        while left > 0:
            n = min(left, len(block))
            f.write(block[:n])
            left -= n
        f.write(b",z\n2,x,y\n")


def peak_rss(path, limit, threads):
    """Exit code and peak RSS in bytes of a fresh interpreter reading path."""
    p = subprocess.Popen([sys.executable, "-c", READ, str(path), str(limit), str(threads)])
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, usage.ru_maxrss * 1024


@pytest.mark.parametrize("threads", [1, 2])
def test_read_csv_peaks_at_two_copies_of_the_record(tmp_path, threads):
    field = 12 * MIB
    big = tmp_path / "big.csv"
    huge_field_csv(big, field)
    small = tmp_path / "small.csv"
    small.write_bytes(b"id,big,c\n1,a,z\n2,x,y\n")
    for limit in (32 * MIB, 4 * MIB):
        code, peak = peak_rss(big, limit, threads)
        assert code == (0 if field < limit else 1), (limit, code)
        small_code, footprint = peak_rss(small, limit, threads)
        assert small_code == 0
        bound = footprint + 2 * min(field, limit) + OVERHEAD
        assert peak <= bound, (
            f"read_csv threads={threads} limit={limit // MIB} MiB: peak RSS {peak / MIB:.1f} MiB "
            f"over the bound {bound / MIB:.1f} MiB (footprint {footprint / MIB:.1f} MiB)"
        )
