"""The Kubernetes manifests under deploy/kubernetes, without a cluster.

Every resource is validated, strictly (no field the API does not know), against the schemas of
pinned Kubernetes versions by kubernetes-validate; then the manifests are checked against the
project: the commands they run exist, the variables they set are read by the settings, and they
run the processes docker-compose.yml runs. docs/deploy.md, "Many venues on one deployment".
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from django.core.management import get_commands

from tests.deploy.test_compose import command_of, settings_variables

ROOT = Path(__file__).resolve().parents[2]
MANIFESTS = ROOT / "deploy" / "kubernetes"
COMPOSE = ROOT / "docker-compose.yml"
# The oldest version a managed cluster still offers and the newest the validator knows.
KUBERNETES_VERSIONS = ("1.32.0", "1.37.0")
# Read by deploy/healthcheck.py (the probes) and the image, not by the settings.
READ_ELSEWHERE = {"HEALTHCHECK_PORT"}
# Kept in the Secret `syndicate-secrets`, created with kubectl from a file outside the repository.
SECRET_KEYS = {"database-owner-url"}


def manifest_files() -> list[Path]:
    return sorted(MANIFESTS.glob("*.yaml"))


def resources() -> list[dict[str, Any]]:
    found = []
    for path in manifest_files():
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                assert isinstance(document, dict), path
                document["__file"] = path.name
                found.append(document)
    return found


def strip(resource: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in resource.items() if key != "__file"}


def named(kind: str) -> dict[str, dict[str, Any]]:
    return {r["metadata"]["name"]: r for r in resources() if r["kind"] == kind}


def pod_specs() -> dict[str, dict[str, Any]]:
    """Every pod template, by its workload's kind and name."""
    pods = {}
    for resource in resources():
        if resource["kind"] in {"Deployment", "StatefulSet", "Job"}:
            name = f"{resource['kind']}/{resource['metadata']['name']}"
            pods[name] = resource["spec"]["template"]
    return pods


def app_containers() -> dict[str, dict[str, Any]]:
    """The containers that run the project's image."""
    return {
        f"{workload}/{container['name']}": container
        for workload, pod in pod_specs().items()
        for container in pod["spec"]["containers"]
        if str(container["image"]).startswith("syndicate-poker")
    }


def test_there_are_manifests() -> None:
    assert len(manifest_files()) >= 5
    assert {r["kind"] for r in resources()} >= {
        "Namespace",
        "ConfigMap",
        "Deployment",
        "Service",
        "Ingress",
        "PodDisruptionBudget",
        "Job",
    }


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_manifest_validates_strictly(version: str) -> None:
    problems = []
    for resource in resources():
        where = f"{resource['__file']}: {resource['kind']}/{resource['metadata']['name']}"
        try:
            kubernetes_validate.validate(strip(resource), version, strict=True)
        except kubernetes_validate.ValidationError as error:
            path = ".".join(str(part) for part in error.path)
            problems.append(f"{where}: {path}: {error.message}")
        except (
            kubernetes_validate.SchemaNotFoundError,
            kubernetes_validate.InvalidSchemaError,
        ) as error:
            problems.append(f"{where}: {error.message}")
    assert not problems, "\n".join(problems)


def test_the_validator_refuses_an_unknown_field() -> None:
    """Strict means strict: the check above would see a misspelt field."""
    (web,) = [
        r for r in resources() if r["kind"] == "Deployment" and r["metadata"]["name"] == "web"
    ]
    broken = strip(web)
    broken["spec"] = {**broken["spec"], "replica": 3}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSIONS[-1], strict=True)


def test_no_secret_value_is_committed() -> None:
    assert "Secret" not in {r["kind"] for r in resources()}
    for name, container in app_containers().items():
        refs = [
            source["secretRef"]["name"]
            for source in container.get("envFrom", [])
            if "secretRef" in source
        ]
        assert refs == ["syndicate-secrets"], name
        for variable in container.get("env", []):
            assert "value" not in variable or not re.search(
                r"PASSWORD|SECRET|KEY", variable["name"]
            ), (name, variable["name"])
            secret = variable.get("valueFrom", {}).get("secretKeyRef")
            if secret:
                assert secret["name"] == "syndicate-secrets" and secret["key"] in SECRET_KEYS
    (config,) = named("ConfigMap").values()
    for key in config["data"]:
        assert not re.search(r"PASSWORD|SECRET_KEY|PRIVATE|SIGNING", key), key


