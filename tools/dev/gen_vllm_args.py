#!/usr/bin/env python3
"""Generate evalkit's `vllm serve` argument table from a vLLM wheel, without importing it.

    pip download vllm==0.26.0 --no-deps -d /tmp/vllm-wheels
    python tools/dev/gen_vllm_args.py /tmp/vllm-wheels/vllm-0.26.0-*.whl

writes tools/evalkit/data/vllm-0.26.0-serve.json. The wheel's Python sources are read
with the `ast` module only (vLLM's own modules import torch and CUDA code). The script
emulates the parts of vLLM that build the `serve` parser:

- `EngineArgs.add_cli_args`, `FrontendArgs.add_cli_args` and `make_arg_parser`, which
  call `add_argument("--flag", **get_kwargs(SomeConfig)["field"])`;
- `get_kwargs` itself, which derives argparse settings from a dataclass field's type:
  `bool` -> `--flag/--no-flag`, `Literal[...]` -> choices (but only a metavar when `str`
  is also allowed), `list[...]` -> one or more values, `bool | str | None` -> an
  optional value, anything else -> one value;
- the reasoning-parser and tool-parser registries (the `_..._TO_REGISTER` tables and
  `register_module` decorators).

When the emulation cannot tell a flag's choices it leaves them out, so the table errs
towards accepting a value rather than rejecting one. The test tests/test_vllm_args.py
checks the output on flags whose behaviour is known.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "evalkit" / "data"
BUILTIN_SCALARS = {"bool", "str", "int", "float", "dict", "bytes"}
COLLECTIONS = {"list": "list", "List": "list", "Sequence": "list", "set": "set",
               "Set": "set", "frozenset": "set", "tuple": "tuple", "Tuple": "tuple"}  # fmt: skip
NO_VALUE_ACTIONS = {"store_true", "store_false", "store_const", "count", "help", "version"}


# -- the wheel as a set of parsed modules ---------------------------------------------------
class Sources:
    def __init__(self, wheel: Path):
        self.zip = zipfile.ZipFile(wheel)
        self.files = {n for n in self.zip.namelist() if n.endswith(".py")}
        self._trees: dict[str, ast.Module | None] = {}

    def path_of(self, module: str) -> str | None:
        base = module.replace(".", "/")
        for candidate in (base + ".py", base + "/__init__.py"):
            if candidate in self.files:
                return candidate
        return None

    def tree(self, module: str) -> ast.Module | None:
        if module not in self._trees:
            path = self.path_of(module)
            self._trees[module] = ast.parse(self.zip.read(path).decode("utf-8")) if path else None
        return self._trees[module]

    def modules_under(self, package: str) -> list[str]:
        prefix = package.replace(".", "/") + "/"
        return sorted(n[:-3].replace("/", ".") for n in self.files if n.startswith(prefix))

    def version(self) -> str:
        for name in self.zip.namelist():
            m = re.fullmatch(r"vllm-([^/]+)\.dist-info/METADATA", name)
            if m:
                return m.group(1)
        raise SystemExit("not a vLLM wheel: no vllm-*.dist-info/METADATA")


def _is_type_checking(test: ast.expr) -> bool:
    return "TYPE_CHECKING" in ast.unparse(test)


def runtime_statements(body: list[ast.stmt]):
    """Top-level statements as they run: the else branch of `if TYPE_CHECKING`."""
    for stmt in body:
        if isinstance(stmt, ast.If):
            branch = stmt.orelse if _is_type_checking(stmt.test) else stmt.body + stmt.orelse
            yield from runtime_statements(branch)
        elif isinstance(stmt, ast.Try):
            yield from runtime_statements(stmt.body)
        else:
            yield stmt


@dataclass
class ClassRef:
    module: str
    node: ast.ClassDef


class Resolver:
    """Finds what a name means in a module: a class, a type alias, or an import."""

    def __init__(self, src: Sources):
        self.src = src

    def lookup(self, module: str, name: str, depth: int = 0):
        """('class', ClassRef) | ('alias', module, expr) | ('module', name) | None."""
        tree = self.src.tree(module)
        if tree is None or depth > 12:
            return None
        found = None
        for stmt in runtime_statements(tree.body):
            if isinstance(stmt, ast.ClassDef) and stmt.name == name:
                found = ("class", ClassRef(module, stmt))
            elif (
                isinstance(stmt, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
                or (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and stmt.target.id == name
                    and stmt.value is not None
                )
            ):
                found = ("alias", module, stmt.value)
            elif getattr(ast, "TypeAlias", None) and isinstance(stmt, ast.TypeAlias):
                if stmt.name.id == name:
                    found = ("alias", module, stmt.value)
            elif isinstance(stmt, ast.ImportFrom):
                for alias in stmt.names:
                    if (alias.asname or alias.name) == name:
                        found = ("import", self._absolute(module, stmt), alias.name)
            elif isinstance(stmt, ast.Import):
                for alias in stmt.names:
                    if (alias.asname or alias.name.split(".")[0]) == name:
                        found = ("module", alias.name if alias.asname else name)
        if found and found[0] == "import":
            _, source, original = found
            if self.src.tree(f"{source}.{original}") is not None:
                return ("module", f"{source}.{original}")
            return self.lookup(source, original, depth + 1)
        return found

    def _absolute(self, module: str, stmt: ast.ImportFrom) -> str:
        if not stmt.level:
            return stmt.module or ""
        is_package = (self.src.path_of(module) or "").endswith("__init__.py")
        parts = module.split(".")
        keep = len(parts) - stmt.level + (1 if is_package else 0)
        base = ".".join(parts[:keep])
        return f"{base}.{stmt.module}" if stmt.module else base

    def find_class(self, module: str, expr: ast.expr) -> ClassRef | None:
        found = self.resolve_expr(module, expr)
        return found[1] if found and found[0] == "class" else None

    def resolve_expr(self, module: str, expr: ast.expr):
        if isinstance(expr, ast.Name):
            return self.lookup(module, expr.id)
        if isinstance(expr, ast.Attribute):
            owner = self.resolve_expr(module, expr.value)
            if owner and owner[0] == "module":
                return self.lookup(owner[1], expr.attr)
        return None

    # -- dataclasses ------------------------------------------------------------------
    def bases(self, cls: ClassRef) -> list[ClassRef]:
        out = []
        for base in cls.node.bases:
            ref = self.find_class(cls.module, base)
            if ref is not None:
                out.append(ref)
        return out

    def is_enum(self, cls: ClassRef, depth: int = 0) -> bool:
        names = {ast.unparse(b).split(".")[-1] for b in cls.node.bases}
        if names & {"Enum", "IntEnum", "StrEnum", "Flag", "IntFlag"}:
            return True
        return depth < 8 and any(self.is_enum(b, depth + 1) for b in self.bases(cls))

    def is_dataclass(self, cls: ClassRef, depth: int = 0) -> bool:
        for deco in cls.node.decorator_list:
            target = deco.func if isinstance(deco, ast.Call) else deco
            if ast.unparse(target).split(".")[-1] in ("dataclass", "config"):
                return True
        return depth < 8 and any(self.is_dataclass(b, depth + 1) for b in self.bases(cls))

    def fields(self, cls: ClassRef) -> list[tuple[str, str, ast.expr]]:
        """(name, module, annotation) in dataclass order: base classes first."""
        out: dict[str, tuple[str, str, ast.expr]] = {}
        for base in reversed(self.bases(cls)):
            for item in self.fields(base):
                out[item[0]] = item
        for stmt in cls.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                if "ClassVar" in ast.unparse(stmt.annotation):
                    continue
                out[stmt.target.id] = (stmt.target.id, cls.module, stmt.annotation)
        return list(out.values())

    def method(self, cls: ClassRef, name: str) -> tuple[ClassRef, ast.FunctionDef] | None:
        for stmt in cls.node.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
                return cls, stmt
        for base in self.bases(cls):
            found = self.method(base, name)
            if found:
                return found
        return None


# -- a field's type, read the way vLLM's get_kwargs reads it ------------------------------
@dataclass(frozen=True)
class Hint:
    kind: str  # bool str int float none dict list set tuple literal dataclass other
    values: tuple = ()  # literal values; element hints of a collection
    fixed: int | None = None  # tuple[int, int] -> 2


class TypeReader:
    def __init__(self, resolver: Resolver):
        self.r = resolver

    def hints(self, module: str, expr: ast.expr | None, depth: int = 0) -> set[Hint]:
        if expr is None or depth > 16:
            return {Hint("other")}
        if isinstance(expr, ast.Constant):
            if expr.value is None:
                return {Hint("none")}
            if isinstance(expr.value, str):  # a forward reference
                try:
                    return self.hints(module, ast.parse(expr.value, mode="eval").body, depth + 1)
                except SyntaxError:
                    return {Hint("other")}
            return {Hint("other")}
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            return self.hints(module, expr.left, depth + 1) | self.hints(
                module, expr.right, depth + 1
            )
        if isinstance(expr, ast.Subscript):
            return self._subscript(module, expr, depth)
        name = ast.unparse(expr).split(".")[-1]
        if isinstance(expr, ast.Name) and name in BUILTIN_SCALARS:
            return {Hint(name)}
        if name in ("None", "NoneType"):
            return {Hint("none")}
        if name in COLLECTIONS:
            return {Hint(COLLECTIONS[name], (Hint("str"),))}
        if name in ("Dict", "Mapping"):
            return {Hint("dict")}
        found = self.r.resolve_expr(module, expr)
        if found is None:
            return {Hint("other")}
        if found[0] == "alias":
            return self.hints(found[1], found[2], depth + 1)
        if found[0] == "class":
            if self.r.is_enum(found[1]):
                return {Hint("other")}
            if self.r.is_dataclass(found[1]):
                return {Hint("dataclass")}
            return {Hint("other")}
        return {Hint("other")}

    def _subscript(self, module: str, expr: ast.Subscript, depth: int) -> set[Hint]:
        origin = ast.unparse(expr.value).split(".")[-1]
        args = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
        if origin in ("Optional",):
            return self.hints(module, args[0], depth + 1) | {Hint("none")}
        if origin == "Union":
            out: set[Hint] = set()
            for arg in args:
                out |= self.hints(module, arg, depth + 1)
            return out
        if origin == "Annotated":
            return self.hints(module, args[0], depth + 1)
        if origin == "Literal":
            values = []
            for arg in args:
                if isinstance(arg, ast.Constant):
                    values.append(arg.value)
                else:  # Literal[OtherLiteral, ...]
                    for h in self.hints(module, arg, depth + 1):
                        values.extend(h.values if h.kind == "literal" else [])
            return {Hint("literal", tuple(values))}
        if origin in COLLECTIONS:
            kind = COLLECTIONS[origin]
            if kind == "tuple":
                elems = [a for a in args if not (isinstance(a, ast.Constant) and a.value is ...)]
                fixed = None if len(elems) != len(args) else len(args)
                elem = self.hints(module, elems[0], depth + 1) if elems else {Hint("str")}
                return {Hint("tuple", tuple(sorted(elem, key=repr)), fixed)}
            elem = self.hints(module, args[0], depth + 1)
            return {Hint(kind, tuple(sorted(elem, key=repr)))}
        if origin in ("dict", "Dict", "Mapping"):
            return {Hint("dict")}
        if origin == "type":
            return {Hint("other")}
        found = self.r.resolve_expr(module, expr.value)
        if found and found[0] == "alias":  # a generic alias: use its origin
            return self.hints(found[1], found[2], depth + 1)
        return {Hint("other")}


def kwargs_for(hints: set[Hint], field_name: str) -> dict:
    """The argparse settings vLLM's `_compute_kwargs` derives, reduced to what we check."""
    kinds = {h.kind for h in hints}
    spec: dict = {}
    literal = next((h for h in hints if h.kind == "literal"), None)
    if "dataclass" in kinds:
        spec["value"] = "json"
    elif kinds == {"bool", "str", "none"}:
        spec["nargs"] = "?"
    elif "bool" in kinds:
        spec["action"] = "BooleanOptionalAction"
    elif literal is not None:
        if "str" not in kinds and literal.values:
            spec["choices"] = sorted(str(v) for v in literal.values)
    elif kinds & {"tuple", "list", "set"}:
        coll = next(h for h in hints if h.kind in ("tuple", "list", "set"))
        spec["nargs"] = coll.fixed if coll.kind == "tuple" and coll.fixed else "+"
        elem_kinds = {e.kind for e in coll.values}
        elem_literal = next((e for e in coll.values if e.kind == "literal"), None)
        if elem_literal is not None and elem_kinds == {"literal"}:
            spec["choices"] = sorted(str(v) for v in elem_literal.values)
    if "none" in kinds and "bool" not in kinds and "choices" in spec:
        spec["choices"] = spec["choices"] + ["None"]
    return spec


