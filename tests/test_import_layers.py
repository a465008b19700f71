"""The package-level import graph: the layers of the README's architecture section.

Every ``import`` in ``src/sparring`` (function-local ones included) is read with :mod:`ast`
and mapped to an edge ``sparring.X -> sparring.Y`` between top-level subpackages (or
top-level modules such as ``sparring.errors``).  The strength core that players use must not
reach the evaluation machinery, and the experiment layer sits above it.

String imports count as imports: ``importlib.import_module("sparring.x.y")``,
``import_module(f"sparring.x.{name}")`` and ``__import__("sparring.x")`` (a literal name or an
f-string with a literal prefix) are edges like ``import sparring.x.y``, so a string import of
a higher layer fails the layering test.  No two modules of the package import each other in a
circle (:func:`module_cycles`): every import counts, function-local ones and those under ``if
TYPE_CHECKING:`` included (a circle hidden in annotations or in a function still ties the
modules together); a failure prints each circle as a path of imports (:func:`cycle_path`).

Function-local imports in the player layers (:data:`LOCAL_IMPORT_SCOPE`) are only for the heavy
optional packages (:data:`HEAVY_PACKAGES`) or modules of sparring that import them when loaded,
each with a comment saying why (:func:`test_function_local_imports_are_heavy_and_say_why`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import sparring

ROOT = Path(sparring.__file__).resolve().parent


def _unit(module: str) -> str | None:
    """``sparring.evaluation.match`` -> ``evaluation``; None outside sparring."""
    parts = module.split(".")
    if parts[0] != "sparring" or len(parts) < 2:
        return None
    return parts[1]


def _is_type_checking(test: ast.expr) -> bool:
    """Whether an ``if`` test is ``TYPE_CHECKING`` (or ``typing.TYPE_CHECKING``)."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _runtime_nodes(tree: ast.AST, type_checking: bool) -> Iterator[ast.AST]:
    """Every node of ``tree``; the bodies of ``if TYPE_CHECKING:`` only when ``type_checking``."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        if not type_checking and isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))


def _string_import(node: ast.Call) -> str | None:
    """The module name (or literal prefix of an f-string) of ``import_module(...)`` /
    ``__import__(...)``; None for other calls or names built otherwise."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name not in ("import_module", "__import__") or not node.args:
        return None
    arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values:
        first = arg.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value.rstrip(".") or None
    return None


def source_imports(
    source: str, module: str, is_package: bool = False, type_checking: bool = True
) -> list[tuple[str, list[str], bool]]:
    """The imports of the module ``module`` whose text is ``source``: ``(target, names,
    by_string)`` per import, ``names`` the names of ``from target import names`` (empty
    otherwise), ``by_string`` for ``import_module`` / ``__import__`` calls.  With
    ``type_checking`` False, imports under ``if TYPE_CHECKING:`` are left out."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: list[tuple[str, list[str], bool]] = []
    for node in _runtime_nodes(ast.parse(source, module), type_checking):
        if isinstance(node, ast.Import):
            found.extend((a.name, [], False) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            target = ".".join(p for p in (base, node.module or "") if p)
            found.append((target, [a.name for a in node.names], False))
        elif isinstance(node, ast.Call):
            name = _string_import(node)
            if name is not None:
                found.append((name, [], True))
    return found


LAZY_FACADE = ("sparring", "sparring.api")
"""The one import allowed against the layers: the package's ``__init__`` loads the public API
(:mod:`sparring.api`, the top layer) by name on first use of one of its names (PEP 562
``__getattr__``), so that ``import sparring`` stays light and ``sparring.GameSession`` works."""


def _is_facade(module: str, target: str, by_string: bool) -> bool:
    """The facade's edge: its lazy string import, and its ``if TYPE_CHECKING:`` star import of
    the API's names for type checkers (never executed)."""
    return (module, target) == LAZY_FACADE


