# Toy milliseconds for a fat prompt and a short answer. No imports: the whole model is here.
# Prefill reads the prompt in one pass; it ends at the first token (TTFT). Its cost grows with
# n * n a little (attention: every token looks at every earlier one) plus a fixed cost per token.
# Decode writes one token per step, on to the last token (TTLT); each step costs a fixed amount
# plus a bit per KV-cache slot. The numbers are fake. The shape is the lesson. Edit me and Run.

ATTENTION_MS = 1e-6   # per pair of prompt tokens: the n² term
LINEAR_MS = 0.08      # per prompt token
STEP_MS = 20.0        # per decode step
SLOT_MS = 1e-4        # per KV-cache slot read in a decode step


def prefill_ms(prompt_tokens):
    return ATTENTION_MS * prompt_tokens**2 + LINEAR_MS * prompt_tokens


def decode_ms(prompt_tokens, output_tokens):
    # Every token after the first is one step; the cache holds one more slot each step.
    return sum(STEP_MS + SLOT_MS * (prompt_tokens + i) for i in range(1, output_tokens))


prompts = [500, 4_000, 8_000]   # tokens in
answer = 80                     # tokens out: the same short answer each time
print(f"Toy ms, an {answer}-token answer each time; prefill ends at the first token (TTFT).")
print("prompt   prefill    decode      TTLT")   # narrow: it fits a phone
for n in prompts:
    first, rest = prefill_ms(n), decode_ms(n, answer)
    print(f"{n:>6} {first:9.1f} {rest:9.1f} {first + rest:9.1f}")

print()
print(f"From 500 to 8,000 prompt tokens, prefill grows {prefill_ms(8_000) / prefill_ms(500):.0f} times "
      f"and decode {decode_ms(8_000, answer) / decode_ms(500, answer):.2f} times.")
print(f"A 500-token prompt's prefill ({prefill_ms(500):.0f} ms) looks cheap next to 4,000 "
      f"tokens' ({prefill_ms(4_000):.0f} ms).")
