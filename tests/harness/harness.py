#!/usr/bin/env python3
"""The local control plane for hmc-tui's tests and first run.

Everything runs as plain processes on loopback:

- one etcd (each cluster keeps its own key prefix);
- the management cluster: kube-apiserver + kube-controller-manager, the Flux
  and Cluster API CRDs, Cluster API's core controllers (with their webhooks
  and CRD conversion on loopback) and the harness's own provider kinds
  (tests/fixtures/crds/harness-provider.yaml, which `provision` plays), Flux
  source-controller and helm-controller, and two
  more helm-controllers as Flux shards `shard1` and `shard2` (the main one
  takes only releases without the label sharding.fluxcd.io/key, each shard
  those labelled with its key);
- N child clusters: kube-apiserver, kube-controller-manager, kube-scheduler and
  kwok with one fake Node, so that Deployments become Available;
- a Helm chart repository packaged from tests/fixtures/charts, with the
  vendored upstream charts (tests/fixtures/charts/upstream) under /upstream.

Commands: build, up, down, status, env, provision, logs.
State (PKI, kubeconfigs, etcd data, pids) and logs live in HMC_HARNESS_DIR
(default /tmp/hmc-tui-harness). Binaries come from build.py's cache.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import hashlib
import http.client
import io
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import build  # noqa: E402

REPO = HERE.parent.parent
FIXTURES = REPO / "tests" / "fixtures"
STATE = Path(os.environ.get("HMC_HARNESS_DIR", f"/tmp/hmc-tui-harness-{os.getuid()}"))
LOGS = STATE / "logs"
PIDS = STATE / "pids"
PKI = STATE / "pki"
BASE = int(os.environ.get("HMC_HARNESS_PORT_BASE", "17000"))
CHILDREN = int(os.environ.get("HMC_HARNESS_CHILDREN", "3"))
CHART_REPO_PORT = int(os.environ.get("HMC_CHART_REPO_PORT", str(BASE + 1080)))
FLUX_NAMESPACE = "flux-system"

ETCD_CLIENT = BASE + 379
ETCD_PEER = BASE + 380
SOURCE_STORAGE = BASE + 200
SOURCE_METRICS = BASE + 201
SOURCE_HEALTH = BASE + 202
HELM_METRICS = BASE + 203
HELM_HEALTH = BASE + 204
CAPI_WEBHOOK = BASE + 230
CAPI_HEALTH = BASE + 231
CAPI_DIAGNOSTICS = BASE + 232
SVELTOS_HEALTH = BASE + 240
SVELTOS_DIAGNOSTICS = BASE + 241
SVELTOS_NAMESPACE = "projectsveltos"
# Flux sharding: the main helm-controller takes the releases without a shard
# label; one more helm-controller per shard key takes those labelled with it.
SHARD_LABEL = "sharding.fluxcd.io/key"
HELM_SHARDS = ["shard1", "shard2"]


def shard_ports(index: int) -> tuple[int, int]:
    """Metrics and health ports of shard `index` (0-based): BASE+205 on."""
    return BASE + 205 + 2 * index, BASE + 206 + 2 * index


def log(msg: str) -> None:
    print(f"[harness {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def die(msg: str) -> None:
    log(f"error: {msg}")
    log(f"logs are in {LOGS}")
    raise SystemExit(1)


# ---------------------------------------------------------------- clusters


class Cluster:
    """One kube-apiserver with the processes around it."""

    def __init__(self, name: str, index: int):
        self.name = name
        self.index = index  # 0 = management
        base = BASE + 100 + index * 10
        self.apiserver_port = base
        self.kcm_port = base + 1
        self.scheduler_port = base + 2
        self.kwok_port = base + 3

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.apiserver_port}"

    @property
    def kubeconfig(self) -> Path:
        return STATE / f"{self.name}.kubeconfig"

    @property
    def is_child(self) -> bool:
        return self.index > 0


def clusters() -> list[Cluster]:
    return [Cluster("mgmt", 0)] + [Cluster(f"child-{i}", i) for i in range(1, CHILDREN + 1)]


# ---------------------------------------------------------------- PKI


def openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def ensure_pki() -> None:
    PKI.mkdir(parents=True, exist_ok=True)
    ca_key, ca_crt = PKI / "ca.key", PKI / "ca.crt"
    if not ca_crt.exists():
        log("creating PKI")
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca_crt),
                "-days", "3650", "-subj", "/CN=hmc-harness-ca")
    if not (PKI / "serving.crt").exists():
        ext = PKI / "serving.ext"
        ext.write_text("subjectAltName=DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,"
                       "DNS:kubernetes.default.svc,IP:127.0.0.1,IP:10.0.0.1\n"
                       "extendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n")
        sign(PKI / "serving", "/CN=kube-apiserver", ext)
    if not (PKI / "admin.crt").exists():
        ext = PKI / "client.ext"
        ext.write_text("extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,keyEncipherment\n")
        sign(PKI / "admin", "/O=system:masters/CN=hmc-harness-admin", ext)
    if not (PKI / "sa.key").exists():
        openssl("genrsa", "-out", str(PKI / "sa.key"), "2048")
        openssl("rsa", "-in", str(PKI / "sa.key"), "-pubout", "-out", str(PKI / "sa.pub"))


def sign(stem: Path, subject: str, ext: Path) -> None:
    key, csr, crt = stem.with_suffix(".key"), stem.with_suffix(".csr"), stem.with_suffix(".crt")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr), "-subj", subject)
    openssl("x509", "-req", "-in", str(csr), "-CA", str(PKI / "ca.crt"), "-CAkey", str(PKI / "ca.key"),
            "-CAcreateserial", "-out", str(crt), "-days", "3650", "-extfile", str(ext))


def b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


def kubeconfig_text(cluster: Cluster) -> str:
    # Certificates inline: Flux ignores file paths in a kubeconfig secret.
    cfg = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": cluster.name, "cluster": {
            "server": cluster.url, "certificate-authority-data": b64(PKI / "ca.crt")}}],
        "users": [{"name": "admin", "user": {
            "client-certificate-data": b64(PKI / "admin.crt"),
            "client-key-data": b64(PKI / "admin.key")}}],
        "contexts": [{"name": f"hmc-harness-{cluster.name}", "context": {
            "cluster": cluster.name, "user": "admin"}}],
        "current-context": f"hmc-harness-{cluster.name}",
    }
    return json.dumps(cfg, indent=2) + "\n"


# ---------------------------------------------------------------- processes


def pid_file(name: str) -> Path:
    return PIDS / f"{name}.pid"


def start(name: str, binary: str, args: list[str], env: dict | None = None,
          restart_if_changed: bool = False) -> None:
    """Starts one process in its own session, detached from the caller.
    With `restart_if_changed`, one already running with other arguments
    (started by an older harness) is stopped and started again."""
    if process_alive(name):
        if not restart_if_changed or running_args(name) in (None, args):
            return
        log(f"restarting {name} with new arguments")
        stop(name)
    LOGS.mkdir(parents=True, exist_ok=True)
    PIDS.mkdir(parents=True, exist_ok=True)
    logf = open(LOGS / f"{name}.log", "ab")
    logf.write(f"\n=== {datetime.datetime.now().isoformat()} starting {binary} {' '.join(args)}\n".encode())
    logf.flush()
    full_env = dict(os.environ)
    full_env.update(env or {})
    proc = subprocess.Popen([binary, *args], stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=full_env, start_new_session=True, cwd=STATE)
    pid_file(name).write_text(str(proc.pid))
    # Remember the binary so a recycled pid is never taken for ours.
    (PIDS / f"{name}.bin").write_text(Path(binary).name)


def running_args(name: str) -> list[str] | None:
    """The arguments the running process `name` was started with."""
    try:
        pid = int(pid_file(name).read_text())
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (ValueError, OSError):
        return None
    return [a.decode() for a in raw.split(b"\0")[1:-1]]


def process_alive(name: str) -> bool:
    pf = pid_file(name)
    if not pf.exists():
        return False
    try:
        pid = int(pf.read_text())
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (ValueError, OSError):
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    if state == "Z":
        return False
    expected = (PIDS / f"{name}.bin").read_text().strip() if (PIDS / f"{name}.bin").exists() else ""
    comm = stat.split("(", 1)[1].rsplit(")", 1)[0]
    return not expected or expected.startswith(comm) or comm.startswith(expected[:15])


def stop(name: str, timeout: float = 15) -> None:
    if not process_alive(name):
        pid_file(name).unlink(missing_ok=True)
        return
    pid = int(pid_file(name).read_text())
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.time() + timeout
    while time.time() < deadline and process_alive(name):
        time.sleep(0.2)
    if process_alive(name):
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    pid_file(name).unlink(missing_ok=True)


# ---------------------------------------------------------------- HTTP / API


def tls_context(client: bool = True) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(PKI / "ca.crt"))
    if client:
        ctx.load_cert_chain(str(PKI / "admin.crt"), str(PKI / "admin.key"))
    return ctx


def api(cluster: Cluster, method: str, path: str, body=None, content_type: str = "application/json",
        ok=(200, 201), timeout: float = 30):
    conn = http.client.HTTPSConnection("127.0.0.1", cluster.apiserver_port, context=tls_context(), timeout=timeout)
    data = None
    if body is not None:
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    try:
        conn.request(method, path, body=data, headers={"Content-Type": content_type, "Accept": "application/json"})
        resp = conn.getresponse()
        raw = resp.read()
    finally:
        conn.close()
    if ok and resp.status not in ok:
        raise RuntimeError(f"{method} {path} on {cluster.name}: HTTP {resp.status}: {raw[:400]!r}")
    return resp.status, (json.loads(raw) if raw and raw[:1] in b"{[" else raw)


def apply(cluster: Cluster, obj: dict) -> None:
    """Server-side apply of one object, so `up` stays idempotent."""
    path = resource_path(cluster, obj)
    api(cluster, "PATCH", f"{path}?fieldManager=hmc-harness&force=true", obj,
        content_type="application/apply-patch+yaml")


# Only the kinds the harness itself applies.
PATHS = {
    ("v1", "Namespace"): ("/api/v1", "namespaces", False),
    ("v1", "Node"): ("/api/v1", "nodes", False),
    ("v1", "Secret"): ("/api/v1", "secrets", True),
    ("v1", "ServiceAccount"): ("/api/v1", "serviceaccounts", True),
    ("rbac.authorization.k8s.io/v1", "Role"): ("/apis/rbac.authorization.k8s.io/v1", "roles", True),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"): ("/apis/rbac.authorization.k8s.io/v1", "rolebindings", True),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"):
        ("/apis/rbac.authorization.k8s.io/v1", "clusterrolebindings", False),
    ("apiextensions.k8s.io/v1", "CustomResourceDefinition"):
        ("/apis/apiextensions.k8s.io/v1", "customresourcedefinitions", False),
    ("cluster.x-k8s.io/v1beta1", "Cluster"): ("/apis/cluster.x-k8s.io/v1beta1", "clusters", True),
    ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration"):
        ("/apis/admissionregistration.k8s.io/v1", "mutatingwebhookconfigurations", False),
    ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"):
        ("/apis/admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", False),
}


def resource_path(cluster: Cluster, obj: dict) -> str:
    prefix, plural, namespaced = PATHS[(obj["apiVersion"], obj["kind"])]
    meta = obj["metadata"]
    if namespaced:
        return f"{prefix}/namespaces/{meta.get('namespace', 'default')}/{plural}/{meta['name']}"
    return f"{prefix}/{plural}/{meta['name']}"


def wait_for(what: str, check, timeout: float = 120, interval: float = 0.5) -> None:
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            if check():
                return
        except Exception as exc:  # noqa: BLE001 - any failure means "not yet"
            last = exc
        time.sleep(interval)
    die(f"timed out after {timeout:.0f}s waiting for {what} (last error: {last})")


def http_ok(url: str, ctx: ssl.SSLContext | None = None) -> bool:
    import urllib.request
    try:
        with urllib.request.urlopen(url, timeout=2, context=ctx) as resp:
            return resp.status == 200
    except Exception:  # noqa: BLE001
        return False


def insecure_ctx() -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def load_yaml_docs(path: Path) -> list[dict]:
    import yaml  # PyYAML; .ci/run installs it
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


# ---------------------------------------------------------------- components


def start_etcd() -> None:
    start("etcd", str(build.binary_path("etcd")), [
        "--name=hmc-harness",
        f"--data-dir={STATE / 'etcd'}",
        f"--listen-client-urls=http://127.0.0.1:{ETCD_CLIENT}",
        f"--advertise-client-urls=http://127.0.0.1:{ETCD_CLIENT}",
        f"--listen-peer-urls=http://127.0.0.1:{ETCD_PEER}",
        f"--initial-advertise-peer-urls=http://127.0.0.1:{ETCD_PEER}",
        f"--initial-cluster=hmc-harness=http://127.0.0.1:{ETCD_PEER}",
        "--unsafe-no-fsync",
        "--quota-backend-bytes=8589934592",
        "--listen-metrics-urls=",
    ])


def start_apiserver(c: Cluster) -> None:
    start(f"{c.name}-apiserver", str(build.binary_path("kube-apiserver")), [
        f"--etcd-servers=http://127.0.0.1:{ETCD_CLIENT}",
        f"--etcd-prefix=/registry-{c.name}",
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        f"--secure-port={c.apiserver_port}",
        f"--tls-cert-file={PKI / 'serving.crt'}",
        f"--tls-private-key-file={PKI / 'serving.key'}",
        f"--client-ca-file={PKI / 'ca.crt'}",
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        f"--service-account-key-file={PKI / 'sa.pub'}",
        f"--service-account-signing-key-file={PKI / 'sa.key'}",
        "--service-cluster-ip-range=10.0.0.0/24",
        "--authorization-mode=RBAC",
        "--allow-privileged=true",
        # The loopback address cannot be published as the kubernetes Endpoints.
        "--endpoint-reconciler-type=none",
        "--profiling=false",
        f"--cert-dir={STATE / c.name}",
    ])


def start_controller_manager(c: Cluster) -> None:
    start(f"{c.name}-controller-manager", str(build.binary_path("kube-controller-manager")), [
        f"--kubeconfig={c.kubeconfig}",
        f"--authentication-kubeconfig={c.kubeconfig}",
        f"--authorization-kubeconfig={c.kubeconfig}",
        "--bind-address=127.0.0.1",
        f"--secure-port={c.kcm_port}",
        "--leader-elect=false",
        f"--service-account-private-key-file={PKI / 'sa.key'}",
        f"--root-ca-file={PKI / 'ca.crt'}",
        "--use-service-account-credentials=false",
        # kwok's fake nodes may miss a heartbeat on a busy machine; the node
        # lifecycle controller would then mark their pods not ready.
        "--controllers=*,-node-lifecycle-controller",
        "--profiling=false",
        f"--cert-dir={STATE / c.name / 'kcm'}",
    ])


def start_scheduler(c: Cluster) -> None:
    start(f"{c.name}-scheduler", str(build.binary_path("kube-scheduler")), [
        f"--kubeconfig={c.kubeconfig}",
        f"--authentication-kubeconfig={c.kubeconfig}",
        f"--authorization-kubeconfig={c.kubeconfig}",
        "--bind-address=127.0.0.1",
        f"--secure-port={c.scheduler_port}",
        "--leader-elect=false",
        "--profiling=false",
        f"--cert-dir={STATE / c.name / 'scheduler'}",
    ])


def start_kwok(c: Cluster) -> None:
    start(f"{c.name}-kwok", str(build.binary_path("kwok")), [
        f"--kubeconfig={c.kubeconfig}",
        "--manage-all-nodes=true",
        "--cidr=10.244.0.1/24",
        "--node-ip=127.0.0.1",
        f"--server-address=127.0.0.1:{c.kwok_port}",
        f"--config={build.kwok_stages_file()}",
    ])


def fake_node(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"type": "kwok", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                       "kubernetes.io/hostname": name},
            "annotations": {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
        },
        "spec": {},
    }


def package_charts(out: Path) -> None:
    """Packages every chart under tests/fixtures/charts the way `helm package` does."""
    out.mkdir(parents=True, exist_ok=True)
    import yaml
    entries: dict[str, list] = {}
    for chart_dir in sorted((FIXTURES / "charts").iterdir()):
        chart_yaml = chart_dir / "Chart.yaml"
        if not chart_yaml.exists():
            continue
        meta = yaml.safe_load(chart_yaml.read_text())
        name, version = meta["name"], str(meta["version"])
        tgz = out / f"{name}-{version}.tgz"
        buf = io.BytesIO()
        # Fixed mtimes and order: the same chart always packs to the same digest.
        with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
            for path in sorted(p for p in chart_dir.rglob("*") if p.is_file()):
                rel = path.relative_to(chart_dir)
                info = tarfile.TarInfo(f"{name}/{rel.as_posix()}")
                data = path.read_bytes()
                info.size = len(data)
                info.mtime = 0
                info.mode = 0o644
                tar.addfile(info, io.BytesIO(data))
        tgz.write_bytes(buf.getvalue())
        entry = dict(meta)
        entry.update({
            "version": version,
            "urls": [tgz.name],
            "digest": hashlib.sha256(tgz.read_bytes()).hexdigest(),
            "created": "2026-01-01T00:00:00Z",
        })
        entries.setdefault(name, []).append(entry)
    index = {"apiVersion": "v1", "entries": entries, "generated": "2026-01-01T00:00:00Z"}
    # JSON is YAML, and needs no YAML writer.
    (out / "index.yaml").write_text(json.dumps(index, indent=1) + "\n")


UPSTREAM_CHARTS = FIXTURES / "charts" / "upstream"


def chart_meta_in(tgz: Path) -> dict:
    """The Chart.yaml of a packaged chart (`<name>/Chart.yaml` inside it)."""
    import yaml
    with tarfile.open(tgz, mode="r:gz") as tar:
        for member in tar.getmembers():
            parts = member.name.split("/")
            if len(parts) == 2 and parts[1] == "Chart.yaml" and member.isfile():
                return yaml.safe_load(tar.extractfile(member).read())
    raise ValueError(f"{tgz} holds no <chart>/Chart.yaml")


def serve_upstream_charts(out: Path) -> None:
    """Copies the vendored upstream charts, byte for byte, into `out` with
    an index of their own. They share name and versions with the stand-in
    ingress-nginx, so they live under a path of their own (`/upstream`)."""
    out.mkdir(parents=True, exist_ok=True)
    entries: dict[str, list] = {}
    for src in sorted(UPSTREAM_CHARTS.glob("*.tgz")):
        data = src.read_bytes()
        meta = chart_meta_in(src)
        name, version = meta["name"], str(meta["version"])
        tgz = out / src.name
        if not tgz.exists() or tgz.read_bytes() != data:
            tmp = tgz.with_suffix(".tmp")
            tmp.write_bytes(data)
            tmp.replace(tgz)
        entry = dict(meta)
        entry.update({
            "version": version,
            "urls": [tgz.name],
            "digest": hashlib.sha256(data).hexdigest(),
            "created": "2026-01-01T00:00:00Z",
        })
        entries.setdefault(name, []).append(entry)
    index = {"apiVersion": "v1", "entries": entries, "generated": "2026-01-01T00:00:00Z"}
    tmp = out / "index.yaml.tmp"
    tmp.write_text(json.dumps(index, indent=1) + "\n")
    tmp.replace(out / "index.yaml")


def start_chart_repo() -> None:
    repo_dir = STATE / "chart-repo"
    package_charts(repo_dir)
    # Written while the server runs too: `up` on a running harness serves them.
    serve_upstream_charts(repo_dir / "upstream")
    start("chart-repo", sys.executable, ["-m", "http.server", str(CHART_REPO_PORT), "--bind", "127.0.0.1",
                                         "--directory", str(repo_dir)])


def flux_crd_files() -> list[Path]:
    files = []
    for comp in ("source-controller", "helm-controller"):
        files += sorted(build.crd_dir(comp).glob("*.yaml"))
    return files


def capi_crd_files() -> list[Path]:
    return sorted(build.crd_dir("cluster-api").glob("*_*.yaml"))


def capi_webhook_url(path: str) -> dict:
    """A webhook client config for Cluster API's manager on loopback, served
    with the harness's serving certificate (for 127.0.0.1)."""
    return {"url": f"https://127.0.0.1:{CAPI_WEBHOOK}{path}", "caBundle": b64(PKI / "ca.crt")}


