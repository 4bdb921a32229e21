"""adb, as the transcript in $FAKE_ADB_STATE says a device answers (the tests' conftest writes it there).

Each call is logged (argv, and the stdin adb was given, base64) to calls.log. The first transcript entry
whose argv is exactly this call's answers it, once; an entry with ``repeat`` answers every such call. A
call no entry answers is written to failures.log and exits 99, which the tests turn into a failure.
An entry answers ``stdout`` (text) or the bytes of ``stdout_file``, ``stderr`` and ``exit``, after
``sleep`` seconds when it has them (a command that outlives its timeout).
"""

import base64
import fcntl
import json
import os
import sys
import time

state = os.environ["FAKE_ADB_STATE"]
argv = sys.argv[1:]
stdin = sys.stdin.buffer.read()  # the session always hands adb a stdin of its own: empty, or a file's bytes
with open(os.path.join(state, "lock"), "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)  # an env server may run two adb calls at once
    with open(os.path.join(state, "transcript.json")) as fh:
        entries = json.load(fh)
    used_path = os.path.join(state, "used.json")
    used = []
    if os.path.exists(used_path):
        with open(used_path) as fh:
            used = json.load(fh)
    with open(os.path.join(state, "calls.log"), "a") as log:
        log.write(json.dumps({"argv": argv, "stdin": base64.b64encode(stdin).decode()}) + "\n")
    chosen = None
    for index, entry in enumerate(entries):
        if entry["argv"] == argv and (entry.get("repeat") or index not in used):
            chosen = entry
            if not entry.get("repeat"):
                used.append(index)
            break
    with open(used_path, "w") as fh:
        json.dump(used, fh)
    if chosen is None:
        with open(os.path.join(state, "failures.log"), "a") as failures:
            failures.write(f"no transcript entry answers `adb {' '.join(argv)}` ({argv})\n")
        sys.stderr.write("fake adb: not in the transcript\n")
        sys.exit(99)
time.sleep(chosen.get("sleep", 0))
if "stdout_file" in chosen:
    with open(chosen["stdout_file"], "rb") as fh:
        sys.stdout.buffer.write(fh.read())
else:
    sys.stdout.buffer.write(chosen.get("stdout", "").encode())
sys.stderr.write(chosen.get("stderr", ""))
sys.exit(chosen.get("exit", 0))
