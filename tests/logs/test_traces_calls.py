"""App traces, after the reader: each model call counted once, each clock honest, runs split and
the agent lessons found, on spans built here (the readers' own tests use real files), and on the real
traces whose advice was wrong (the last tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from twoclocks.advice import PROMPT_FIX, STOP_FIX
from twoclocks.logs import analyze_log
from twoclocks.logs.readers import ParsedLog
from twoclocks.logs.traces import Span
from twoclocks.logs.traces.calls import TTFT_UNKNOWN, collect, fill_log
from twoclocks.logs.traces.lessons import CACHE_MIN_TOKENS, DUMP_GROWTH_TOKENS, SAME_HEAD_CHARS
from twoclocks.logs.traces.report import trace_report
from twoclocks.logs.traces.runs import split_wall_time

T0 = 1_700_000_000_000.0


def llm(span_id, start, end, *, first=None, parent="", trace="run", prompt=1000, output=50, **extra):
    return Span(span_id, trace_id=trace, parent_id=parent, name=extra.pop("name", "chat"), kind="llm",
                start_ms=T0 + start if start is not None else None,
                end_ms=T0 + end if end is not None else None,
                first_token_ms=T0 + first if first is not None else None,
                prompt_tokens=prompt, output_tokens=output, **extra)


def tool(span_id, start, end, *, trace="run", name="search", parent=""):
    return Span(span_id, trace_id=trace, parent_id=parent, name=name, kind="tool",
                start_ms=T0 + start, end_ms=T0 + end)


def test_a_wrapper_that_repeats_its_call_is_counted_once_and_lends_what_the_call_lacks():
    """A model span around one model span is a wrapper: one call, with the wrapper's first-token time."""
    outer = llm("outer", 0, 1000, first=300, name="ai.streamText", max_tokens=512)
    inner = llm("inner", 10, 990, parent="outer", name="ai.streamText.doStream")
    trace = collect([outer, inner])
    assert 1 == len(trace.calls)
    call = trace.calls[0]
    assert ("inner", 512, ["ai.streamText"], 290.0) == (call.span.span_id, call.span.max_tokens, call.wrappers,
                                                        call.ttft_ms)


def test_a_wrapper_of_several_calls_lends_nothing_and_each_call_counts():
    """A step wrapper around two model calls is not a call, and its totals are not lent to either."""
    outer = llm("outer", 0, 2000, prompt=5000, output=300, name="generateText")
    calls = [llm("a", 0, 900, parent="outer", prompt=None, output=None),
             llm("b", 1000, 2000, parent="outer", prompt=None, output=None)]
    trace = collect([outer, *calls])
    assert [None, None] == [c.span.prompt_tokens for c in trace.calls]
    assert 1 == trace.wrappers


def test_a_repeated_span_id_is_one_span_with_the_later_values_filled_in():
    """An ingest's create and update of one span are one call, with the end only the update has."""
    created = llm("x", 0, None, output=None)
    updated = llm("x", 0, 800, first=200)
    trace = collect([created, updated])
    assert (1, 1, 800.0, 200.0) == (len(trace.calls), trace.duplicates, trace.calls[0].ttlt_ms, trace.calls[0].ttft_ms)


@pytest.mark.parametrize(("span", "why"), [
    (llm("a", 0, 1000, first=1000), "fill_in"),
    (llm("a", 0, 1000, first=-50), "before_start"),
    (llm("a", 0, 1000, first=1500), "after_end"),
    (llm("a", 0, 1000), "not_recorded"),
    (llm("a", 0, 1000, first=300, streamed=False), "not_streamed"),
])
def test_a_first_token_that_is_not_one_is_unknown_and_says_why(span, why):
    """A fill-in, clock skew, nothing recorded or a call that did not stream give no TTFT, with the reason."""
    call = collect([span]).calls[0]
    assert (None, why) == (call.ttft_ms, call.ttft_unknown)


def test_a_one_token_answer_may_have_its_first_token_at_its_end():
    """For a one-token answer the first token is the last, so a first token at the end is real."""
    call = collect([llm("a", 0, 400, first=400, output=1)]).calls[0]
    assert 400.0 == call.ttft_ms


