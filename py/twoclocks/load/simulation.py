"""The event simulation of one replica: requests admitted, prefilled (whole or in chunks) and
decoded step by step, runs of identical steps advanced in closed form (see :mod:`twoclocks.load`).

Units: token counts are integers (``*_tokens``, ``*_slots``); times are milliseconds (``*_ms``).
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from typing import Callable

from ..stats import percentile, weighted_percentile
from ..call import timeline_indices
from .settings import ITL_PARTS, MAX_RUNNING_REQUESTS, PREFILL_BATCH_TOKENS


def _run_parts(elapsed: Callable[[int], float], steps: int, speedup: float) -> tuple[list, float, float]:
    """For a run whose first ``count`` steps take ``elapsed(count) / speedup`` ms: ``(parts, total,
    first)``, where parts are ``(mean step ms, steps)`` of up to ``ITL_PARTS`` equal parts of steps
    2..``steps``."""
    bounds = sorted({1 + (steps - 1) * i // ITL_PARTS for i in range(ITL_PARTS + 1)})
    values = [elapsed(bound) / speedup for bound in bounds]
    parts = [((values[i + 1] - values[i]) / (bounds[i + 1] - bounds[i]), bounds[i + 1] - bounds[i])
             for i in range(len(bounds) - 1)]
    return parts, values[-1], values[0]


def _spaced(first: float, done: float, pauses: list, count: int, steps: list) -> list:
    """The times of ``steps`` (ascending, 1..``count``) among ``count`` times after ``first``, the
    last at ``done``, evenly spaced over the time between them that no pause (sorted ``(start,
    end)`` within it) covers."""
    if count <= 0:
        return []
    free, cursor = [], first
    for a, b in pauses:
        if a > cursor:
            free.append((cursor, a))
        cursor = max(cursor, b)
    if done > cursor or not free:
        free.append((cursor, max(done, cursor)))
    total = math.fsum(b - a for a, b in free)
    times, index, passed = [], 0, 0.0
    for k in steps:
        target = total * k / count
        while index < len(free) - 1 and passed + free[index][1] - free[index][0] < target:
            passed += free[index][1] - free[index][0]
            index += 1
        times.append(done if k == count else free[index][0] + target - passed)
    return times


class Simulation:
    """The event loop of :func:`simulate_load`. Decoding streams are kept as aggregates (count,
    slots to read) plus a heap of finish steps, so a decode run costs O(1) however many streams."""

    def __init__(self, cost, prompts, answers, cached, scheduler, chunk, speedup, concurrency, arrivals,
                 start="spread", max_running=MAX_RUNNING_REQUESTS, server_ms=0.0, cached_requests=0):
        self.max_running = max_running
        self.cached_requests = cached_requests  # the first sent, whole prompts in the prefix cache
        # The server's own time per request (HTTP, tokenising, scheduling, streaming) and the
        # network: a request reaches the engine's queue this long after it was sent.
        self.server_ms = server_ms
        self.cost, self.prompts, self.answers = cost, prompts, answers
        self.cached, self.chunked, self.chunk, self.speedup = cached, scheduler == "chunked", chunk, speedup
        self.count = len(prompts)
        self.arrival = [0.0] * self.count
        self.admit = [0.0] * self.count
        self.first = [0.0] * self.count
        self.done = [0.0] * self.count
        self.now = 0.0
        self.waiting = deque()
        self.prefilling = deque()  # [request, next position, end position]
        self.prefill_positions = 0  # the prefilling prompts' next positions, summed: their KV in use
        self.reserved = 0
        self.running = 0  # admitted and unfinished
        self.decodes = 0
        self.decode_slots = 0  # slots the next decode step reads, all streams
        self.decode_step = 0  # decode steps run so far (every stream advances in each)
        self.finish_heap = []  # (decode step at which the stream is done, request)
        self.groups = []  # [time of last token, streams]
        self.itl = []  # (gap ms, weight)
        self.busy = []  # (start ms, end ms) of every step with prompt work: a stall for the streams
        self.finished = 0
        self.running_area = 0.0
        self.slots_area = 0.0
        self.closed = arrivals is None
        if self.closed:
            users = min(concurrency, self.count)
            alone = 0.0 if start == "together" else self._alone_ms()
            arrivals = [alone * user / users for user in range(users)]
        # (time the request reaches the queue, order sent): known arrivals and closed-loop resends
        self.entries = [(when + server_ms, order) for order, when in enumerate(arrivals)]
        self.sent = len(arrivals)
        self.issued = 0

    def _alone_ms(self) -> float:
        """One unloaded request of the mean size, prefill to last token: the closed loop's users
        start spread evenly over it (real benchmark users drift apart within a few requests, as
        answers and timings vary; identical simulated users would otherwise stay in lock-step)."""
        prompt = round(sum(self.prompts) / self.count)
        answer = round(sum(self.answers) / self.count)
        start = min(self.cached, prompt - 1)
        prefill = self.cost.mixed_ms(prompt - start, 0, 0, 1, self.cost.pair_work(start, prompt), prompt)
        decode = self.cost.decode_run_ms(1, prompt + 1, answer - 1) / self.speedup if answer > 1 else 0.0
        return self.server_ms + prefill + decode

    def _next_entry(self) -> float:
        return self.entries[0][0] if self.entries else math.inf

    def _take_arrivals(self, idle: bool) -> None:
        """Queue every request that reached the engine before now (in the order they reach it). A busy
        engine plans its next step the moment the last one ends, so a request reaching it at that
        very moment (a closed-loop user with no server time, resending as its answer ends) waits for
        the step after: it takes a request some time to arrive, and treating the tie as "first"
        would let identical users interleave perfectly, a knife edge any server time breaks. An
        idle engine takes it at once."""
        while self.entries and (self.entries[0][0] < self.now or idle and self.entries[0][0] <= self.now):
            when, _ = heapq.heappop(self.entries)
            if self.issued < self.count:  # a closed loop with more users than requests sends no more
                self.arrival[self.issued] = when - self.server_ms
                self.waiting.append(self.issued)
                self.issued += 1

    def _fits(self, request: int) -> bool:
        need = self.prompts[request] + self.answers[request]
        return self.running < self.max_running and self.reserved + need <= self.cost.capacity_slots

    def _admit(self, request: int) -> None:
        self.reserved += self.prompts[request] + self.answers[request]
        self.running += 1
        self.admit[request] = self.now

    def _prefill_range(self, request: int) -> tuple[int, int]:
        """Positions the prompt computes: all but the cached prefix (the whole prompt for the first
        ``cached_requests``), and always the last token."""
        length = self.prompts[request]
        cached = length if request < self.cached_requests else self.cached
        return min(cached, length - 1), length

    def _advance(self, elapsed: float, slots_mean: float) -> None:
        self.running_area += self.running * elapsed
        self.slots_area += slots_mean * elapsed
        self.now += elapsed

    def _in_use(self) -> float:
        return self.decode_slots + self.prefill_positions

    def run(self) -> None:
        while self.finished < self.count:
            self._take_arrivals(idle=not self.waiting and not self.prefilling and not self.decodes)
            if not self.waiting and not self.prefilling and not self.decodes:
                self.now = max(self.now, self._next_entry())
                continue
            if self.chunked:
                if self._chunk_run():
                    continue
                chunks = self._plan_chunks()
                if chunks:
                    self._mixed_step(chunks)
                    continue
            else:
                batch = self._plan_prefill()
                if batch:
                    self._mixed_step([(r, start, end) for r, start, end in batch])
                    continue
            if not self.decodes:
                raise RuntimeError("the engine is idle with requests waiting")  # capacity checked
            self._decode_run()

    def _plan_prefill(self) -> list:
        batch, tokens = [], 0
        while self.waiting:
            request = self.waiting[0]
            start, end = self._prefill_range(request)
            if batch and tokens + end - start > PREFILL_BATCH_TOKENS or not self._fits(request):
                break
            self.waiting.popleft()
            self._admit(request)
            batch.append((request, start, end))
            tokens += end - start
        return batch

    def _chunk_run(self) -> bool:
        """Advance, in closed form, the steps in which the oldest prompt takes the whole spare budget
        (it does not finish, no stream finishes, nobody else is admitted); False if fewer than 2."""
        if not self.prefilling:
            return False
        request, position, end = self.prefilling[0]
        budget = self.chunk - self.decodes
        if budget <= 0:
            return False
        steps = (end - position - 1) // budget  # the prompt's last token stays for a later step
        if self.decodes:
            steps = min(steps, self.finish_heap[0][0] - self.decode_step)
        if steps < 2:
            return False
        run, decodes, slots = self.cost.chunk_run_ms, self.decodes, self.decode_slots
        elapsed = lambda count: run(decodes, slots, budget, position, count)  # noqa: E731
        parts, total, first = _run_parts(elapsed, steps, 1.0)
        in_use = self._in_use() + decodes * (steps - 1) / 2 + budget * steps / 2
        self.busy.append((self.now, self.now + total))
        self._advance(total, in_use)
        self.prefilling[0][1] = position + budget * steps
        self.prefill_positions += budget * steps
        if decodes:
            self._tokens_out(steps, total - first, parts)
        return True

    def _plan_chunks(self) -> list:
        budget = self.chunk - self.decodes
        chunks = []
        for entry in self.prefilling:
            if budget <= 0:
                return chunks
            request, position, end = entry
            take = min(budget, end - position)
            chunks.append((request, position, position + take))
            budget -= take
        while budget > 0 and self.waiting and self._fits(self.waiting[0]):
            request = self.waiting.popleft()
            self._admit(request)
            start, end = self._prefill_range(request)
            self.prefilling.append([request, start, end])
            self.prefill_positions += start
            take = min(budget, end - start)
            chunks.append((request, start, start + take))
            budget -= take
        return chunks

    def _mixed_step(self, chunks: list) -> None:
        """One step with prompt work (and, when chunked, every running decode)."""
        cost = self.cost
        decodes = self.decodes if self.chunked else 0
        decode_slots = self.decode_slots if decodes else 0
        tokens, pair_work, prefill_slots, finishing = decodes, 0.0, 0, []
        for request, start, end in chunks:
            tokens += end - start
            pair_work += cost.pair_work(start, end)
            prefill_slots += end
            if end == self.prompts[request]:
                finishing.append(request)
        elapsed = cost.mixed_ms(tokens, decodes, decode_slots, len(finishing), pair_work, prefill_slots)
        self.busy.append((self.now, self.now + elapsed))
        self._advance(elapsed, self._in_use() + tokens / 2)
        if self.chunked:
            ends = {request: end for request, _, end in chunks}
            for entry in self.prefilling:
                if entry[0] in ends:
                    self.prefill_positions += ends[entry[0]] - entry[1]
                    entry[1] = ends[entry[0]]
            while self.prefilling and self.prefilling[0][1] == self.prefilling[0][2]:
                self.prefill_positions -= self.prefilling.popleft()[1]
            if decodes:
                self._tokens_out(1)
        elif decodes:
            self._tokens_out(1)
        for request in finishing:
            self._first_token(request)

    def _first_token(self, request: int) -> None:
        self.first[request] = self.now
        if self.answers[request] == 1:
            self._finish(request)
            return
        self.decodes += 1
        self.decode_slots += self.prompts[request] + 1
        heapq.heappush(self.finish_heap, (self.decode_step + self.answers[request] - 1, request))
        if self.groups and self.groups[-1][0] == self.now:
            self.groups[-1][1] += 1
        else:
            self.groups.append([self.now, 1])

    def _tokens_out(self, steps: int, tail_ms: float = 0.0, tail_parts: list = ()) -> None:
        """Every decoding stream got ``steps`` tokens, the last at ``now``; record the gaps and
        retire the streams that are done. ``tail_ms``: the time of the steps after the first,
        ``tail_parts`` their ``(mean ms, steps)`` parts."""
        first_end = self.now - tail_ms
        for last, streams in self.groups:
            self.itl.append((first_end - last, streams))
        for gap, count in tail_parts:
            self.itl.append((gap, self.decodes * count))
        self.decode_step += steps
        self.decode_slots += self.decodes * steps
        self.groups = [[self.now, self.decodes]]
        heap = self.finish_heap
        retired = 0
        while heap and heap[0][0] <= self.decode_step:
            _, request = heapq.heappop(heap)
            self.decodes -= 1
            self.decode_slots -= self.prompts[request] + self.answers[request]
            retired += 1
            self._finish(request)
        self.groups[0][1] -= retired

    def _finish(self, request: int) -> None:
        self.done[request] = self.now
        self.finished += 1
        self.running -= 1
        self.reserved -= self.prompts[request] + self.answers[request]
        if self.closed and self.sent < self.count:
            heapq.heappush(self.entries, (self.now + self.server_ms, self.sent))
            self.sent += 1

    def _decode_run(self) -> None:
        """Advance decode-only steps in closed form up to the next event."""
        steps = self.finish_heap[0][0] - self.decode_step
        run = self.cost.decode_run_ms
        decodes, slots, speedup = self.decodes, self.decode_slots, self.speedup
        gap = self._next_entry() - self.now
        if gap < math.inf:
            if run(decodes, slots, steps) / speedup > gap:
                low, high = 1, steps  # the first step count that reaches the arrival
                while low < high:
                    middle = (low + high) // 2
                    if run(decodes, slots, middle) / speedup >= gap:
                        high = middle
                    else:
                        low = middle + 1
                steps = low
        parts, total, first = _run_parts(lambda count: run(decodes, slots, count), steps, speedup)
        self._advance(total, decodes * (steps - 1) / 2 + self._in_use())
        self._tokens_out(steps, total - first, parts)

    def typical(self, ttft: list, ttft_p50: float, ttlt: list, ttlt_p50: float) -> dict:
        """The request whose TTFT is nearest the p50, as the clocks draw one call; on a tie, the one
        whose TTLT is nearest the p50 TTLT (many requests that never wait share one TTFT, and the
        earliest of them started before the load built up: its stream met fewer prefills), then the
        earliest: ``server_ms`` (the server's own time and the network, before the queue),
        ``waiting_ms`` (in the engine's queue), ``prefill_wait_ms`` (of the wait, the time the engine ran other
        requests' prefill), ``prefill_ms``, ``ttft_ms``, ``ttlt_ms``, ``prompt_tokens``,
        ``output_tokens``, ``stalls_ms`` (``[start, end]`` of every step with prompt work during its
        stream, from its arrival), ``stalled_ms`` (their total) and ``token_times_ms``
        (``[index, ms]``: every token up to ``TIMELINE_POINTS``, else evenly spaced samples with the
        first and the last, as for a call alone; token times are not simulated one by one, so the
        tokens after the first are spaced evenly over the stream's time outside the stalls, or over
        all of it when chunked, as a chunked step also decodes)."""
        request = min(range(self.count), key=lambda i: (abs(ttft[i] - ttft_p50), abs(ttlt[i] - ttlt_p50), i))
        start, first, done = self.arrival[request], self.first[request], self.done[request]
        stalls = [(max(a, first), min(b, done)) for a, b in self.busy if a < done and b > first]
        answer = self.answers[request]
        pauses = [] if self.chunked else stalls
        tokens = timeline_indices(answer)  # a long answer is sampled, as an idle call's is
        times = [first] + _spaced(first, done, pauses, answer - 1, [token - 1 for token in tokens[1:]])
        admit, queued = self.admit[request], start + self.server_ms
        behind = math.fsum(min(b, admit) - max(a, queued) for a, b in self.busy if a < admit and b > queued)
        return {
            "server_ms": self.server_ms,
            "waiting_ms": admit - queued,
            "prefill_wait_ms": behind,
            "prefill_ms": first - self.admit[request],
            "ttft_ms": first - start,
            "ttlt_ms": done - start,
            "prompt_tokens": self.prompts[request],
            "output_tokens": answer,
            "stalls_ms": [[a - start, b - start] for a, b in stalls],
            "stalled_ms": math.fsum(b - a for a, b in stalls),
            "token_times_ms": [[token, ms - start] for token, ms in zip(tokens, times)],
        }

    def summary(self, concurrency, rate, scheduler, chunk, cost) -> dict:
        queue = [self.admit[i] - self.arrival[i] - self.server_ms for i in range(self.count)]
        prefill = [self.first[i] - self.admit[i] for i in range(self.count)]
        ttft = [self.first[i] - self.arrival[i] for i in range(self.count)]
        ttlt = [self.done[i] - self.arrival[i] for i in range(self.count)]
        tpot = [
            (self.done[i] - self.first[i]) / (self.answers[i] - 1)
            for i in range(self.count)
            if self.answers[i] > 1
        ]
        quantiles = {}  # the p50 and p99 of each list; an empty tpot (no second token anywhere) gives 0
        for name, values in (("ttft", ttft), ("queue", queue), ("prefill", prefill), ("tpot", tpot), ("ttlt", ttlt)):
            ordered = sorted(values) or [0.0]
            quantiles[name] = {p: percentile(ordered, p) for p in (50, 99)}
        span_ms = max(self.done) - min(self.arrival)
        span_s = span_ms / 1e3 if span_ms > 0 else math.inf
        return {
            "mode": cost.mode,
            "requests": self.count,
            "concurrency": concurrency,
            "requests_per_s": rate,
            "scheduler": scheduler,
            "chunk_tokens": chunk,
            "ttft_ms_p50": quantiles["ttft"][50],
            "ttft_ms_p99": quantiles["ttft"][99],
            "ttft_ms_mean": math.fsum(ttft) / self.count,
            "server_ms": self.server_ms,
            "queue_ms_p50": quantiles["queue"][50],
            "queue_ms_p99": quantiles["queue"][99],
            "prefill_ms_p50": quantiles["prefill"][50],
            "prefill_ms_p99": quantiles["prefill"][99],
            "tpot_ms_p50": quantiles["tpot"][50],
            "tpot_ms_p99": quantiles["tpot"][99],
            "itl_ms_mean": math.fsum(tpot) / len(tpot) if tpot else 0.0,
            "itl_ms_p50": weighted_percentile(self.itl, 50),
            "itl_ms_p99": weighted_percentile(self.itl, 99),
            "ttlt_ms_p50": quantiles["ttlt"][50],
            "output_tokens_per_s": sum(self.answers) / span_s,
            "requests_per_s_served": self.count / span_s,
            "running_mean": self.running_area / span_ms if span_ms > 0 else 0.0,
            "kv_cache_utilisation": self.slots_area / span_ms / cost.capacity_slots if span_ms > 0 else 0.0,
            "kv_cache_capacity_slots": cost.capacity_slots,
            "kv_cache_source": cost.source,
            "duration_ms": span_ms,
            "typical": self.typical(ttft, quantiles["ttft"][50], ttlt, quantiles["ttlt"][50]),
        }

