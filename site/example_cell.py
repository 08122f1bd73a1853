# Fat prompt, short answer: an agent router that answers with 20 tokens of JSON.
# Watch which clock grows as the prompt grows. Edit me and press Run.
from twoclocks import simulate_call

for prompt_tokens in [500, 2_000, 4_000, 8_000, 16_000, 40_000]:
    call = simulate_call(prompt_tokens=prompt_tokens, output_tokens=20, max_tokens=256)
    print(f"{prompt_tokens:>6} prompt tokens: prefill {call.prefill_ms:9.1f} ms, "
          f"decode {call.decode_ms:6.1f} ms")
