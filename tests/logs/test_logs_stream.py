"""The command's door (twoclocks.logs.analyze_log_file): a file of any size read as it streams, or
whole, always giving what the page's door (analyze_log of the same bytes) gives."""

from __future__ import annotations

import io
import json
import os
import random
import threading
from array import array
from pathlib import Path

import pytest

from twoclocks.logs import analyze_log, analyze_log_file, files
from twoclocks.logs.readers import READERS, parsed, registry, stream, tables
from twoclocks.logs.readers.source import decode

ROOT = Path(__file__).parents[2]
FIXTURES = sorted(path for path in [*(ROOT / "tests" / "data" / "logs").rglob("*"),
                                    *(ROOT / "tests" / "data" / "traces").rglob("*"),
                                    ROOT / "site" / "sample-log.csv", ROOT / "site" / "sample-trace.json"]
                  if path.is_file())  # the real files in logs/real/ too


def both_doors(data: bytes, **options) -> tuple[dict, dict]:
    """analyze_log of ``data``, and analyze_log_file of a stream of it that cannot seek."""
    return analyze_log(data, filename="x"), analyze_log_file(Unseekable(data), filename="x", **options)


class Unseekable(io.RawIOBase):
    """Bytes served as a pipe serves them: a few at a time, no size, no seeking."""

    def __init__(self, data: bytes, most: int = 4096) -> None:
        self._data, self._at, self._most = data, 0, most

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        piece = self._data[self._at:self._at + min(len(buffer), self._most)]
        buffer[:len(piece)] = piece
        self._at += len(piece)
        return len(piece)


def streamed(source, **options) -> bool:
    """Whether the command's reader kept the columns compact, so read ``source`` as it streams."""
    return isinstance(files.read_log_file(source, **options).ttft_ms, array)


def toy_csv(rows: int, *, seed: int = 1, newline: str = "\n") -> str:
    rng = random.Random(seed)
    lines = ['prompt_tokens,note,output_tokens,ttft_ms,e2e_latency_ms']
    for i in range(rows):
        n, o = rng.randint(50, 30_000), rng.randint(1, 800)
        first = (1e-6 * n * n + 0.08 * n) * rng.uniform(0.9, 1.1)
        note = '"two\nlines, quoted"' if i % 7 == 0 else "plain"
        lines.append(f"{n},{note},{o},{first:.3f},{first + (o - 1) * 20 * rng.uniform(0.9, 1.1):.3f}")
    return newline.join(lines) + newline


def llmperf_records(count: int, *, seed: int = 2) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        n, o = rng.randint(50, 8_000), rng.randint(1, 400)
        first = rng.uniform(0.05, 1.5)
        out.append({"error_code": 429 if i % 50 == 3 else None, "error_msg": "Too Many Requests" if i % 50 == 3 else "",
                    "ttft_s": first, "end_to_end_latency_s": first + o * 0.02, "number_input_tokens": n,
                    "number_output_tokens": o})
    return out


@pytest.fixture
def small_head(monkeypatch):
    """A head of a few hundred bytes, grown only as far as the recognisers need: a file of a few
    hundred rows is judged by its start, as a file of millions is."""
    monkeypatch.setattr(stream, "HEAD_BYTES", 512)


# --- the two doors agree -------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [stream.CHUNK_BYTES, 7], ids=["chunk-1MiB", "chunk-7B"])
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_gives_the_same_result_through_both_doors(path, chunk, monkeypatch):
    """analyze_log_file(path) equals analyze_log(bytes) for every log and trace fixture."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", chunk)
    assert analyze_log(path.read_bytes(), filename=path.name) == analyze_log_file(path, filename=path.name)


def test_the_formats_that_stream_are_read_as_they_stream():
    """The fixtures of a table, AIPerf's records and llmperf's array take the streaming road."""
    for name in ("site/sample-log.csv", "tests/data/logs/requests.jsonl", "tests/data/logs/table_us.tsv",
                 "tests/data/logs/aiperf_profile_export.jsonl", "tests/data/logs/llmperf_individual_responses.json"):
        assert streamed(ROOT / name), name
    for name in ("tests/data/logs/vllm_benchmark_serving.json", "tests/data/traces/langfuse_made_up_observations.jsonl"):
        assert not streamed(ROOT / name), name


def test_every_reader_says_whether_it_streams():
    """Each reader declares STREAMS, and only the table, AIPerf and llmperf readers stream."""
    assert {r.FORMAT: r.STREAMS for r in READERS if r.STREAMS is True} == {"aiperf": True, "llmperf": True, "table": True}
    assert all(r.STREAMS in (True, False) for r in READERS)


# --- a table -------------------------------------------------------------------------------------


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("chunk", [1, 13, 4096])
def test_a_table_split_across_chunks_reads_as_when_read_whole(newline, chunk, small_head, monkeypatch):
    """A CSV of 400 rows (quoted cells over two lines) read in chunks of 1 to 4,096 bytes, judged by
    its head, gives the whole read's result."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", chunk)
    data = toy_csv(400, newline=newline).encode()
    page, command = both_doors(data)
    assert page["rows_used"] == 400
    assert page == command
    assert streamed(Unseekable(data))


