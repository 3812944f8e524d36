"""
A KFP API server (REST v2beta1) for tests, on 127.0.0.1: it keeps pipelines, versions, experiments,
runs and recurring runs in memory, and checks every request and response body against the official
kfp-server-api models (the generated OpenAPI client KFP publishes on PyPI): unknown fields, wrong
types and unknown enum values are refused with 400 and recorded as violations. Uploaded pipeline
specs are parsed into kfp's PipelineSpec protobuf (unknown fields refused) and a run's runtime
parameters are checked against the version's root input definitions, as KFP's API server does.

GET /test/state also says, per recurring run, the time its scheduler counts intervals from
(countsFrom), as KFP's does, and per display name the most recurring runs enabled at once
(mostEnabled).

Usage: python kfp-server.py [--token T] [--namespace NS]   (prints "listening <port>")
Test controls under /test: GET /test/state, GET /test/requests, POST /test/runs/<id> {state,
finished_at, task_details}, POST /test/recurringruns/<id>/runs (starts a run of that recurring run,
as KFP's scheduled-workflow controller would), POST /test/fail {count, status, method?, path?}
(only requests of that method and path fail, when given: the operator's other calls go on).
"""

import argparse
import json
import re
import threading
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlparse

import kfp_server_api.models as models
from dateutil import parser as dateparser
from google.protobuf import json_format
from kfp.pipeline_spec import pipeline_spec_pb2
from kfp_server_api.api_client import ApiClient

API = "/apis/v2beta1"
PRIMITIVES = {"str": str, "bool": bool, "float": (int, float), "int": int}


class Invalid(Exception):
    pass


def check(value, type_name, path):
    """Raises Invalid when `value` is not a `type_name` as the kfp-server-api models define it."""
    if value is None:
        return
    if type_name in PRIMITIVES:
        if not isinstance(value, PRIMITIVES[type_name]) or (type_name == "int" and isinstance(value, bool)):
            raise Invalid(f"{path}: not a {type_name}: {value!r}")
        return
    if type_name == "object":
        return
    if type_name == "datetime":
        if not isinstance(value, str):
            raise Invalid(f"{path}: not a date-time: {value!r}")
        dateparser.isoparse(value)
        return
    list_match = re.fullmatch(r"list\[(.+)\]", type_name)
    if list_match:
        if not isinstance(value, list):
            raise Invalid(f"{path}: not a list")
        for i, item in enumerate(value):
            check(item, list_match.group(1), f"{path}[{i}]")
        return
    dict_match = re.fullmatch(r"dict\(([^,]+), (.+)\)", type_name)
    if dict_match:
        if not isinstance(value, dict):
            raise Invalid(f"{path}: not a map")
        for key, item in value.items():
            check(item, dict_match.group(2), f"{path}.{key}")
        return
    model = getattr(models, type_name)
    if getattr(model, "allowable_values", None) is not None and not model.openapi_types:
        if value not in model.allowable_values:
            raise Invalid(f"{path}: {value!r} is not one of {model.allowable_values}")
        return
    if not isinstance(value, dict):
        raise Invalid(f"{path}: not an object ({type_name})")
    by_json_name = {json_name: attr for attr, json_name in model.attribute_map.items()}
    for key, item in value.items():
        if key not in by_json_name:
            raise Invalid(f"{path}: {type_name} has no field {key}")
        check(item, model.openapi_types[by_json_name[key]], f"{path}.{key}")


def validated(body, type_name, path):
    """Strict check, then the official client's own deserialization of the same JSON."""
    check(body, type_name, path)
    ApiClient()._ApiClient__deserialize(body, type_name)
    return body


class KfpError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


GRPC_CODE = {400: 3, 401: 16, 403: 7, 404: 5, 409: 6, 412: 9, 500: 13, 503: 14}


def now():
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


class State:
    def __init__(self, namespace):
        self.namespace = namespace
        self.lock = threading.Lock()
        self.pipelines, self.versions, self.experiments = {}, {}, {}
        self.runs, self.recurring = {}, {}
        self.counts_from, self.most_enabled = {}, {}
        self.requests, self.violations = [], []
        self.failures = {"count": 0, "status": 503, "method": None, "path": None}

    def count_enabled(self, recurring):
        """Keeps the most enabled recurring runs of one display name at once (each would start every run)."""
        name = recurring["display_name"]
        enabled = sum(1 for r in self.recurring.values() if r["display_name"] == name and r["status"] == "ENABLED")
        self.most_enabled[name] = max(self.most_enabled.get(name, 0), enabled)

    def require_namespace(self, body, what):
        if self.namespace and body.get("namespace") != self.namespace:
            raise KfpError(400, f"{what}: namespace must be {self.namespace} in multi-user mode")

    def dump(self):
        return {
            "pipelines": self.pipelines,
            "versions": self.versions,
            "experiments": self.experiments,
            "runs": self.runs,
            "recurringRuns": self.recurring,
            "countsFrom": self.counts_from,
            "mostEnabled": self.most_enabled,
            "violations": self.violations,
        }