@pytest.mark.parametrize(("span", "reason"), [
    (llm("a", 500, 100), "end_before_start"),
    (llm("a", None, 100), "no_times"),
    (llm("a", 0, 2 * 86_400_000), "too_long"),
])
def test_a_model_span_without_usable_times_is_skipped_and_counted(span, reason):
    """End before start, a missing time and a span over a day are counted, never drawn."""
    trace = collect([span])
    assert ([], {reason: 1}) == (trace.calls, trace.skipped)


def test_only_calls_with_both_clocks_become_log_rows_and_the_rest_are_counted():
    """A timed call is a row; an untimed one is counted as no_first_token and still kept as a call."""
    log = ParsedLog()
    fill_log(log, [llm("a", 0, 1000, first=300), llm("b", 2000, 2500)], fmt=("t", "test trace"))
    assert ([300.0], {"no_first_token": 1}, 2) == (log.ttft_ms, log.skipped, len(log.trace.calls))
    assert TTFT_UNKNOWN["not_recorded"] in log.reason_lines()["no_first_token"]


def test_a_trace_with_no_model_call_says_what_it_held():
    """A file of tool and chain spans only is refused, naming how many spans of each kind it held."""
    log = ParsedLog()
    fill_log(log, [tool("t", 0, 10), Span("c", kind="other", name="AgentExecutor")], fmt=("t", "test trace"))
    assert "no model calls" in log.error and "1 tool" in log.error and "'AgentExecutor'" in log.error


def test_a_cycle_in_parent_ids_does_not_hang():
    """Two spans naming each other as parent are read once each, not followed forever."""
    trace = collect([llm("a", 0, 100, parent="b"), llm("b", 0, 100, parent="a")])
    assert 2 == trace.wrappers and [] == trace.calls


def test_the_wall_time_split_counts_overlapping_calls_once():
    """Waiting for a first token outranks streaming, which outranks an untimed call; the rest is other."""
    calls = collect([llm("a", 0, 100, first=40), llm("b", 50, 300), llm("c", 350, 400, first=360)]).calls
    split = split_wall_time(calls, T0, T0 + 500)
    assert {"first_token_ms": 50.0, "streaming_ms": 100.0, "unsplit_ms": 200.0, "other_ms": 150.0,
            "total_ms": 500.0} == split


def agent_run(*, cached=None, head="You are a router. " * 40):
    """A router: a call, a tool returning a dump, then a short JSON answer after the long prompt."""
    big = 8_000
    return [
        Span("root", trace_id="run", name="agent", kind="other", start_ms=T0, end_ms=T0 + 6000),
        llm("c1", 0, 900, first=400, parent="root", prompt=2000, output=30, prompt_text=head + "turn 1",
            cached_tokens=cached, max_tokens=4096, finish_reason="tool_calls"),
        tool("t1", 1000, 2500, parent="root", name="fetch_logs"),
        llm("c2", 2600, 5100, first=4900, parent="root", prompt=2000 + big, output=20,
            prompt_text=head + "turn 2", cached_tokens=cached, max_tokens=4096, finish_reason="stop"),
        llm("c3", 5200, 6000, first=5300, parent="root", prompt=1500, output=256, max_tokens=256,
            finish_reason="length"),
    ]


def lessons_of(spans):
    report = trace_report(collect(spans))
    return report, {lesson["kind"]: lesson for lesson in report["runs"][0]["lessons"]}


def test_an_agent_run_names_the_call_whose_prompt_a_tool_grew_and_summarise_dumps():
    """The call after a tool's dump gets the tool_dump lesson naming the tool, its growth and PROMPT_FIX."""
    _, lessons = lessons_of(agent_run())
    lesson = lessons["tool_dump"]
    assert (2, "prompt") == (lesson["call"], lesson["lever"])
    assert "'fetch_logs'" in lesson["text"] and "8,000 more prompt tokens" in lesson["text"]
    assert "Summarise tool dumps before the next prefill" in lesson["text"]


def test_an_agent_run_fixes_first_the_call_with_most_time_and_its_lever_is_the_prompt():
    """The slowest call leads, with the one advisor's lever on its own clocks (prefill: the prompt)."""
    report, lessons = lessons_of(agent_run())
    first = report["runs"][0]["lessons"][0]
    assert ("fix_first", 2, "prompt") == (first["kind"], first["call"], first["lever"])
    assert "short_after_long" in lessons  # 10,000 tokens in, 20 out