def with_capi_conversion(crd: dict) -> dict:
    """Cluster API's CRDs serve several versions and convert between them in
    its manager (its kustomize patches webhook_in_*.yaml), here on loopback."""
    if len(crd["spec"]["versions"]) > 1:
        crd["spec"]["conversion"] = {"strategy": "Webhook", "webhook": {
            "conversionReviewVersions": ["v1"], "clientConfig": capi_webhook_url("/convert")}}
    return crd


def apply_crds(mgmt: Cluster) -> list[str]:
    names = []
    capi = capi_crd_files()
    files = (flux_crd_files() + capi + [FIXTURES / "crds" / "harness-provider.yaml"]
             + sorted((REPO / "assets" / "crds").glob("*.yaml")))
    for path in files:
        for doc in load_yaml_docs(path):
            if doc.get("kind") == "CustomResourceDefinition":
                apply(mgmt, with_capi_conversion(doc) if path in capi else doc)
                names.append(doc["metadata"]["name"])
    return names


def apply_capi_webhooks(mgmt: Cluster) -> None:
    """Cluster API's defaulting and validating webhooks, pointed at its
    manager on loopback (they cannot be switched off: Cluster API refuses a
    Cluster without references, as it does in a real management cluster)."""
    for doc in load_yaml_docs(build.webhooks_file("cluster-api")):
        doc["metadata"]["name"] = "capi-" + doc["metadata"]["name"]
        for hook in doc.get("webhooks", []):
            hook["clientConfig"] = capi_webhook_url(hook["clientConfig"]["service"]["path"])
        apply(mgmt, doc)


