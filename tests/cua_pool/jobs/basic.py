"""Jobs the tests run. Each prints what the test checks and returns what it compares."""

import os
import sys
import time
from pathlib import Path


def hello(n=3, text="hi"):
    for i in range(n):
        print(f"{text} {i}", flush=True)
    return {"n": n, "rank": int(os.environ["RANK"]), "cwd": os.getcwd()}


def ticker(count=10000, every=0.05):
    for i in range(count):
        print(f"tick {i}", flush=True)
        time.sleep(every)
    return count


def until(gate, every=0.05):
    """Tick until the file ``gate`` exists: a job that ends when the test says, however slow the machine."""
    i = 0
    while not os.path.exists(gate):
        print(f"tick {i}", flush=True)
        i += 1
        time.sleep(every)
    return i


def fail():
    print("about to fail", flush=True)
    raise RuntimeError("this job fails on purpose")


def env(*names):
    return {name: os.environ.get(name) for name in names}


def space_facts():
    here = Path.cwd()
    return {
        "files": sorted(p.name for p in here.iterdir() if not p.name.startswith(".")),
        "home": os.environ.get("HOME"),
        "sid": os.getsid(0),
        "pgid": os.getpgid(0),
        "config_visible": "CUA_CONFIG_DIR" in os.environ,
    }


def unpicklable():
    return {1, 2, 3}  # a set is not JSON: the result is kept as a pickle


def stderr_and_exit(code=3):
    print("to stderr", file=sys.stderr, flush=True)
    sys.exit(code)


def memory_hog(mb=400):
    blob = bytearray(mb << 20)
    return len(blob)


def uses_helper():
    import helper

    return helper.GREETING


def keep_secret(seconds=30):
    Path("secret.txt").write_text("only mine")
    print(f"SECRET {Path('secret.txt').resolve()}", flush=True)
    time.sleep(seconds)


def peek(path, config_dir, runtime_dir):
    """Try to read another space's file, the host's keys and the controller's socket."""
    out = {}
    try:
        out["peer"] = Path(path).read_text()
    except OSError as exc:
        out["peer"] = type(exc).__name__
    out["config"] = sorted(p.name for p in Path(config_dir).iterdir()) if Path(config_dir).is_dir() else None
    out["runtime"] = sorted(p.name for p in Path(runtime_dir).iterdir()) if Path(runtime_dir).is_dir() else None
    return out
