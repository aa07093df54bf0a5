"""tp.save and tp.load where the file system or the file is not as they expect (issue 37): each
is a CheckpointError naming the path and the cause (a CheckpointFileError, also an OSError,
where the file system refused), never a raw OSError naming tp.save's hidden temporary file. A
path that is no regular file (here a fifo; tests never write to /dev) is refused; a symlink is
followed."""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile

import numpy as np
import pytest

import tensorplug as tp

pytest.importorskip("safetensors")


def _rewritten(path, arrays=None, tree=None) -> None:
    """The file at `path` written again by safetensors with other arrays or another tree."""
    from safetensors import safe_open
    from safetensors.numpy import load_file, save_file

    with safe_open(str(path), framework="numpy") as f:
        metadata = f.metadata()
    if tree is not None:
        metadata["tree"] = json.dumps(tree)
    save_file(load_file(str(path)) if arrays is None else arrays, str(path), metadata=metadata)


def test_a_tree_naming_a_missing_tensor_is_a_checkpoint_error(tmp_path) -> None:
    path = tmp_path / "m.safetensors"
    tp.save(path, {"w": tp.ones((2, 2)), "b": tp.zeros(2)})
    _rewritten(path, arrays={"w": np.ones((2, 2), np.float32)})
    with pytest.raises(tp.CheckpointError, match=r"tp.load: the tree names the tensor 'b', which the file "
                                                 r"does not hold: the file is damaged"):
        tp.load(path)


@pytest.mark.parametrize("tree", [{"kind": "dict"}, {"items": []}, {"kind": "list", "items": [3]}, []])
def test_a_damaged_tree_is_a_checkpoint_error(tmp_path, tree) -> None:
    path = tmp_path / "m.safetensors"
    tp.save(path, {"w": tp.ones(2)})
    _rewritten(path, tree=tree)
    with pytest.raises(tp.CheckpointError, match=r"tp.load: '.*m.safetensors' holds a damaged tree \("):
        tp.load(path)


def test_a_file_system_that_holds_no_files_is_named(tmp_path) -> None:
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc here")
    with pytest.raises(tp.CheckpointFileError,
                       match=r"tp.save: cannot write '/proc/tp-test.safetensors': ") as info:
        tp.save("/proc/tp-test.safetensors", {"a": tp.ones(1)})
    assert isinstance(info.value, OSError) and isinstance(info.value, tp.CheckpointError)
    assert ".tmp" not in str(info.value)


def test_a_folder_without_write_permission_is_named_not_the_temporary_file(tmp_path, monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / ".m.safetensors.abc.tmp"))

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    with pytest.raises(tp.CheckpointFileError, match=r"tp.save: cannot write '.*m.safetensors': Permission "
                       r"denied \(check that you may write into the folder") as info:
        tp.save(tmp_path / "m.safetensors", {"a": tp.ones(1)})
    assert ".tmp" not in str(info.value)
    assert isinstance(info.value, OSError)


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_named(tmp_path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(tp.CheckpointFileError,
                           match=r"cannot write '.*ro/m.safetensors': Permission denied"):
            tp.save(folder / "m.safetensors", {"a": tp.ones(1)})
    finally:
        folder.chmod(0o700)


def test_a_nul_in_the_path_is_named(tmp_path) -> None:
    for call in (lambda p: tp.save(p, {"a": 1}), tp.load):
        with pytest.raises(tp.CheckpointError, match=r"the path .* holds a NUL character, which no file"):
            call(str(tmp_path / "a\0b.safetensors"))


def test_a_path_that_is_no_regular_file_is_refused_and_left_as_it_was(tmp_path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(tp.CheckpointFileError, match=r"tp.save: '.*fifo' is not a regular file .*tp.save "
                                                     r"replaces regular files only"):
        tp.save(fifo, {"a": tp.ones(1)})
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    with pytest.raises(tp.CheckpointFileError, match="is not a regular file"):
        tp.save(link, {"a": tp.ones(1)})
    assert link.is_symlink() and stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "link"]  # (no temporary left)


def test_a_symlink_is_followed(tmp_path) -> None:
    target = tmp_path / "real.safetensors"
    tp.save(target, {"a": tp.ones(2)})
    link = tmp_path / "link.safetensors"
    link.symlink_to(target)
    tp.save(link, {"a": tp.zeros(3)})
    assert link.is_symlink() and os.readlink(link) == str(target)
    np.testing.assert_array_equal(tp.load(target)["a"].numpy(), np.zeros(3, np.float32))
    dangling = tmp_path / "dangling.safetensors"
    dangling.symlink_to(tmp_path / "new.safetensors")
    tp.save(dangling, {"b": 1})
    assert dangling.is_symlink() and tp.load(tmp_path / "new.safetensors") == {"b": 1}
