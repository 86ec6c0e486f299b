"""``python -m abductive_tasks.cli``: the ``abductive-eval`` command."""

import sys

from abductive_tasks.cli import main

sys.exit(main())
