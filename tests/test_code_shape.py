"""The code's shape: no function over 120 lines outside compiled kernels, and no function that
nothing uses.

* A function (or method, or nested function) of ``src/sparring`` may be at most
  :data:`MAX_LINES` lines long, from its ``def`` line to its last line; numba kernels
  (decorated with ``njit`` / ``jit`` / ``numba.*``) are exempt.  :data:`LONG_ALLOWED` names the
  few that are still longer; each must still be longer, so the list cannot go stale.
* Every module-level function of ``src/sparring`` is used: referenced by name (a call, an
  attribute, a registration such as ``register_factory("k", ...)(f)``, a typer command's
  ``app.command()(f)``) or by string (a ``"module:function"`` or dotted spec) outside its own
  body, in the package or in the repository's programs (``scripts/``, ``research/``), or
  registered by a decorator, or it is public API: the names of ``sparring.__all__`` and
  ``sparring.api.__all__``, the Python API reference's ``::: sparring...`` entries and the
  ``from sparring... import`` lines of the documentation's examples, the console scripts of
  ``pyproject.toml``, and :data:`DOCUMENTED` (each checked against the page that documents it).
  The tests do not count as a use: a function only they call is dead code.
"""

from __future__ import annotations

import ast
import re
import textwrap
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias

import sparring

SRC = Path(sparring.__file__).resolve().parent
ROOT = SRC.parents[1]
PROGRAMS = (ROOT / "scripts", ROOT / "research")
"""The repository's own programs: their uses of the package count."""
MAX_LINES = 120

LONG_ALLOWED: dict[str, str] = {}
"""Functions still over :data:`MAX_LINES`, with why they may be for now."""

DOCUMENTED: dict[str, str] = {
    # the table of the functions that play a command's games and take backend=
    "sparring.evaluation.series.run_series": "docs/research/ray.md",
}
"""Public functions documented outside the API reference: the page that documents each."""

_NUMBA = ("njit", "jit", "generated_jit", "vectorize", "guvectorize", "cfunc", "stencil")
_REGISTERING = (
    "command",
    "callback",
    "fixture",
    "hookimpl",
    "route",
    "get",
    "post",
    "put",
    "patch",
    "delete",
    "websocket",
    "exception_handler",
    "middleware",
)
"""Decorators (by their last name) that register the function they decorate, as do those
named ``register...`` (but numba's ``register_jitable``)."""
_SPEC = re.compile(r"[A-Za-z_][\w.]*(:[A-Za-z_]\w*)?")
_Function: TypeAlias = ast.FunctionDef | ast.AsyncFunctionDef


# ---- long functions ---------------------------------------------------------------------------
def _decorator_name(node: ast.expr) -> str:
    return ast.unparse(node.func if isinstance(node, ast.Call) else node)


def _is_kernel(node: _Function) -> bool:
    for decorator in node.decorator_list:
        name = _decorator_name(decorator)
        if name.split(".")[0] in ("numba", "nb") or name.split(".")[-1] in _NUMBA:
            return True
    return False


