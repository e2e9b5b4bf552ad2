"""The GIL is released while Rust works, and Ctrl-C interrupts a read.
A FIFO whose writer never finishes makes the read wait for as long as
the test needs, whatever the machine's speed."""

import os
import signal
import threading

import swath
from conftest import run_python


def test_other_python_threads_run_while_swath_waits(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = {}
    t = threading.Thread(target=lambda: result.setdefault("n", swath.count_lines(fifo)))
    t.start()
    # This thread needs the GIL to open and feed the FIFO, while the other
    # is inside count_lines reading it: it runs only if the GIL is free.
    with open(fifo, "w") as w:
        w.write("a\nb\nc\n")
    t.join(timeout=60)
    assert not t.is_alive()
    assert result["n"] == 3


INTERRUPTED = '''
import os, signal, threading, swath
fifo = {fifo!r}
os.mkfifo(fifo)
def feed():
    w = open(fifo, "w")            # waits for swath to open the FIFO
    w.write("a,b\\n1,2\\n")
    w.flush()
    os.kill(os.getpid(), signal.SIGINT)
    done.wait(60)
    w.close()
done = threading.Event()
threading.Thread(target=feed, daemon=True).start()
try:
    swath.{call}
except KeyboardInterrupt:
    print("interrupted")
finally:
    done.set()
'''


def test_ctrl_c_interrupts_a_read_that_waits(tmp_path):
    for i, call in enumerate([
        "count_lines(fifo)",
        "csv_count(fifo)",
        "read_csv(fifo, schema={'a': 'int64', 'b': 'int64'})",
        "scan_csv(fifo, schema={'a': 'int64', 'b': 'int64'}).__next__()",
        "csv_check(fifo)",
        "csv_to_parquet(fifo, fifo + '.parquet', schema={'a': 'int64', 'b': 'int64'})",
    ]):
        code = INTERRUPTED.format(fifo=str(tmp_path / f"fifo{i}"), call=call)
        assert run_python(code, timeout=120).strip() == "interrupted", call
    assert not any(p.name.endswith(".parquet") for p in tmp_path.iterdir())
