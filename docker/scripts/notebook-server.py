#!/usr/bin/python3
"""The Jupyter Notebook server behind `make lab` and the lab image (lab.sh runs it).

It is Notebook 6's own server with one change: how it stops. Stock Notebook 6.4
on SIGTERM (and on Ctrl-C without a terminal) stops its event loop and then sends
each kernel a shutdown_request. GoNB 0.11.4 does not exit within the 2.5 s that
jupyter_client gives it, gets SIGTERM on top and panics ("close of closed
channel"); a second signal that arrives meanwhile stops the loop again and the
server dies with "Event loop stopped before Future completed".

It also serves the lab's style sheet (docker/lab/custom/custom.css, ahead of
a custom.css of the user's Jupyter configuration): Go code is indented with
tabs, and Notebook's editor theme draws each tab as an arrow.

Here SIGTERM, SIGINT (Ctrl-C, no confirmation prompt) and SIGHUP all stop the
server once (repeated signals are only logged). Each kernel's process group
(GoNB, a running cell and its `go build`) gets SIGTERM, which GoNB handles as
a clean stop (it shuts gopls down and removes its temporary directory); a
kernel still alive after KERNEL_STOP_SECONDS is killed with its group. The
server then removes the connection files and exits with status 0.

Usage: notebook-server.py [jupyter notebook arguments...]
"""
import signal
import sys

from agx_notebook_app import STOP_SIGNALS, AgxNotebookApp

class _StopHint:
    """Rewrites Notebook's start-up hint, which promises a confirmation prompt."""

    def filter(self, record):
        if isinstance(record.msg, str) and record.msg.startswith("Use Control-C to stop"):
            record.msg = "Use Control-C (or SIGTERM) to stop this server and shut down all kernels."
            record.args = ()
        return True


def main():
    AgxNotebookApp.instance().log.addFilter(_StopHint())
    AgxNotebookApp.launch_instance()
    # Stopped. A signal that arrives while Python finalizes would otherwise meet
    # the default handlers (Python restores them at exit, except SIG_IGN) and end
    # the process with that signal instead of status 0.
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    return 0


if __name__ == "__main__":
    sys.exit(main())
