"""Write site/sample-trace.json: the page's example agent trace, MADE UP (no model was called).

A support-triage agent traced the way Langfuse's "Download trace" writes it ({trace, observations};
field names from langfuse/langfuse fern/apis/server/definition/commons.yml). Its numbers are chosen
to show the seed's agent lessons: a 2,300-token spec repeated on every call with no cached tokens,
two tools run side by side whose 12,000 tokens of results land in the next prompt, a 24-token JSON
answer after a 14,900-token prompt, a reply cut off by max_tokens, and caps far above the answers.
Run it again after changing it: `python3 tools/make_sample_trace.py`.
"""

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

START = datetime(2026, 11, 2, 9, 30, 0, tzinfo=timezone.utc)
SPEC = ("You are the triage agent of a support desk. Read the customer's ticket, decide which team owns "
        "it, and answer with JSON only: {\"team\": one of billing|outage|account|other, \"urgency\": 1-5}. "
        "Tools: search_tickets(query) finds similar past tickets; fetch_logs(service, minutes) returns "
        "the service's recent log lines; update_ticket(id, fields) saves your decision. Rules: never "
        "promise refunds; outages outrank billing; when unsure, ask for the account id; quote no log line "
        "to the customer; escalate anything that mentions data loss; answer in the customer's language. "
        "[... the style guide and 12 worked examples follow: about 2,300 tokens in all ...]")


def at(seconds: float) -> str:
    return (START + timedelta(seconds=seconds)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def generation(oid, name, start, first, end, prompt, output, max_tokens, finish, user, answer):
    return {"id": oid, "traceId": "example-trace", "parentObservationId": "agent", "type": "GENERATION",
            "name": name, "startTime": at(start), "completionStartTime": at(first), "endTime": at(end),
            "model": "example-model-large", "modelParameters": {"max_tokens": max_tokens, "stream": True},
            "usageDetails": {"input": prompt, "input_cached_tokens": 0, "output": output,
                             "total": prompt + output},
            "input": [{"role": "system", "content": SPEC}, {"role": "user", "content": user}],
            "output": {"role": "assistant", "content": answer, "finish_reason": finish}, "level": "DEFAULT"}


def tool(oid, name, start, end):
    return {"id": oid, "traceId": "example-trace", "parentObservationId": "agent", "type": "TOOL",
            "name": name, "startTime": at(start), "endTime": at(end), "level": "DEFAULT"}


def main() -> None:
    observations = [
        {"id": "agent", "traceId": "example-trace", "type": "AGENT", "name": "triage-agent (made-up example)",
         "startTime": at(0), "endTime": at(8.95), "level": "DEFAULT"},
        generation("plan", "plan", 0.05, 0.69, 1.12, 2_450, 38, 4_096, "tool_calls",
                   "Ticket 4711: checkout fails with error 502 since this morning. [... the ticket's history ...]",
                   '{"tool_calls": ["search_tickets", "fetch_logs"]}'),
        tool("search", "search_tickets", 1.15, 1.95),
        tool("logs", "fetch_logs", 1.15, 2.62),
        generation("decide", "decide", 2.68, 5.81, 6.08, 14_870, 24, 4_096, "stop",
                   "[search_tickets: 40 similar tickets] [fetch_logs: 9,800 lines of gateway logs]",
                   '{"team": "outage", "urgency": 5}'),
        tool("update", "update_ticket", 6.12, 6.40),
        generation("reply", "reply", 6.45, 6.93, 8.88, 2_710, 300, 300, "length",
                   "Write the customer a short reply.",
                   "Dear customer, thank you for reaching out about the checkout errors ..."),
    ]
    export = {"trace": {"id": "example-trace", "name": "triage-agent (example, made up: no model was called)",
                        "timestamp": at(0), "tags": ["made-up example"]},
              "observations": observations}
    out = Path(__file__).parents[1] / "site" / "sample-trace.json"
    out.write_text(json.dumps(export, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