# The run fields KFP's API server filters and sorts runs by (its runAPIToModelFieldMap, v2beta1 names).
RUN_FIELDS = {
    "run_id", "display_name", "created_at", "finished_at", "description", "scheduled_at", "storage_state",
    "namespace", "experiment_id", "state", "recurring_run_id", "pipeline_version_id", "pipeline_id",
}
TIMESTAMP_FIELDS = {"created_at", "finished_at", "scheduled_at", "updated_at"}
COMPARE = {
    "EQUALS": lambda a, b: a == b,
    "NOT_EQUALS": lambda a, b: a != b,
    "GREATER_THAN": lambda a, b: a > b,
    "GREATER_THAN_EQUALS": lambda a, b: a >= b,
    "LESS_THAN": lambda a, b: a < b,
    "LESS_THAN_EQUALS": lambda a, b: a <= b,
}


def seconds(value):
    """KFP keeps timestamps in whole seconds; an unset one (a run not finished) is 0."""
    return int(dateparser.isoparse(value).timestamp()) if value else 0


def matches(item, predicate):
    key, operation = predicate["key"], predicate.get("operation")
    if key in TIMESTAMP_FIELDS:
        if "timestamp_value" not in predicate:
            raise KfpError(400, f"filter on {key}: a timestamp_value is required")
        actual, wanted = seconds(item.get(key)), seconds(predicate["timestamp_value"])
    elif operation == "IN":
        return item.get(key) in (predicate.get("string_values") or {}).get("values", [])
    else:
        actual, wanted = item.get(key), predicate.get("string_value")
    if operation not in COMPARE:
        raise KfpError(400, f"filter on {key}: operation {operation} is not supported here")
    return COMPARE[operation](actual, wanted)


def filtered(items, query, fields=None):
    """The items the V2beta1Filter in `query` selects; `fields`: the keys KFP filters this kind by."""
    text = query.get("filter", [None])[0]
    if not text:
        return items
    spec = validated(json.loads(text), "V2beta1Filter", "filter")
    for predicate in spec.get("predicates", []):
        if fields is not None and predicate.get("key") not in fields:
            raise Invalid(f"filter: runs are not filtered by {predicate.get('key')!r}")
        items = [i for i in items if matches(i, predicate)]
    return items


def sorted_by(items, query, fields):
    text = query.get("sort_by", [None])[0]
    if not text:
        return items
    field, _, direction = text.partition(" ")
    if (fields is not None and field not in fields) or direction not in ("", "asc", "desc"):
        raise Invalid(f"sort_by: {text!r} is not a run field with asc or desc")
    key = (lambda i: seconds(i.get(field))) if field in TIMESTAMP_FIELDS else (lambda i: i.get(field) or "")
    return sorted(items, key=key, reverse=direction == "desc")


def checked_parameters(spec, runtime_config):
    declared = spec.get("root", {}).get("inputDefinitions", {}).get("parameters", {})
    types = {"STRING": str, "NUMBER_INTEGER": int, "NUMBER_DOUBLE": (int, float), "BOOLEAN": bool}
    for name, value in (runtime_config or {}).get("parameters", {}).items():
        if name not in declared:
            raise KfpError(400, f"runtime parameter {name} is not an input of the pipeline")
        kind = declared[name]["parameterType"]
        if not isinstance(value, types[kind]) or (kind == "NUMBER_INTEGER" and isinstance(value, bool)):
            raise KfpError(400, f"runtime parameter {name}: {value!r} is not {kind}")
    for name, parameter in declared.items():
        if not parameter.get("isOptional") and name not in (runtime_config or {}).get("parameters", {}):
            raise KfpError(400, f"runtime parameter {name} is required")


def version_of(state, reference):
    if not reference:
        raise KfpError(400, "pipeline_version_reference is required")
    version = state.versions.get(reference.get("pipeline_version_id"))
    if not version or version["pipeline_id"] != reference.get("pipeline_id"):
        raise KfpError(404, f"pipeline version {reference} not found")
    return version


