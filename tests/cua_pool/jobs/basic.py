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