def start_capi(mgmt: Cluster) -> None:
    """Cluster API's core manager, as `clusterctl init` runs it, without
    leader election (one replica)."""
    start("cluster-api", str(build.binary_path("cluster-api-manager")), [
        f"--kubeconfig={mgmt.kubeconfig}",
        "--leader-elect=false",
        f"--webhook-port={CAPI_WEBHOOK}",
        f"--webhook-cert-dir={PKI}",
        "--webhook-cert-name=serving.crt",
        "--webhook-key-name=serving.key",
        f"--health-addr=127.0.0.1:{CAPI_HEALTH}",
        f"--diagnostics-address=127.0.0.1:{CAPI_DIAGNOSTICS}",
        "--insecure-diagnostics",
    ], restart_if_changed=True)


def crds_established(mgmt: Cluster, names: list[str]) -> bool:
    for name in names:
        _, crd = api(mgmt, "GET", f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}")
        conds = {c["type"]: c["status"] for c in crd.get("status", {}).get("conditions", [])}
        if conds.get("Established") != "True":
            return False
    return True


# In each child: the identities the release controller acts as there
# (system:serviceaccount:<namespace>:<account> of the management cluster's
# namespaces) may install services.
CHILD_RELEASE_INSTALLS = {
    "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
    "metadata": {"name": "hmc-harness-release-installs"},
    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
    "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:serviceaccounts"}],
}


