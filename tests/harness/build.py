"""Builds the control-plane binaries from their Go modules and caches them.

Each component is built in its own wrapper module so that the k8s.io versions
of one never unify with another's. Binaries land in
``$XDG_CACHE_HOME/hmc-tui/bin/<component>-<version>/`` and a warm run reuses
them. ``KUBEBUILDER_ASSETS`` (or ``HMC_<NAME>_BIN`` per binary) short-circuits
the build entirely.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

KUBE_VERSION = "v1.34.4"
ETCD_VERSION = "v3.6.6"
KWOK_VERSION = "v0.7.0"
SOURCE_CONTROLLER_VERSION = "v1.7.3"
HELM_CONTROLLER_VERSION = "v1.4.3"
# The Helm library helm-controller v1.4.3 is built with (its go.mod), so the
# CLI renders charts as Flux does: `helm template`/`lint`/`package` for the
# chart in assets/chart.
HELM_VERSION = "v3.19.0"
# Lints .github/workflows in the test command (tests/supply_chain.rs).
ACTIONLINT_VERSION = "v1.7.12"
# Cluster API's core controllers (the manager of `clusterctl init`'s core
# provider), which the harness runs beside its own provider objects.
# v1.14.4 is refused by the module proxy here.
CAPI_VERSION = "v1.14.2"
# The peer the `peers` benchmark runs beside hmc-tui: Sveltos' addon
# controller. Built on demand (`tests/harness/harness build sveltos`), never
# by `harness build` alone or by `.ci/run`.
SVELTOS_VERSION = "v1.14.0"

# name -> (module, version, [(package, binary name)])
COMPONENTS = {
    "etcd": ("go.etcd.io/etcd/server/v3", ETCD_VERSION, [("go.etcd.io/etcd/server/v3", "etcd")]),
    "kubernetes": (
        "k8s.io/kubernetes",
        KUBE_VERSION,
        [
            ("k8s.io/kubernetes/cmd/kube-apiserver", "kube-apiserver"),
            ("k8s.io/kubernetes/cmd/kube-controller-manager", "kube-controller-manager"),
            ("k8s.io/kubernetes/cmd/kube-scheduler", "kube-scheduler"),
        ],
    ),
    "kwok": ("sigs.k8s.io/kwok", KWOK_VERSION, [("sigs.k8s.io/kwok/cmd/kwok", "kwok")]),
    "source-controller": (
        "github.com/fluxcd/source-controller",
        SOURCE_CONTROLLER_VERSION,
        [("github.com/fluxcd/source-controller", "source-controller")],
    ),
    "helm-controller": (
        "github.com/fluxcd/helm-controller",
        HELM_CONTROLLER_VERSION,
        [("github.com/fluxcd/helm-controller", "helm-controller")],
    ),
    "helm": ("helm.sh/helm/v3", HELM_VERSION, [("helm.sh/helm/v3/cmd/helm", "helm")]),
    "actionlint": (
        "github.com/rhysd/actionlint",
        ACTIONLINT_VERSION,
        [("github.com/rhysd/actionlint/cmd/actionlint", "actionlint")],
    ),
    # Since v1.14 the manager's main package is `core`, not the module root.
    "cluster-api": (
        "sigs.k8s.io/cluster-api",
        CAPI_VERSION,
        [("sigs.k8s.io/cluster-api/core", "cluster-api-manager")],
    ),
    "sveltos": (
        "github.com/projectsveltos/addon-controller",
        SVELTOS_VERSION,
        [("github.com/projectsveltos/addon-controller/cmd", "sveltos-addon-controller")],
    ),
}

# Components built only when asked for by name: what a benchmark alone needs.
ON_DEMAND = {"sveltos"}

# Replace directives of an upstream go.mod that the module proxy here cannot
# serve, and what to use instead (the pseudo-version Flux's modules use).
REPLACE_OVERRIDES = {
    "github.com/opencontainers/go-digest":
        "github.com/opencontainers/go-digest@v1.0.1-0.20220411205349-bde1400a84be",
}

# More CRDs a component needs, from another module at the same version:
# (module, directory in it).
EXTRA_CRDS = {"sveltos": [("github.com/projectsveltos/libsveltos", "config/crd/bases")]}

# Where a module keeps its CRDs, when not in config/crd/bases; and its
# webhook configurations, copied beside them as webhooks.yaml.
CRD_SOURCES = {"cluster-api": "core/config/crd/bases"}
WEBHOOK_SOURCES = {"cluster-api": "core/config/webhook/manifests.yaml"}

# Go programs of this repository, built like the components: name ->
# (directory in the repository, binary name). Their cache key is a hash of
# their source (source_key), so an edit builds them again.
LOCAL = {"template-oracle": ("tests/template_oracle", "template-oracle")}

REPO = Path(__file__).resolve().parents[2]

BINARIES = {b: comp for comp, (_, _, pkgs) in COMPONENTS.items() for _, b in pkgs}
BINARIES.update({b: comp for comp, (_, b) in LOCAL.items()})

# Tools from the crates registry, for the checks in the test command
# (tests/supply_chain.rs, tests/docs.rs): crate -> version. Each is installed
# under tools/<crate>/, where .ci/<crate> and the tests look for it.
CARGO_TOOLS = {"cargo-deny": "0.20.2", "mdbook": "0.5.4"}


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "hmc-tui"


def source_files(component: str) -> list[Path]:
    """What a local component is built from: go.mod, go.sum and its .go
    files (not the test data beside them)."""
    src = REPO / LOCAL[component][0]
    return sorted(p for p in src.iterdir() if p.is_file() and (p.suffix == ".go" or p.name in ("go.mod", "go.sum")))


def source_key(component: str) -> str:
    """The hash of a local component's source. tests/template_oracle.rs
    computes the same (name, NUL, bytes, NUL per file) to refuse a binary
    built from other sources."""
    h = hashlib.sha256()
    for path in source_files(component):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def version_of(component: str) -> str:
    if component in LOCAL:
        return "src-" + source_key(component)
    return COMPONENTS[component][1]


def bin_dir(component: str) -> Path:
    return cache_root() / "bin" / f"{component}-{version_of(component)}"


def crd_dir(component: str) -> Path:
    _, version, _ = COMPONENTS[component]
    return cache_root() / "crds" / f"{component}-{version}"


def log(msg: str) -> None:
    print(f"[harness build {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def env_override(binary: str) -> Path | None:
    var = "HMC_" + binary.upper().replace("-", "_") + "_BIN"
    if os.environ.get(var):
        return Path(os.environ[var])
    assets = os.environ.get("KUBEBUILDER_ASSETS")
    if assets and (Path(assets) / binary).exists():
        return Path(assets) / binary
    return None


def binary_path(binary: str) -> Path:
    override = env_override(binary)
    if override:
        return override
    return bin_dir(BINARIES[binary]) / binary


def go_env() -> dict:
    env = dict(os.environ)
    env["GOTOOLCHAIN"] = "local"
    env["CGO_ENABLED"] = "0"
    env["GOFLAGS"] = "-buildvcs=false -mod=mod"
    return env


def run(cmd: list[str], cwd: Path, env: dict) -> str:
    log("$ " + " ".join(cmd))
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout)
        raise SystemExit(f"command failed in {cwd}: {' '.join(cmd)}")
    return proc.stdout


def upstream_gomod(module: str, version: str, cwd: Path, env: dict) -> tuple[Path, Path]:
    out = run(["go", "mod", "download", "-json", f"{module}@{version}"], cwd, env)
    info = json.loads(out)
    return Path(info["GoMod"]), Path(info["Dir"])


def replaces(gomod_text: str) -> list[tuple[str, str]]:
    """Returns the (old, new) pairs of a go.mod's replace directives."""
    pairs = []
    in_block = False
    for raw in gomod_text.splitlines():
        line = raw.split("//")[0].strip()
        if line.startswith("replace ("):
            in_block = True
            continue
        if in_block and line == ")":
            in_block = False
            continue
        body = None
        if in_block and "=>" in line:
            body = line
        elif line.startswith("replace ") and "=>" in line:
            body = line[len("replace "):]
        if body:
            old, new = (s.strip() for s in body.split("=>"))
            pairs.append((old, new))
    return pairs


