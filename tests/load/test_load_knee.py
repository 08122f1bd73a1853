"""The latency vs throughput curve's knee and its words (issue "Charts under load"): the knee is the
first level whose p50 TTFT is more than twice the lightest level's, never the lightest level itself;
when it is the second level the words say the first token's wait doubled at once; Python marks it
and writes every sentence, the page only shows them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from twoclocks import web
from twoclocks.advice import format_ms
from twoclocks.load import KNEE_TTFT_FACTOR, sweep_knee
from twoclocks.scenarios import LOAD_DEMOS

JS = Path(__file__).resolve().parents[2] / "site" / "js"


def points(*ttfts_ms: float) -> list:
    """Sweep points at 1, 2, 4, ... users with these p50 TTFTs (the throughput 10 per user)."""
    return [{"concurrency": 2**i, "ttft_ms_p50": ms, "output_tokens_per_s": 10.0 * 2**i} for i, ms in enumerate(ttfts_ms)]


@pytest.mark.parametrize(("ttfts", "index"), [
    ((100,), None),
    ((100, 150, 199), None),
    ((100, 200), None),  # exactly twice is not more than twice
    ((100, 201), 1),
    ((100, 150, 250, 900), 2),
    ((100, 120, 180, 190, 260), 4),
    ((100, 300, 150), 1),  # the first level past twice, even if a heavier one falls back
])
def test_the_knee_is_the_first_level_more_than_twice_the_lightest_ttft(ttfts, index):
    knee = sweep_knee(points(*ttfts))
    assert knee["knee_index"] == index
    assert knee["ttft_doubles_at"] == (None if index is None else 2**index)
    assert knee["knee_index"] != 0


def test_a_knee_past_the_second_level_is_called_the_knee_with_the_models_figures():
    knee = sweep_knee(points(704, 705, 707, 710, 717, 8834))
    assert knee["knee_label"] == "knee"
    assert knee["knee_short"] == "The knee, where the p50 TTFT first more than doubles, is at 32 users."
    assert knee["sentence"].startswith("The knee of the first token is at 32 users, where it first takes more "
                                       "than twice as long (p50 TTFT 8.83 s against 704 ms at 1 user). Up to "
                                       "16 users it stays within twice, at 160 output tokens per second; from "
                                       "32 users on, each first token also waits")


def test_a_doubling_at_the_second_level_is_said_so_and_never_rings_one_user():
    """The issue's chat curve: the first token's wait doubles with the second user. The ring is on
    the 2 users' point and says so ("already 2×"); nothing calls 1 user the knee."""
    knee = sweep_knee(points(24, 48.1, 96))
    assert (knee["knee_index"], knee["ttft_doubles_at"], knee["knee_label"]) == (1, 2, "already 2×")
    assert knee["knee_short"] == "The p50 TTFT more than doubles already at 2 users."
    assert knee["sentence"].startswith("No flat stretch before a knee: already at 2 users the first token takes "
                                       "more than twice as long (p50 TTFT 48 ms against 24 ms at 1 user)")
    for text in (knee["knee_short"], knee["sentence"]):
        assert "1 user" not in text.replace("at 1 user)", "")  # 1 user only as the comparison


def test_no_doubling_says_how_far_the_sweep_went():
    knee = sweep_knee(points(100, 150, 180))
    assert (knee["knee_index"], knee["knee_label"]) == (None, None)
    assert knee["knee_short"] == "Up to 4 users the p50 TTFT stays within twice 1 user's."
    assert knee["sentence"] == ("Even at 4 users the first token waits less than twice as long "
                                "(p50 TTFT 180 ms against 100 ms at 1 user).")


def test_a_sweep_without_points_is_an_error():
    with pytest.raises(ValueError, match="at least one point"):
        sweep_knee([])


@pytest.mark.parametrize("mode", ["toy", "roofline"])
def test_the_chat_demos_knee_is_where_its_ttft_first_doubles_never_at_one_user(mode):
    """The page's chat demo (16 chat users starting together), swept 1 to 1,024 users: the knee
    Python marks is the first level past twice one user's TTFT, and its words name it."""
    state = {**next(d for d in LOAD_DEMOS if d["id"] == "batching")["state"], "mode": mode}
    sweep = web.evaluate_load_sweep(state)
    ttfts = [p["ttft_ms_p50"] for p in sweep["points"]]
    index = sweep["knee_index"]
    assert index is not None and index >= 1
    assert ttfts[index] > KNEE_TTFT_FACTOR * ttfts[0] and all(t <= KNEE_TTFT_FACTOR * ttfts[0] for t in ttfts[:index])
    users = sweep["points"][index]["concurrency"]
    assert f"{users:,} users" in sweep["knee_short"] and format_ms(ttfts[index]) in sweep["sentence"]
    if mode == "toy":  # the curve: 24 ms alone, 48 ms at 2 users
        assert (index, sweep["knee_label"]) == (1, "already 2×")


def test_the_page_computes_no_knee_and_writes_none_of_its_words():
    """loadsweep.js renders the sweep Python returns: no knee rule, no factor, no knee sentence."""
    source = (JS / "loadsweep.js").read_text()
    assert "kneeIndex" not in source and "past_knee" not in source
    assert not re.search(r"twice|doubl|knee of the first token", source, re.IGNORECASE)
    assert "sweep.sentence" in source and "knee_label" in source and "knee_short" in source


def test_a_curve_of_one_point_says_so_not_within_twice_itself():
    """A newcomer's curve stopped after 1 user (the load past the context window from 2 on) and said
    "Up to 1 user the p50 TTFT stays within twice 1 user's": one point is said as one point."""
    knee = sweep_knee(points(502))
    assert knee["knee_index"] is None and knee["knee_short"] == knee["sentence"] == "One point so far: the p50 TTFT is 502 ms at 1 user."
