# Executes one notebook through a Jupyter kernel with nbclient, cell by cell,
# and reports progress as JSON lines on stdout (one object per line, "event"
# names its kind). The Go side (package jupyter) embeds and runs this script
# with Debian's /usr/bin/python3; it writes the executed notebook itself.
#
# usage: driver.py NOTEBOOK KERNEL CELL_TIMEOUT_S NOTEBOOK_TIMEOUT_S [OPTIONS_JSON]
#   a timeout of 0 means none. OPTIONS_JSON (optional) is an object with
#   "max_output_bytes" (per cell; outputs past it are dropped, except results
#   under a MIME type listed in "keep_mime", which count against 16x the cap)
#   and "continue_on_timeout" (interrupt a cell that runs past its limit and go
#   on with the next one instead of stopping; a cell that still does not answer
#   after the interrupt stops the run), "output_timeout" (seconds to wait, once
#   the kernel has replied, for the rest of a cell's output; default: the cell
#   time limit, or 300 without one) and "startup_timeout" (seconds for the
#   kernel to start; default: 300).
#   "secrets_file" names a JSON file
#   {"CELL_INDEX": TEXT} (read, then removed): just before such a cell runs,
#   the driver writes TEXT into a new file at "secret_path" (owned by
#   "secret_uid"/"secret_gid" when given, mode 0400) and removes it after the
#   cell; when "kill_uid" is given it first kills every process of that user
#   except the kernel, so that nothing left over from earlier cells is
#   running when the file appears.
#
# The driver is the reaper of everything the kernel starts (Linux's child
# subreaper: a program that a cell leaves running in the background, even
# one that detached itself, becomes the driver's child when its parent dies,
# not init's). When the run ends, normally, by a time limit or by SIGTERM,
# the driver kills every process below it: nothing started for a notebook
# outlives its run. The kernel itself is first asked to shut down, so that
# it removes its own files.
#
# nbclient waits only 4 s by default for the output still on its way when the
# kernel replies, and then goes on with a warning: on a busy machine a cell
# that printed a lot lost its last outputs, a test cell's result among them.
# Here the wait is long, and a cell whose output still did not all arrive is
# reported with "output_incomplete", never passed over.
#
# Events:
#   {"event": "started", "kernel": NAME, "language_info": {...} or null}
#     (the kernel's language_info, which Jupyter writes into a notebook's
#     metadata when it opens it: a notebook that has it already opens clean)
#   {"event": "cell_start", "index": I}
#   {"event": "cell_done", "index": I, "seconds": S, "execution_count": N,
#    "outputs": [...], "timed_out": BOOL, "notebook_timeout": BOOL,
#    "output_truncated": BOOL, "output_incomplete": BOOL}
#   {"event": "skipped", "index": I, "reason": TEXT[, "notebook_timeout": true]}
#   {"event": "stopped", "reason": TEXT}  (the run stopped before the last cell)
#   {"event": "fatal", "message": TEXT}
#   {"event": "finished"}
import json
import os
import signal
import sys
import time


# The events go to a private copy of the driver's stdout; fd 1 itself becomes
# stderr before the kernel starts. Otherwise the kernel, and every program a
# cell starts in the background, would inherit the events pipe, and the Go side
# would wait for the last of them to exit before it saw the end of the run.
events = sys.stdout


def emit(obj):
    events.write(json.dumps(obj) + "\n")
    events.flush()


NOTEBOOK_TIMEOUT = "the notebook time limit (%gs) was reached"


class Terminated(Exception):
    pass


# The running NotebookClient, for on_term.
client = None


def on_term(signum, frame):
    # A run being stopped does not wait for the kernel to shut down: it is
    # killed at once (the caller gives the driver 15 s before it kills it
    # too, and the driver's own descendants with it).
    if client is not None:
        client.shutdown_kernel = "immediate"
    raise Terminated("terminated by signal %d" % signum)


