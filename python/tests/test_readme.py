"""The README's pygame example runs as printed (headless) and its pairs are pygame's."""

import contextlib
import io
import pathlib
import re

import pygame

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def python_blocks():
    """The README Python section's examples: the pygame one, then the numpy one."""
    text = README.read_text()
    section = text.split("## Python: pygame and numpy", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 2
    return blocks


def test_readme_numpy_example_prints_what_its_comments_say():
    code = python_blocks()[1]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    printed = out.getvalue().splitlines()
    said = [line.split("print(", 1)[1].split("  # ", 1)[1].split(":")[0] for line in code.splitlines() if line.startswith("print(")]
    assert printed == said


def test_readme_pygame_example_runs_and_agrees_with_pygame():
    code = python_blocks()[0]
    assert len(code.strip().splitlines()) <= 24  # "a 20-line pygame example"
    # The same program with pygame's groupcollide in place of group_collide.
    pygame_code = code.replace(
        "gpu_collide.group_collide(players, bullets)",
        "pygame.sprite.groupcollide(players, bullets, False, False, pygame.sprite.collide_mask)",
    )
    assert pygame_code != code
    outputs = []
    for program in (code, pygame_code):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(program, str(README), "exec"), {"__name__": "readme"})
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1]
    assert "frame 2:" in outputs[0] and " 0 players hit" not in outputs[0]
