"""The file under ``tp.save`` and ``tp.load``: the path checked, the bytes written whole through
a temporary file renamed over the target (a symlink followed, a file that is no regular file
refused), read back into the tree's JSON structure and its arrays; what the file system refuses
is a CheckpointFileError naming the path and the cause."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from tensorplug.core.lazy_modules import lazy_module
from tensorplug.dtypes import ALL_DTYPES
from tensorplug.errors import (
    ArgumentError,
    CheckpointError,
    CheckpointFileError,
    CheckpointNotFoundError,
    MissingDependencyError,
    TensorplugError,
)

if TYPE_CHECKING:
    import pathlib
    import tempfile
else:  # (only saving and loading use them: run at their first use, issue 37)
    pathlib = lazy_module("pathlib")
    tempfile = lazy_module("tempfile")

__all__ = ["FORMAT", "AS_PARTS", "safetensors_module", "checked_path", "refused", "write", "read",
           "numpy_dtype"]

FORMAT = "tensorplug.tree/1"  # the metadata's "format": what tp.load accepts
_INSTALL = 'pip install "tensorplug-core[save]"  (or: pip install safetensors)'
#: safetensors' dtype names -> numpy, for the dtypes tensorplug has (its numpy loader lacks BF16)
_STORED = {"BOOL": "bool", "I8": "int8", "I16": "int16", "I32": "int32", "I64": "int64", "U8": "uint8",
           "U16": "uint16", "U32": "uint32", "U64": "uint64", "F16": "float16", "BF16": "bfloat16",
           "F32": "float32", "F64": "float64", "C64": "complex64"}
#: dtypes safetensors does not store, kept as a view of another (a last axis of 2 parts)
AS_PARTS = {"complex128": "float64"}


def safetensors_module(fn: str) -> Any:
    """The safetensors package; MissingDependencyError naming tp.`fn` and the pip command."""
    try:
        import safetensors
        import safetensors.numpy
    except ImportError:
        raise MissingDependencyError(f"tp.{fn} needs the safetensors package, which is not installed: "
                                     f"{_INSTALL}") from None
    return safetensors


def checked_path(path: Any, fn: str) -> pathlib.Path:
    """`path` (a str or os.PathLike naming a file) as a Path; an error naming tp.`fn` otherwise."""
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        raise ArgumentError(f"tp.{fn}: path must be a str or a path (os.PathLike), got {type(path).__name__}")
    p = pathlib.Path(os.fspath(path))
    if not isinstance(os.fspath(p), str) or not str(path):
        raise ArgumentError(f"tp.{fn}: path must name a file, got {path!r}")
    if "\0" in str(p):
        raise CheckpointError(f"tp.{fn}: the path {str(p)!r} holds a NUL character, which no file name "
                              "can; remove it.")
    return p


def refused(fn: str, path: pathlib.Path, exc: OSError) -> CheckpointFileError:
    """The file system's refusal `exc` of tp.`fn` on `path`, naming the path and the cause (not
    the hidden temporary file tp.save writes first)."""
    cause = exc.strerror or type(exc).__name__
    if isinstance(exc, PermissionError):
        where = path.parent if fn == "save" else path
        cause += f" (check that you may {'write into the folder' if fn == 'save' else 'read'} {str(where)!r})"
    verb = "write" if fn == "save" else "read"
    return CheckpointFileError(f"tp.{fn}: cannot {verb} {str(path)!r}: {cause}.")


def write(given: pathlib.Path, target: pathlib.Path, data: bytes) -> None:
    """`data` to `target` (the real path of `given`), through a temporary file renamed over it."""
    folder = target.parent
    if target.is_dir():
        raise CheckpointError(f"tp.save: {str(given)!r} is a folder; give the path of a file in it, "
                              f"e.g. {str(given / 'checkpoint.safetensors')!r}.")
    if target.exists() and not target.is_file():
        raise CheckpointFileError(f"tp.save: {str(given)!r} is not a regular file (a device, a fifo or a "
                                  "socket); tp.save replaces regular files only: give the path of a file.")
    if not folder.is_dir():
        raise CheckpointNotFoundError(f"tp.save: the folder {str(folder)!r} of {str(given)!r} does not "
                                      "exist; "
                                      "create it first.")
    try:
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise refused("save", target, exc) from exc
    try:  # written whole, then renamed: an interrupted save leaves the old file as it was
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, target)
    except BaseException as exc:
        pathlib.Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise refused("save", target, exc) from exc
        raise


def read(target: pathlib.Path) -> tuple[Any, dict[str, np.ndarray]]:
    """The tree structure and the arrays of file `target`."""
    safetensors = safetensors_module("load")
    try:
        if not target.exists():
            raise CheckpointNotFoundError(f"tp.load: there is no file {str(target)!r}; give the path tp.save "
                                          "wrote.")
        if not target.is_file():
            raise CheckpointError(f"tp.load: {str(target)!r} is not a file; give the path tp.save wrote.")
        data = target.read_bytes()
    except OSError as exc:
        if isinstance(exc, TensorplugError):
            raise
        raise refused("load", target, exc) from exc
    not_ours = f"tp.load: {str(target)!r} is not a file tp.save wrote"
    try:
        with safetensors.safe_open(str(target), framework="numpy") as f:
            metadata = f.metadata() or {}
        stored = safetensors.deserialize(data)
    except Exception as exc:  # not a safetensors file at all
        raise CheckpointError(f"{not_ours} (not a safetensors file: {exc})") from None
    if metadata.get("format") != FORMAT or "tree" not in metadata:
        raise CheckpointError(f"{not_ours}: a safetensors file without tensorplug's tree in its metadata "
                              f"(format {metadata.get('format')!r}); tp.load reads the files tp.save writes.")
    try:
        structure = json.loads(metadata["tree"])
        arrays = {name: np.frombuffer(info["data"], dtype=numpy_dtype(info["dtype"]))
                  .reshape(tuple(info["shape"])) for name, info in stored}
    except (ValueError, KeyError, TypeError) as exc:
        raise CheckpointError(f"{not_ours}, or it is damaged: {exc}") from None
    return structure, arrays


def numpy_dtype(stored: str) -> Any:
    """The numpy dtype of safetensors' dtype name `stored`."""
    return {d.name: d.numpy for d in ALL_DTYPES}[_STORED[stored]]
