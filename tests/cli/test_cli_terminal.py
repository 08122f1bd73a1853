"""What the command writes to a terminal: escaped strings from files, progress only for slow files."""

import io

import pytest

from twoclocks.cli.terminal import PROGRESS_AFTER_S, PROGRESS_LINE_EVERY_S, Progress, terminal_safe


@pytest.mark.parametrize("raw, shown", [
    ("model\x1b[2Jgone", "model\\x1b[2Jgone"),      # ESC: clear the screen
    ("a\rb", "a\\x0db"),                             # carriage return: overwrite the line
    ("two\nlines", "two\\x0alines"),                 # a file's newline cannot forge a line of ours
    ("bell\x07", "bell\\x07"),
    ("csi\x9b31m", "csi\\x9b31m"),                   # C1 CSI
    ("del\x7f", "del\\x7f"),
    ("left\u202eright", "left\\u202eright"),         # bidi override (Trojan Source)
])
def test_control_characters_from_a_file_are_written_as_visible_escapes(raw, shown):
    assert terminal_safe(raw) == shown


def test_printable_text_is_left_as_it_is():
    text = "TTFT ≈ a·n² + b·n + c, 250 µs, Llama 3.1 8B · 日本語"
    assert terminal_safe(text) == text


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_appears_only_once_reading_takes_more_than_a_second():
    clock, stream = Clock(), io.StringIO()
    progress = Progress("big.csv", stream=stream, clock=clock)
    clock.now = PROGRESS_AFTER_S / 2
    progress(1_000_000, 10_000_000)
    assert stream.getvalue() == ""
    clock.now = PROGRESS_AFTER_S + 0.1
    progress(5_000_000, 10_000_000)
    assert "Reading big.csv: 5.0 MB of 10.0 MB (50%)" in stream.getvalue()


def test_progress_off_a_terminal_is_one_line_now_and_then_never_a_carriage_return():
    clock, stream = Clock(), io.StringIO()
    progress = Progress("pipe", stream=stream, clock=clock)
    for step in range(40):
        clock.now = PROGRESS_AFTER_S + step * 0.5
        progress(step * 1000, None)
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert 1 < len(lines) <= 20 * 0.5 / PROGRESS_LINE_EVERY_S * 2 + 1


def test_quiet_progress_writes_nothing():
    clock, stream = Clock(), io.StringIO()
    progress = Progress("x", enabled=False, stream=stream, clock=clock)
    clock.now = 100
    progress(1, 2)
    progress.done()
    assert stream.getvalue() == ""