def _modules() -> dict[str, tuple[Path, bool]]:
    """Every module of the package: dotted name -> (file, is a package's ``__init__``)."""
    modules: dict[str, tuple[Path, bool]] = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = ["sparring", *rel.parts]
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def import_graph() -> dict[str, set[str]]:
    """Top-level unit -> units it imports (self-edges left out; string imports included)."""
    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in _modules().items():
        rel = path.relative_to(ROOT).with_suffix("")
        here = rel.parts[0]
        edges = graph.setdefault(here, set())
        for target, names, by_string in source_imports(path.read_text(), module, is_package):
            if _is_facade(module, target, by_string):
                continue
            # ``from sparring import errors`` names a module.
            targets = [f"{target}.{n}" for n in names] if target == "sparring" else [target]
            for name in targets:
                unit = _unit(name)
                if unit is not None and unit != here:
                    edges.add(unit)
    return graph


def module_graph(
    sources: Mapping[str, tuple[str, bool]], type_checking: bool = False
) -> dict[str, set[str]]:
    """Module -> the modules of ``sources`` it imports at run time (by default without the
    ``if TYPE_CHECKING:`` imports).  ``sources`` maps a dotted module name to its text and
    whether it is a package's ``__init__``.  ``from p import m`` of a submodule ``m`` is an
    edge to ``p.m``; importing ``p.m`` is not counted as importing the package ``p``."""
    graph: dict[str, set[str]] = {}
    for module, (source, is_package) in sources.items():
        edges = graph.setdefault(module, set())
        for target, names, by_string in source_imports(source, module, is_package, type_checking):
            if _is_facade(module, target, by_string):
                continue
            submodules = [f"{target}.{n}" for n in names if f"{target}.{n}" in sources]
            for name in submodules or [target]:
                while name not in sources and "." in name:
                    name = name.rsplit(".", 1)[0]
                if name in sources and name != module:
                    edges.add(name)
    return graph


def module_cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The import circles between modules (strongly connected components of more than one
    module), each sorted.  A circle through two packages is also one between the parts
    (:func:`test_no_import_cycle_between_parts`)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(start: str) -> None:  # iterative Tarjan
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        item = stack.pop()
                        on_stack.discard(item)
                        component.append(item)
                        if item == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components)


def package_sources() -> dict[str, tuple[str, bool]]:
    """Every module of ``src/sparring``: name -> (text, is a package's ``__init__``)."""
    return {name: (path.read_text(), is_pkg) for name, (path, is_pkg) in _modules().items()}


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph.get(start, ()))
    while todo:
        unit = todo.pop()
        if unit not in seen:
            seen.add(unit)
            todo.extend(graph.get(unit, ()))
    return seen


def test_graph_is_read() -> None:
    graph = import_graph()
    assert "evaluation" in graph["experiments"] and "strength" in graph["players"]


def test_strength_core_imports_only_errors() -> None:
    assert import_graph()["strength"] <= {"errors", "elo"}


def test_evaluation_and_players_do_not_import_experiments() -> None:
    graph = import_graph()
    assert "experiments" not in _reachable(graph, "evaluation")
    assert "experiments" not in _reachable(graph, "players")
    assert "experiments" not in _reachable(graph, "strength")


def test_no_cycle_through_strength_or_experiments() -> None:
    graph = import_graph()
    for unit in ("strength", "experiments"):
        assert unit not in _reachable(graph, unit), f"{unit} imports itself through others"


LAYERS: dict[str, int] = {
    # foundations, importable from anywhere
    "__init__": 0,
    "version": 0,
    "errors": 0,
    "elo": 0,
    "rng": 0,
    "configfile": 0,
    "rundir": 0,
    # rules
    "games": 1,
    # on the rules alone: records, the search (the network is a callback), strength steps
    "records": 2,
    "search": 2,
    "strength": 2,
    # the network: evaluators the search calls back
    "nn": 3,
    # players compose search, network and strength
    "players": 4,
    # a game in progress with its players
    "session": 5,
    # matches, series, ratings, stores; strength estimation
    "evaluation": 6,
    "estimation": 6,
    "profiles": 6,
    # training and experiments on top of evaluation
    "training": 7,
    "experiments": 7,
    # the level resolver: a request for a strength -> player settings (every front end's)
    "levels": 7,
    # interfaces; the composition root of the player kinds (imports players and estimation)
    "bench": 8,
    "kinds": 8,
    "engines": 8,
    "cli": 9,
    "service": 8,
    "__main__": 10,
    # the public Python API (``import sparring`` loads it lazily: LAZY_FACADE)
    "api": 10,
}
"""The layer of every top-level part of the package (docs/development/architecture.md): a part
imports only parts of lower layers; layer-0 parts are importable from anywhere."""