def check_run_references(state, body):
    """A run's pipeline is a version's or its own `pipeline_spec` (one of the two, as in run.proto's pipeline_source)."""
    spec = body.get("pipeline_spec")
    if spec is not None:
        if body.get("pipeline_version_reference"):
            raise KfpError(400, "pipeline_spec and pipeline_version_reference are one of pipeline_source")
        json_format.ParseDict(spec, pipeline_spec_pb2.PipelineSpec(), ignore_unknown_fields=False)
    else:
        spec = version_of(state, body.get("pipeline_version_reference"))["pipeline_spec"]
    checked_parameters(spec, body.get("runtime_config"))
    experiment = body.get("experiment_id")
    if experiment and experiment not in state.experiments:
        raise KfpError(404, f"experiment {experiment} not found")


CRON = re.compile(r"^(@\w+|(\S+\s+){5}\S+)$")


def create_pipeline(state, body, query):
    validated(body, "V2beta1Pipeline", "body")
    state.require_namespace(body, "pipeline")
    name = body.get("display_name")
    if not name:
        raise KfpError(400, "pipeline display_name is required")
    if any(p["display_name"] == name and p.get("namespace") == body.get("namespace") for p in state.pipelines.values()):
        raise KfpError(409, f"pipeline {name} already exists")
    pipeline = {**body, "pipeline_id": str(uuid.uuid4()), "created_at": now()}
    state.pipelines[pipeline["pipeline_id"]] = pipeline
    return pipeline, "V2beta1Pipeline"


def create_version(state, body, pipeline_id):
    validated(body, "V2beta1PipelineVersion", "body")
    if pipeline_id not in state.pipelines:
        raise KfpError(404, f"pipeline {pipeline_id} not found")
    if body.get("pipeline_id") not in (None, pipeline_id):
        raise KfpError(400, "pipeline_id differs from the path")
    json_format.ParseDict(body.get("pipeline_spec") or {}, pipeline_spec_pb2.PipelineSpec(), ignore_unknown_fields=False)
    if not body.get("pipeline_spec"):
        raise KfpError(400, "pipeline_spec is required")
    name = body.get("display_name")
    if any(v["display_name"] == name and v["pipeline_id"] == pipeline_id for v in state.versions.values()):
        raise KfpError(409, f"pipeline version {name} already exists")
    version = {**body, "pipeline_id": pipeline_id, "pipeline_version_id": str(uuid.uuid4()), "created_at": now()}
    state.versions[version["pipeline_version_id"]] = version
    return version, "V2beta1PipelineVersion"


def delete_pipeline(state, pipeline_id, query):
    if pipeline_id not in state.pipelines:
        raise KfpError(404, f"pipeline {pipeline_id} not found")
    versions = [k for k, v in state.versions.items() if v["pipeline_id"] == pipeline_id]
    if versions and query.get("cascade", ["false"])[0] != "true":
        raise KfpError(412, "the pipeline has versions: delete them first or set cascade")
    for key in versions:
        del state.versions[key]
    del state.pipelines[pipeline_id]
    return {}, None


def create_experiment(state, body):
    validated(body, "V2beta1Experiment", "body")
    state.require_namespace(body, "experiment")
    name = body.get("display_name")
    if any(e["display_name"] == name and e.get("namespace") == body.get("namespace") for e in state.experiments.values()):
        raise KfpError(409, f"experiment {name} already exists")
    experiment = {**body, "experiment_id": str(uuid.uuid4()), "created_at": now(), "storage_state": "AVAILABLE"}
    state.experiments[experiment["experiment_id"]] = experiment
    return experiment, "V2beta1Experiment"


def create_run(state, body):
    validated(body, "V2beta1Run", "body")
    check_run_references(state, body)
    run = {**body, "run_id": str(uuid.uuid4()), "created_at": now(), "state": "PENDING", "storage_state": "AVAILABLE"}
    state.runs[run["run_id"]] = run
    return run, "V2beta1Run"


