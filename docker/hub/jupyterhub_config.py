# JupyterHub 5 configuration for a warplab class on one machine (docker/Dockerfile.hub).
#
# Students are local Unix users; each one's server is `jupyterhub-singleuser` (JupyterLab 4)
# started as that user by the hub's LocalProcessSpawner, listening on 127.0.0.1 behind the
# hub's proxy (configurable-http-proxy), and it accepts only the hub's authentication (a
# login through the hub, or a token the hub issued to that student). The Go toolchain,
# modules and GoNB kernel are the image's, shared read-only; each student's build cache and
# notebooks are in their home.
#
# A deployer sets (environment variables):
#   WARPLAB_HUB_IP            address the proxy listens on (default 127.0.0.1: this machine only;
#                             0.0.0.0 behind TLS termination for a real class)
#   WARPLAB_HUB_PORT          its port (default 8000)
#   WARPLAB_HUB_ADMIN_TOKEN   if set, an API token with the hub's admin role (service
#                             "warplab-admin"), used by scripts to add students and start servers
#   WARPLAB_HUB_AUTHENTICATOR the authenticator class; default "pam" (local Unix passwords,
#                             for a machine whose students have accounts). A real class uses
#                             its institution's: e.g. "github" or "generic-oauth" (oauthenticator),
#                             installed and configured by the deployer.
#   WARPLAB_HUB_STUDENTS      comma-separated user names allowed in (default: any user the
#                             admin adds through the REST API)
# The hub creates a missing student's Unix account (useradd) when the admin adds the student.
import os
import pwd
import shutil

c = get_config()  # noqa: F821 (JupyterHub provides it)

c.JupyterHub.ip = os.environ.get("WARPLAB_HUB_IP", "127.0.0.1")
c.JupyterHub.port = int(os.environ.get("WARPLAB_HUB_PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(os.environ.get("WARPLAB_HUB_API_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%d" % int(os.environ.get("WARPLAB_HUB_PROXY_API_PORT", "8001"))
c.ConfigurableHTTPProxy.command = ["configurable-http-proxy"]  # Debian's node-configurable-http-proxy
c.JupyterHub.db_url = "sqlite:////srv/jupyterhub/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "/srv/jupyterhub/jupyterhub_cookie_secret"

# Authentication: local users unless the deployer names another authenticator.
c.JupyterHub.authenticator_class = os.environ.get("WARPLAB_HUB_AUTHENTICATOR", "pam")
c.LocalAuthenticator.create_system_users = True
c.LocalAuthenticator.add_user_cmd = ["useradd", "--create-home", "--shell", "/bin/bash"]
students = [s for s in os.environ.get("WARPLAB_HUB_STUDENTS", "").split(",") if s]
if students:
    c.Authenticator.allowed_users = set(students)
else:
    c.Authenticator.allow_existing_users = True  # whoever the admin adds

admin_token = os.environ.get("WARPLAB_HUB_ADMIN_TOKEN")
if admin_token:
    c.JupyterHub.services = [{"name": "warplab-admin", "api_token": admin_token}]
    c.JupyterHub.load_roles = [{"name": "admin", "services": ["warplab-admin"]}]

# Every student's server: JupyterLab on loopback, the lessons in ~/notebooks.
c.Spawner.cmd = ["jupyterhub-singleuser"]
c.Spawner.ip = "127.0.0.1"
c.Spawner.default_url = "/lab/tree/notebooks"
c.Spawner.notebook_dir = "~"
# A class starts at once: allow slow starts on a loaded machine (measured: docs/classroom.md).
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 300
c.JupyterHub.concurrent_spawn_limit = 50
# The image's Go set-up (docker/Dockerfile's ENV): the pinned toolchain and the shared,
# read-only module cache. LocalProcessSpawner passes only a few variables on by default.
def student_gocache(spawner):
    return os.path.join(pwd.getpwnam(spawner.user.name).pw_dir, ".cache", "go-build")


c.Spawner.environment = {
    "GOCACHE": student_gocache,  # each student's own, seeded from the image's (copy_lessons)
    "GOTOOLCHAIN": os.environ.get("GOTOOLCHAIN", "go1.26.8"),
    "GOPATH": "/opt/go",
    "GOMODCACHE": "/opt/go/pkg/mod",
    # The image is offline (docker/Dockerfile): its module cache is complete, and a student's
    # go command must not wait on a proxy a classroom firewall drops.
    "GOPROXY": os.environ.get("GOPROXY", "off"),
    "JUPYTER_PATH": "/usr/local/share/jupyter",
    "LANG": "C.UTF-8",
}
c.Spawner.env_keep = ["PATH", "LANG", "LC_ALL"]


def copy_lessons(spawner):
    """Gives a student, on first start, their own copy of the lessons and of the image's Go
    build cache (the packages the lessons import, compiled: the first cell is then not a cold
    build). Never overwrites."""
    user = pwd.getpwnam(spawner.user.name)
    for src, dst in (
        ("/warplab/notebooks", os.path.join(user.pw_dir, "notebooks")),
        ("/opt/go/cache", student_gocache(spawner)),
    ):
        if os.path.exists(dst) or not os.path.isdir(src):
            continue
        shutil.copytree(src, dst)
        os.chown(os.path.dirname(dst), user.pw_uid, user.pw_gid)
        for root, dirs, files in os.walk(dst):
            for name in [root] + [os.path.join(root, f) for f in dirs + files]:
                os.chown(name, user.pw_uid, user.pw_gid)


c.Spawner.pre_spawn_hook = copy_lessons

# Idle servers stop after an hour without activity: jupyterhub-idle-culler is not packaged in
# Debian, so the single-user servers stop themselves (jupyter_server's own culling).
c.Spawner.args = [
    "--ServerApp.shutdown_no_activity_timeout=3600",
    "--MappingKernelManager.cull_idle_timeout=3600",
    "--MappingKernelManager.cull_interval=300",
]