def test_every_part_has_a_layer() -> None:
    graph = import_graph()
    parts = set(graph) | {unit for edges in graph.values() for unit in edges}
    parts -= {"models"}  # data only: shipped networks, calibrations, estimators
    missing = sorted(parts - set(LAYERS))
    assert not missing, f"parts without a layer (add them to LAYERS and the README): {missing}"


def test_imports_go_down_the_layers() -> None:
    graph = import_graph()
    upward = sorted(
        f"{unit} (layer {LAYERS[unit]}) imports {other} (layer {LAYERS[other]})"
        for unit, edges in graph.items()
        for other in edges
        if LAYERS[other] > 0 and LAYERS[other] >= LAYERS[unit]
    )
    assert not upward, "imports against the layering:\n" + "\n".join(upward)


def test_no_import_cycle_between_parts() -> None:
    graph = import_graph()
    cyclic = sorted(unit for unit in graph if unit in _reachable(graph, unit))
    assert not cyclic, f"parts that import themselves through others: {cyclic}"


def string_imports_up(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """``import_module`` / ``__import__`` calls naming a part of a higher (or the same,
    other) layer than the importing module's part."""
    found = []
    for module, (source, is_package) in sorted(sources.items()):
        here = module.split(".")[1] if "." in module else "__init__"
        for target, _, by_string in source_imports(source, module, is_package):
            unit = _unit(target)
            if not by_string or unit is None or unit == here or _is_facade(module, target, True):
                continue
            if LAYERS.get(unit, 99) > 0 and LAYERS.get(unit, 99) >= LAYERS.get(here, 0):
                found.append(f"{module} imports {target!r} by name")
    return found


def test_no_string_import_of_a_higher_layer() -> None:
    assert not string_imports_up(package_sources())


def cycle_path(graph: Mapping[str, set[str]], component: list[str]) -> list[str]:
    """One circle of imports through the strongly connected ``component`` of ``graph``: its
    first module, the modules on a shortest way back to it, and the first module again."""
    start = component[0]
    inside = set(component)
    before: dict[str, str] = {}
    todo = [start]
    while todo:
        nxt = []
        for node in todo:
            for child in sorted(graph.get(node, ()) & inside):
                if child == start:
                    path = [start]
                    while node != start:
                        path.append(node)
                        node = before[node]
                    return [start, *reversed(path[1:]), start]
                if child not in before:
                    before[child] = node
                    nxt.append(child)
        todo = nxt
    raise ValueError(f"{component} is not a circle of {sorted(graph)}")


def describe_cycles(graph: Mapping[str, set[str]]) -> str:
    """Every circle of ``graph``: its modules, and one path of imports around it."""
    return "\n".join(
        f"{len(c)} modules: {', '.join(c)}\n  e.g. {' -> '.join(cycle_path(graph, c))}"
        for c in module_cycles(graph)
    )


def test_no_import_cycle_between_modules() -> None:
    """No circle in the whole package, counting imports under ``if TYPE_CHECKING:`` and
    function-local ones (players/, estimation/, nn/, kinds.py and levels.py among them)."""
    graph = module_graph(package_sources(), type_checking=True)
    cycles = module_cycles(graph)
    assert not cycles, "modules that import each other in a circle:\n" + describe_cycles(graph)
    players = [m for m in graph if m.startswith("sparring.players.")]
    assert "sparring.players.human_like" in players and len(players) > 15  # the graph is read


def test_checker_catches_a_type_only_cycle() -> None:
    sources = {
        "sparring.players": ("", True),
        "sparring.players.settings": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from sparring.players.cache import Cache\n",
            False,
        ),
        "sparring.players.cache": ("def f():\n    from . import alphazero\n", False),
        "sparring.players.alphazero": ("from sparring.players.settings import X\n", False),
    }
    circle = ["sparring.players.alphazero", "sparring.players.cache", "sparring.players.settings"]
    graph = module_graph(sources, type_checking=True)
    assert module_cycles(graph) == [circle]
    assert cycle_path(graph, circle) == [
        "sparring.players.alphazero",
        "sparring.players.settings",
        "sparring.players.cache",
        "sparring.players.alphazero",
    ]
    assert "e.g. sparring.players.alphazero -> sparring.players.settings" in describe_cycles(graph)
    assert module_cycles(module_graph(sources)) == []  # without the type-only import