def test_a_repeated_head_with_no_cached_tokens_is_named_and_a_cached_one_is_not():
    """Calls sharing a cacheable head with 0 cached tokens get uncached_prefix; cached ones do not."""
    _, lessons = lessons_of(agent_run(cached=0))
    assert "reports 0 cached tokens" in lessons["uncached_prefix"]["text"]
    _, cached = lessons_of(agent_run(cached=1500))
    assert "uncached_prefix" not in cached
    _, short_head = lessons_of(agent_run(cached=0, head="x" * (SAME_HEAD_CHARS - 10)))
    assert "uncached_prefix" not in short_head
    assert CACHE_MIN_TOKENS <= 2000


def test_an_answer_cut_off_by_max_tokens_gets_the_stop_and_a_far_cap_is_explained_not_blamed():
    """A finish reason 'length' names STOP_FIX; a cap of 4,096 over 30 tokens says it cost nothing."""
    _, lessons = lessons_of(agent_run())
    assert STOP_FIX in lessons["cut_off"]["text"] and 3 == lessons["cut_off"]["call"]
    assert "cost nothing here" in lessons["cap_far_above"]["text"]


def test_parallel_tools_before_a_call_are_one_next_prompt():
    """Two tools that overlap before a call whose prompt grew get parallel_tools, not tool_dump."""
    spans = agent_run()
    spans.insert(3, tool("t2", 1200, 2400, parent="root", name="read_file"))
    _, lessons = lessons_of(spans)
    assert "parallel_tools" in lessons and "tool_dump" not in lessons
    assert "one next prompt" in lessons["parallel_tools"]["text"]


def test_a_small_prompt_growth_is_not_a_dump():
    """A prompt that grew by less than DUMP_GROWTH_TOKENS after a tool is an ordinary tool answer."""
    spans = agent_run()
    spans[3].prompt_tokens = 2000 + DUMP_GROWTH_TOKENS - 1
    _, lessons = lessons_of(spans)
    assert "tool_dump" not in lessons


def test_an_untimed_slowest_call_asks_to_measure_first():
    """If the slowest call's first token was not timed, the first lesson is to time it, not a guess."""
    spans = agent_run()
    spans[3].first_token_ms = None
    report, _ = lessons_of(spans)
    first = report["runs"][0]["lessons"][0]
    assert ("measure", ["measure"]) == (first["lever"], first["topics"])


def test_many_runs_are_summarised_by_model_and_by_name_slowest_run_first():
    """A file of runs gets per-model groups and its runs slowest first."""
    quick = [llm("q", 0, 100, first=50, trace="quick", model="small")]
    report = trace_report(collect(agent_run() + quick))
    assert ["run", "quick"] == [run["id"] for run in report["runs"]]
    assert {"": 3, "small": 1} == {row["name"].replace("(unnamed)", ""): row["calls"] for row in report["by_model"]}


def test_a_file_of_runs_says_in_how_many_runs_each_lesson_was_found_with_the_worst_example():
    """Across runs, each lesson kind says in how many runs it was found and names the run most at stake."""
    second = [Span(**{**vars(s), "span_id": s.span_id + "b", "trace_id": "other",
                      "parent_id": s.parent_id + "b" if s.parent_id else ""}) for s in agent_run()]
    report = trace_report(collect(agent_run() + second))
    dumps = next(lesson for lesson in report["lessons"] if lesson["kind"] == "tool_dump")
    assert 2 == dumps["runs"]
    assert dumps["text"].startswith("In 2 of 2 runs, a tool's dump grew the next call's prompt.")
    assert dumps["example"]["run_label"] in dumps["text"]
    assert "The slowest run, run 'agent'" in report["verdict"]


def test_a_call_skipped_for_lasting_over_a_day_stretches_no_run():
    """A model span skipped as too long is counted, and the run's wall time is that of what is drawn."""
    spans = [Span("root", trace_id="run", name="agent", kind="other", start_ms=T0, end_ms=T0 + 10_000),
             llm("ok", 0, 4000, first=1000, parent="root"),
             llm("bogus", 5000, 2 * 86_400_000, parent="root")]
    report = trace_report(collect(spans))
    assert 10_000.0 == report["runs"][0]["split"]["total_ms"]


