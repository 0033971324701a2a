"""AgxNotebookApp: Notebook 6's server with the lab's style sheet and a clean stop.

Used by notebook-server.py (`make lab`) and, through JUPYTERHUB_SINGLEUSER_APP,
by each student's server on a JupyterHub (docker/jupyterhub/jupyterhub_config.py),
so that both serve docker/lab/custom/custom.css and stop their kernels cleanly.
notebook-server.py's docstring tells the why of each change.
"""
import os
import signal
import subprocess
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
