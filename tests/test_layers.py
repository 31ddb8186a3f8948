"""Which part of cribcam may import which: the run-time never reaches the training code.

- The reader (``cribcam.vision``) and teaching (``cribcam.teach``) import none of the
  interfaces (``cribcam.web``, ``cribcam.cli``, ``cribcam.live``) nor the training code
  (``cribcam.training``); the reader imports nothing of teaching either.
- The web app and ``cribcam teach`` reach nothing of ``cribcam.training``: not in their own
  imports, nor in those of any cribcam module they import, and so on down.
- Nothing they and teaching reach imports what only the ``train`` extra installs (torch,
  ultralytics, ...): the base install serves and teaches.

The rules read the code (``ast``): every import statement counts, at the top of a module or
inside a function (teaching imports much when it runs, not when it is imported). A package's
names imported when first used (``cribcam.vision``'s ``_HOMES``) count as imports of their
modules.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cribcam"
# The module each requirement of the train extra is imported as: a requirement added to the
# extra must be named here too (``test_every_train_only_requirement_has_its_module_name``).
TRAIN_ONLY = {"ultralytics": "ultralytics", "torch": "torch", "torchvision": "torchvision", "onnx": "onnx",
              "onnx2torch": "onnx2torch", "fonttools": "fontTools", "pillow": "PIL"}
RUN_TIME = [*sorted((PACKAGE / "web").rglob("*.py")), PACKAGE / "cli" / "teach.py",
            *sorted((PACKAGE / "teach").rglob("*.py"))]


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_file(name: str, root: Path = ROOT) -> Path | None:
    """The file of a cribcam module or package, None for any other name."""
    if name != "cribcam" and not name.startswith("cribcam."):
        return None
    base = root.joinpath(*name.split("."))
    return next((p for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()), None)


def imports(path: Path, root: Path = ROOT) -> list[tuple[str, int]]:
    """(module, line) of every import in a module's file: ``from a import b`` imports ``a``,
    and ``a.b`` too where that is a cribcam module."""
    name = module_name(path, root)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package, one level up per dot past the first
                base = ".".join(package[:len(package) + 1 - node.level] + ([base] if base else []))
            found.append((base, node.lineno))
            found += [(f"{base}.{alias.name}", node.lineno) for alias in node.names
                      if module_file(f"{base}.{alias.name}", root)]
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_HOMES" for t in node.targets) \
                and isinstance(node.value, ast.Dict):
            found += [(f"{name}.{home.value}", node.lineno) for home in node.value.values
                      if isinstance(home, ast.Constant)]
    return found


def reached(roots: list[Path], root: Path = ROOT) -> dict[str, list[str]]:
    """Every module that importing ``roots`` and running their code may import, each with the
    places that import it (``module:line``), followed down through the cribcam modules; a
    cribcam module's packages count as imported with it, as Python runs their ``__init__``."""
    found: dict[str, list[str]] = {}
    seen: set[Path] = set()
    todo = list(roots)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for imported, line in imports(path, root):
            found.setdefault(imported, []).append(f"{module_name(path, root)}:{line}")
            parts = imported.split(".")
            todo += [f for f in (module_file(".".join(parts[:k]), root) for k in range(1, len(parts) + 1)) if f]
    return found


def under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def test_the_reader_and_teaching_import_no_interface_nor_training():
    rules = {"vision": ("cribcam.web", "cribcam.cli", "cribcam.live", "cribcam.teach", "cribcam.training"),
             "teach": ("cribcam.web", "cribcam.cli", "cribcam.live", "cribcam.training")}
    broken = [f"{module_name(path)}:{line}: imports {imported}"
              for folder, banned in rules.items() for path in sorted((PACKAGE / folder).rglob("*.py"))
              for imported, line in imports(path)
              if any(under(imported, package) for package in banned)]
    assert broken == [], "\n".join(broken)


def test_the_web_app_and_cribcam_teach_reach_nothing_of_training():
    found = reached(RUN_TIME)
    assert "cribcam.teach.lesson" in found and "cribcam.vision.reader" in found  # the walk goes down
    broken = {name: where for name, where in found.items() if under(name, "cribcam.training")}
    assert broken == {}, broken


def test_nothing_the_web_app_and_teaching_reach_needs_the_train_extra():
    found = reached(RUN_TIME)
    assert {"numpy", "cv2", "onnxruntime", "flask"} <= {name.split(".")[0] for name in found}
    broken = {name: where for name, where in found.items() if name.split(".")[0] in TRAIN_ONLY.values()}
    assert broken == {}, broken


def test_every_train_only_requirement_has_its_module_name():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 on
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["train"]
    assert {re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower() for requirement in extra} == set(TRAIN_ONLY)


def test_the_rules_find_what_they_break(tmp_path):
    """In a made-up cribcam: a lazy import inside a function, a ``from package import module``,
    a name a package imports when first used, a relative import, each is followed."""
    files = {
        "cribcam/__init__.py": "",
        "cribcam/web/__init__.py": "",
        "cribcam/web/page.py": "from cribcam.teach import lesson\n",
        "cribcam/teach/__init__.py": "",
        "cribcam/teach/lesson.py": "def teach():\n    from cribcam.vision import Reader\n",
        "cribcam/vision/__init__.py": '_HOMES = {"Reader": "reader"}\n',
        "cribcam/vision/reader.py": "from . import fitting\n",
        "cribcam/vision/fitting.py": "def fit():\n    import torch.nn\n    from cribcam.training import recipe\n",
        "cribcam/training/__init__.py": "",
        "cribcam/training/recipe.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = reached([tmp_path / "cribcam/web/page.py"], tmp_path)
    assert found["torch.nn"] == ["cribcam.vision.fitting:2"]
    assert found["cribcam.training.recipe"] == ["cribcam.vision.fitting:3"]
    assert found["cribcam.vision.reader"] == ["cribcam.vision:1"]
    assert found["cribcam.vision.fitting"] == ["cribcam.vision.reader:1"]