def build_local(component: str) -> None:
    """Builds a Go program of this repository from a copy of its source (the
    tree's go.sum is never rewritten); the key stamped in with -X lets a test
    check it runs the binary of the source it has."""
    _, binary = LOCAL[component]
    out_dir = bin_dir(component)
    if (out_dir / binary).exists():
        log(f"{component} {version_of(component)}: cached in {out_dir}")
        return
    started = time.time()
    work = cache_root() / "build" / out_dir.name
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for path in source_files(component):
        shutil.copy(path, work / path.name)
    tmp_out = out_dir.with_name(out_dir.name + ".tmp")
    tmp_out.mkdir(parents=True, exist_ok=True)
    ldflags = f"-s -w -X main.sourceKey={source_key(component)}"
    run(["go", "build", "-trimpath", "-ldflags", ldflags, "-o", str(tmp_out / binary), "."], work, go_env())
    if out_dir.exists():
        shutil.rmtree(out_dir)
    tmp_out.rename(out_dir)
    shutil.rmtree(work)
    # Builds of earlier source are of no use any more.
    for old in out_dir.parent.glob(f"{component}-src-*"):
        if old != out_dir:
            shutil.rmtree(old)
    log(f"{component}: built in {time.time() - started:.0f}s -> {out_dir}")


