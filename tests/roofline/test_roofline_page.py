"""Roofline mode on the page: the mode switch, the hardware pickers, the bounds and the chart."""

from __future__ import annotations

import pagewait
import pytest
from pagewait import wait_for_readouts

from twoclocks.roofline import roofline_options
from twoclocks.web import DEFAULT_STATE, evaluate, evaluate_load

pytestmark = pytest.mark.browser


def settle(page, state: dict) -> dict:
    report = evaluate({**DEFAULT_STATE, **state})
    got = wait_for_readouts(page, report["ttft_ms"], report["ttlt_ms"])
    assert got == pytest.approx((report["ttft_ms"], report["ttlt_ms"]), rel=1e-12)
    return report


def test_switching_to_roofline_shows_the_models_clocks_bounds_and_chart(lesson):
    """The Roofline switch shows the roofline model's clocks, its bounds and a drawn chart."""
    assert lesson.locator("#roofline-panel").is_hidden()
    lesson.check("#mode-roofline")
    report = settle(lesson, {"mode": "roofline"})
    assert lesson.locator("#roofline-panel").is_visible()
    bounds = lesson.text_content("#bounds")
    assert "Prefill: compute-bound" in bounds and "Decode: memory-bound" in bounds
    assert f"{round(report['prefill_fraction_of_peak'] * 100)}% of peak" in bounds
    drawn = lesson.evaluate(
        """async () => { const c = document.getElementById("roofline-canvas");
             while (!Number(c.dataset.drawn || 0)) await new Promise(requestAnimationFrame);
             return c.getAttribute("aria-label"); }"""
    )
    assert "compute-bound" in drawn and "memory-bound" in drawn


def test_pickers_change_the_hardware_and_more_bandwidth_speeds_decode(lesson):
    """Choosing an H200 over an H100 keeps the model and makes each decode step faster."""
    lesson.check("#mode-roofline")
    h100 = settle(lesson, {"mode": "roofline"})
    lesson.select_option("#accelerator-select", "h200")
    h200 = settle(lesson, {"mode": "roofline", "accelerator": "h200"})
    assert h200["tpot_ms"] < h100["tpot_ms"]
    assert "H200" in lesson.text_content("#model-name")


def test_a_model_that_does_not_fit_shows_the_out_of_memory_message(lesson):
    """Llama 3.1 70B in bf16 on one 80 GB device shows the model's out-of-memory error, not a number."""
    lesson.check("#mode-roofline")
    settle(lesson, {"mode": "roofline"})
    lesson.select_option("#model-select", "llama-3.1-70b")
    message = lesson.evaluate(
        """async () => { const e = document.getElementById("model-error");
             while (!e.textContent) await new Promise(requestAnimationFrame); return e.textContent; }"""
    )
    assert "GB" in message and "tensor_parallel" in message
    lesson.select_option("#tensor_parallel-select", "4")
    settle(lesson, {"mode": "roofline", "model": "llama-3.1-70b", "tensor_parallel": 4})
    assert lesson.text_content("#model-error") == ""


def test_options_list_every_preset():
    """The pickers' choices come from the model's presets, the added ones included."""
    options = roofline_options()
    assert {"h100-sxm", "h200", "a100-80gb", "l4", "a100-40gb", "h100-nvl", "gh200", "l40", "mi325x"} <= {
        a["id"] for a in options["accelerators"]}
    assert {"llama-3.1-8b", "llama-3.1-70b", "mistral-7b", "llama-2-13b", "llama-3.1-405b", "qwen3-8b",
            "qwen3-32b", "qwen3-30b-a3b", "qwen3-235b-a22b", "gpt-oss-20b", "gpt-oss-120b"} <= {
        m["id"] for m in options["models"]}


def test_an_added_preset_is_picked_and_runs_alone_and_under_load(lesson):
    """Picking a GH200 and Qwen3 30B-A3B shows Python's clocks for them, names them, and the load
    simulation runs for the same deployment."""
    lesson.check("#mode-roofline")
    settle(lesson, {"mode": "roofline"})
    lesson.select_option("#accelerator-select", "gh200")
    settle(lesson, {"mode": "roofline", "accelerator": "gh200"})
    lesson.select_option("#model-select", "qwen3-30b-a3b")
    settle(lesson, {"mode": "roofline", "accelerator": "gh200", "model": "qwen3-30b-a3b"})
    named = lesson.text_content("#model-name")
    assert "Qwen3 30B-A3B" in named and "GH200" in named
    loaded = {"mode": "roofline", "accelerator": "gh200", "model": "qwen3-30b-a3b", "load": {"concurrency": 8}}
    assert pagewait.settle(lesson, loaded) == "true"
    got = lesson.evaluate("() => window.TwoClocks.report()")
    assert got["load"]["ttft_ms_p50"] == pytest.approx(evaluate_load({**DEFAULT_STATE, **loaded})["ttft_ms_p50"])
    assert lesson.text_content("#load-error") == ""


def test_llama_405b_in_bf16_on_eight_80gb_devices_says_what_would_fit(lesson):
    """405B in bf16 on 8 x H100 shows the out-of-memory message offering a smaller format or a
    bigger device (not more devices); fp8 weights then run."""
    lesson.check("#mode-roofline")
    settle(lesson, {"mode": "roofline"})
    lesson.select_option("#tensor_parallel-select", "8")
    settle(lesson, {"mode": "roofline", "tensor_parallel": 8})
    lesson.select_option("#model-select", "llama-3.1-405b")
    message = lesson.evaluate(
        """async () => { const e = document.getElementById("model-error");
             while (!e.textContent) await new Promise(requestAnimationFrame); return e.textContent; }"""
    )
    assert "811.7 GB of weights" in message and "tensor_parallel=8" in message
    assert "a smaller weight_dtype or an accelerator with more memory" in message
    assert "more devices" not in message
    lesson.select_option("#weight_dtype-select", "fp8")
    settle(lesson, {"mode": "roofline", "model": "llama-3.1-405b", "tensor_parallel": 8, "weight_dtype": "fp8"})
    assert lesson.text_content("#model-error") == ""


def test_twoclocks_options_returns_preset_ids_and_names(lesson):
    """TwoClocks.options() gives the accelerator and model ids and display names."""
    options = lesson.evaluate("() => window.TwoClocks.options()")
    expected = roofline_options()
    assert options["accelerators"] == [{"id": a["id"], "name": a["name"]} for a in expected["accelerators"]]
    assert options["models"] == [{"id": m["id"], "name": m["name"]} for m in expected["models"]]


def test_the_address_picks_an_added_preset(browser, server):
    """`?mode=roofline&accelerator=mi325x&model=gpt-oss-120b&weight_dtype=fp8` opens the lab on that
    deployment with Python's clocks for it."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}?view=lab&mode=roofline&accelerator=mi325x&model=gpt-oss-120b&weight_dtype=fp8")
    pagewait.wait_ready(page)
    state = page.evaluate("() => window.TwoClocks.getState()")
    assert (state["accelerator"], state["model"], state["weight_dtype"]) == ("mi325x", "gpt-oss-120b", "fp8")
    settle(page, {"mode": "roofline", "accelerator": "mi325x", "model": "gpt-oss-120b", "weight_dtype": "fp8"})
    assert (page.input_value("#accelerator-select"), page.input_value("#model-select")) == ("mi325x", "gpt-oss-120b")
    page.close()
