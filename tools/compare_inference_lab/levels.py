"""Map every level of tests/data/load_sweeps.csv to an inference-lab 0.2.1 configuration (JSON lines).

Run by ``npm run compare`` (see README.md here); standard library and our own presets only, so the
hardware and model figures inference-lab gets are the ones our roofline uses (one source of truth).
Each output line is ``{"variant", "sweep", "concurrency", "requests_per_s_offered", "config", "notes"}``
or, for a level inference-lab cannot express, ``{..., "config": null, "notes": why}``; every level
comes in two ``VARIANTS``.

What inference-lab 0.2.1 has, and how each column of a row maps onto it:
- one device, no tensor parallelism: a TP group of N is one device with N times the compute,
  bandwidth and memory (ideal scaling, no all-reduce); ``compute_flops`` is the dense peak for the
  weights' format and ``memory_bandwidth`` the peak, as our presets give them (it has no MFU/MBU:
  the ``derated`` variant multiplies them by our serving stack's MFU and MBU);
- one ``bytes_per_param`` for weights and KV cache alike: a row whose weights and KV cache differ in
  format cannot be expressed;
- its scheduler runs the running requests' decodes first and then admits prompts into what is left
  of ``max_num_batched_tokens`` every step, so a long prompt is split by the budget whatever the
  flag says: ``chunked`` maps to that budget = ``chunk_tokens``; ``prefill-first`` (a prompt step
  of its own, whole prompts up to 8,192 tokens) has no equivalent and maps to the nearest, a budget
  of max(8,192, prompt) with the chunking threshold off;
- closed loop: ``closed_loop`` with every user's first request at t = 0 (it has no other start);
  open loop: ``poisson`` at the offered rate; request counts as in tests/load/test_load_validation.py;
- lengths: ``fixed``, or ``uniform`` over [L (1 - r), L (1 + r)] as our ``length_spread`` draws them.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "py"))

from twoclocks import hardware  # noqa: E402
from twoclocks.load import KV_MEMORY_FRACTION, PREFILL_BATCH_TOKENS  # noqa: E402
from twoclocks.roofline import SERVING_STACKS  # noqa: E402

SWEEPS_CSV = ROOT / "tests" / "data" / "load_sweeps.csv"
CLOSED_REQUESTS = 200  # as tests/load/test_load_validation.py (its pin test checks the counts): 4+ rounds a user
OPEN_REQUESTS = 1000
BLOCK_TOKENS = 16  # vLLM's default KV block size
SEED = 0  # our simulation's default seed

VARIANTS = ("datasheet", "derated")
"""How the devices are given, each level run once per variant: ``datasheet``, at their peaks, as a
user of inference-lab enters them; ``derated``, the peaks times the row's serving stack's MFU and
MBU, our calibrated efficiencies, to show what inference-lab's step model does given them (it still
lacks the per-step, per-prompt and per-stream overheads and the all-reduce)."""


def lengths(mean: int, spread: float) -> dict:
    """inference-lab's length distribution for our fixed length or ``length_spread``."""
    if spread == 0:
        return {"type": "fixed", "value": mean}
    return {"type": "uniform", "min": max(1, round(mean * (1 - spread))), "max": round(mean * (1 + spread))}


def device(row: dict, variant: str) -> dict:
    """The ``hardware`` table: the TP group as one device (inference-lab 0.2.1 has no TP)."""
    accelerator = hardware.get_accelerator(row["accelerator"])
    tp = int(row["tensor_parallel"])
    stack = SERVING_STACKS[row["serving_stack"]].params
    mfu, mbu = (stack.mfu, stack.mbu) if variant == "derated" else (1.0, 1.0)
    return {
        "name": f"{tp}x {accelerator.name}",
        "compute_flops": tp * accelerator.peak_flops_per_s(row["weight_dtype"]) * mfu,
        "memory_bandwidth": tp * accelerator.bandwidth_bytes_per_s * mbu,
        "memory_capacity": int(tp * accelerator.memory_bytes),
        "gpu_memory_utilization": KV_MEMORY_FRACTION,
        "bytes_per_param": int(hardware.BYTES_PER_WEIGHT[row["weight_dtype"]]),
    }


def model(row: dict) -> dict:
    spec = hardware.get_model(row["model"])
    return {"name": spec.name, "num_parameters": spec.params, "num_layers": spec.layers,
            "hidden_dim": spec.hidden_size, "num_heads": spec.attention_heads, "num_kv_heads": spec.kv_heads,
            "max_seq_len": spec.context_window_tokens}


def scheduler(row: dict) -> dict:
    prompt = round(int(row["prompt_tokens"]) * (1 + float(row["length_spread"])))
    chunked = row["scheduler"] == "chunked"
    budget = int(row["chunk_tokens"]) if chunked else max(PREFILL_BATCH_TOKENS, prompt)
    return {"max_num_batched_tokens": budget, "max_num_seqs": int(row["max_running_requests"]),
            "policy": "fcfs", "enable_chunked_prefill": chunked, "long_prefill_token_threshold": 0,
            "max_num_partial_prefills": 1, "block_size": BLOCK_TOKENS}


def workload(row: dict) -> dict:
    spread = float(row["length_spread"])
    load = {"input_len_dist": lengths(int(row["prompt_tokens"]), spread),
            "output_len_dist": lengths(int(row["output_tokens"]), spread), "seed": SEED, "duration_secs": None}
    if row["load"] == "closed":
        users = int(row["concurrency"])
        load.update(arrival_pattern="closed_loop", arrival_rate=1.0, num_concurrent_users=users,
                    num_requests=max(CLOSED_REQUESTS, 4 * users))
    else:
        load.update(arrival_pattern="poisson", arrival_rate=float(row["requests_per_s_offered"]),
                    num_requests=OPEN_REQUESTS)
    return load


def unexpressible(row: dict) -> str | None:
    """Why inference-lab 0.2.1 cannot express a row, or None."""
    if hardware.BYTES_PER_WEIGHT[row["weight_dtype"]] != hardware.BYTES_PER_KV_VALUE.get(row["kv_dtype"]):
        return f"weights {row['weight_dtype']} with a {row['kv_dtype']} KV cache: one bytes_per_param for both"
    if row["load"] == "closed" and row["start"] != "together":
        return f"users starting {row['start']}: its closed loop starts every user at t = 0"
    return None


def notes(row: dict) -> str:
    parts = []
    if int(row["tensor_parallel"]) > 1:
        parts.append(f"TP {row['tensor_parallel']} as one device of {row['tensor_parallel']}x")
    if row["scheduler"] == "prefill-first":
        parts.append("prefill-first as a whole-prompt budget (decodes share the step)")
    return "; ".join(parts)


def level(row: dict, variant: str) -> dict:
    why = unexpressible(row)
    config = None if why else {"hardware": device(row, variant), "model": model(row), "scheduler": scheduler(row),
                               "workload": workload(row), "simulation": {"log_interval": 1_000_000}}
    return {"variant": variant, "sweep": row["sweep"], "concurrency": row["concurrency"],
            "requests_per_s_offered": row["requests_per_s_offered"], "config": config,
            "notes": why or notes(row)}


def main() -> None:
    with SWEEPS_CSV.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for variant in VARIANTS:
        for row in rows:
            print(json.dumps(level(row, variant)))


if __name__ == "__main__":
    main()
