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
import os
import signal
import subprocess
import sys
import time

from notebook.notebookapp import DEFAULT_STATIC_FILES_PATH, NotebookApp
from traitlets import default

KERNEL_STOP_SECONDS = 5.0
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# The lab's custom.css (and nothing else) lives here.
LAB_CUSTOM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "lab", "custom")


def _killpg(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class AgxNotebookApp(NotebookApp):
    """NotebookApp that shuts its kernels down on SIGTERM, SIGINT and SIGHUP."""

    _agx_stopping = False

    @default("static_custom_path")
    def _agx_static_custom_path(self):
        return [os.path.normpath(LAB_CUSTOM_DIR)] + [
            os.path.join(d, "custom") for d in (self.config_dir, DEFAULT_STATIC_FILES_PATH)]

    def init_signal(self):
        super().init_signal()
        for sig in STOP_SIGNALS:
            signal.signal(sig, self._agx_signal_stop)

    def _agx_signal_stop(self, sig, frame):
        name = signal.Signals(sig).name
        if self._agx_stopping:
            self.log.info("received %s again; already stopping", name)
            return
        self._agx_stopping = True
        self.log.info("received %s: shutting down the kernels and the server", name)
        self.io_loop.add_callback_from_signal(self.io_loop.stop)

    def cleanup_kernels(self):
        # Runs after the event loop stopped: on a signal, on /api/shutdown (the
        # Quit button) or when the loop ended for any other reason.
        self._agx_stopping = True
        km = self.kernel_manager
        procs = []
        for kid in list(km.list_kernel_ids()):
            prov = getattr(km.get_kernel(kid), "provisioner", None)
            proc = getattr(prov, "process", None)
            if proc is None or proc.poll() is not None:
                continue
            # jupyter_client starts each kernel in a session of its own, so its
            # process group holds the kernel and whatever it started.
            pgid = getattr(prov, "pgid", None) or proc.pid
            procs.append((kid, proc, pgid))
            _killpg(pgid, signal.SIGTERM)
        deadline = time.monotonic() + KERNEL_STOP_SECONDS
        for kid, proc, pgid in procs:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.log.warning("kernel %s did not stop within %.0f s; killing it", kid, KERNEL_STOP_SECONDS)
                _killpg(pgid, signal.SIGKILL)
                proc.wait()
            # A cell that ignored SIGTERM may outlive its kernel in the group.
            _killpg(pgid, signal.SIGKILL)
        # The kernels are gone; the stock cleanup now only removes their
        # connection files and forgets them.
        super().cleanup_kernels()


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
