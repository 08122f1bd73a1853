# Toy milliseconds for a fat prompt and a short answer. No imports: the whole model is here.
# Prefill reads the prompt in one pass. Its cost grows with n * n a little (attention: every
# token looks at every earlier one; a clever kernel such as FlashAttention makes that term
# cheaper to run, but it is still there) plus a fixed cost per token.
# Decode writes one token per step; each step costs a fixed amount plus a bit per cache slot.
# The numbers are fake. The shape is the lesson. Edit me and press Run.

ATTENTION_MS = 1e-6   # per pair of prompt tokens: the n² term
LINEAR_MS = 0.08      # per prompt token
STEP_MS = 20.0        # per decode step
SLOT_MS = 1e-4        # per KV-cache slot read in a decode step


def prefill_ms(prompt_tokens):
    return ATTENTION_MS * prompt_tokens**2 + LINEAR_MS * prompt_tokens


def decode_ms(prompt_tokens, output_tokens):
    # Every token after the first is one step; the cache holds one more slot each step.
    return sum(STEP_MS + SLOT_MS * (prompt_tokens + i) for i in range(1, output_tokens))


prompts = [500, 1_000, 2_000, 4_000, 8_000, 16_000, 40_000]
answer = 20  # tokens of JSON
print("prompt   prefill (TTFT)   decode   TTLT")
for n in prompts:
    first = prefill_ms(n)
    rest = decode_ms(n, answer)
    print(f"{n:>6}   {first:10.1f} ms   {rest:6.1f} ms   {first + rest:8.1f} ms")

print()
print("Doubling the prompt (4,000 -> 8,000) adds", round(prefill_ms(8_000) - prefill_ms(4_000)), "ms before the first token.")
print("Doubling an 80-token answer adds 0 ms before the first token; it adds",
      round(decode_ms(4_000, 160) - decode_ms(4_000, 80)), "ms of decode after it.")
print("A 500-token prompt costs", round(prefill_ms(500)), "ms of prefill; 4,000 tokens cost", round(prefill_ms(4_000)), "ms.")