def output_size(out):
    try:
        return len(json.dumps(out))
    except (TypeError, ValueError):
        return 0


def make_client_class(NotebookClient, CellTimeoutError, options):
    """A NotebookClient that caps each cell's outputs and, when asked, goes on
    after a cell timeout (interrupting the kernel once)."""
    cap = int(options.get("max_output_bytes") or 0)
    keep_mime = set(options.get("keep_mime") or [])
    go_on = bool(options.get("continue_on_timeout"))

    class Client(NotebookClient):
        def reset_cell_state(self):
            self.cell_bytes = 0
            self.kept_bytes = 0
            self.truncated = False
            self.interrupted = False
            self.cell_timed_out = False
            self.hard_timeout = False

        def output(self, outs, msg, display_id, cell_index):
            out = super().output(outs, msg, display_id, cell_index)
            if out is None or cap <= 0:
                return out
            size = output_size(out)
            data = out.get("data") or {}
            if keep_mime and any(m in data for m in keep_mime):
                self.kept_bytes += size
                if self.kept_bytes <= 16 * cap:
                    return out
            else:
                self.cell_bytes += size
                if self.cell_bytes <= cap:
                    return out
            if outs and outs[-1] is out:
                outs.pop()
            if not self.truncated:
                self.truncated = True
                outs.append(nbformat_v4().new_output(
                    "stream", name="stdout",
                    text="\n[agx: output truncated: this cell printed more than %d bytes]\n" % cap))
            return None

        async def _async_handle_timeout(self, timeout, cell=None):
            if go_on and not self.interrupted:
                self.interrupted = True
                self.cell_timed_out = True
                await ensure_async_call(self.km.interrupt_kernel())
                return None
            self.hard_timeout = True
            raise CellTimeoutError.error_from_timeout_and_cell(
                "Cell execution timed out", timeout, cell)

    return Client


def nbformat_v4():
    import nbformat
    return nbformat.v4


def kernel_pid(client):
    """The kernel process's pid, or None."""
    km = getattr(client, "km", None)
    for holder in (getattr(km, "provisioner", None), km):
        proc = getattr(holder, "process", None) or getattr(holder, "kernel", None)
        pid = getattr(proc, "pid", None)
        if isinstance(pid, int):
            return pid
    return None


def kill_strays(uid, keep):
    """SIGKILL every process of uid except pid keep (the kernel). It returns
    how many it hit.

    Two /proc snapshots would miss a process that keeps forking and exiting
    (its pid changes faster than /proc is read). So first every process of
    uid, the kernel included, is stopped at once: a helper running as uid
    sends SIGSTOP to pid -1, which the kernel delivers to all the processes
    the helper may signal (all of uid's but itself) as one operation, and a
    stopped process cannot fork. Then the stopped processes are killed one
    by one and the kernel is continued."""
    stopped = stop_all(uid)
    hit = 0
    try:
        for _ in range(2 if stopped else 3):
            for name in os.listdir("/proc"):
                if not name.isdigit() or int(name) == keep:
                    continue
                try:
                    if os.stat("/proc/" + name).st_uid != uid:
                        continue
                    os.kill(int(name), signal.SIGKILL)
                    hit += 1
                except (OSError, ValueError):
                    pass
    finally:
        if stopped:
            try:
                os.kill(keep, signal.SIGCONT)
            except OSError:
                pass
    return hit