def test_blank_lines_before_the_header_are_skipped_as_when_read_whole(monkeypatch):
    """Blank lines and spaces before a table's header, cut between chunks, are skipped as when read whole."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", 2)
    page, command = both_doors(b"\r\n \n\t" + toy_csv(20).encode())
    assert page["rows_used"] == 20 and page == command


def test_decimal_commas_in_a_streamed_tsv_read_as_when_read_whole(small_head, monkeypatch):
    """A tab-separated table with decimal commas streams to the same figures."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", 5)
    rows = [f"{500 + i}\t{20 + i % 9}\t{100 + i},5\t{900 + i},25" for i in range(300)]
    data = ("prompt_tokens\toutput_tokens\tttft_ms\te2e_latency_ms\n" + "\n".join(rows) + "\n").encode()
    page, command = both_doors(data)
    assert page["ok"] and page == command


def test_a_table_that_breaks_late_is_unreadable_as_when_read_whole(small_head, monkeypatch):
    """A CSV that Python's csv cannot read near its end (a carriage return inside a row) is refused
    whole, after its good rows were streamed, as the page refuses it."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", 64)
    data = (toy_csv(300) + "1,a\rb,2,3,4\n").encode()
    page, command = both_doors(data)
    assert not page["ok"] and "not a readable CSV" in page["error"]
    assert page == command


def test_a_bad_header_does_not_hide_a_broken_table_further_on(small_head):
    """Read whole, a table is parsed before its columns are looked for: a streamed one with no known
    column and a broken row further on gets the same error."""
    data = ("a,b,c\n" + "1,2,3\n" * 300 + "1,x\ry,3\n").encode()
    page, command = both_doors(data)
    assert "not a readable CSV" in page["error"]
    assert page == command


def test_batches_keep_the_skip_reasons_in_file_order(monkeypatch):
    """JSON Lines and AIPerf records checked in batches of 2 name their skip reasons in the order one
    pass names them (failures before the rows' checks; a first failure after kept rows)."""
    monkeypatch.setattr(tables, "BATCH_ROWS", 2)
    monkeypatch.setattr("twoclocks.logs.readers.aiperf.BATCH_ROWS", 2)
    lines = [json.dumps({"prompt_tokens": 10, "output_tokens": 5, "ttft_ms": 10, "e2e_latency_ms": v})
             for v in (20, None, 30, 40, 50)]
    lines.insert(4, json.dumps({"prompt_tokens": 1, "error": "503 busy"}))
    lines.append("not json")
    page, command = both_doors(("\n".join(lines) + "\n").encode())
    assert list(page["skipped"]) == ["failed", "bad_line", "missing"]
    assert list(page["skipped"]) == list(command["skipped"]) and page == command
    fixture = (ROOT / "tests" / "data" / "logs" / "aiperf_profile_export.jsonl").read_text().splitlines()
    ok, failed = fixture[0], fixture[4]
    missing, negative, unit = (json.loads(ok) for _ in range(3))
    missing["metrics"]["time_to_first_token"]["value"] = None
    negative["metrics"]["request_latency"]["value"] = -5
    unit["metrics"]["time_to_first_token"]["unit"] = "fortnights"
    records = [ok, ok, json.dumps(missing), failed, ok, json.dumps(negative), json.dumps(unit), "not json", ok]
    page, command = both_doors(("\n".join(records * 3) + "\n").encode())
    assert list(page["skipped"]) == ["missing", "failed", "negative", "unknown_unit", "bad_line"]
    assert list(page["skipped"]) == list(command["skipped"]) and page == command


# --- JSON Lines and JSON arrays -----------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [1, 9, 4096])
def test_aiperf_records_stream_as_when_read_whole(chunk, small_head, monkeypatch):
    """AIPerf's records, 300 of them judged by the head, read in small chunks, give the whole read's result."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", chunk)
    data = (ROOT / "tests" / "data" / "logs" / "aiperf_profile_export.jsonl").read_bytes() * 50
    page, command = both_doors(data)
    assert page["format"] == "aiperf" and page["rows_used"] == 250
    assert page == command
    assert streamed(Unseekable(data))


@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("chunk", [1, 5, 4096])
def test_a_json_array_is_streamed_item_by_item(indent, chunk, small_head, monkeypatch):
    """llmperf's array of 300 responses, on one line or indented, read in chunks as small as one
    byte (numbers cut between chunks), gives the whole read's result."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", chunk)
    data = json.dumps(llmperf_records(300), indent=indent).encode()
    page, command = both_doors(data)
    assert page["format"] == "llmperf" and page["rows_used"] == 294
    assert page == command
    assert streamed(Unseekable(data))


def test_items_match_json_loads_for_any_chunking():
    """The array's items, parsed over a sliding buffer, are json.loads' list, however the text is cut."""
    text = json.dumps([1, -2.5e-3, "a,]\"[", {"k": [1, {"x": None}]}, [], True, 1e300, "é"]) + " \n"
    for size in (1, 2, 3, 7, 100):
        pieces = [text[i:i + size] for i in range(0, len(text), size)]
        assert list(stream.items(pieces)) == json.loads(text)


@pytest.mark.parametrize("text", ["[1, 2", "[1, 2,]", "[1 2]", "[1, 2] x", "[1, 2]]", '[{"a": 1}, {"a": tru}]',
                                  '[{"a": 1}, {"a": "cut'])
def test_items_fail_where_json_loads_fails(text):
    """A cut-off array, a trailing comma, a missing comma or anything after the array is not JSON."""
    with pytest.raises(ValueError):
        json.loads(text)
    for size in (1, 4, 100):
        with pytest.raises(stream.NotJson):
            list(stream.items([text[i:i + size] for i in range(0, len(text), size)]))


def test_an_array_that_breaks_late_is_not_valid_json_as_when_read_whole(small_head, monkeypatch):
    """An array cut off after 300 good items (a partial download) gets the page's error, though
    its items were already read; so does one whose bad item follows items with no known field."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", 256)
    whole = json.dumps(llmperf_records(300))
    for data in (whole[:-40], whole[:-1] + ", {]", json.dumps([{"x": i} for i in range(300)])[:-1] + ", x]"):
        page, command = both_doors(data.encode())
        assert page["error"] == registry.NOT_JSON
        assert page == command


# --- the cap, and files too big to read whole --------------------------------------------------------------


def test_rows_beyond_the_pages_cap_are_all_kept_by_the_file_door(monkeypatch):
    """With the page's cap at 5, the page keeps 5 of 12 rows; analyze_log_file keeps all 12, or the
    max_requests it is given, and names that cap."""
    monkeypatch.setattr(parsed, "MAX_REQUESTS", 5)
    data = toy_csv(12).encode()
    page = analyze_log(data)
    assert (page["rows_used"], page["skipped"]) == (5, {"over_limit": 7})
    every = analyze_log_file(io.BytesIO(data))
    assert (every["rows_used"], every["skipped"]) == (12, {})
    capped = analyze_log_file(io.BytesIO(data), max_requests=3)
    assert (capped["rows_used"], capped["skipped"]) == (3, {"over_limit": 9})
    assert capped["skip_reasons"]["over_limit"] == "beyond the first 3 usable requests"


@pytest.mark.parametrize("name", ["tests/data/logs/vllm_benchmark_serving.json",
                                  "tests/data/traces/langfuse_made_up_observations.jsonl"])
def test_a_file_read_whole_above_its_limit_is_refused_in_one_line(name, monkeypatch):
    """A format read whole, larger than its limit (here a budget of 8 kB: 1 kB for a benchmark's
    document, 500 bytes for a trace), is refused, naming the format, the size and the limit."""
    monkeypatch.setattr(files, "MEMORY_BUDGET_BYTES", 8_000)
    path = ROOT / name
    reader = next(r for r in READERS if r.FORMAT == analyze_log(path.read_bytes())["format"])
    limit = files.format_bytes(files.whole_read_limit(reader))
    result = analyze_log_file(path)
    assert not result["ok"] and result["format"] == reader.FORMAT
    assert reader.NAME in result["error"] and files.format_bytes(path.stat().st_size) in result["error"]
    assert f"at most {limit}" in result["error"] and "\n" not in result["error"]
    piped = analyze_log_file(Unseekable(path.read_bytes()))
    assert not piped["ok"] and f"is over {limit}" in piped["error"]


def test_a_file_within_the_limit_is_read_whole(monkeypatch):
    """Just under its limit, a vLLM result is read whole and analysed."""
    path = ROOT / "tests" / "data" / "logs" / "vllm_benchmark_serving.json"
    monkeypatch.setattr(files, "MEMORY_BUDGET_BYTES", path.stat().st_size * files.WHOLE_READ_BYTES_PER_BYTE["log"])
    assert analyze_log_file(path)["ok"]


# --- bad input -------------------------------------------------------------------------------------------


def test_a_directory_a_missing_path_and_an_empty_file_give_one_line_errors(tmp_path):
    """A directory, a missing path and an empty file come back not ok, with a one-line error."""
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    results = {
        "directory": analyze_log_file(tmp_path),
        "missing": analyze_log_file(tmp_path / "nope.csv"),
        "empty": analyze_log_file(empty),
    }
    assert "is a directory" in results["directory"]["error"]
    assert "No such file" in results["missing"]["error"]
    assert results["empty"] == analyze_log(b"", filename=str(empty))
    for result in results.values():
        assert result["ok"] is False and result["error"] and "\n" not in result["error"]
        assert set(result) >= {"format", "rows_total", "skipped", "skip_reasons", "formats_accepted"}


def test_a_text_stream_is_refused_not_raised():
    """A text stream (sys.stdin rather than sys.stdin.buffer) gets an error naming what to pass."""
    result = analyze_log_file(io.StringIO("prompt_tokens,output_tokens,ttft_ms,e2e_latency_ms\n"))
    assert not result["ok"] and "binary" in result["error"]


def test_a_pipe_is_read_as_a_file_is():
    """Standard input's kind of file, a pipe that cannot seek or tell its size, gives the file's result."""
    path = ROOT / "site" / "sample-log.csv"
    data = path.read_bytes()
    read_end, write_end = os.pipe()

    def write() -> None:
        with open(write_end, "wb") as pipe:
            pipe.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    with open(read_end, "rb") as pipe:
        assert not pipe.seekable()
        result = analyze_log_file(pipe, filename=str(path))
    writer.join()
    assert result["ok"] and result == analyze_log_file(path)


def test_gzip_and_binary_files_are_named_from_their_head(tmp_path):
    """A gzip file or a binary one gets the page's message without being read further."""
    for data in (b"\x1f\x8b" + bytes(range(256)) * 10, b"\x00\x01" * 5000):
        path = tmp_path / "x.bin"
        path.write_bytes(data)
        assert analyze_log_file(path) == analyze_log(data, filename=str(path))


# --- progress, and decoding in pieces -----------------------------------------------------------------------


def test_progress_reports_bytes_read_and_the_size(monkeypatch):
    """Progress is called while reading with the bytes read so far, rising, and the file's size (None
    for a pipe); at most every PROGRESS_EVERY_S."""
    monkeypatch.setattr(stream, "PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr(stream, "CHUNK_BYTES", 1000)
    path = ROOT / "site" / "sample-log.csv"
    calls = []
    analyze_log_file(path, progress=lambda done, total: calls.append((done, total)))
    size = path.stat().st_size
    assert calls and all(total == size for _, total in calls)
    assert [done for done, _ in calls] == sorted({done for done, _ in calls}) and calls[-1][0] <= size
    calls.clear()
    analyze_log_file(Unseekable(path.read_bytes()), progress=lambda done, total: calls.append((done, total)))
    assert calls and {total for _, total in calls} == {None}


@pytest.mark.parametrize("seed", range(20))
def test_text_decoded_in_pieces_is_the_whole_decode(seed):
    """Bytes (invalid UTF-8, byte-order marks, UTF-16 included) decoded piece by piece give decode's text."""
    rng = random.Random(seed)
    raw = bytes(rng.choice(b"ab,\n\r\xc3\xa9\xe2\x80\xa8\xff\xfe\x00") for _ in range(rng.randint(0, 300)))
    for data in (raw, b"\xef\xbb\xbf" + raw, b"\xff\xfe" + raw, "h\u00e9\u2028llo\n".encode("utf-16")):
        expected = data.decode("utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8", errors="replace")
        expected = expected[1:] if expected.startswith("\ufeff") else expected
        chunks = stream.Chunks(Unseekable(data, most=rng.choice([1, 2, 3, 50])))
        codec = "utf-16" if chunks.peek(2)[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8"
        assert "".join(stream.texts(chunks, codec)) == expected
        if "\x00" not in expected[:8192]:
            assert decode(data) == expected