# -- the add_cli_args functions, interpreted just enough ------------------------------------
@dataclass
class Option:
    names: list[str]
    spec: dict
    deprecated: bool = False


@dataclass
class Interpreter:
    r: Resolver
    types: TypeReader
    options: list[Option] = field(default_factory=list)
    seen: set = field(default_factory=set)

    def get_kwargs(self, cls: ClassRef) -> dict[str, dict]:
        return {
            name: kwargs_for(self.types.hints(module, ann), name)
            for name, module, ann in self.r.fields(cls)
        }

    def call(self, cls: ClassRef | None, module: str, func: ast.FunctionDef, env: dict):
        key = (module, func.name, func.lineno, cls.node.name if cls else None)
        if key in self.seen and func.name not in ("_customize_cli_kwargs",):
            return env.get("__return__")
        self.seen.add(key)
        env = dict(env)
        env["cls"] = cls
        self.block(module, func.body, env)
        return env.get("__return__")

    def block(self, module: str, body: list[ast.stmt], env: dict):
        for stmt in body:
            self.statement(module, stmt, env)

    def statement(self, module: str, stmt: ast.stmt, env: dict):
        if isinstance(stmt, (ast.If, ast.With, ast.Try)):
            self.block(module, stmt.body, env)
            self.block(module, getattr(stmt, "orelse", []), env)
            for handler in getattr(stmt, "handlers", []):
                self.block(module, handler.body, env)
        elif isinstance(stmt, ast.For):
            self._for(module, stmt, env)
        elif isinstance(stmt, ast.Assign):
            value = self.expr(module, stmt.value, env)
            for target in stmt.targets:
                self._assign(module, target, stmt.value, value, env)
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Subscript):
                    owner = self.expr(module, target.value, env)
                    key = _const(target.slice)
                    if isinstance(owner, dict) and key in owner:
                        del owner[key]
        elif isinstance(stmt, ast.Expr):
            self.expr(module, stmt.value, env)
        elif isinstance(stmt, ast.Return) and stmt.value is not None:
            env["__return__"] = self.expr(module, stmt.value, env)

    def _assign(self, module, target, node, value, env):
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Subscript):
            owner = self.expr(module, target.value, env)
            key = _const(target.slice)
            if isinstance(owner, dict) and isinstance(key, str):
                owner[key] = _setting(key, node)

    def _for(self, module, stmt: ast.For, env):
        """`for key, value in kwargs.items(): add_argument(f"--{key...}", **value)`."""
        it = stmt.iter
        if not (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Attribute)
            and it.func.attr == "items"
            and isinstance(stmt.target, ast.Tuple)
        ):
            return
        table = self.expr(module, it.func.value, env)
        if not isinstance(table, dict):
            return
        key_name, value_name = (ast.unparse(e) for e in stmt.target.elts)
        for key, spec in table.items():
            inner = dict(env)
            inner[key_name] = key
            inner[value_name] = spec
            self.block(module, stmt.body, inner)

    def expr(self, module: str, node: ast.expr, env: dict):
        if isinstance(node, ast.Name):
            return env.get(node.id)
        if isinstance(node, ast.Subscript):
            owner = self.expr(module, node.value, env)
            key = _const(node.slice)
            if isinstance(owner, dict):
                return owner.get(key)
            return None
        if isinstance(node, ast.Dict):  # {**kwargs["f"], "default": None}
            out: dict = {}
            for k, v in zip(node.keys, node.values, strict=False):
                if k is None:
                    inner = self.expr(module, v, env)
                    if isinstance(inner, dict):
                        out.update(inner)
                elif isinstance(_const(k), str):
                    out[_const(k)] = _setting(_const(k), v)
            return out
        if isinstance(node, ast.Call):
            return self._call(module, node, env)
        return None

    def _call(self, module: str, node: ast.Call, env: dict):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name == "get_kwargs" and node.args:
            arg = node.args[0]
            cls = env.get("cls") if ast.unparse(arg) == "cls" else None
            cls = cls or self.r.find_class(module, arg)
            return self.get_kwargs(cls) if cls else None
        if name == "add_argument":
            self._add_argument(module, node, env)
            return None
        if name == "pop" and isinstance(func, ast.Attribute):
            owner = self.expr(module, func.value, env)
            key = _const(node.args[0]) if node.args else None
            if isinstance(owner, dict) and key in owner:
                return owner.pop(key)
            return None
        if name in ("add_cli_args", "_customize_cli_kwargs") and isinstance(func, ast.Attribute):
            owner_cls = self._owner_class(module, func.value, env)
            if owner_cls is None:
                return None
            found = self.r.method(owner_cls[1], name)
            if found is None:
                return None
            where, method = found
            args = [self.expr(module, a, env) for a in node.args]
            params = [a.arg for a in method.args.args if a.arg not in ("cls", "self")]
            inner = dict(zip(params, args, strict=False))
            inner["__class_of_method__"] = where
            return self.call(owner_cls[0], where.module, method, inner)
        if name == "make_arg_parser":
            found = self.r.lookup(module, "make_arg_parser")
            if found and found[0] == "module":
                return None
            target = self._function(module, "make_arg_parser")
            if target:
                self.call(None, target[0], target[1], {})
            return None
        return None

    def _owner_class(self, module, node: ast.expr, env):
        """(cls bound to the call, class whose methods to search) for X.method(...)."""
        text = ast.unparse(node)
        cls = env.get("cls")
        if text == "cls" and cls is not None:
            return cls, cls
        if text == "super()" and cls is not None:
            current = env.get("__class_of_method__")
            # super() from a method defined in `current`: search past it.
            for base in self.r.bases(current or cls):
                return cls, base
            return None
        ref = self.r.find_class(module, node)
        return (ref, ref) if ref else None

    def _function(self, module: str, name: str):
        tree = self.r.src.tree(module)
        for stmt in tree.body if tree else []:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
                return module, stmt
        found = self.r.lookup(module, name)
        return found if found else None

    def _add_argument(self, module: str, node: ast.Call, env: dict):
        names: list[str] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                extra = self.expr(module, arg.value, env)
                names.extend(x for x in (extra or []) if isinstance(x, str))
            elif isinstance(arg, ast.JoinedStr):
                names.append(_fstring(arg, env))
            elif isinstance(_const(arg), str):
                names.append(_const(arg))
        names = [n for n in names if n and n.startswith("-")]
        if not names:
            return  # a positional (the model tag)
        spec: dict = {}
        deprecated = False
        for kw in node.keywords:
            if kw.arg is None:
                inner = self.expr(module, kw.value, env)
                if isinstance(inner, dict):
                    spec.update(inner)
                else:
                    spec["unknown"] = True
            elif kw.arg == "deprecated":
                deprecated = _const(kw.value) is True
            else:
                spec[kw.arg] = _setting(kw.arg, kw.value)
        self.options.append(Option(names, dict(spec), deprecated))