HEAVY_PACKAGES = frozenset(
    {"torch", "onnx", "onnxruntime", "ray", "fastapi", "uvicorn", "matplotlib", "scipy"}
)
"""Packages a module may import inside a function, so that importing the module stays fast
(PyTorch, ONNX Runtime, Ray, the web stack, matplotlib; scipy.optimize and scipy.stats take
1 to 2 s to import on a 2-core CPU)."""
LOCAL_IMPORT_SCOPE = (
    "sparring.players",
    "sparring.estimation",
    "sparring.nn",
    "sparring.kinds",
    "sparring.levels",
)
"""The modules whose function-local imports :data:`HEAVY_PACKAGES` rules."""


def _module_level_imports(source: str, module: str, is_package: bool) -> set[str]:
    """The modules ``source`` imports at module level (not inside functions or classes, nor
    under ``if TYPE_CHECKING:``)."""
    package = module.split(".") if is_package else module.split(".")[:-1]
    found: set[str] = set()
    todo: list[ast.stmt] = list(ast.parse(source).body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1]) if node.level else ""
            target = ".".join(p for p in (base, node.module or "") if p)
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.If | ast.Try) and not (
            isinstance(node, ast.If) and _is_type_checking(node.test)
        ):
            todo.extend(node.body + node.orelse)
    return found


def heavy_modules(sources: Mapping[str, tuple[str, bool]]) -> set[str]:
    """The modules of ``sources`` that load a :data:`HEAVY_PACKAGES` package when imported
    (directly, or through another such module)."""
    imports = {m: _module_level_imports(s, m, pkg) for m, (s, pkg) in sources.items()}
    heavy = {
        m for m, names in imports.items() if any(n.split(".")[0] in HEAVY_PACKAGES for n in names)
    }
    grew = True
    while grew:
        more = {m for m, names in imports.items() if m not in heavy and names & heavy}
        heavy |= more
        grew = bool(more)
    return heavy