def create_recurring_run(state, body):
    validated(body, "V2beta1RecurringRun", "body")
    state.require_namespace(body, "recurring run")
    check_run_references(state, body)
    cron = (body.get("trigger") or {}).get("cron_schedule") or {}
    if not CRON.match(cron.get("cron", "")):
        raise KfpError(400, f"trigger.cron_schedule.cron: {cron.get('cron')!r} is not a 6-field cron or a descriptor")
    concurrency = body.get("max_concurrency")
    if concurrency is not None and not re.fullmatch(r"-?\d+", concurrency):
        raise Invalid(f"body.max_concurrency: {concurrency!r} is not an int64 (a decimal string in JSON)")
    if not 1 <= int(concurrency or "1") <= 10:
        raise KfpError(400, "max_concurrency must be between 1 and 10")
    start, end = cron.get("start_time"), cron.get("end_time")
    if start and end and dateparser.isoparse(start) >= dateparser.isoparse(end):
        raise KfpError(400, "trigger.cron_schedule: start_time must be before end_time")
    created = now()
    recurring = {**body, "recurring_run_id": str(uuid.uuid4()), "created_at": created, "status": "ENABLED"}
    state.recurring[recurring["recurring_run_id"]] = recurring
    if body.get("mode") == "DISABLE":
        recurring["status"] = "DISABLED"
    state.count_enabled(recurring)
    # where KFP's scheduler counts the intervals from (CronSchedule.getEffectiveLastJobEpoch in
    # backend/src/crd/controller/scheduledworkflow): start_time when set, even long past, else the
    # creation; with catch-up it starts a run for every interval since then
    state.counts_from[recurring["recurring_run_id"]] = start or created
    return recurring, "V2beta1RecurringRun"


def found(table, key, what):
    if key not in table:
        raise KfpError(404, f"{what} {key} not found")
    return table[key]


def removed(table, key, what):
    found(table, key, what)
    del table[key]
    return {}, None


def listing(items, field, type_name, query, fields=None):
    items = sorted_by(filtered(list(items), query, fields), query, fields)
    size = int(query.get("page_size", ["100"])[0])
    start = int(query.get("page_token", ["0"])[0])
    page = {field: items[start : start + size], "total_size": len(items)}
    if start + size < len(items):
        page["next_page_token"] = str(start + size)
    return page, type_name


def start_scheduled_run(state, recurring_run_id):
    """A run of the recurring run, as KFP's scheduled-workflow controller starts one (then RUNNING)."""
    recurring = found(state.recurring, recurring_run_id, "recurring run")
    if recurring["status"] != "ENABLED":
        raise KfpError(412, f"recurring run {recurring_run_id} is disabled: its scheduler starts no run")
    copied = ("description", "pipeline_version_reference", "runtime_config", "service_account", "experiment_id")
    count = sum(1 for r in state.runs.values() if r.get("recurring_run_id") == recurring_run_id)
    run = {
        **{k: recurring[k] for k in copied if k in recurring},
        "display_name": f"{recurring['display_name']}-{count + 1}",
        "run_id": str(uuid.uuid4()),
        "recurring_run_id": recurring_run_id,
        "created_at": now(),
        "scheduled_at": now(),
        "state": "RUNNING",
        "storage_state": "AVAILABLE",
    }
    state.runs[run["run_id"]] = validated(run, "V2beta1Run", "run")
    return run


def route(state, method, parts, query, body):
    """parts: the path below /apis/v2beta1, split on /."""
    match (method, parts):
        case ("GET", ["healthz"]):
            return {"multi_user": bool(state.namespace)}, "V2beta1GetHealthzResponse"
        case ("GET", ["pipelines"]):
            if state.namespace and query.get("namespace", [None])[0] != state.namespace:
                raise KfpError(400, f"namespace must be {state.namespace} in multi-user mode")
            return listing(state.pipelines.values(), "pipelines", "V2beta1ListPipelinesResponse", query)
        case ("POST", ["pipelines"]):
            return create_pipeline(state, body, query)
        case ("GET", ["pipelines", "names", name]):
            ns = query.get("namespace", [None])[0]
            for p in state.pipelines.values():
                if p["display_name"] == name and p.get("namespace") == ns:
                    return p, "V2beta1Pipeline"
            raise KfpError(404, f"pipeline {name} not found")
        case ("DELETE", ["pipelines", pipeline_id]):
            return delete_pipeline(state, pipeline_id, query)
        case ("POST", ["pipelines", pipeline_id, "versions"]):
            return create_version(state, body, pipeline_id)
        case ("GET", ["pipelines", pipeline_id, "versions"]):
            versions = [v for v in state.versions.values() if v["pipeline_id"] == pipeline_id]
            return listing(versions, "pipeline_versions", "V2beta1ListPipelineVersionsResponse", query)
        case ("POST", ["experiments"]):
            return create_experiment(state, body)
        case ("GET", ["experiments"]):
            return listing(state.experiments.values(), "experiments", "V2beta1ListExperimentsResponse", query)
        case ("DELETE", ["experiments", key]):
            return removed(state.experiments, key, "experiment")
        case ("POST", ["runs"]):
            return create_run(state, body)
        case ("GET", ["runs"]):
            if state.namespace and query.get("namespace", [None])[0] != state.namespace:
                raise KfpError(400, f"namespace must be {state.namespace} in multi-user mode")
            return listing(state.runs.values(), "runs", "V2beta1ListRunsResponse", query, RUN_FIELDS)
        case ("GET", ["runs", key]):
            return found(state.runs, key, "run"), "V2beta1Run"
        case ("DELETE", ["runs", key]):
            return removed(state.runs, key, "run")
        case ("POST", ["recurringruns"]):
            return create_recurring_run(state, body)
        case ("GET", ["recurringruns", key]):
            return found(state.recurring, key, "recurring run"), "V2beta1RecurringRun"
        case ("DELETE", ["recurringruns", key]):
            return removed(state.recurring, key, "recurring run")
        case ("POST", ["recurringruns", action]) if action.endswith((":enable", ":disable")):
            if body:
                raise Invalid(f"{action}: takes no body")
            key, _, verb = action.rpartition(":")
            recurring = found(state.recurring, key, "recurring run")
            enabled = verb == "enable"
            recurring.update({"mode": "ENABLE" if enabled else "DISABLE", "status": "ENABLED" if enabled else "DISABLED"})
            state.count_enabled(recurring)
            return {}, None
    raise KfpError(404, f"no route {method} {'/'.join(parts)}")