def _const(node):
    return node.value if isinstance(node, ast.Constant) else None


def _setting(key: str, node: ast.expr):
    """What we keep of one argparse keyword: actions, nargs and constant choices."""
    if key == "action":
        text = ast.unparse(node)
        return _const(node) if isinstance(_const(node), str) else text.split(".")[-1]
    if key == "nargs":
        return _const(node)
    if key == "choices":
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and all(
            isinstance(_const(e), (str, int)) for e in node.elts
        ):
            return sorted(str(_const(e)) for e in node.elts)
        return None  # computed at run time: unknown, so not checked
    if key == "type":
        return "overridden"
    return None


def _fstring(node: ast.JoinedStr, env: dict) -> str:
    """f"--{key.replace('_', '-')}" with `key` bound by the loop."""
    out = ""
    for part in node.values:
        if isinstance(part, ast.Constant):
            out += str(part.value)
        elif isinstance(part, ast.FormattedValue):
            inner = part.value
            if (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Attribute)
                and inner.func.attr == "replace"
            ):
                base = env.get(ast.unparse(inner.func.value))
                old, new = (_const(a) for a in inner.args)
                out += str(base).replace(old, new)
            else:
                out += str(env.get(ast.unparse(inner), ""))
    return out


# -- the table -------------------------------------------------------------------------
def describe(spec: dict) -> dict:
    """One flag's entry: how many values it takes, its choices, whether it repeats."""
    action = spec.get("action")
    entry: dict = {}
    if action in NO_VALUE_ACTIONS or action == "BooleanOptionalAction":
        entry["nargs"] = 0
    else:
        nargs = spec.get("nargs")
        entry["nargs"] = 1 if nargs is None else nargs
        if spec.get("choices") and spec.get("type") != "overridden":
            entry["choices"] = spec["choices"]
        if action == "append":
            entry["append"] = True
        if spec.get("unknown") and "nargs" not in spec:
            entry["nargs"] = "*"  # could not read it: accept anything
    return entry


