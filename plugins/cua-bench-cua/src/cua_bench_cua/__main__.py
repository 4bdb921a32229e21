"""``python -m cua_bench_cua``: the ``cua-bench-cua`` command."""

from cua_bench_cua.cli import main

main()