def stop_all(uid):
    """Send SIGSTOP to every process of uid, from a child that takes uid
    (kill(-1) spares the sender). It returns whether that worked; the
    driver must be root."""
    if os.geteuid() != 0 or uid == 0:
        return False
    import warnings
    with warnings.catch_warnings():
        # The child only changes its user, signals and exits: no lock of
        # another thread is needed (Python 3.12 warns about fork with threads).
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setuid(uid)
            os.kill(-1, signal.SIGSTOP)
            code = 0
        except BaseException:
            pass
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Make the driver the parent of every orphan below it. It returns
    whether that worked (Linux only)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def descendants(root):
    """The live processes below pid root, from /proc's parent links."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z":
            children.setdefault(int(fields[1]), []).append(int(name))
    out, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), []):
            out.append(pid)
            todo.append(pid)
    return out


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_descendants():
    """SIGKILL every process below the driver until none is left. Each is
    stopped first so that it cannot fork while the others are killed; the
    children of a killed process come to the driver and are found by the
    next round."""
    me = os.getpid()
    for _ in range(200):
        pids = descendants(me)
        if not pids:
            break
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        reap()
        time.sleep(0.005)
    reap()


def place_secret(path, text, uid, gid):
    """Write text into a new file at path (never through an existing file
    or link, which the kernel's user may have put there)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o400)
    try:
        if uid is not None:
            os.fchown(fd, uid, gid if gid is not None else -1)
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def remove_secret(path):
    try:
        os.unlink(path)
    except OSError:
        pass


async def ensure_async_call(x):
    import inspect
    if inspect.isawaitable(x):
        return await x
    return x


def language_info(client):
    """The kernel's language_info (from its kernel_info reply), or None."""
    try:
        reply = client.wait_for_reply(client.kc.kernel_info())
        return (reply or {}).get("content", {}).get("language_info")
    except Exception:
        return None


def emit_done(i, t0, cell, timed_out, notebook_timeout, truncated, incomplete):
    emit({
        "event": "cell_done",
        "index": i,
        "seconds": time.monotonic() - t0,
        "execution_count": cell.get("execution_count"),
        "outputs": cell.get("outputs", []),
        "timed_out": timed_out,
        "notebook_timeout": notebook_timeout,
        "output_truncated": truncated,
        "output_incomplete": incomplete,
    })


def main():
    path, kernel = sys.argv[1], sys.argv[2]
    cell_timeout = float(sys.argv[3])
    nb_timeout = float(sys.argv[4])
    options = json.loads(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[5] else {}
    output_timeout = float(options.get("output_timeout") or (cell_timeout if cell_timeout > 0 else 300))
    startup_timeout = float(options.get("startup_timeout") or 300)
    start = time.monotonic()
    deadline = start + nb_timeout if nb_timeout > 0 else None
    secrets = {}
    if options.get("secrets_file"):
        with open(options["secrets_file"]) as f:
            secrets = {int(k): v for k, v in json.load(f).items()}
        os.unlink(options["secrets_file"])
    secret_path = options.get("secret_path")
    kill_uid = options.get("kill_uid")

    global events
    events = os.fdopen(os.dup(1), "w")  # not inherited (PEP 446)
    os.dup2(2, 1)
    signal.signal(signal.SIGTERM, on_term)
    try:
        import nbformat
        from nbclient import NotebookClient
        from nbclient.exceptions import CellTimeoutError, DeadKernelError
        from jupyter_client.kernelspec import NoSuchKernel
    except ImportError as e:
        emit({"event": "fatal", "message": "cannot import the Jupyter modules (%s); "
              "install Debian's jupyter-nbconvert python3-nbclient python3-nbformat" % e})
        return 1

    nb = nbformat.read(path, as_version=4)
    Client = make_client_class(NotebookClient, CellTimeoutError, options)
    global client
    client = Client(
        nb,
        kernel_name=kernel,
        timeout=int(cell_timeout) if cell_timeout > 0 else None,
        allow_errors=True,
        interrupt_on_timeout=False,
        record_timing=False,
        iopub_timeout=max(1, int(output_timeout + 0.999)),
        raise_on_iopub_timeout=True,
        startup_timeout=max(1, int(startup_timeout + 0.999)),
        # A shutdown request first, so that the kernel cleans up after
        # itself (GoNB removes its working directory, about 8 MB, which a
        # killed kernel leaves in $TMPDIR); SIGTERM, then SIGKILL, if it
        # has not exited within 1 s each (shutdown_wait_time below). On
        # SIGTERM the driver kills it at once (on_term).
        shutdown_kernel="graceful",
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}},
    )
    try:
        with client.setup_kernel():
            client.km.shutdown_wait_time = 2.0
            emit({"event": "started", "kernel": kernel, "language_info": language_info(client)})
            stop_reason = None
            for i, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                if stop_reason is not None:
                    emit({"event": "skipped", "index": i, "reason": stop_reason})
                    continue
                timeout = cell_timeout if cell_timeout > 0 else None
                limited_by_notebook = False
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        stop_reason = NOTEBOOK_TIMEOUT % nb_timeout
                        emit({"event": "skipped", "index": i, "reason": stop_reason,
                              "notebook_timeout": True})
                        continue
                    if timeout is None or left < timeout:
                        timeout, limited_by_notebook = left, True
                client.timeout = max(1, int(timeout + 0.999)) if timeout is not None else None
                if i in secrets and secret_path:
                    if kill_uid is not None:
                        pid = kernel_pid(client)
                        if pid is None:
                            raise RuntimeError("cannot find the kernel's process to keep it")
                        kill_strays(kill_uid, pid)
                    place_secret(secret_path, secrets[i], options.get("secret_uid"), options.get("secret_gid"))
                emit({"event": "cell_start", "index": i})
                t0 = time.monotonic()
                timed_out = incomplete = False
                client.reset_cell_state()
                try:
                    if i in secrets and secret_path:
                        try:
                            client.execute_cell(cell, i)
                        finally:
                            remove_secret(secret_path)
                    else:
                        client.execute_cell(cell, i)
                    if client.cell_timed_out:
                        timed_out = True
                        if limited_by_notebook:
                            stop_reason = NOTEBOOK_TIMEOUT % nb_timeout
                except CellTimeoutError:
                    if client.hard_timeout:
                        timed_out = True
                        if limited_by_notebook:
                            stop_reason = NOTEBOOK_TIMEOUT % nb_timeout
                        else:
                            stop_reason = ("a cell did not stop after its time limit and an interrupt"
                                           if options.get("continue_on_timeout") else "an earlier cell timed out")
                    else:
                        # The kernel replied, but the rest of the output did
                        # not arrive in time (nbclient stopped waiting for it).
                        incomplete = True
                        timed_out = client.cell_timed_out
                        if timed_out and limited_by_notebook:
                            stop_reason = NOTEBOOK_TIMEOUT % nb_timeout
                        cell.outputs.append(nbformat.v4.new_output(
                            "stream", name="stderr",
                            text="\n[agx: the rest of this cell's output did not arrive within %gs]\n" % output_timeout))
                except DeadKernelError:
                    stop_reason = "the kernel died"
                    cell.outputs.append(nbformat.v4.new_output(
                        "error", ename="DeadKernelError", evalue="the kernel died", traceback=[]))
                emit_done(i, t0, cell, timed_out, timed_out and limited_by_notebook, client.truncated, incomplete)
            if stop_reason is not None:
                emit({"event": "stopped", "reason": stop_reason})
    except NoSuchKernel:
        emit({"event": "fatal", "message": "no Jupyter kernel named %r; install it with "
              "docker/scripts/install-all.sh (make deps) or pass --kernel" % kernel})
        return 1
    except Terminated as e:
        emit({"event": "fatal", "message": str(e)})
        return 1
    except RuntimeError as e:
        # Kernel start failures (e.g. "Kernel died before replying to kernel_info").
        emit({"event": "fatal", "message": "kernel %r: %s" % (kernel, e)})
        return 1
    emit({"event": "finished"})
    return 0


if __name__ == "__main__":
    become_subreaper()
    try:
        code = main()
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        kill_descendants()
    sys.exit(code)