def build_table(options: list[Option]) -> tuple[dict, dict]:
    flags: dict[str, dict] = {}
    aliases: dict[str, str] = {}
    for opt in options:
        long_names = [n for n in opt.names if n.startswith("--")]
        canonical = long_names[0] if long_names else opt.names[0]
        entry = describe(opt.spec)
        if opt.deprecated:
            entry["deprecated"] = True
        flags[canonical] = entry
        for name in opt.names:
            if name != canonical:
                aliases[name] = canonical
        if opt.spec.get("action") == "BooleanOptionalAction":
            for name in long_names:
                aliases["--no-" + name[2:]] = canonical
    return flags, aliases


def registered_names(src: Sources, package: str, table_name: str) -> list[str]:
    names: set[str] = set()
    for module in src.modules_under(package):
        tree = src.tree(module)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == table_name for t in node.targets)
                and isinstance(node.value, ast.Dict)
            ):
                names.update(_const(k) for k in node.value.keys if isinstance(_const(k), str))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr not in ("register_module", "register_lazy_module"):
                    continue
                if "Manager" not in ast.unparse(node.func.value):
                    continue
                candidates = list(node.args[:1]) + [
                    k.value for k in node.keywords if k.arg == "name"
                ]
                for cand in candidates:
                    if isinstance(_const(cand), str):
                        names.add(_const(cand))
                    elif isinstance(cand, (ast.List, ast.Tuple)):
                        names.update(_const(e) for e in cand.elts if isinstance(_const(e), str))
    return sorted(names)


