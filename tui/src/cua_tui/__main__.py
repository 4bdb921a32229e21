import sys

from cua_tui.app import main

sys.exit(main())