def build_component(component: str) -> None:
    if component in LOCAL:
        build_local(component)
        return
    module, version, pkgs = COMPONENTS[component]
    out_dir = bin_dir(component)
    if all((out_dir / b).exists() for _, b in pkgs):
        log(f"{component} {version}: cached in {out_dir}")
        return
    env = go_env()
    work = cache_root() / "build" / f"{component}-{version}"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    started = time.time()
    log(f"{component} {version}: building in {work}")
    run(["go", "mod", "init", f"hmc-harness/{component}"], work, env)
    gomod, srcdir = upstream_gomod(module, version, work, env)
    text = gomod.read_text()
    edits = [f"-require={module}@{version}"]
    for old, new in replaces(text):
        if new.startswith("./") or new.startswith("../"):
            # A module inside the upstream repository. Kubernetes requires its
            # staging modules at v0.0.0, so pin each to its published release;
            # every other module here requires a published version already, so
            # the local replace (or a FORBIDDEN_DEPENDENCY guard) is dropped.
            name = old.split()[0]
            if module == "k8s.io/kubernetes" and name.startswith("k8s.io/"):
                staging = "v0." + version[1:].split(".", 1)[1]  # v1.34.4 -> v0.34.4
                edits.append(f"-replace={name}={name}@{staging}")
            elif name.startswith(module + "/"):
                # A module of the same repository, published with the same
                # tag (sigs.k8s.io/cluster-api/api beside the root).
                edits.append(f"-replace={name}={name}@{version}")
            continue
        old_spec = old.replace(" ", "@")
        new_spec = REPLACE_OVERRIDES.get(old.split()[0], new.replace(" ", "@"))
        edits.append(f"-replace={old_spec}={new_spec}")
    m = re.search(r"^godebug\s+(\S+)", text, re.M)
    if m:
        edits.append(f"-godebug={m.group(1)}")
    run(["go", "mod", "edit", *edits], work, env)
    # Pull the rest of the graph as the upstream module resolves it.
    run(["go", "get", *[f"{p}@{version}" for p, _ in pkgs]], work, env)
    ldflags = "-s -w"
    if module == "k8s.io/kubernetes":
        major, minor = version[1:].split(".")[:2]
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        for pkg in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
            for key, val in (
                ("gitMajor", major),
                ("gitMinor", minor),
                ("gitVersion", version),
                ("gitCommit", "0000000000000000000000000000000000000000"),
                ("gitTreeState", "clean"),
                ("buildDate", stamp),
            ):
                ldflags += f" -X {pkg}.{key}={val}"
    if module == "helm.sh/helm/v3":
        # As Helm's Makefile stamps a release: its version, and the
        # Kubernetes version `helm template` and `lint` assume (its client-go
        # minor), else 1.20.
        client_go = run(["go", "list", "-f", "{{.Version}}", "-m", "k8s.io/client-go"], work, env).strip()
        minor = client_go.lstrip("v").split(".")[1]
        ldflags += f" -X helm.sh/helm/v3/internal/version.version={version}"
        ldflags += " -X helm.sh/helm/v3/internal/version.metadata="
        for pkg in ("helm.sh/helm/v3/pkg/lint/rules", "helm.sh/helm/v3/pkg/chartutil"):
            ldflags += f" -X {pkg}.k8sVersionMajor=1 -X {pkg}.k8sVersionMinor={minor}"
    tmp_out = out_dir.with_name(out_dir.name + ".tmp")
    tmp_out.mkdir(parents=True, exist_ok=True)
    for pkg, name in pkgs:
        t0 = time.time()
        log(f"{component}: go build {pkg} (this is the slow part; progress is Go's own)")
        run(["go", "build", "-trimpath", "-ldflags", ldflags, "-o", str(tmp_out / name), pkg], work, env)
        log(f"{component}: {name} built in {time.time() - t0:.0f}s")
    # CRDs travel with the controller module: keep them beside the binaries.
    copy_stages(component, srcdir)
    copy_crds(component, srcdir)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    tmp_out.rename(out_dir)
    log(f"{component} {version}: done in {time.time() - started:.0f}s -> {out_dir}")


# kwok simulates nothing without stages: nodes that become Ready and keep a
# heartbeat, pods that become Ready. These are kwok's own "fast" stages.
KWOK_STAGES = ["node/fast/node-initialize.yaml", "node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
               "pod/fast/pod-ready.yaml", "pod/fast/pod-complete.yaml", "pod/fast/pod-delete.yaml"]


