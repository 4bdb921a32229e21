"""Starting the pool's background processes: a start that fails says how and shows why."""

from __future__ import annotations

from pathlib import Path

import pytest

from cua_pool.daemons import spawn_and_wait


def test_a_daemon_that_exits_before_its_lock_says_so_with_its_log(tmp_path: Path) -> None:
    log = tmp_path / "agent.log"
    with pytest.raises(RuntimeError) as failed:
        spawn_and_wait(["no-such-command"], log, tmp_path / "agent.pid", timeout=600)
    message = str(failed.value)
    assert "`cua no-such-command` did not start: it exited before it took its lock" in message
    assert "No such command 'no-such-command'" in message  # the log's tail, not only its path
    assert str(log) in message
