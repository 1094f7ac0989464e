"""Opening the GPU device without XDG_RUNTIME_DIR prints nothing and leaves the
environment as it was; a value of the user's is kept. Each case runs in a fresh Python
process, since the device opens once per process."""

import os
import subprocess
import sys

from conftest import require_gpu

# Makes a Collider with backend="auto" (which opens the device to see what it is), then
# prints what Python and a child process see of XDG_RUNTIME_DIR afterwards.
PROGRAM = """
import os, subprocess, sys
import gpu_collide
collider = gpu_collide.Collider([gpu_collide.Circle(1.0)], backend="auto")
assert collider.find_pairs([0, 0], [[0, 0], [1, 0]]).tolist() == [[0, 1]]
child = subprocess.run(
    [sys.executable, "-c", "import os; print(os.environ.get('XDG_RUNTIME_DIR', '<unset>'))"],
    capture_output=True, text=True, check=True,
)
print(os.environ.get("XDG_RUNTIME_DIR", "<unset>"), child.stdout.strip())
"""


def run_program(tmp_path, runtime_dir):
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    if runtime_dir is not None:
        env["XDG_RUNTIME_DIR"] = runtime_dir
    # The stand-in directory is made under TMPDIR: here, a folder of the test's own.
    temp = tmp_path / "temp"
    temp.mkdir()
    env["TMPDIR"] = str(temp)
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done, sorted(p.name for p in temp.iterdir())


def test_no_runtime_dir_message_and_the_variable_unset_again(tmp_path):
    require_gpu()  # with no adapter at all, no Vulkan layer runs to print anything
    done, left = run_program(tmp_path, None)
    # Mesa's device-select layer would make libwayland print "error: XDG_RUNTIME_DIR is
    # invalid or not set in the environment." here, twice.
    assert done.stderr == ""
    assert done.stdout.split() == ["<unset>", "<unset>"]
    assert left == []  # the stand-in directory is gone


def test_a_runtime_dir_of_the_users_is_kept(tmp_path):
    require_gpu()
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    done, left = run_program(tmp_path, str(mine))
    assert done.stderr == ""
    assert done.stdout.split() == [str(mine), str(mine)]
    assert left == []
