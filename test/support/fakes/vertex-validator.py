"""The Vertex test server's judge of request bodies (issue 32): each request as it came over the wire,
decoded by the official Vertex AI protos of google-cloud-aiplatform (tools/setup/41-vertex-protos.sh)
and refused when a field is not in the official message, has another wire type than the field's
(a wrong type), or holds a value its enum does not name.

One process per test server (vertex-validator.ts): a JSON line in on stdin,
{"id", "type": full message name, "body": base64 bytes}, a JSON line out, {"id", "problems": [...]},
each problem naming the field by its JSON path. `--check` loads the protos and exits (set-up).
"""

import base64
import importlib.util
import json
import os
import sys
import types


def load_protos():
    """Registers the aiplatform v1 and google.cloud.location messages in the default pool.

    google/cloud/aiplatform_v1/__init__.py imports the whole client library (google-api-core, grpc),
    which set-up does not install: the package is entered at its `types`, the proto-plus messages.
    """
    roots = importlib.util.find_spec("google.cloud").submodule_search_locations
    package = next(os.path.join(r, "aiplatform_v1") for r in roots if os.path.isdir(os.path.join(r, "aiplatform_v1")))
    module = types.ModuleType("google.cloud.aiplatform_v1")
    module.__path__ = [package]
    sys.modules[module.__name__] = module
    import google.cloud.aiplatform_v1.types  # noqa: F401  (registers every v1 message)
    from google.cloud.location import locations_pb2  # noqa: F401


load_protos()

from google.protobuf import descriptor_pool, message_factory  # noqa: E402
from google.protobuf.descriptor import FieldDescriptor  # noqa: E402
from google.protobuf.message import DecodeError  # noqa: E402
from google.protobuf.unknown_fields import UnknownFieldSet  # noqa: E402

pool = descriptor_pool.Default()
classes = {}

type_names = {
    value: name[len("TYPE_") :].lower() for name, value in vars(FieldDescriptor).items() if name.startswith("TYPE_")
}


def field_type(field):
    if field.message_type:
        return field.message_type.full_name
    if field.enum_type:
        return field.enum_type.full_name
    return type_names.get(field.type, str(field.type))


def join(path, name):
    return f"{path}.{name}" if path else name


def value_problems(field, value, where):
    if field.message_type:
        yield from message_problems(value, where)
    elif field.enum_type and value not in field.enum_type.values_by_number:
        yield f"{where}: {value} is not a value of {field.enum_type.full_name}"


def message_problems(message, path=""):
    descriptor = message.DESCRIPTOR
    for unknown in UnknownFieldSet(message):
        known = descriptor.fields_by_number.get(unknown.field_number)
        if known:
            yield f"{join(path, known.json_name)}: wire type {unknown.wire_type} is not a {field_type(known)}"
        else:
            yield f"{path or descriptor.full_name}: field {unknown.field_number} is not a field of {descriptor.full_name}"
    for field, value in message.ListFields():
        where = join(path, field.json_name)
        if field.message_type and field.message_type.GetOptions().map_entry:
            entry_value = field.message_type.fields_by_name["value"]
            for key, item in value.items():
                yield from value_problems(entry_value, item, f"{where}[{json.dumps(key)}]")
        elif field.is_repeated:
            for index, item in enumerate(value):
                yield from value_problems(field, item, f"{where}[{index}]")
        else:
            yield from value_problems(field, value, where)


def problems(type_name, body):
    if type_name not in classes:
        try:
            classes[type_name] = message_factory.GetMessageClass(pool.FindMessageTypeByName(type_name))
        except KeyError:
            return [f"{type_name} is not a message of the official protos"]
    try:
        message = classes[type_name].FromString(body)
    except DecodeError as error:
        return [f"not a {type_name}: {error}"]
    return list(message_problems(message))


def main():
    if sys.argv[1:] == ["--check"]:
        assert problems("google.cloud.aiplatform.v1.CreateScheduleRequest", b"\x0a\x01p") == []
        return
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        found = problems(request["type"], base64.b64decode(request["body"]))
        print(json.dumps({"id": request["id"], "problems": found}), flush=True)


main()
