"""The Vertex test server's judge of request bodies (issue 32), by the official Vertex AI protos of
google-cloud-aiplatform (tools/setup/41-vertex-protos.sh):
- a request as it came over the wire, decoded by the official message and refused when a field is
  not in it, has another wire type than the field's (a wrong type), or holds a value its enum does
  not name;
- a request as Slipway hands it to the client library (its protobuf object form: camelCase fields,
  well-known types as their messages), which the library's encoding would take silently (it drops a
  field it does not know and coerces a value): refused for a field not in the official message, a
  value not of the field's type, an enum name the enum does not have, two fields of one oneof.

One process per test server (vertex-validator.ts): a JSON line in on stdin, {"id", "type": full
message name, and "body": base64 wire bytes or "object": the object form}, a JSON line out,
{"id", "problems": [...]}, each problem naming the field by its JSON path. `--check` loads the
protos and exits (set-up).
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
            yield f"{join(path, known.json_name)}: wire type {unknown.wire_type} cannot be of type {field_type(known)}"
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


def is_integer(bits, signed):
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)

    def check(value):
        if isinstance(value, str) and bits == 64 and value.lstrip("-").isdigit():
            value = int(value)  # a 64-bit integer may be a decimal string (as protobuf's JSON has it)
        return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high

    return check


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


T = FieldDescriptor
scalar_checks = {
    T.TYPE_STRING: lambda value: isinstance(value, str),
    T.TYPE_BYTES: lambda value: isinstance(value, str),
    T.TYPE_BOOL: lambda value: isinstance(value, bool),
    T.TYPE_DOUBLE: is_number,
    T.TYPE_FLOAT: is_number,
    **{t: is_integer(32, True) for t in (T.TYPE_INT32, T.TYPE_SINT32, T.TYPE_SFIXED32)},
    **{t: is_integer(32, False) for t in (T.TYPE_UINT32, T.TYPE_FIXED32)},
    **{t: is_integer(64, True) for t in (T.TYPE_INT64, T.TYPE_SINT64, T.TYPE_SFIXED64)},
    **{t: is_integer(64, False) for t in (T.TYPE_UINT64, T.TYPE_FIXED64)},
}


def object_value_problems(field, value, where):
    if field.message_type:
        yield from object_problems(field.message_type, value, where)
    elif field.enum_type:
        named = field.enum_type.values_by_name if isinstance(value, str) else field.enum_type.values_by_number
        if isinstance(value, bool) or not isinstance(value, (str, int)) or value not in named:
            yield f"{where}: {json.dumps(value)} is not a value of {field.enum_type.full_name}"
    elif not scalar_checks[field.type](value):
        yield f"{where}: {json.dumps(value)} is not of type {field_type(field)}"


def object_problems(descriptor, value, path=""):
    if not isinstance(value, dict):
        yield f"{path or descriptor.full_name}: {json.dumps(value)} is not a {descriptor.full_name}"
        return
    oneofs = {}
    for key, item in value.items():
        where = join(path, key)
        field = next((f for f in descriptor.fields if f.json_name == key), None)
        if field is None:
            yield f"{where}: {key} is not a field of {descriptor.full_name}"
            continue
        if item is None:
            continue  # unset
        if field.containing_oneof and not field.containing_oneof.name.startswith("_"):
            oneofs.setdefault(field.containing_oneof.name, []).append(key)
        if field.message_type and field.message_type.GetOptions().map_entry:
            if not isinstance(item, dict):
                yield f"{where}: {json.dumps(item)} is not a map"
                continue
            entry_value = field.message_type.fields_by_name["value"]
            for entry_key, entry in item.items():
                yield from object_value_problems(entry_value, entry, f"{where}[{json.dumps(entry_key)}]")
        elif field.is_repeated:
            if not isinstance(item, list):
                yield f"{where}: {json.dumps(item)} is not a list"
                continue
            for index, entry in enumerate(item):
                yield from object_value_problems(field, entry, f"{where}[{index}]")
        else:
            yield from object_value_problems(field, item, where)
    for oneof, keys in oneofs.items():
        if len(keys) > 1:
            yield f"{path or descriptor.full_name}: {' and '.join(keys)} are one oneof ({oneof}): at most one is set"


def problems(type_name, request):
    try:
        descriptor = pool.FindMessageTypeByName(type_name)
    except KeyError:
        return [f"{type_name} is not a message of the official protos"]
    if "object" in request:
        return list(object_problems(descriptor, request["object"]))
    if type_name not in classes:
        classes[type_name] = message_factory.GetMessageClass(descriptor)
    try:
        message = classes[type_name].FromString(base64.b64decode(request["body"]))
    except DecodeError as error:
        return [f"not a {type_name}: {error}"]
    return list(message_problems(message))


def main():
    if sys.argv[1:] == ["--check"]:
        assert problems("google.cloud.aiplatform.v1.CreateScheduleRequest", {"body": "CgFw"}) == []
        return
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        found = problems(request["type"], request)
        print(json.dumps({"id": request["id"], "problems": found}), flush=True)


main()