def control(state, method, parts, body):
    match (method, parts):
        case ("GET", ["state"]):
            return state.dump()
        case ("GET", ["requests"]):
            return state.requests
        case ("POST", ["runs", key]):
            run = found(state.runs, key, "run")
            run.update({k: v for k, v in body.items() if k in ("state", "finished_at")})
            if "task_details" in body:
                run["run_details"] = {"task_details": body["task_details"]}
            validated(run, "V2beta1Run", "run")
            return run
        case ("POST", ["recurringruns", key, "runs"]):
            return start_scheduled_run(state, key)
        case ("POST", ["fail"]):
            state.failures = {
                "count": int(body.get("count", 1)),
                "status": int(body.get("status", 503)),
                "method": body.get("method"),
                "path": body.get("path"),
            }
            return state.failures
    raise KfpError(404, f"no test route {method} {'/'.join(parts)}")


class Handler(BaseHTTPRequestHandler):
    state: State
    token: str | None

    def log_message(self, *args):
        pass

    def reply(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def fail(self, status, message):
        body = {"code": GRPC_CODE.get(status, 2), "message": message, "details": []}
        self.reply(status, validated(body, "GoogleRpcStatus", "error"))

    def body(self):
        length = int(self.headers.get("content-length") or 0)
        if not length:
            return {}
        if self.headers.get("content-type", "").split(";")[0] != "application/json":
            raise KfpError(400, "content-type must be application/json")
        return json.loads(self.rfile.read(length))

    def handle_any(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        state = self.state
        try:
            body = self.body()
            if url.path.startswith("/test/"):
                with state.lock:
                    return self.reply(200, control(state, self.command, url.path[6:].split("/"), body))
            if not url.path.startswith(API + "/"):
                raise KfpError(404, "not a v2beta1 path")
            parts = [unquote(p) for p in url.path[len(API) + 1 :].split("/")]
            with state.lock:
                authorization = self.headers.get("authorization")
                state.requests.append(
                    {"method": self.command, "path": url.path, "query": query, "body": body, "authorized": authorization is not None}
                )
                if self.token and parts != ["healthz"] and authorization != f"Bearer {self.token}":
                    raise KfpError(401, "Unauthenticated: no valid bearer token")
                failures = state.failures
                if (
                    failures["count"] > 0
                    and failures["method"] in (None, self.command)
                    and failures["path"] in (None, url.path)
                ):
                    failures["count"] -= 1
                    raise KfpError(state.failures["status"], "injected failure")
                payload, type_name = route(state, self.command, parts, query, body)
                if type_name:
                    validated(payload, type_name, "response")
            self.reply(200, payload)
        except Invalid as error:
            state.violations.append(f"{self.command} {url.path}: {error}")
            self.fail(400, f"invalid body: {error}")
        except json_format.ParseError as error:
            state.violations.append(f"{self.command} {url.path}: pipeline_spec: {error}")
            self.fail(400, f"invalid pipeline_spec: {error}")
        except KfpError as error:
            self.fail(error.status, error.message)
        except Exception as error:  # a bug here, or a body the models cannot take
            state.violations.append(f"{self.command} {url.path}: {type(error).__name__}: {error}")
            self.fail(400, f"{type(error).__name__}: {error}")

    do_GET = do_POST = do_DELETE = do_PATCH = handle_any


def main():
    arguments = argparse.ArgumentParser()
    arguments.add_argument("--token")
    arguments.add_argument("--namespace")
    options = arguments.parse_args()
    Handler.state = State(options.namespace)
    Handler.token = options.token
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
