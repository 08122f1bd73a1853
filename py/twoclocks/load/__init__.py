"""Under load: many calls sharing one serving replica, simulated step by step.

The package: :mod:`.settings` (the ``load`` state, limits and checks), :mod:`.stepcost` (what a
step costs: :class:`StepCost` on the toy or on a :class:`twoclocks.roofline.Deployment`),
:mod:`.simulation` (the event loop), :mod:`.point` (:func:`simulate_load`, one load point) and
:mod:`.sweep` (:func:`load_sweep` and its knee); every public name is re-exported here.

Units: token counts are integers (``*_tokens``, ``*_slots``); times are milliseconds (``*_ms``);
rates are per second (``*_per_s``).

A seeded, deterministic discrete-event simulation of one replica with iteration-level (continuous)
batching (Yu et al., "Orca", OSDI 2022; Kwon et al., "vLLM/PagedAttention", SOSP 2023). Each engine
step decodes one token for every running sequence and may run new requests' prefill:

- ``"prefill-first"``: waiting prompts are admitted whole, as many as fit (KV cache, at most
  ``MAX_RUNNING_REQUESTS`` running, at most ``PREFILL_BATCH_TOKENS`` prompt tokens a step, or one
  longer prompt), and their prefill runs in a step of its own: every running stream stalls for it.
- ``"chunked"``: every step has a budget of ``chunk_tokens`` tokens; running decodes take one each
  and the rest goes to prompt chunks, oldest request first (Agrawal et al., "Sarathi-Serve", OSDI
  2024). A long prompt no longer stalls the streams for its whole prefill.

A request is admitted only if the KV cache can hold its prompt and its whole answer (the slots are
reserved on admission, like TensorRT-LLM's guaranteed-no-evict policy, so nothing is ever
preempted); otherwise it waits in arrival order. The step cost comes from a :class:`StepCost`:

- roofline (:func:`roofline_step_cost`): one step runs its weight matmuls and its attention as
  separate kernels, each at the larger of its compute time and its memory time, at the single
  call's MFU, MBU and overheads::

      step_ms = max(F_w / (peak x MFU), W / (bandwidth x MBU))                   (matmuls)
              + max(F_a / (peak x MFU), KV / (bandwidth x MBU))                  (attention)
              + allreduce_ms(T) + fixed_ms + sequence_overhead_ms (D - 1)
      F_w = 2 P_b T + 2 P_h (D + C),   F_a = 4 L H d (S_decode + pairs_prefill)  (per device)
      KV = kv_slot_bytes (S_decode / e_D + S_prefill / kv_efficiency)

  with ``T`` tokens in the step, ``D`` decodes, ``C`` prompts finishing their prefill (they need
  logits), ``S_decode`` the slots the decodes read, ``S_prefill`` the context each prompt chunk
  touches; ``e_D`` is ``kv_efficiency`` for one stream and ``batch_kv_efficiency`` for several
  (paged attention over many short caches runs further below the roof); ``fixed_ms`` is
  ``prefill_overhead_ms`` once for a step in which prompts finish, else ``step_overhead_ms``. One
  prompt alone is exactly the single call's prefill and one decode alone exactly its decode step
  (both memory-bound or compute-bound as a whole), so at concurrency 1 the simulation reproduces
  :func:`twoclocks.roofline.roofline_call` (whose prefill charges its matmuls and attention as
  separate kernels too). The batch
  terms (``batch_kv_efficiency``, ``sequence_overhead_ms``) are fitted on published load sweeps
  (``tests/data/load_sweeps.csv``).
  KV capacity: ``KV_MEMORY_FRACTION`` of the devices' memory minus the weights, in slots.
- toy (:func:`toy_step_cost`): the toy's own terms plus one batch term, the roofline's shape in toy
  units: the step reads the weights once (``d``) or computes its tokens (``b`` each), whichever is
  larger::

      step_ms = max(d if D > 0 else 0, b T) + a sum(end^2 - start^2) + e S_decode + c [C > 0]

  One prompt alone costs ``a (n^2 - k^2) + b (n - k) + c`` and one decode ``d + e s``: the single
  call again. Decoding ``D`` streams costs no more than one until ``b D > d`` (250 streams with the
  defaults). Capacity: ``TOY_KV_CAPACITY_SLOTS``.

Load: closed loop (``concurrency`` users, each sending its next request the moment its last one
finishes, like llmperf, ``vllm bench serve --max-concurrency`` or AIPerf) or open loop
(``requests_per_s``, Poisson arrivals from ``random.Random(seed)``). The closed loop's users start
``"together"`` (every first request at t = 0, as the benchmark tools do: with fixed lengths the users
then stay in step, each round's prompts queueing behind one another, so TTFT rises from the second
user on, as published sweeps show; users whose prompts each fill a step's budget drift apart after
the first round, and their streams stall for the others' prefills instead) or ``"spread"`` evenly over one unloaded request (users of a live
service arriving at their own times).
Request mix (``length_mix``): ``"fixed"``, every request the call's prompt and answer; ``"uniform"``,
each request's prompt and answer lengths drawn uniformly from ``[L (1 - r), L (1 + r)]`` with
``length_spread`` r (rounded, at least 1), as ``vllm bench serve --random-range-ratio r`` does (SGLang's
``bench_serving`` draws from ``[L r, L]`` instead: a mean of ``L (1 + r) / 2`` and r' = ``(1 - r) / (1 + r)``
here); ``"chat"``, log-normal around the call's lengths with a production chat trace's spread
(``CHAT_PROMPT_TAIL``, ``CHAT_ANSWER_TAIL``). Users whose lengths differ drift apart after the first
round, as they do on a server.

Server time (``server_ms``): each request reaches the engine's queue that long after it is sent (HTTP,
tokenising, scheduling, the network) and its TTFT and TTLT include it; it does not hold the GPU.

Runs of identical steps are advanced in closed form between events (a request finishing, an
arrival, a prompt's last chunk): decode-only runs, and chunked runs where one long prompt takes the
whole spare budget every step. Each step's cost is then linear in the step's index, so a run's total
is a sum of the larger of two lines (``roofline.sum_max_linear``) and a load point costs time per
request, not per token or per chunk.
"""
from .point import CALL_KEYWORDS, longest_drawn_prompt, simulate_load
from .settings import (
    BURST_REQUESTS_PER_S,
    CHAT_ANSWER_TAIL,
    CHAT_PROMPT_TAIL,
    DEFAULT_LOAD,
    DEFAULT_REQUESTS,
    ITL_PARTS,
    KNEE_TTFT_FACTOR,
    KV_MEMORY_FRACTION,
    LENGTH_MIXES,
    MAX_CHUNK_TOKENS,
    MAX_CONCURRENCY,
    MAX_LENGTH_SPREAD,
    MAX_REQUESTS,
    MAX_REQUESTS_PER_S,
    MAX_RUNNING_LIMIT,
    MAX_RUNNING_REQUESTS,
    MIN_CHUNK_TOKENS,
    MIN_REQUESTS,
    MIN_REQUESTS_PER_S,
    PREFILL_BATCH_TOKENS,
    PROMPT_HEAVY_RATIO,
    PROMPT_HEAVY_USERS,
    SCHEDULERS,
    STARTS,
    SWEEP_CONCURRENCY,
    TOY_KV_CAPACITY_SLOTS,
    check_load_state,
    validation_caveat,
)
from .stepcost import StepCost, roofline_step_cost, toy_step_cost
from .sweep import load_sweep, mark_knee, past_knee, sweep_knee

