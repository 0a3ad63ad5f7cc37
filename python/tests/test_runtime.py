"""The long calls release the GIL and stop on KeyboardInterrupt as `pkmflex map` stops on
Ctrl-C (the poses done kept, the others pending, OUTPUT.partial written); repeated calls keep
memory flat."""
import _thread
import os
import threading
import time

import numpy as np
import pytest

import pkmflex

BIG = "x=-0.2:0.2:120,y=-0.2:0.2:120"   # 14,400 poses: a few seconds
POSE = (0, 0, -1.0471975511965976)


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


@pytest.mark.parametrize("threads", [1, 2])
def test_keyboard_interrupt_stops_map(tmp_path, threads):
    c = pkmflex.Case("navaro")
    out = tmp_path / "big.h5"
    timer = threading.Timer(0.5, _thread.interrupt_main)
    t0 = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt) as e:
        c.map(BIG, nev=4, pose=POSE, threads=threads, output=out)
    elapsed = time.monotonic() - t0
    timer.join()
    partial = e.value.partial
    counts = partial.counts()
    assert counts["pending"] > 0 and counts["ok"] > 0, counts
    assert sum(counts.values()) == 120 * 120
    assert elapsed < 5.0
    assert not out.exists()
    saved = pkmflex.read_map(str(out) + ".partial")
    assert np.array_equal(saved.status, partial.status)
    assert np.array_equal(saved.freq_hz, partial.freq_hz, equal_nan=True)


def test_gil_released_during_map():
    c = pkmflex.Case("navaro")
    result = {}
    worker = threading.Thread(
        target=lambda: result.setdefault("m", c.map("x=-0.2:0.2:60,y=-0.2:0.2:60", nev=4,
                                                    pose=POSE)))
    ticks = 0
    worker.start()
    time.sleep(0.05)
    while worker.is_alive():
        ticks += 1
        time.sleep(0)
    worker.join()
    assert result["m"].counts()["pending"] == 0
    assert ticks > 1000, ticks    # the main thread ran while the map was computed


def test_threads_share_the_library():
    c = pkmflex.Case("navaro")
    poses = [(0.005 * k, 0, 0) for k in range(8)]
    ref = [c.modes(p, nev=4).freq_hz for p in poses]
    out = [None] * len(poses)

    def run(k):
        out[k] = c.modes(poses[k], nev=4).freq_hz

    ts = [threading.Thread(target=run, args=(k,)) for k in range(len(poses))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for a, b in zip(out, ref):
        assert np.array_equal(a, b)


def test_modes_10000_calls_flat_rss():
    """10,000 calls of modes (shapes and describe included) and 2,000 failing ones: the RSS
    after them within 2 MiB of the RSS after a warm-up of 1,000 (a leak of 200 bytes per call
    would exceed it)."""
    c = pkmflex.Case("navaro")
    for _ in range(1000):
        c.modes((0.01, 0.02, 0.1), nev=4)
    before = rss_kib()
    for _ in range(10000):
        m = c.modes((0.01, 0.02, 0.1), nev=4)
    for _ in range(2000):
        try:
            c.modes((0.5, 0, 0), nev=4)
        except pkmflex.Error:
            pass
    after = rss_kib()
    print(f"\nRSS before {before} KiB, after 10,000 modes + 2,000 errors {after} KiB "
          f"({after - before:+d} KiB)")
    assert np.isfinite(m.freq_hz).all()
    assert after - before < 2048, (before, after)


def test_map_and_read_map_repeated_flat_rss(tmp_path):
    c = pkmflex.Case("navaro")
    path = tmp_path / "m.h5"
    for _ in range(20):
        c.map("x=-0.1:0.1:5,y=-0.1:0.1:5", nev=4, pose=POSE, output=path)
        pkmflex.read_map(path)
    before = rss_kib()
    for _ in range(300):
        c.map("x=-0.1:0.1:5,y=-0.1:0.1:5", nev=4, pose=POSE, output=path, keep_modes=True)
        pkmflex.read_map(path)
    after = rss_kib()
    print(f"\nRSS before {before} KiB, after 300 maps and reads {after} KiB")
    assert after - before < 2048, (before, after)
