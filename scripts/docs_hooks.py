"""MkDocs hooks of the documentation site (``mkdocs.yml``: ``hooks``).

The reference pages that the program itself can write are written from the program when the
site is built, so they cannot drift from it:

* ``<!-- generated:cli -->`` becomes every ``sparring`` command with its arguments and
  options, read from the command line's own definition (what ``sparring COMMAND --help``
  shows);
* ``<!-- generated:http -->`` becomes every route of the HTTP API with its parameters,
  request body, answers and models, read from the service's OpenAPI document, which the site
  also serves as ``reference/openapi.json``;
* ``<!-- generated:fields:DOTTED.PATH -->`` becomes the table of a dataclass's fields (type,
  default, the field's docstring), read from the source by griffe, as mkdocstrings reads it.

Docstrings rendered by mkdocstrings keep Sphinx roles (``:class:`~a.B```); the pages show
them as plain code (``B``).

    .venv/bin/mkdocs build --strict -d /tmp/sparring-site   # the site, as scripts/test.sh builds it
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MARKERS = ("<!-- generated:cli -->", "<!-- generated:http -->")
FIELDS = re.compile(r"<!-- generated:fields:([\w.]+) -->")
ROLE = re.compile(r":(?:py:)?(?:meth|class|func|mod|data|attr|exc|obj):(<code>)(~?)([^<]*)</code>")
OPENAPI_URI = "reference/openapi.json"


def _use_this_checkout() -> None:
    """Import ``sparring`` from this checkout's ``src/`` (not an installed copy elsewhere)."""
    src = str(ROOT / "src")
    if src not in sys.path:
        sys.path.insert(0, src)


def _cell(text: object) -> str:
    """``text`` as one Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


_EXTRA = re.compile(r"\s*\[(default: [^\]]*|required)\]\s*$")


def _param_row(param: Any, ctx: Any) -> str:
    """One argument or option as a table row: its names, meaning and default."""
    record = param.get_help_record(ctx)
    names, help_text = record if record else (param.name, "")
    default = required = ""
    while match := _EXTRA.search(help_text):
        if match.group(1) == "required":
            required = " (required)"
        else:
            default = f"`{match.group(1).removeprefix('default: ')}`"
        help_text = help_text[: match.start()]
    if param.param_type_name == "argument":
        names = param.name.upper() + ("..." if param.nargs == -1 else "")
    return f"| `{names}`{required} | {_cell(help_text)} | {default} |"


def _usage(name: str, command: Any, ctx: Any) -> str:
    pieces = [
        re.sub(r"\{(\w+)\}", lambda m: m.group(1).upper(), p)
        for p in command.collect_usage_pieces(ctx)
    ]
    return " ".join(["sparring", name, *pieces])


def cli_markdown() -> str:
    """Every command of ``sparring`` with its help text, arguments and options (Markdown)."""
    _use_this_checkout()
    import typer

    from sparring.cli import app

    root = typer.main.get_command(app)
    commands = getattr(root, "commands", {})
    out = [
        "| command | what it does |",
        "| --- | --- |",
    ]
    for name, command in commands.items():
        first = (command.help or "").strip().split("\n\n")[0]
        out.append(f"| [`{name}`](#{name}) | {_cell(first)} |")
    for name, command in commands.items():
        out += ["", f"## {name}", ""]
        out += [" ".join(part.split()) + "\n" for part in (command.help or "").split("\n\n")]
        ctx = typer.Context(command, info_name=name)
        out += ["```text", _usage(name, command, ctx), "```", ""]
        if command.params:
            out += ["| argument or option | meaning | default |", "| --- | --- | --- |"]
            out += [_param_row(param, ctx) for param in command.params]
    return "\n".join(out) + "\n"


def openapi() -> dict[str, Any]:
    """The service's OpenAPI document (the app is built, not started)."""
    _use_this_checkout()
    import sparring.kinds  # noqa: F401  - the app needs the player kinds registered
    from sparring.service import create_app

    return create_app().openapi()


