# The same question with the lesson's package: twoclocks.simulate_call runs the toy model the page
# uses (stop, max_tokens, streaming, a cached prefix, speculative decoding). Edit me and press Run.
from twoclocks import simulate_call

for prompt_tokens in [500, 2_000, 4_000, 8_000, 16_000, 40_000]:
    call = simulate_call(prompt_tokens=prompt_tokens, output_tokens=20, max_tokens=256)
    print(f"{prompt_tokens:>6} prompt tokens: prefill {call.prefill_ms:9.1f} ms, "
          f"decode {call.decode_ms:6.1f} ms")