def local_imports_without_reason(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """``module:line target`` for every function-local import in :data:`LOCAL_IMPORT_SCOPE`
    of a light module, and for every function-local import group with no comment (on the
    line above its first import, or on one of its lines)."""
    heavy = heavy_modules(sources)
    found = []
    for module, (source, is_package) in sorted(sources.items()):
        if not module.startswith(LOCAL_IMPORT_SCOPE):
            continue
        lines = source.splitlines()
        package = module.split(".") if is_package else module.split(".")[:-1]
        for func in ast.walk(ast.parse(source)):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for body in _bodies(func):
                group: list[ast.Import | ast.ImportFrom] = []
                for stmt in [*body, None]:
                    if isinstance(stmt, ast.Import | ast.ImportFrom):
                        group.append(stmt)
                        continue
                    if group:
                        found.extend(_check_group(group, lines, module, package, heavy))
                    group = []
    return found


def _bodies(func: ast.AST) -> Iterator[list[ast.stmt]]:
    """The statement lists inside ``func`` (its body, and those of its blocks), not those of
    nested functions (they are walked on their own)."""
    todo: list[ast.AST] = [func]
    while todo:
        node = todo.pop()
        for name in ("body", "orelse", "finalbody", "handlers"):
            stmts = getattr(node, name, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield stmts
            if isinstance(stmts, list):
                todo.extend(
                    s
                    for s in stmts
                    if not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                )


def _check_group(
    group: list[ast.Import | ast.ImportFrom],
    lines: list[str],
    module: str,
    package: list[str],
    heavy: set[str],
) -> list[str]:
    bad = []
    for stmt in group:
        if isinstance(stmt, ast.Import):
            targets = [a.name for a in stmt.names]
        else:
            base = ".".join(package[: len(package) - stmt.level + 1]) if stmt.level else ""
            target = ".".join(p for p in (base, stmt.module or "") if p)
            subs = [f"{target}.{a.name}" for a in stmt.names]
            targets = [t for t in subs if t in heavy] or [target]
        for target in targets:
            if target.split(".")[0] not in HEAVY_PACKAGES and target not in heavy:
                bad.append(f"{module}:{stmt.lineno} imports {target} in a function (not heavy)")
    first, last = group[0].lineno, group[-1].end_lineno or group[-1].lineno
    above = lines[first - 2].strip() if first >= 2 else ""
    said = above.startswith("#") or any("#" in lines[i - 1] for i in range(first, last + 1))
    if not said:
        bad.append(f"{module}:{first} imports in a function without a comment saying why")
    return bad


def test_function_local_imports_are_heavy_and_say_why() -> None:
    sources = package_sources()
    assert {"sparring.nn.model", "sparring.nn.strength_net"} <= heavy_modules(sources)
    assert "sparring.players.settings" not in heavy_modules(sources)
    bad = local_imports_without_reason(sources)
    assert not bad, "function-local imports of light modules, or with no reason given:\n" + (
        "\n".join(bad)
    )


def test_local_import_checker_flags_light_and_unexplained_imports() -> None:
    sources = {
        "sparring.nn": ("", True),
        "sparring.nn.net": ("import torch\n", False),
        "sparring.players": ("", True),
        "sparring.players.x": (
            "def a():\n    # torch: loaded with the first network\n    import torch\n"
            "def b():\n    from sparring.nn import net  # the network needs torch\n"
            "def c():\n    import json\n"
            "def d():\n    if True:\n        from sparring.nn.net import N\n",
            False,
        ),
    }
    assert heavy_modules(sources) == {"sparring.nn.net"}
    assert local_imports_without_reason(sources) == [
        "sparring.players.x:7 imports json in a function (not heavy)",
        "sparring.players.x:7 imports in a function without a comment saying why",
        "sparring.players.x:10 imports in a function without a comment saying why",
    ]


def test_checker_catches_an_injected_cycle_and_string_import() -> None:
    sources = {
        "sparring.players": ("", True),
        "sparring.players.a": ("from sparring.players.b import thing\n", False),
        "sparring.players.b": ("def f():\n    from . import c\n", False),
        "sparring.players.c": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from sparring.players.d import X\n"
            "def g():\n    import sparring.players.a\n",
            False,
        ),
        "sparring.players.d": ("from sparring.players.a import thing\n", False),
        "sparring.players.e": (
            "import importlib\n"
            "def h():\n    importlib.import_module('sparring.estimation.human_like')\n"
            "    __import__(f'sparring.cli.{h}')\n"
            "    importlib.import_module('sparring.players.a')\n",
            False,
        ),
    }
    graph = module_graph(sources)
    # function-local imports count; the TYPE_CHECKING one (c -> d) does not
    assert module_cycles(graph) == [
        ["sparring.players.a", "sparring.players.b", "sparring.players.c"]
    ]
    assert "sparring.players.d" in module_graph(sources, type_checking=True)["sparring.players.c"]
    assert module_graph(sources)["sparring.players.e"] == {"sparring.players.a"}
    assert sorted(string_imports_up(sources)) == [
        "sparring.players.e imports 'sparring.cli' by name",
        "sparring.players.e imports 'sparring.estimation.human_like' by name",
    ]
    # without the function-local import there is no circle
    sources["sparring.players.c"] = ("def g():\n    pass\n", False)
    assert module_cycles(module_graph(sources)) == []
