import pytest
from run_modes import FILE, PASTE, declares_own_process, pastes_cleanly, run_mode


@pytest.mark.parametrize(
    ("code", "pastes"),
    [
        ("x = 1\nprint(x)", True),
        ("def f():\n    return 1\n\nprint(f())", True),
        ("if x:\n    pass\nelse:\n    pass\n\ny = 1", True),
        ("for i in range(2):\n    print(i)\n# > 0\n# > 1\n", True),
        ("x = (1,\n\n     2)", True),  # a blank line inside brackets is no end of statement
        ("def f():\n    return 1\nprint(f())", False),  # the prompt needs a blank line after a block
        ("def f():\n    a = 1\n\n    return a", False),  # the blank line ends the body: `return` is indented
        ("class A:\n    x = 1\n\n    def f(self):\n        return 1\n", False),
        ("def f(:\n    pass", False),
    ],
)
def test_paste_safety_follows_the_classic_prompt(code: str, pastes: bool):
    assert pastes_cleanly(code) is pastes


def test_a_block_that_starts_processes_runs_as_a_file():
    assert run_mode("x = 1", starts_processes=False) == PASTE
    assert run_mode("x = 1", starts_processes=True) == FILE
    assert run_mode("def f():\n    a = 1\n\n    return a\n", starts_processes=False) == FILE


def test_a_snippet_declares_its_own_process_on_a_line_of_its_own_with_a_reason():
    assert declares_own_process('"""d."""\n# runs in its own process: TRITON_INTERPRET first\nx = 1\n')
    assert not declares_own_process("# runs in its own process:\n")  # a reason is required
    assert not declares_own_process("x = 1  # runs in its own process: no, not at the margin\n")