def start_flux(mgmt: Cluster) -> None:
    (STATE / "source-storage").mkdir(parents=True, exist_ok=True)
    env = {"KUBECONFIG": str(mgmt.kubeconfig), "RUNTIME_NAMESPACE": FLUX_NAMESPACE}
    start("source-controller", str(build.binary_path("source-controller")), [
        f"--storage-path={STATE / 'source-storage'}",
        f"--storage-addr=127.0.0.1:{SOURCE_STORAGE}",
        f"--storage-adv-addr=127.0.0.1:{SOURCE_STORAGE}",
        f"--metrics-addr=127.0.0.1:{SOURCE_METRICS}",
        f"--health-addr=127.0.0.1:{SOURCE_HEALTH}",
        "--watch-all-namespaces=true",
        "--enable-leader-election=false",
        "--log-encoding=console",
    ], env)
    start_helm_controller("helm-controller", HELM_METRICS, HELM_HEALTH, f"!{SHARD_LABEL}", env)
    for i, shard in enumerate(HELM_SHARDS):
        metrics, health = shard_ports(i)
        start_helm_controller(f"helm-controller-{shard}", metrics, health, f"{SHARD_LABEL} in ({shard})", env)


def start_helm_controller(name: str, metrics: int, health: int, selector: str, env: dict) -> None:
    """One helm-controller taking the releases that `selector` matches (Flux's
    documented sharding flag). The same binary for all: no extra build.
    No leader election, so the shards never compete for one lease."""
    start(name, str(build.binary_path("helm-controller")), [
        f"--metrics-addr=127.0.0.1:{metrics}",
        f"--health-addr=127.0.0.1:{health}",
        "--watch-all-namespaces=true",
        f"--watch-label-selector={selector}",
        "--enable-leader-election=false",
        "--log-encoding=console",
        # Child clusters come and go in tests: retry their installs quickly.
        "--requeue-dependency=5s",
        # Flux's multi-tenancy lockdown, as its guide sets it: a release that
        # names no account installs as its namespace's `default` account
        # (which may do nothing), never as the controller itself, and
        # releases take their charts from their own namespace only. Every
        # test runs under it.
        "--default-service-account=default",
        "--no-cross-namespace-refs=true",
    ], env, restart_if_changed=True)