def kwok_stages_file() -> Path:
    return crd_dir("kwok") / "stages.yaml"


def copy_stages(component: str, srcdir: Path) -> None:
    if component != "kwok":
        return
    docs = [(srcdir / "kustomize" / "stage" / rel).read_text() for rel in KWOK_STAGES]
    kwok_stages_file().parent.mkdir(parents=True, exist_ok=True)
    kwok_stages_file().write_text("\n---\n".join(d.strip() for d in docs) + "\n")


def copy_crds(component: str, srcdir: Path) -> None:
    """The module's CRDs (and webhook configurations, where it has them) into
    crd_dir(component)."""
    crd_src = srcdir / CRD_SOURCES.get(component, "config/crd/bases")
    if not crd_src.is_dir():
        return
    dst = crd_dir(component)
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(crd_src, dst)
    if component in WEBHOOK_SOURCES:
        shutil.copy(srcdir / WEBHOOK_SOURCES[component], dst / "webhooks.yaml")
    _, version, _ = COMPONENTS[component]
    for module, sub in EXTRA_CRDS.get(component, []):
        work = cache_root() / "build"
        work.mkdir(parents=True, exist_ok=True)
        _, extra = upstream_gomod(module, version, work, go_env())
        for crd in sorted((extra / sub).glob("*.yaml")):
            shutil.copy(crd, dst / crd.name)


def webhooks_file(component: str) -> Path:
    return crd_dir(component) / "webhooks.yaml"


def needed_components() -> list[str]:
    comps = []
    for comp, (_, _, pkgs) in COMPONENTS.items():
        if comp in ON_DEMAND:
            continue
        if not all(env_override(b) for _, b in pkgs):
            comps.append(comp)
    comps += [comp for comp, (_, b) in LOCAL.items() if not env_override(b)]
    return comps


def tool_root(crate: str) -> Path:
    return cache_root() / "tools" / crate


def installed_version(crate: str) -> str | None:
    binary = tool_root(crate) / "bin" / crate
    if not binary.exists():
        return None
    out = subprocess.run([str(binary), "--version"], capture_output=True, text=True)
    words = out.stdout.split()
    # `cargo-deny 0.20.2`, `mdbook v0.5.4`
    return words[1].removeprefix("v") if out.returncode == 0 and len(words) > 1 else None


def start_cargo_tools() -> list[tuple[str, subprocess.Popen, Path]]:
    """Starts `cargo install` of each missing tool in the background: it
    compiles while the Go builds link, and build_all waits for it."""
    running = []
    for crate, version in CARGO_TOOLS.items():
        if installed_version(crate) == version:
            log(f"{crate} {version}: cached in {tool_root(crate)}")
            continue
        out = cache_root() / "build" / f"{crate}-{version}.log"
        out.parent.mkdir(parents=True, exist_ok=True)
        cmd = ["cargo", "install", "--locked", "--force", f"{crate}@{version}", "--root", str(tool_root(crate))]
        log("$ " + " ".join(cmd) + f" (in the background; output in {out})")
        proc = subprocess.Popen(cmd, stdout=out.open("w"), stderr=subprocess.STDOUT)
        running.append((f"{crate} {version}", proc, out))
    return running


def wait_cargo_tools(running: list[tuple[str, subprocess.Popen, Path]]) -> None:
    for what, proc, out in running:
        if proc.wait() != 0:
            sys.stderr.write(out.read_text()[-4000:])
            raise SystemExit(f"cargo install of {what} failed (output above, whole in {out})")
        log(f"{what}: installed")


def build_all(only: list[str] | None = None) -> None:
    started = time.time()
    tools = start_cargo_tools() if not only else []
    for comp in only or needed_components():
        build_component(comp)
    wait_cargo_tools(tools)
    # Flux CRDs and kwok's stages are needed even when binaries come from elsewhere.
    if not kwok_stages_file().exists():
        module, version, _ = COMPONENTS["kwok"]
        work = cache_root() / "build"
        work.mkdir(parents=True, exist_ok=True)
        _, srcdir = upstream_gomod(module, version, work, go_env())
        copy_stages("kwok", srcdir)
    for comp in ("source-controller", "helm-controller", "cluster-api"):
        if not crd_dir(comp).is_dir():
            module, version, _ = COMPONENTS[comp]
            work = cache_root() / "build"
            work.mkdir(parents=True, exist_ok=True)
            _, srcdir = upstream_gomod(module, version, work, go_env())
            copy_crds(comp, srcdir)
    log(f"all components ready in {time.time() - started:.0f}s")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--path"]:
        # Where a binary is (built or not): `build.py --path helm`.
        print(binary_path(sys.argv[2]))
    else:
        build_all(sys.argv[1:] or None)