def long_functions(source: str, module: str, limit: int = MAX_LINES) -> dict[str, int]:
    """``module.qualified.name -> lines`` of every function of ``source`` (methods and nested
    functions too) longer than ``limit`` lines, numba kernels left out."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _Function):
                name = f"{prefix}.{child.name}"
                lines = (child.end_lineno or child.lineno) - child.lineno + 1
                if lines > limit and not _is_kernel(child):
                    found[name] = lines
                visit(child, name)
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}.{child.name}")
            else:
                visit(child, prefix)

    visit(ast.parse(source), module)
    return found


def _modules(root: Path, package: str) -> Iterator[tuple[str, Path]]:
    for path in sorted(root.rglob("*.py")):
        parts = (package, *path.relative_to(root).with_suffix("").parts)
        yield ".".join(parts).removesuffix(".__init__"), path


def test_no_function_is_over_the_limit() -> None:
    long: dict[str, int] = {}
    for module, path in _modules(SRC, "sparring"):
        long.update(long_functions(path.read_text(), module))
    over = {name: lines for name, lines in long.items() if name not in LONG_ALLOWED}
    assert over == {}, f"functions over {MAX_LINES} lines: split them"
    stale = sorted(name for name in LONG_ALLOWED if name not in long)
    assert stale == [], f"no longer over {MAX_LINES} lines: take them off LONG_ALLOWED"


def test_long_functions_finds_methods_and_nested_functions_but_not_kernels() -> None:
    def body(lines: int) -> str:
        return "".join(f"    x{i} = {i}\n" for i in range(lines - 1))

    source = "".join(
        [
            f"def short():\n{body(120)}",
            f"def long():\n{body(121)}",
            f"@nb.njit(cache=True)\ndef kernel():\n{body(200)}",
            f"@njit\ndef kernel2():\n{body(200)}",
            "class C:\n" + textwrap.indent(f"def method(self):\n{body(130)}", "    "),
            "def outer():\n",
            textwrap.indent(f"def inner():\n{body(125)}", "    "),
            "    return inner\n",
        ]
    )
    assert long_functions(source, "m") == {
        "m.long": 121,
        "m.C.method": 130,
        "m.outer": 127,
        "m.outer.inner": 125,
    }


# ---- unused functions -------------------------------------------------------------------------
@dataclass
class _Uses:
    """The names a body of code uses: ``(name, module, top-level function)`` where the use
    sits (the function None outside one)."""

    found: list[tuple[str, str, str | None]]

    def add(self, tree: ast.Module, module: str) -> None:
        def visit(node: ast.AST, owner: str | None) -> None:
            if _is_all(node) or _is_bare_string(node):
                return
            if isinstance(node, ast.Name):
                self.found.append((node.id, module, owner))
            elif isinstance(node, ast.Attribute):
                self.found.append((node.attr, module, owner))
            elif isinstance(node, ast.alias) and node.asname:  # used under another name
                self.found.append((node.name.rpartition(".")[2], module, owner))
            elif _is_spec(node):  # "module:function", "pkg.module.function"
                assert isinstance(node, ast.Constant)
                self.found.append((re.split(r"[.:]", node.value)[-1], module, owner))
            for child in ast.iter_child_nodes(node):
                top = child.name if node is tree and isinstance(child, _Function) else owner
                visit(child, top)

        visit(tree, None)

    def used(self, module: str, name: str) -> bool:
        """Whether ``module.name`` is used outside its own body."""
        return any(n == name and (m, o) != (module, name) for n, m, o in self.found)


def _is_all(node: ast.AST) -> bool:
    targets = (
        node.targets
        if isinstance(node, ast.Assign)
        else [node.target]
        if isinstance(node, ast.AugAssign | ast.AnnAssign)
        else []
    )
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def _is_spec(node: ast.AST) -> bool:
    """A string that names a function: ``name``, ``module:name`` or ``pkg.module.name``."""
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and _SPEC.fullmatch(node.value) is not None
    )


def _is_bare_string(node: ast.AST) -> bool:
    """A docstring or another string statement (words, not a use)."""
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _registered(node: _Function) -> bool:
    for decorator in node.decorator_list:
        last = _decorator_name(decorator).split(".")[-1]
        if last in _REGISTERING or (last.startswith("register") and last != "register_jitable"):
            return True
    return False


def _all_names(path: Path) -> list[str]:
    for node in ast.parse(path.read_text()).body:
        if _is_all(node) and isinstance(node, ast.Assign | ast.AnnAssign) and node.value:
            names: list[str] = ast.literal_eval(node.value)
            return names
    return []


def _imports(code: str | ast.AST) -> Iterator[tuple[str, str]]:
    """``(module, name)`` of every ``from module import name`` of ``code``."""
    for node in ast.walk(ast.parse(code) if isinstance(code, str) else code):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                yield node.module, alias.name


def _defined_in(qualified: str, trees: dict[str, ast.Module]) -> str:
    """Where the function ``qualified`` is defined, following re-exports (``from x import
    f`` in a package's ``__init__``)."""
    module, _, name = qualified.rpartition(".")
    for _ in range(10):
        tree = trees.get(module)
        if tree is None or any(isinstance(n, _Function) and n.name == name for n in tree.body):
            break
        sources = [m for m, n in _imports(tree) if n == name]
        if not sources:
            break
        module = sources[0]
    return f"{module}.{name}"


def public_functions(src: Path, docs: Path, pyproject: Path) -> set[str]:
    """The public API's functions, by the module that defines each (see the module doc)."""
    package = src.name
    trees = {module: ast.parse(path.read_text()) for module, path in _modules(src, package)}
    named: set[str] = set()
    for module in (package, f"{package}.api"):
        path = src / ("__init__.py" if module == package else "api.py")
        if not path.is_file():
            continue
        exported = set(_all_names(path))
        named |= {f"{m}.{n}" for m, n in _imports(path.read_text()) if n in exported}
        named |= {f"{module}.{n}" for n in exported}
    for page in sorted(docs.rglob("*.md")):
        text = page.read_text()
        named |= set(re.findall(rf"^::: ({package}\.[\w.]+)", text, re.M))
        for block in re.findall(r"```python\n(.*?)```", text, re.S):
            named |= {f"{m}.{n}" for m, n in _imports(block) if m.split(".")[0] == package}
    if pyproject.is_file():
        scripts = tomllib.loads(pyproject.read_text()).get("project", {}).get("scripts", {})
        named |= {target.replace(":", ".") for target in scripts.values()}
    return {_defined_in(name, trees) for name in named}


def unused_functions(src: Path, programs: Iterable[Path], public: set[str]) -> list[str]:
    """Module-level functions of the package in ``src`` that nothing uses (see the module
    doc), as ``module.name``."""
    uses = _Uses([])
    defined: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for module, path in _modules(src, src.name):
        tree = ast.parse(path.read_text())
        uses.add(tree, module)
        defined += [(module, n) for n in tree.body if isinstance(n, _Function)]
    for folder in programs:
        for path in sorted(folder.rglob("*.py")):
            uses.add(ast.parse(path.read_text()), f"{folder.name}/{path.name}")
    return [
        f"{module}.{node.name}"
        for module, node in defined
        if not (node.name.startswith("__") and node.name.endswith("__"))  # __getattr__, ...
        and f"{module}.{node.name}" not in public
        and not _registered(node)
        and not uses.used(module, node.name)
    ]


def test_every_function_is_used_or_public() -> None:
    public = public_functions(SRC, ROOT / "docs", ROOT / "pyproject.toml")
    for name, page in DOCUMENTED.items():
        assert f"`{name.rpartition('.')[2]}`" in (ROOT / page).read_text(), (name, page)
    unused = unused_functions(SRC, PROGRAMS, public | set(DOCUMENTED))
    assert unused == [], "functions nothing uses: remove them (and their tests)"


def test_unused_functions_sees_uses_by_name_string_registration_and_docs(tmp_path: Path) -> None:
    src = tmp_path / "src" / "pkg"
    (src / "sub").mkdir(parents=True)
    (src / "__init__.py").write_text('__all__ = ["exported"]\nfrom pkg.sub.impl import exported\n')
    (src / "api.py").write_text('from pkg.sub import shown\n__all__ = ["shown"]\n')
    (src / "sub" / "__init__.py").write_text("from pkg.sub.impl import shown\n")
    (src / "sub" / "impl.py").write_text(
        textwrap.dedent(
            '''
            """dead_in_doc"""
            __all__ = ["dead_in_all"]

            def exported(): ...
            def shown(): ...
            def called(): ...
            def by_attribute(): ...
            def by_spec(): ...
            def by_colon_spec(): ...
            @app.command()
            def command(): ...
            @register_kind("k")
            def registered(): ...
            @nb.register_jitable
            def jitable_only(): ...
            def in_docs(): ...
            def in_reference(): ...
            def main(): ...
            def for_a_script(): ...
            def renamed(): ...
            def dead_in_all(): ...
            def dead_in_doc(): ...
            def tests_only(): ...
            def recursive(n):
                return recursive(n - 1)
            def __getattr__(name): ...

            def user():
                called()
                module.by_attribute()
                return ["pkg.sub.impl.by_spec", "pkg.sub.impl:by_colon_spec"]
            '''
        )
    )
    (src / "sub" / "other.py").write_text("from pkg.sub.impl import renamed as alias\nalias()\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "tool.py").write_text(
        "from pkg.sub.impl import for_a_script\nfor_a_script()\n"
    )
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text(
        "::: pkg.sub.impl.in_reference\n\n```python\nfrom pkg.sub.impl import in_docs\n```\n"
    )
    (tmp_path / "pyproject.toml").write_text('[project.scripts]\npkg = "pkg.sub.impl:main"\n')
    public = public_functions(src, tmp_path / "docs", tmp_path / "pyproject.toml")
    assert public >= {"pkg.sub.impl.exported", "pkg.sub.impl.shown", "pkg.sub.impl.in_docs"}
    unused = unused_functions(src, [tmp_path / "scripts"], public)
    assert unused == [
        "pkg.sub.impl.jitable_only",
        "pkg.sub.impl.dead_in_all",
        "pkg.sub.impl.dead_in_doc",
        "pkg.sub.impl.tests_only",
        "pkg.sub.impl.recursive",
        "pkg.sub.impl.user",
    ]
