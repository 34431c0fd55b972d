"""Drive one served kind through the official Python client's typed API.

Usage: python_client.py KIND (a plural resource name, e.g. configmaps).

Create, read, list by label, strategic and JSON patches, a bounded watch, replace, the status and
scale subresources where the kind has them, the errors for a duplicate and a missing object, and
delete. Each answer is printed as the client's typed model made it (a field the model lacks is
dropped, a required field the server left out raises), as JSON with sorted keys. Left out of what
is printed: managedFields, as kubectl leaves them out, and the fields the cluster's controllers
change on their own schedule (status, a node's taints), which would make the output a race.
"""

import json
import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

NS = "py"
LABELS = {"client": "python"}
SELECTOR = "client=python"
CONTAINER = {"name": "c", "image": "busybox:1.36"}


def template(app):
    return {
        "metadata": {"labels": {"app": app}},
        "spec": {"containers": [CONTAINER]},
    }


# kind -> (api class, method stem, namespaced, body, racy paths, subresources)
KINDS = {
    "namespaces": ("CoreV1Api", "namespace", False, {}, ["status"], ["status"]),
    "nodes": (
        "CoreV1Api", "node", False, {"spec": {"podCIDR": "10.9.0.0/24"}},
        ["status", "spec.taints", "metadata.annotations"], ["status"],
    ),
    "pods": ("CoreV1Api", "pod", True, {"spec": {"containers": [CONTAINER]}}, ["status", "spec.nodeName"], ["status"]),
    "configmaps": ("CoreV1Api", "config_map", True, {"data": {"a": "1"}}, [], []),
    "secrets": ("CoreV1Api", "secret", True, {"stringData": {"user": "admin"}}, [], []),
    "serviceaccounts": (
        "CoreV1Api", "service_account", True, {"automountServiceAccountToken": False}, [], [],
    ),
    "events": (
        "CoreV1Api", "event", True,
        {
            "involvedObject": {"kind": "Pod", "name": "somewhere", "namespace": NS},
            "reason": "Testing", "message": "hello", "type": "Normal",
        },
        [], [],
    ),
    "events.events.k8s.io": (
        "EventsV1Api", "event", True,
        {
            "eventTime": "2026-01-01T00:00:00.000000Z", "reportingController": "example.com/py",
            "reportingInstance": "py-1", "action": "Testing", "reason": "Tested", "type": "Normal",
            "note": "hello", "regarding": {"kind": "Pod", "name": "somewhere", "namespace": NS},
        },
        [], [],
    ),
    "deployments": (
        "AppsV1Api", "deployment", True,
        {"spec": {"replicas": 1, "selector": {"matchLabels": {"app": "py-d"}}, "template": template("py-d")}},
        ["status", "metadata.annotations"], ["status", "scale"],
    ),
    "replicasets": (
        "AppsV1Api", "replica_set", True,
        {"spec": {"replicas": 1, "selector": {"matchLabels": {"app": "py-rs"}}, "template": template("py-rs")}},
        ["status"], ["status", "scale"],
    ),
    "daemonsets": (
        "AppsV1Api", "daemon_set", True,
        {"spec": {"selector": {"matchLabels": {"app": "py-ds"}}, "template": template("py-ds")}},
        ["status", "metadata.annotations"], ["status"],
    ),
    # `data: {}`: upstream compares a ControllerRevision's data byte for byte, and this client's
    # JSON of anything bigger (with blanks) never equals its re-encoding after a patch, so every
    # patch would be refused as changing an immutable field.
    "controllerrevisions": (
        "AppsV1Api", "controller_revision", True, {"data": {}, "revision": 1}, [], [],
    ),
    "poddisruptionbudgets": (
        "PolicyV1Api", "pod_disruption_budget", True,
        {"spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "nothing"}}}},
        ["status"], ["status"],
    ),
    "leases": (
        "CoordinationV1Api", "lease", True,
        {"spec": {"holderIdentity": "py", "leaseDurationSeconds": 10}}, [], [],
    ),
}


def main(kind):
    config.load_kube_config()
    api_client = client.ApiClient()
    api_class, stem, namespaced, body, racy, subresources = KINDS[kind]
    api = getattr(client, api_class)(api_client)
    name = "py-" + kind.replace(".", "-")

    def method(verb, sub=""):
        scope = "namespaced_" if namespaced else ""
        suffix = "_" + sub if sub else ""
        return getattr(api, f"{verb}_{scope}{stem}{suffix}")

    def call(verb, *args, sub="", **kwargs):
        if not namespaced:
            return method(verb, sub)(*args, **kwargs)
        if verb in ("create", "list"):
            return method(verb, sub)(NS, *args, **kwargs)
        return method(verb, sub)(args[0], NS, *args[1:], **kwargs)

    def view(obj, drop=()):
        data = api_client.sanitize_for_serialization(obj)
        if isinstance(data, dict):
            data.get("metadata", {}).pop("managedFields", None)
            for path in drop:
                *parents, leaf = path.split(".")
                node = data
                for part in parents:
                    node = node.get(part) if isinstance(node, dict) else None
                if isinstance(node, dict):
                    node.pop(leaf, None)
        return data

    def show(label, obj, drop=()):
        print(f"## {label} ({type(obj).__name__})")
        print(json.dumps(view(obj, drop), indent=1, sort_keys=True))

    def attempt(label, action, drop=None):
        """Print the answer (or just that it was accepted), or the error the client raised: an
        API error, or a model that refused what the server sent."""
        try:
            answer = action()
        except ApiException as e:
            status = json.loads(e.body) if e.body else {}
            print(f"## {label}: {e.status} {status.get('reason')}: {status.get('message')}")
            print(json.dumps(status.get("details"), sort_keys=True))
            return None
        except ValueError as e:
            print(f"## {label}: the client's model refused the answer: {e}")
            return None
        if drop is None:
            print(f"## {label}: accepted")
        else:
            show(label, answer, drop)
        return answer

    created = dict(body, metadata={"name": name, "labels": dict(LABELS)})
    # The reply to a create is the stored object before any controller saw it.
    if attempt("create", lambda: call("create", created), []) is None:
        return
    attempt("create again", lambda: call("create", created))
    attempt("read", lambda: call("read", name), racy)
    listed = attempt("list", lambda: call("list", label_selector=SELECTOR))
    if listed is not None:
        print(f"## listed: {[i.metadata.name for i in listed.items]}")

    strategic = {"metadata": {"labels": {"step": "1"}}}
    attempt("strategic merge patch", lambda: call("patch", name, strategic), racy)
    json_patch = [{"op": "add", "path": "/metadata/labels/step", "value": "2"}]
    attempt("json patch", lambda: call("patch", name, json_patch), racy)

    def watch_after_patch():
        since = call("list", label_selector=SELECTOR).metadata.resource_version
        call("patch", name, {"metadata": {"labels": {"step": "3"}}})
        seen = set()
        # The list method itself, whose docstring tells the watch which model to decode.
        scope = (NS,) if namespaced else ()
        for event in watch.Watch().stream(
            method("list"),
            *scope,
            label_selector=SELECTOR,
            resource_version=since,
            timeout_seconds=2,
        ):
            # Only the write made after the list: a controller's status write in between is a
            # race.
            labels = event["object"].metadata.labels or {}
            if labels.get("step") == "3":
                seen.add((event["type"], event["object"].metadata.name))
        print(f"## watch from the list's resourceVersion: {sorted(seen)}")

    attempt("watch", watch_after_patch)

    def replace():
        current = call("read", name)
        current.metadata.labels["step"] = "4"
        # No resourceVersion: an unconditional update where the kind allows one. The client
        # sends times with a +00:00 offset, which a MicroTime (an events.k8s.io eventTime)
        # refuses.
        current.metadata.resource_version = None
        return call("replace", name, current)

    attempt("replace", replace, racy)

    for sub in subresources:
        if sub == "scale":
            attempt("read scale", lambda: call("read", name, sub=sub), ["status"])
            zero = {"spec": {"replicas": 0}}
            attempt("patch scale", lambda: call("patch", name, zero, sub=sub), ["status"])
        else:
            answer = attempt(f"read {sub}", lambda: call("read", name, sub=sub))
            if answer is not None:
                print(f"## {type(answer).__name__}: {answer.metadata.name}")

    attempt("read a missing one", lambda: call("read", "py-missing"))
    attempt("delete a missing one", lambda: call("delete", "py-missing"))
    attempt("delete", lambda: call("delete", name), ["status", "details.uid", "metadata", "spec"] + racy)
    for _ in range(300):
        try:
            call("read", name)
        except ApiException as e:
            if e.status == 404:
                print("## gone")
                break
            raise
        time.sleep(0.1)
    else:
        print("## still there after 30s")


if __name__ == "__main__":
    main(sys.argv[1])