def test_a_short_answer_after_a_long_prompt_whose_stream_took_the_time_is_not_called_the_prompts():
    """8,000 tokens in, 20 out, but 400 ms to the first token of a 6 s call: no short_after_long
    lesson (the stream is the cost), and the call to fix first names the output, not the prompt."""
    report, lessons = lessons_of([llm("a", 0, 6000, first=400, prompt=8000, output=20)])
    assert "short_after_long" not in lessons
    assert "output" == report["runs"][0]["lessons"][0]["lever"]


def test_the_cached_share_counts_only_calls_that_report_cached_tokens():
    """Of two calls, one reporting 500 of 1,000 cached and one reporting nothing: the share is 50 %."""
    report = trace_report(collect([llm("a", 0, 100, first=50, prompt=1000, cached_tokens=500, model="m"),
                                   llm("b", 200, 300, first=250, prompt=3000, model="m")]))
    assert 0.5 == report["by_model"][0]["cached_share"]


TRACES = Path(__file__).parents[1] / "data" / "traces"


def _first_lesson(name: str) -> tuple[dict, str]:
    trace = analyze_log((TRACES / name).read_bytes(), filename=name)["trace"]
    return trace["runs"][0]["lessons"][0], trace["verdict"]


def test_a_slow_first_token_a_tiny_prompt_cannot_explain_is_not_pinned_on_the_prompt():
    """A real LangSmith trace of gpt-4o-mini: a 9-token prompt and a 1.24 s first token, told "prefill
    of the 9-token prompt takes 1.24 s ... cut the prompt". A traced TTFT holds the network and the
    provider's time; 9 tokens prefill in at most 18 ms at the slowest real rate, so the rest is per
    call, and the prompt is not the lever."""
    lesson, verdict = _first_lesson("langsmith_py_wrap_openai_stream.json")
    assert lesson["lever"] == "calls" and lesson["topics"] == []
    assert "prefill of 9 prompt tokens takes at most 18 ms on any real server" in lesson["text"]
    assert "prefill of the 9-token prompt takes" not in lesson["text"] and PROMPT_FIX not in verdict


def test_a_slow_first_token_of_a_long_prompt_keeps_the_prompt_lever():
    """10,000 prompt tokens may well take a 1.5 s first token: the prompt stays the lever, and a traced
    TTFT is called the first token's time, never "prefill" (it holds the network too)."""
    report, _ = lessons_of([llm("a", 0, 2000, first=1500, prompt=10_000, output=20)])
    first = report["runs"][0]["lessons"][0]
    assert first["lever"] == "prompt" and PROMPT_FIX in first["text"]
    assert "it takes 1.50 s of the 2.00 s call" in first["text"] and "prefill of" not in first["text"]


def test_a_streamed_call_whose_tracer_missed_the_first_token_is_not_told_to_stream():
    """A real LangSmith JS trace: the call streamed ("stream": true) but no first-token time was recorded."""
    lesson, _ = _first_lesson("langsmith_js_wrap_openai_stream.json")
    assert lesson["lever"] == "measure" and "time its first chunk as it arrives" in lesson["text"]
    assert "stream the call" not in lesson["text"]
    not_streamed, _ = _first_lesson("langfuse_vercel_aisdk_trace.json")  # generateText: no stream
    assert "stream the call, time the first chunk, and log both clocks" in not_streamed["text"]


@pytest.mark.parametrize(("name", "shown"), [("langsmith_py_wrap_openai_stream.json", False),
                                             ("langsmith_js_wrap_openai_stream.json", True),
                                             ("otel_oteltest_openlit.json", True)])
def test_how_to_time_both_clocks_is_offered_once_and_only_where_a_call_lacks_one(name, shown):
    """A trace that timed each call's first token and logged both token counts is not told to; one
    whose tracer recorded no first token (the JS SDK's streamed call; OpenLIT's two calls) is shown
    how, once: by its single run's verdict (whose first lesson is "time it") or at the trace's foot."""
    trace = analyze_log((TRACES / name).read_bytes(), filename=name)["trace"]
    calls = [call for run in trace["runs"] for call in run["calls"]]
    lacking = any(c["ttft_ms"] is None or c["prompt_tokens"] is None or c["output_tokens"] is None for c in calls)
    assert lacking is shown
    for run in trace["runs"]:  # as the page shows each run: its lessons (a single run's first as the verdict), then the foot
        offered = sum("measure" in lesson["topics"] for lesson in run["lessons"]) + trace["measure_topics"].count("measure")
        assert offered == (1 if shown else 0), (run["lessons"], trace["measure_topics"])
