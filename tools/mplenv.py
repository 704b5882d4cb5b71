# SPDX-License-Identifier: BSD-3-Clause
"""matplotlib for the project's plotting tools, wherever they are run from.

tools/setup.sh installs python3-matplotlib for Debian's /usr/bin/python3;
the python3 first on PATH (a venv, pyenv, conda) may lack it. A tool calls
need_pyplot() before any work: when its interpreter cannot import
matplotlib and Debian's can, the tool runs again under Debian's, saying
so; when neither can, pyplot() returns None and the tool says it draws
nothing, naming the interpreter."""
import os
import subprocess
import sys

DEBIAN_PYTHON = os.environ.get("UET_PLOT_PYTHON", "/usr/bin/python3")
_GUARD = "UET_PLOT_REEXEC"


def _have():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def need_pyplot(tool):
    """Run the tool again under Debian's python3 if only that one has
    matplotlib (once: a guard in the environment stops a second time)."""
    if _have() or os.environ.get(_GUARD) or not os.access(DEBIAN_PYTHON, os.X_OK):
        return
    if subprocess.run([DEBIAN_PYTHON, "-c", "import matplotlib"],
                      capture_output=True).returncode != 0:
        return
    print("%s: %s has no matplotlib: running again under %s" % (
        tool, sys.executable, DEBIAN_PYTHON), file=sys.stderr)
    sys.stderr.flush()
    os.environ[_GUARD] = "1"
    os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(sys.argv[0])] + sys.argv[1:])


def pyplot(tool, what):
    """matplotlib.pyplot with the Agg backend, or None, after a line on
    stderr saying that `what` is not drawn and why."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        print("%s: %s not drawn: %s has no matplotlib (apt-get install python3-matplotlib)"
              % (tool, what, sys.executable), file=sys.stderr)
        return None
