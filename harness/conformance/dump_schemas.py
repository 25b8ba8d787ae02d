#!/usr/bin/env python3
"""Writes SkyPilot 0.14.1's task-file JSON schemas (sky/utils/schemas.py) to
planner/src/schema/skypilot/*.json, which the planner validates against
(planner/src/schema/json_schema.rs). Keys keep their order: jsonschema walks a
schema's keywords in dict order, which decides the first error reported.

Usage: $SKY_CONFORMANCE_VENV/bin/python harness/conformance/dump_schemas.py
"""
import json
import pathlib

from sky.utils import schemas

OUT = pathlib.Path(__file__).resolve().parents[2] / 'planner/src/schema/skypilot'

for name, make in [('task', schemas.get_task_schema),
                   ('resources', schemas.get_resources_schema),
                   ('service', schemas.get_service_schema),
                   ('storage', schemas.get_storage_schema)]:
    (OUT / f'{name}.json').write_text(json.dumps(make(), indent=1) + '\n')
