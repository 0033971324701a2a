# JupyterHub configuration for the agx lab on ONE machine: local Unix users log
# in with their passwords (PAM), each gets a Notebook 6 server started as that
# user (LocalProcessSpawner), with the Go (agx) kernel and the shared caches
# that docker/scripts/install-hub.sh installs. Run as root, from a directory
# that holds the hub's state (its database and cookie secret):
#
#   AGX_HUB_DIR=/opt/agx-hub jupyterhub -f /path/to/docker/jupyterhub/jupyterhub_config.py
#
# Settings from the environment (defaults in brackets):
#   AGX_HUB_DIR       what install-hub.sh installed [/opt/agx-hub]
#   AGX_HUB_IP        the address users connect to [127.0.0.1]; put a TLS
#                     proxy in front before opening it to a network
#   AGX_HUB_PORT      the public port [8000]; the hub's API and the proxy's API
#                     listen on 127.0.0.1 at the next two ports
#   AGX_EXCHANGE, AGX_COURSE  passed on to the users' servers, so the
#                     exchange commands (`agx fetch`, `agx submit`) find the course
#   AGX_HUB_USERS     comma-separated user names allowed to log in [any local user]
#   AGX_HUB_ADMINS    comma-separated hub admins [none]
# A class larger than one machine: docker/jupyterhub/values.yaml (Kubernetes).
import os
import pwd
import subprocess

c = get_config()  # noqa: F821 (provided by JupyterHub when it loads this file)

hub_dir = os.environ.get("AGX_HUB_DIR", "/opt/agx-hub")
ip = os.environ.get("AGX_HUB_IP", "127.0.0.1")
port = int(os.environ.get("AGX_HUB_PORT", "8000"))

c.JupyterHub.ip = ip
c.JupyterHub.port = port
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = port + 1
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%d" % (port + 2)
# Debian's configurable-http-proxy finds its modules in /usr/share/nodejs only
# through Debian's node; another node on PATH needs NODE_PATH (the proxy
# inherits the hub's environment).
os.environ.setdefault("NODE_PATH", "/usr/share/nodejs")

c.JupyterHub.authenticator_class = "jupyterhub.auth.PAMAuthenticator"
users = {u for u in os.environ.get("AGX_HUB_USERS", "").split(",") if u}
if users:
    c.Authenticator.allowed_users = users
admins = {u for u in os.environ.get("AGX_HUB_ADMINS", "").split(",") if u}
if admins:
    c.Authenticator.admin_users = admins

c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
c.Spawner.cmd = ["jupyterhub-singleuser"]
c.Spawner.default_url = "/tree"
c.Spawner.args = ["--MappingKernelManager.default_kernel_name=agx-go"]
c.Spawner.http_timeout = 60
c.Spawner.start_timeout = 60
env = {
    # Hub 3.0 starts jupyter_server by default; Debian 12 has Notebook 6. agx's
    # subclass of its NotebookApp serves the lab's style sheet (no arrows drawn
    # for Go's tabs) and stops kernels cleanly, as `make lab` does.
    "JUPYTERHUB_SINGLEUSER_APP": "agx_notebook_app.AgxNotebookApp",
    "PYTHONPATH": os.path.join(hub_dir, "agx", "docker", "scripts"),
    "JUPYTER_PATH": os.path.join(hub_dir, "jupyter"),
    "PATH": ":".join([os.path.join(hub_dir, "bin"), "/usr/local/go/bin", "/usr/local/bin", "/usr/bin", "/bin"]),
}
for key in ("AGX_EXCHANGE", "AGX_COURSE"):
    if os.environ.get(key):
        env[key] = os.environ[key]
c.Spawner.environment = env


def seed_go_cache(spawner):
    """Before a user's server starts (as root): when the user has no Go build
    cache yet, hard-link the shared template into it (seed-gocache.sh), so the
    first notebook cell does not compile the standard library and agx."""
    home = pwd.getpwnam(spawner.user.name).pw_dir
    subprocess.run(
        [
            os.path.join(hub_dir, "agx", "docker", "scripts", "seed-gocache.sh"),
            "-u", spawner.user.name,
            os.path.join(hub_dir, "cache", "go-build"),
            os.path.join(home, ".cache", "go-build"),
        ],
        check=True,
        timeout=120,
    )


c.Spawner.pre_spawn_hook = seed_go_cache
