"""A sampling profiler for a Python process (py-spy is not installed here): run a module
with a thread that reads the main thread's stack every ``--every`` seconds.

    python bench/sampler.py -o FILE [--every 0.001] -m quintet.cli serve ...

On exit (SIGINT, SIGTERM or the module returning) it writes to FILE the share of
samples each function was running in (``self``: on top of the stack) and under
(``total``: anywhere on it), the largest first. Sampling costs the process far less
than cProfile's tracing of every call, so the shares are nearer those of the real run;
but a thread samples only when the main thread lets go of the GIL (the switch
interval is set to half the sampling period), so code in C holding it is counted at
the Python line after it. With ``--signals`` it samples only between a SIGUSR1 and a
SIGUSR2 (``bench/server_load.py --sample FILE`` sends them around its measuring).
"""

from __future__ import annotations

import argparse
import collections
import os
import runpy
import signal
import sys
import threading
import time
from types import FrameType


def _key(frame: FrameType) -> str:
    code = frame.f_code
    path = code.co_filename
    for marker in ("site-packages/", "lib/python3"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    else:
        path = os.path.relpath(path) if path.startswith("/") else path
    return f"{path}:{code.co_firstlineno}({code.co_name})"


def main() -> None:
    """Run ``-m MODULE ARGS...`` under the sampler."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    ap.add_argument("-o", "--out", required=True, help="file to write the shares to")
    ap.add_argument("--every", type=float, default=0.001, help="seconds between samples")
    ap.add_argument("--top", type=int, default=80, help="functions listed")
    ap.add_argument("--signals", action="store_true", help="sample from SIGUSR1 to SIGUSR2")
    ap.add_argument("-m", dest="module", required=True, help="the module to run")
    args, rest = ap.parse_known_args()
    sys.setswitchinterval(min(sys.getswitchinterval(), args.every / 2))
    on = threading.Event()
    if args.signals:
        signal.signal(signal.SIGUSR1, lambda signum, frame: on.set())
        signal.signal(signal.SIGUSR2, lambda signum, frame: on.clear())
    else:
        on.set()
    main_id = threading.main_thread().ident
    own: collections.Counter[str] = collections.Counter()
    under: collections.Counter[str] = collections.Counter()
    samples = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal samples
        while not stop.wait(args.every):
            if not on.is_set():
                continue
            frame = sys._current_frames().get(main_id or 0)
            if frame is None:
                continue
            samples += 1
            own[_key(frame)] += 1
            seen = set()
            f: FrameType | None = frame
            while f is not None:
                k = _key(f)
                if k not in seen:
                    seen.add(k)
                    under[k] += 1
                f = f.f_back

    def write() -> None:
        stop.set()
        n = max(samples, 1)
        with open(args.out, "w") as out:
            out.write(f"{samples} samples every {args.every} s of the main thread\n\n")
            out.write("self %   total %  function\n")
            for k, c in own.most_common(args.top):
                out.write(f"{100 * c / n:6.1f}  {100 * under[k] / n:7.1f}  {k}\n")
            out.write("\ntotal %  function (by the time under it)\n")
            for k, c in under.most_common(args.top):
                out.write(f"{100 * c / n:7.1f}  {k}\n")

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    threading.Thread(target=sample, name="sampler", daemon=True).start()
    sys.argv = [args.module, *rest]
    t0 = time.monotonic()
    try:
        runpy.run_module(args.module, run_name="__main__", alter_sys=True)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        write()
        print(f"sampler: {samples} samples in {time.monotonic() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