__all__ = [
    "BURST_REQUESTS_PER_S",
    "CHAT_ANSWER_TAIL",
    "CHAT_PROMPT_TAIL",
    "DEFAULT_LOAD",
    "DEFAULT_REQUESTS",
    "ITL_PARTS",
    "KNEE_TTFT_FACTOR",
    "KV_MEMORY_FRACTION",
    "LENGTH_MIXES",
    "MAX_CHUNK_TOKENS",
    "MAX_CONCURRENCY",
    "MAX_LENGTH_SPREAD",
    "MAX_REQUESTS",
    "MAX_REQUESTS_PER_S",
    "MAX_RUNNING_LIMIT",
    "MAX_RUNNING_REQUESTS",
    "MIN_CHUNK_TOKENS",
    "MIN_REQUESTS",
    "MIN_REQUESTS_PER_S",
    "PREFILL_BATCH_TOKENS",
    "PROMPT_HEAVY_RATIO",
    "PROMPT_HEAVY_USERS",
    "SCHEDULERS",
    "STARTS",
    "SWEEP_CONCURRENCY",
    "TOY_KV_CAPACITY_SLOTS",
    "StepCost",
    "check_load_state",
    "load_sweep",
    "mark_knee",
    "past_knee",
    "roofline_step_cost",
    "longest_drawn_prompt",
    "simulate_load",
    "sweep_knee",
    "toy_step_cost",
    "validation_caveat",
]