def find_module(src: Sources, candidates: list[str], marker: str) -> str:
    for module in candidates:
        tree = src.tree(module)
        if tree is not None and marker in ast.unparse(tree):
            return module
    raise SystemExit(f"none of {candidates} defines {marker}")


def generate(wheel: Path) -> dict:
    src = Sources(wheel)
    resolver = Resolver(src)
    interp = Interpreter(resolver, TypeReader(resolver))
    cli_args = find_module(
        src,
        ["vllm.entrypoints.openai.cli_args", "vllm.entrypoints.common.cli_args"],
        "def make_arg_parser",
    )
    # `vllm serve` = make_arg_parser plus whatever serve.py's subparser_init adds.
    make = next(s for s in src.tree(cli_args).body if getattr(s, "name", "") == "make_arg_parser")
    interp.call(None, cli_args, make, {})
    serve = "vllm.entrypoints.cli.serve"
    for node in ast.walk(src.tree(serve)):
        if isinstance(node, ast.FunctionDef) and node.name == "subparser_init":
            for stmt in node.body:
                for call in ast.walk(stmt):
                    if (
                        isinstance(call, ast.Call)
                        and getattr(call.func, "attr", "") == "add_argument"
                    ):
                        interp._add_argument(serve, call, {})
    flags, aliases = build_table(interp.options)
    tool_pkg = next(
        p for p in ("vllm.tool_parsers", "vllm.entrypoints.openai.tool_parsers")
        if src.path_of(p)
    )  # fmt: skip
    # Values checked after parsing, when the engine starts (so not argparse choices): the
    # quantization methods, and, from vLLM 0.33 on, the KV-cache dtypes (typed `CacheDType
    # | str` so that platform plugins can add their own, validated by CacheConfig).
    values = {}
    for flag, module, literal in (
        ("--quantization", "vllm.model_executor.layers.quantization", "QuantizationMethods"),
        ("--kv-cache-dtype", "vllm.config.cache", "CacheDType"),
    ):
        if flags.get(flag, {}).get("choices") or not src.path_of(module):
            continue
        hints = TypeReader(resolver).hints(module, ast.Name(literal))
        known = sorted(str(v) for h in hints if h.kind == "literal" for v in h.values)
        if known:
            values[flag] = known
    return {
        "vllm": src.version(),
        "generated_from": wheel.name,
        "flags": dict(sorted(flags.items())),
        "aliases": dict(sorted(aliases.items())),
        "values": values,
        "reasoning_parsers": registered_names(
            src, "vllm.reasoning", "_REASONING_PARSERS_TO_REGISTER"
        ),
        "tool_parsers": registered_names(src, tool_pkg, "_TOOL_PARSERS_TO_REGISTER"),
    }