def _schema_name(schema: dict[str, Any] | None) -> str:
    """A short type for a JSON Schema: a model's name links to its section below."""
    if not schema:
        return ""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[`{name}`](#{name.lower()})"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(_schema_name(s) for s in schema[key])
    kind = schema.get("type", "")
    if kind == "array":
        return f"list of {_schema_name(schema.get('items'))}"
    if "enum" in schema:
        return " \\| ".join(f"`{v}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    return f"{kind}" if kind else "any"


def _operation(method: str, path: str, op: dict[str, Any]) -> list[str]:
    out = ["", f"### `{method.upper()} {path}`", ""]
    out.append(" ".join((op.get("description") or op.get("summary") or "").split()))
    params = op.get("parameters", [])
    if params:
        described = any(p.get("description") for p in params)
        head = "| parameter | in | type |" + (" meaning |" if described else "")
        out += ["", head, "| --- " * head.count(" |") + "|"]
        for p in params:
            req = " (required)" if p.get("required") else ""
            row = f"| `{p['name']}`{req} | {p['in']} | {_schema_name(p.get('schema'))} |"
            out.append(row + (f" {_cell(p.get('description', ''))} |" if described else ""))
    body = op.get("requestBody", {}).get("content", {}).get("application/json")
    if body:
        out += ["", f"Body: {_schema_name(body.get('schema'))}"]
    out += ["", "| status | answer |", "| --- | --- |"]
    errors = []
    for status, answer in op.get("responses", {}).items():
        content = answer.get("content", {})
        shape = ", ".join(_schema_name(c.get("schema")) or media for media, c in content.items())
        if status.startswith(("4", "5")):
            errors.append(status)
            continue
        out.append(f"| {status} | {_cell(answer.get('description', ''))} ({shape or 'no body'}) |")
    if errors:
        out.append(f"| {', '.join(errors)} | an [error](#errors) ([`ErrorBody`](#errorbody)) |")
    return out


def _errors(spec: dict[str, Any]) -> list[str]:
    """Each error status the API declares, with its meaning (the same on every route)."""
    meaning: dict[str, str] = {}
    for ops in spec.get("paths", {}).values():
        for op in ops.values():
            for status, answer in op.get("responses", {}).items():
                if status.startswith(("4", "5")):
                    meaning.setdefault(status, answer.get("description", ""))
    out = ["## Errors", "", "Every error answer is an `ErrorBody`; each route's table says which"]
    out += ["statuses it may answer.", "", "| status | meaning |", "| --- | --- |"]
    out += [f"| {status} | {_cell(meaning[status])} |" for status in sorted(meaning)]
    return out


def _model(name: str, schema: dict[str, Any]) -> list[str]:
    out = ["", f"### {name}", ""]
    if schema.get("description"):
        out += [" ".join(schema["description"].split()), ""]
    props = schema.get("properties", {})
    if not props:
        return out
    required = set(schema.get("required", []))
    out += ["| field | type | required | meaning |", "| --- | --- | --- | --- |"]
    for field, prop in props.items():
        desc = prop.get("description", "")
        if "default" in prop and prop["default"] is not None:
            desc = f"{desc} (default `{json.dumps(prop['default'])}`)".strip()
        out.append(
            f"| `{field}` | {_schema_name(prop)} | {'yes' if field in required else ''} | "
            f"{_cell(desc)} |"
        )
    return out


def http_markdown(spec: dict[str, Any]) -> str:
    """Every route of the HTTP API and every model it uses (Markdown) from ``spec``."""
    out = ["## Routes"]
    for path, ops in spec.get("paths", {}).items():
        for method, op in ops.items():
            out += _operation(method, path, op)
    out += ["", *_errors(spec), "", "## Models"]
    for name, schema in spec.get("components", {}).get("schemas", {}).items():
        if name in ("HTTPValidationError", "ValidationError"):
            continue
        out += _model(name, schema)
    return "\n".join(out) + "\n"


def fields_markdown(path: str) -> str:
    """The fields of the dataclass at ``path`` (``sparring.x.Y``) as a Markdown table: name,
    type, default and the field's docstring, read statically from this checkout's source."""
    import griffe

    package, _, rest = path.partition(".")
    obj = griffe.load(package, search_paths=[str(ROOT / "src")])[rest]
    out = ["| field | type | default | meaning |", "| --- | --- | --- | --- |"]
    for name, member in obj.members.items():
        if member.kind.value != "attribute" or name.startswith("_") or "property" in member.labels:
            continue
        default = "" if member.value is None else f"`{' '.join(str(member.value).split())}`"
        doc = member.docstring.value if member.docstring else ""
        out.append(
            f"| `{name}` | `{' '.join(str(member.annotation).split())}` | {default} | "
            f"{_cell(doc.replace('``', '`'))} |"
        )
    return "\n".join(out) + "\n"


# --- the hooks MkDocs calls ----------------------------------------------------------------

_SPEC: dict[str, Any] = {}


def on_files(files: Any, config: Any) -> Any:
    """Add ``reference/openapi.json`` (the service's OpenAPI document) to the site."""
    from mkdocs.structure.files import File

    _SPEC.clear()
    _SPEC.update(openapi())
    files.append(File.generated(config, OPENAPI_URI, content=json.dumps(_SPEC, indent=1) + "\n"))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Replace the pages' ``<!-- generated:... -->`` markers by what the program says."""
    if MARKERS[0] in markdown:
        markdown = markdown.replace(MARKERS[0], cli_markdown())
    if MARKERS[1] in markdown:
        markdown = markdown.replace(MARKERS[1], http_markdown(_SPEC or openapi()))
    return FIELDS.sub(lambda m: fields_markdown(m.group(1)), markdown)


def _plain_role(match: re.Match[str]) -> str:
    text = match.group(3)
    if match.group(2):  # ``~a.b.C`` shows ``C``
        text = text.rsplit(".", 1)[-1]
    return f"{match.group(1)}{text}</code>"


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """Sphinx roles left in rendered docstrings (``:class:`~a.B```) become plain code."""
    return ROLE.sub(_plain_role, html)