def test_selectors_services_and_the_ingress_meet() -> None:
    for name, resource in {**named("Deployment"), **named("StatefulSet")}.items():
        labels = resource["spec"]["template"]["metadata"]["labels"]
        selector = resource["spec"]["selector"]["matchLabels"]
        assert selector.items() <= labels.items(), name
    pods = [pod["metadata"]["labels"] for pod in pod_specs().values()]
    services = named("Service")
    for name, service in services.items():
        assert any(service["spec"]["selector"].items() <= labels.items() for labels in pods), name
    for name, statefulset in named("StatefulSet").items():
        assert statefulset["spec"]["serviceName"] in services, name
    (ingress,) = named("Ingress").values()
    for rule in ingress["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            backend = path["backend"]["service"]
            ports = {port["name"] for port in services[backend["name"]]["spec"]["ports"]}
            assert backend["port"]["name"] in ports
    assert ingress["spec"]["tls"], "TLS at the edge"
    annotations = ingress["metadata"]["annotations"]
    # Websockets stay open: daphne pings idle ones every 20 s.
    assert int(annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 600
    (pdb,) = named("PodDisruptionBudget").values()
    publisher = named("Deployment")["publisher"]["spec"]["template"]["metadata"]["labels"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= publisher.items()
    assert pdb["spec"]["maxUnavailable"] == 1


def test_every_app_container_asks_for_resources_and_runs_unprivileged() -> None:
    for workload, pod in pod_specs().items():
        for container in pod["spec"]["containers"]:
            requests = container.get("resources", {}).get("requests", {})
            assert {"cpu", "memory"} <= set(requests), (workload, container["name"])
    for name, container in app_containers().items():
        assert container["securityContext"]["allowPrivilegeEscalation"] is False, name
    for workload, pod in pod_specs().items():
        if any(str(c["image"]).startswith("syndicate-poker") for c in pod["spec"]["containers"]):
            assert pod["spec"]["securityContext"]["runAsNonRoot"] is True, workload
            assert pod["spec"]["securityContext"]["runAsUser"] == 10001, workload  # Dockerfile


def test_web_pods_are_probed_with_the_health_check() -> None:
    web = named("Deployment")["web"]["spec"]["template"]["spec"]["containers"][0]
    for probe in ("readinessProbe", "livenessProbe"):
        assert web[probe]["exec"]["command"] == ["python", "deploy/healthcheck.py"], probe
    assert (ROOT / "deploy" / "healthcheck.py").is_file()


def command_line(container: dict[str, Any]) -> list[str]:
    parts = [*container.get("command", []), *container.get("args", [])]
    if parts[:2] == ["sh", "-c"]:
        return shlex.split(parts[2])
    return [str(part) for part in parts]


def management_commands(line: list[str]) -> list[tuple[str, list[str]]]:
    """Each `manage.py <name> ...` in a command line (several when joined by &&)."""
    found = []
    for index, part in enumerate(line):
        if part == "manage.py":
            rest = line[index + 2 :]
            end = rest.index("&&") if "&&" in rest else len(rest)
            found.append((line[index + 1], rest[:end]))
    return found


def test_the_commands_they_run_exist() -> None:
    known = get_commands()
    ran = Counter[str]()
    for name, container in app_containers().items():
        line = command_line(container)
        for command, _ in management_commands(line):
            assert command in known, f"{name}: manage.py {command} is no command of the project"
            ran[command] += 1
        assert line[0] in {"python", "daphne", "celery", "sh"}, name
    assert {"publish_live", "migrate", "grant_app_role", "check"} <= set(ran)


def test_they_run_what_docker_compose_runs() -> None:
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    containers = {name.split("/")[1]: c for name, c in app_containers().items()}
    for name in ("web", "worker", "beat"):
        compose = command_of(services[name])
        if name == "worker":  # compose reads the threads from .env
            compose = [p.replace("${CELERY_WORKER_CONCURRENCY:-16}", "16") for p in compose]
        assert command_line(containers[name]) == compose, name
    # The publisher: the same command, its shards from the one LIVE_SHARDS setting.
    publisher = command_line(containers["publisher"])
    compose = command_of(services["publisher"])
    assert publisher == [p.replace("${LIVE_SHARDS:-12}", "$(LIVE_SHARDS)") for p in compose]
    assert shlex.split(services["migrate"]["command"][2]) == command_line(containers["migrate"])


def test_the_variables_they_set_are_read_by_the_settings() -> None:
    read = settings_variables() | READ_ELSEWHERE
    (config,) = named("ConfigMap").values()
    unknown = set(config["data"]) - read
    assert not unknown, f"the ConfigMap sets {sorted(unknown)}, which nothing reads"
    for name, container in app_containers().items():
        set_here = {variable["name"] for variable in container.get("env", [])}
        assert not set_here - read, (name, sorted(set_here - read))
        # A $(NAME) in the command line names a variable the container has.
        for reference in re.findall(r"\$\((\w+)\)", " ".join(command_line(container))):
            assert reference in set_here or reference in config["data"], (name, reference)
    assert {"LIVE_SHARDS", "CHANNEL_REDIS_URLS", "REDIS_URL"} <= set(config["data"])


def test_the_processes_scale_as_the_deployment_needs() -> None:
    deployments = named("Deployment")
    assert deployments["web"]["spec"]["replicas"] >= 2
    assert deployments["publisher"]["spec"]["replicas"] >= 2
    assert deployments["worker"]["spec"]["replicas"] >= 2
    # Exactly one beat, never two at once.
    assert deployments["beat"]["spec"]["replicas"] == 1
    assert deployments["beat"]["spec"]["strategy"]["type"] == "Recreate"
    (config,) = named("ConfigMap").values()
    assert int(config["data"]["LIVE_SHARDS"]) >= deployments["publisher"]["spec"]["replicas"]
    channels = config["data"]["CHANNEL_REDIS_URLS"].split(",")
    assert len(channels) == named("StatefulSet")["channels"]["spec"]["replicas"] >= 2
    assert config["data"]["REDIS_URL"] not in channels