def dump(table: dict) -> str:
    """Compact JSON with one flag per line, so a version bump diffs readably."""
    lines = ["{"]
    keys = list(table)
    for i, key in enumerate(keys):
        value = table[key]
        comma = "," if i < len(keys) - 1 else ""
        if isinstance(value, dict) and value:
            lines.append(f"{json.dumps(key)}: {{")
            items = list(value.items())
            for j, (k, v) in enumerate(items):
                sep = "," if j < len(items) - 1 else ""
                lines.append(f"  {json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}{sep}")
            lines.append("}" + comma)
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python tools/dev/gen_vllm_args.py vllm-0.26.0-cp38-abi3-*.whl",
    )
    parser.add_argument("wheels", nargs="+", type=Path, help="vLLM wheel files")
    parser.add_argument("--out-dir", type=Path, default=DATA_DIR)
    args = parser.parse_args(argv)
    for wheel in args.wheels:
        start = time.perf_counter()
        table = generate(wheel)
        out = args.out_dir / f"vllm-{table['vllm']}-serve.json"
        out.write_text(dump(table))
        print(
            f"{out}: {len(table['flags'])} flags, {len(table['reasoning_parsers'])} reasoning "
            f"and {len(table['tool_parsers'])} tool parsers, {out.stat().st_size} bytes, "
            f"{time.perf_counter() - start:.1f} s",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
