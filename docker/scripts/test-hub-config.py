# JupyterHub configuration for the hub check of image-test.sh: the JupyterHub 5 of the
# lab image, run inside a lab container as jovyan, starts the image's single-user
# server (jupyterhub-singleuser, JupyterLab 4) with the same command and arguments as
# docker/jupyterhub/values.yaml gives Zero to JupyterHub, then test-lab-browser.cjs
# logs in and runs a notebook in it. A test set-up, not a deployment: any user name
# logs in with any password, and the servers run as jovyan, in-process spawner.
#
# Ports and the state directory come from the environment (AGX_HUB_*).
import os

c = get_config()  # noqa: F821 (provided by JupyterHub when it loads this file)

state = os.environ["AGX_HUB_STATE"]
c.JupyterHub.bind_url = "http://127.0.0.1:%s" % os.environ["AGX_HUB_PORT"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ["AGX_HUB_API_PORT"])
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%s" % os.environ["AGX_HUB_PROXY_API_PORT"]
c.ConfigurableHTTPProxy.pid_file = os.path.join(state, "proxy.pid")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(state, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(state, "cookie_secret")

c.JupyterHub.authenticator_class = "jupyterhub.auth.DummyAuthenticator"
c.Authenticator.allow_all = True

# The single-user server as values.yaml starts it (singleuser.cmd, defaultUrl), plus
# window.jupyterapp for the browser check.
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
c.Spawner.cmd = [
    "jupyterhub-singleuser",
    "--ServerApp.root_dir=/home/jovyan/work",
    "--MappingKernelManager.default_kernel_name=agx-go",
]
c.Spawner.args = ["--LabApp.expose_app_in_browser=True"]
c.Spawner.default_url = "/lab"
c.Spawner.port = int(os.environ["AGX_HUB_USER_PORT"])
# HOME as in the image (its warm Go caches); the image's environment passed on, as
# a Kubernetes pod of the image would have it.
c.SimpleLocalProcessSpawner.home_dir_template = "/home/jovyan"
c.Spawner.env_keep = [
    "PATH", "LANG", "GOTOOLCHAIN", "AGX_PREFIX", "AGX_GPU_BUILD", "AGX_OPENBLAS",
    "AGX_CUDA", "AGX_NOTEBOOK_SEED", "NVIDIA_DRIVER_CAPABILITIES",
]
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