# ---------------------------------------------------------------- commands


def cmd_build(args) -> None:
    build.build_all(args.components or None)


def cmd_up(_args) -> None:
    started = time.time()
    build.build_all()
    missing = [b for b, comp in build.BINARIES.items()
               if comp not in build.ON_DEMAND and not build.binary_path(b).exists()]
    if missing:
        die(f"binaries missing after build: {missing}")
    STATE.mkdir(parents=True, exist_ok=True)
    ensure_pki()
    all_clusters = clusters()
    for c in all_clusters:
        (STATE / c.name).mkdir(parents=True, exist_ok=True)
        c.kubeconfig.write_text(kubeconfig_text(c))

    start_etcd()
    wait_for("etcd", lambda: http_ok(f"http://127.0.0.1:{ETCD_CLIENT}/health"), 60)
    for c in all_clusters:
        start_apiserver(c)
    for c in all_clusters:
        wait_for(f"{c.name} apiserver /readyz",
                 lambda c=c: api(c, "GET", "/readyz", ok=(200,), timeout=5)[0] == 200, 180)
    mgmt = all_clusters[0]
    log("applying CRDs")
    names = apply_crds(mgmt)
    apply(mgmt, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": FLUX_NAMESPACE}})
    for c in all_clusters:
        start_controller_manager(c)
        if c.is_child:
            start_scheduler(c)
            start_kwok(c)
    wait_for("CRDs Established", lambda: crds_established(mgmt, names), 60)
    apply_capi_webhooks(mgmt)
    start_capi(mgmt)
    for c in all_clusters:
        if c.is_child:
            apply(c, fake_node("kwok-node-0"))
            # The API server taints a new node not-ready; the node lifecycle
            # controller, which would lift it, is off for fake nodes.
            api(c, "PATCH", "/api/v1/nodes/kwok-node-0", {"spec": {"taints": None}},
                content_type="application/merge-patch+json")
            # Under the lockdown the release controller acts, in a child too,
            # as the account a release names or as `default` of the
            # release's namespace in the management cluster. A child grants
            # those identities what a service installs, as a cluster's
            # bootstrap would: here all of it, for every namespace's.
            apply(c, CHILD_RELEASE_INSTALLS)
    start_chart_repo()
    wait_for("chart repository", lambda: http_ok(f"http://127.0.0.1:{CHART_REPO_PORT}/index.yaml"), 30)
    wait_for("upstream chart repository",
             lambda: http_ok(f"http://127.0.0.1:{CHART_REPO_PORT}/upstream/index.yaml"), 30)
    start_flux(mgmt)
    for c in all_clusters:
        wait_for(f"{c.name} controller-manager /healthz",
                 lambda c=c: http_ok(f"https://127.0.0.1:{c.kcm_port}/healthz", insecure_ctx()), 120)
        if c.is_child:
            wait_for(f"{c.name} scheduler /healthz",
                     lambda c=c: http_ok(f"https://127.0.0.1:{c.scheduler_port}/healthz", insecure_ctx()), 120)
            wait_for(f"{c.name} kwok node Ready", lambda c=c: node_ready(c, "kwok-node-0"), 120)
    wait_for("Cluster API /readyz", lambda: http_ok(f"http://127.0.0.1:{CAPI_HEALTH}/readyz"), 120)
    wait_for("Cluster API webhooks", lambda: capi_serves_webhooks(mgmt), 60)
    wait_for("source-controller /readyz", lambda: http_ok(f"http://127.0.0.1:{SOURCE_HEALTH}/readyz"), 120)
    wait_for("helm-controller /readyz", lambda: http_ok(f"http://127.0.0.1:{HELM_HEALTH}/readyz"), 120)
    for i, shard in enumerate(HELM_SHARDS):
        health = shard_ports(i)[1]
        wait_for(f"helm-controller {shard} /readyz",
                 lambda health=health: http_ok(f"http://127.0.0.1:{health}/readyz"), 120)
    log(f"up in {time.time() - started:.0f}s; management kubeconfig: {mgmt.kubeconfig}")


def capi_serves_webhooks(mgmt: Cluster) -> bool:
    """Whether a read through the conversion webhook answers: Cluster API's
    CRDs store v1beta2, and a list as v1beta1 converts each object."""
    status, _ = api(mgmt, "GET", "/apis/cluster.x-k8s.io/v1beta1/clusters?limit=1", ok=(200,))
    return status == 200


def node_ready(c: Cluster, name: str) -> bool:
    _, node = api(c, "GET", f"/api/v1/nodes/{name}")
    conds = {x["type"]: x["status"] for x in node.get("status", {}).get("conditions", [])}
    return conds.get("Ready") == "True"


def component_names() -> list[str]:
    names = ["etcd", "chart-repo", "cluster-api", "source-controller", "helm-controller"]
    names += [f"helm-controller-{shard}" for shard in HELM_SHARDS]
    for c in clusters():
        names += [f"{c.name}-apiserver", f"{c.name}-controller-manager"]
        if c.is_child:
            names += [f"{c.name}-scheduler", f"{c.name}-kwok"]
    # Also whatever an earlier `up` with more children left behind.
    if PIDS.exists():
        names += [p.stem for p in PIDS.glob("*.pid") if p.stem not in names]
    return names


def cmd_down(args) -> None:
    # Reverse order: controllers before the apiservers they talk to, etcd last.
    for name in reversed(component_names()):
        stop(name)
    log("stopped")
    if args.purge and STATE.exists():
        shutil.rmtree(STATE)
        log(f"removed {STATE}")


def cmd_status(_args) -> None:
    bad = 0
    for name in component_names():
        alive = process_alive(name)
        bad += 0 if alive else 1
        print(f"{name:32} {'running' if alive else 'stopped'}")
    raise SystemExit(1 if bad else 0)


def cmd_env(_args) -> None:
    c = clusters()
    print(f"export HMC_HARNESS_DIR={STATE}")
    print(f"export KUBECONFIG={c[0].kubeconfig}")
    print(f"export HMC_CHILD_KUBECONFIGS={':'.join(str(x.kubeconfig) for x in c[1:])}")
    print(f"export HMC_CHART_REPO=http://127.0.0.1:{CHART_REPO_PORT}")
    print(f"export HMC_UPSTREAM_CHART_REPO=http://127.0.0.1:{CHART_REPO_PORT}/upstream")
    print(f"export HMC_HARNESS_LOGS={LOGS}")
    # Go's text/template with Sprig, which tests/template_oracle.rs holds
    # the values template interpreter against.
    print(f"export HMC_TEMPLATE_ORACLE_BIN={build.binary_path('template-oracle')}")


# The harness's provider kinds (tests/fixtures/crds/harness-provider.yaml):
# what a Cluster's references name, and where each lives.
PROVIDER_PATHS = {
    ("infrastructure.cluster.x-k8s.io", "HarnessCluster"):
        "/apis/infrastructure.cluster.x-k8s.io/v1alpha1/namespaces/{ns}/harnessclusters/{name}",
    ("controlplane.cluster.x-k8s.io", "HarnessControlPlane"):
        "/apis/controlplane.cluster.x-k8s.io/v1alpha1/namespaces/{ns}/harnesscontrolplanes/{name}",
}


def provider_object(mgmt: Cluster, ns: str, cluster: dict, field: str, timeout: float) -> tuple[str, dict]:
    """The object that the Cluster's `field` (infrastructureRef or
    controlPlaneRef) names, once it exists, with its path."""
    ref = cluster.get("spec", {}).get(field) or {}
    key = (ref.get("apiGroup", ""), ref.get("kind", ""))
    if key not in PROVIDER_PATHS:
        die(f"Cluster {ns}/{cluster['metadata']['name']}: spec.{field} is {ref or 'not set'}; "
            f"the harness provides {', '.join(k for _, k in PROVIDER_PATHS)}")
    path = PROVIDER_PATHS[key].format(ns=ns, name=ref["name"])
    wait_for(f"{key[1]} {ns}/{ref['name']}", lambda: api(mgmt, "GET", path, ok=(200,))[0] == 200, timeout, 0.5)
    return path, api(mgmt, "GET", path)[1]


def cmd_provision(args) -> None:
    """Acts as the infrastructure and control-plane provider for one CAPI
    Cluster, through Cluster API's provider contract (v1beta2): the
    infrastructure is provisioned at the child's address; the control plane
    gets the same endpoint, its kubeconfig secret and then says it is
    initialised. Cluster API itself then sets the Cluster's phase and
    conditions; this waits until it says the control plane is initialised."""
    all_clusters = clusters()
    mgmt = all_clusters[0]
    child = all_clusters[args.child]
    ns, name = args.cluster.split("/", 1) if "/" in args.cluster else ("default", args.cluster)
    path = f"/apis/cluster.x-k8s.io/v1beta2/namespaces/{ns}/clusters/{name}"
    wait_for(f"CAPI Cluster {ns}/{name}", lambda: api(mgmt, "GET", path, ok=(200,))[0] == 200, args.timeout, 1)
    cluster = api(mgmt, "GET", path)[1]
    endpoint = {"spec": {"controlPlaneEndpoint": {"host": "127.0.0.1", "port": child.apiserver_port}}}
    merge = "application/merge-patch+json"
    infra_path, _ = provider_object(mgmt, ns, cluster, "infrastructureRef", args.timeout)
    api(mgmt, "PATCH", infra_path, endpoint, content_type=merge)
    api(mgmt, "PATCH", f"{infra_path}/status", {"status": {"initialization": {"provisioned": True}}},
        content_type=merge)
    cp_path, cp = provider_object(mgmt, ns, cluster, "controlPlaneRef", args.timeout)
    api(mgmt, "PATCH", cp_path, endpoint, content_type=merge)
    # As a control-plane provider does: the kubeconfig secret, owned by the
    # control plane object, is written before it says it is initialised.
    secret = {
        "apiVersion": "v1", "kind": "Secret", "type": "cluster.x-k8s.io/secret",
        "metadata": {"name": f"{name}-kubeconfig", "namespace": ns,
                     "labels": {"cluster.x-k8s.io/cluster-name": name},
                     "ownerReferences": [{
                         "apiVersion": cp["apiVersion"], "kind": cp["kind"],
                         "name": cp["metadata"]["name"], "uid": cp["metadata"]["uid"],
                         "controller": True, "blockOwnerDeletion": True}]},
        "data": {"value": base64.b64encode(kubeconfig_text(child).encode()).decode()},
    }
    if args.without_kubeconfig:
        log(f"{ns}/{name}: no kubeconfig secret written (--without-kubeconfig)")
    else:
        apply(mgmt, secret)
    api(mgmt, "PATCH", f"{cp_path}/status", {"status": {"initialization": {"controlPlaneInitialized": True}}},
        content_type=merge)

    def initialised() -> bool:
        status = api(mgmt, "GET", path)[1].get("status", {})
        return status.get("initialization", {}).get("controlPlaneInitialized") is True
    wait_for(f"Cluster API to see {ns}/{name}'s control plane initialised", initialised, args.timeout, 0.5)
    log(f"{ns}/{name} provisioned on {child.name}")


def cmd_examples(args) -> None:
    """Applies assets/examples/local (the harness variant of the examples)."""
    mgmt = clusters()[0]
    import yaml
    paths = {
        ("hmc.mirantis.com/v1alpha1", "ServiceTemplate"): "servicetemplates",
        ("hmc.mirantis.com/v1alpha1", "ClusterTemplate"): "clustertemplates",
        ("hmc.mirantis.com/v1alpha1", "ManagedCluster"): "managedclusters",
    }
    repo_url = f"http://127.0.0.1:{CHART_REPO_PORT}"
    for path in sorted((REPO / "assets" / "examples" / "local").glob("*.yaml")):
        text = path.read_text().replace("http://127.0.0.1:18080", repo_url)
        for doc in yaml.safe_load_all(text):
            if not doc:
                continue
            key = (doc["apiVersion"], doc["kind"])
            if key in paths:
                ns = doc["metadata"].get("namespace", "default")
                url = f"/apis/{doc['apiVersion']}/namespaces/{ns}/{paths[key]}/{doc['metadata']['name']}"
                api(mgmt, "PATCH", f"{url}?fieldManager=hmc-harness&force=true", doc,
                    content_type="application/apply-patch+yaml")
            else:
                apply(mgmt, doc)
            log(f"applied {doc['kind']} {doc['metadata']['name']}")
    if args.provision:
        # The provider helper waits for each cluster's CAPI objects, which the
        # engine creates; run it in the background and let the console start.
        for i, name in enumerate(args.provision, start=1):
            child = ((i - 1) % CHILDREN) + 1
            logf = open(LOGS / f"provision-{name}.log", "ab")
            subprocess.Popen([sys.executable, __file__, "provision", f"hmc-system/{name}", "--child", str(child),
                              "--timeout", "600"], stdout=logf, stderr=subprocess.STDOUT,
                             start_new_session=True)
            log(f"hmc-system/{name} will be provisioned on child-{child} once its cluster objects exist")


def cmd_demo(_args) -> None:
    """The first run: the control plane, the examples, then the console."""
    cmd_up(None)
    ns = argparse.Namespace(provision=["dev-1", "dev-2"])
    cmd_examples(ns)
    mgmt = clusters()[0]
    log("starting the console; quitting it leaves the control plane running (harness down stops it)")
    os.chdir(REPO)
    os.execvp("cargo", ["cargo", "run", "--release", "--quiet", "--", "--kubeconfig", str(mgmt.kubeconfig)])


def cmd_peer(args) -> None:
    """Starts a peer beside a running harness, for the `peers` benchmark:
    Sveltos' addon controller in push mode (no agents, no webhooks), with
    its CRDs and libsveltos'. Started after Cluster API's and Flux's CRDs
    are established, as it stops itself when they appear later. Built on
    demand (`build sveltos`); `down` stops it with the rest. Started again
    when `flags` differ from those it runs with."""
    if args.name != "sveltos":
        die(f"no peer {args.name}; the peer is sveltos")
    mgmt = clusters()[0]
    build.build_all(["sveltos"])
    names = []
    for path in sorted(build.crd_dir("sveltos").glob("*.yaml")):
        for doc in load_yaml_docs(path):
            if doc.get("kind") == "CustomResourceDefinition":
                apply(mgmt, doc)
                names.append(doc["metadata"]["name"])
    apply(mgmt, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": SVELTOS_NAMESPACE}})
    wait_for("Sveltos CRDs Established", lambda: crds_established(mgmt, names), 60)
    start("sveltos", str(build.binary_path("sveltos-addon-controller")), [
        f"--kubeconfig={mgmt.kubeconfig}",
        "--disable-telemetry",
        f"--health-addr=127.0.0.1:{SVELTOS_HEALTH}",
        f"--diagnostics-address=127.0.0.1:{SVELTOS_DIAGNOSTICS}",
        "--insecure-diagnostics",
        "--report-mode=0",
        "--agent-in-mgmt-cluster=false",
        *args.flags,
    ], {"NAMESPACE": SVELTOS_NAMESPACE}, restart_if_changed=True)
    wait_for("Sveltos /readyz", lambda: http_ok(f"http://127.0.0.1:{SVELTOS_HEALTH}/readyz"), 120)
    log("sveltos addon-controller running")


def cmd_stop(args) -> None:
    """Stops one component (`status` lists them); `up` starts it again."""
    if args.name not in component_names():
        die(f"no component {args.name}; `status` lists them")
    stop(args.name)
    again = f"`peer {args.name}`" if args.name in build.ON_DEMAND else "`up`"
    log(f"stopped {args.name}; {again} starts it again")


def cmd_logs(_args) -> None:
    print(LOGS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    bld = sub.add_parser("build", help="build and cache the binaries")
    bld.add_argument("components", nargs="*",
                     help="only these (e.g. sveltos, which only the peers benchmark needs and nothing "
                          "else builds)")
    bld.set_defaults(fn=cmd_build)
    peer = sub.add_parser("peer", help="start a peer beside the harness, for the peers benchmark")
    peer.add_argument("name", help="sveltos")
    peer.add_argument("flags", nargs=argparse.REMAINDER,
                      help="more flags for it (e.g. --concurrent-reconciles=4); started again when they change")
    peer.set_defaults(fn=cmd_peer)
    sub.add_parser("up", help="start everything (idempotent)").set_defaults(fn=cmd_up)
    down = sub.add_parser("down", help="stop what up started")
    down.add_argument("--purge", action="store_true", help="also remove state and etcd data")
    down.set_defaults(fn=cmd_down)
    sub.add_parser("status", help="list components").set_defaults(fn=cmd_status)
    sub.add_parser("env", help="print shell exports").set_defaults(fn=cmd_env)
    sub.add_parser("logs", help="print the log folder").set_defaults(fn=cmd_logs)
    stop_one = sub.add_parser("stop", help="stop one component (up starts it again)")
    stop_one.add_argument("name", help="a component, as `status` lists it")
    stop_one.set_defaults(fn=cmd_stop)
    sub.add_parser("demo", help="up, apply the examples, open the console").set_defaults(fn=cmd_demo)
    ex = sub.add_parser("examples", help="apply assets/examples/local")
    ex.add_argument("--provision", nargs="*", default=[], metavar="CLUSTER",
                    help="mark these hmc-system clusters provisioned once they exist")
    ex.set_defaults(fn=cmd_examples)
    prov = sub.add_parser("provision", help="play the provider of a CAPI Cluster: provision it on a child, "
                                            "write its kubeconfig secret, wait for Cluster API")
    prov.add_argument("cluster", help="namespace/name of the CAPI Cluster")
    prov.add_argument("--child", type=int, default=1, help="which child cluster backs it (1..N)")
    prov.add_argument("--timeout", type=float, default=180)
    prov.add_argument("--without-kubeconfig", action="store_true",
                      help="a provider that says its control plane is initialised without writing the secret")
    prov.set_defaults(fn=cmd_provision)
    args = parser.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
