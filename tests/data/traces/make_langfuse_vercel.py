"""Rebuild langfuse/langfuse worker/src/__tests__/chatml/framework-traces/vercel-aisdk-2025-11-17.trace.json
(commit e5e734a398c4b90a6522fbe9599c14fdab789567) as {"observations": [...]}: the top-level "trace"
record (which repeats the same observations) removed whole; the resource attributes (host name, host id,
process owner, paths under the user's home) redacted; every other value as in the file."""
import json

RESOURCE = "[redacted: host and process attributes of the machine that ran it]"
def meta(attributes, tools=None):
    out = {}
    if tools is not None:
        out["tools"] = tools
    out["attributes"] = attributes
    out["resourceAttributes"] = RESOURCE
    out["scope"] = {"name": "ai", "attributes": {}}
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False)

PARAMS_NONE = {"maxSteps": None, "toolChoice": None, "maxTokens": None, "finishReason": None,
               "system": None, "maxRetries": None, "mode": None, "temperature": None}
PROVIDER_META = json.dumps({"openai": {"responseId": "resp_097184780dc1e1bc00691b3756e6848195a954cd789a29c378",
                                       "serviceTier": "default"}}, separators=(",", ":"))
TOOL_DEF = json.dumps({"type": "function", "name": "getWeather", "description": "Get the weather in a location",
                       "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                                       "properties": {"location": {"description": "The location to get the weather for",
                                                                   "type": "string"}},
                                       "required": ["location"], "additionalProperties": False}},
                      separators=(",", ":"))
COMMON = {"traceId": "df41e597d0a85e0d7a6ae8ebfaa70aa0", "projectId": "cloramnkj0002jz088vzn1ja4",
          "environment": "default", "level": "DEFAULT", "statusMessage": None, "version": None,
          "createdAt": "2025-11-17T14:55:41.219Z", "updatedAt": "2025-11-17T14:55:41.219Z"}
TAIL = {"promptId": None, "promptName": None, "promptVersion": None}

outer = {"id": "1dc6768109615657", "traceId": COMMON["traceId"], "startTime": "2025-11-17T14:55:18.786Z",
         "endTime": "2025-11-17T14:55:21.831Z", "projectId": COMMON["projectId"], "parentObservationId": None,
         "type": "GENERATION", "environment": "default", "name": "ai.generateText", "level": "DEFAULT",
         "statusMessage": None, "version": None, "createdAt": COMMON["createdAt"], "updatedAt": COMMON["updatedAt"],
         "input": "{\"prompt\":\"What is the weather like today in San Francisco?\"}",
         "output": "[{\"toolCallId\":\"call_DgKARp7a7IhJPDczfifMp6Ra\",\"toolName\":\"getWeather\",\"input\":\"{\\\"location\\\":\\\"San Francisco\\\"}\"}]",
         "model": "gpt-5", "internalModelId": "38c3822a-09a3-457b-b200-2c6f17f7cf2f",
         "modelParameters": {**PARAMS_NONE, "system": "openai.responses", "maxRetries": "2"},
         "completionStartTime": None, **TAIL, "latency": 3.045, "timeToFirstToken": None,
         "usageDetails": {"input": 14, "output": 43, "total": 57},
         "costDetails": {"input": 0.0000175, "output": 0.00043, "total": 0.0004475}, "providedCostDetails": {},
         "inputCost": 0.0000175, "outputCost": 0.00043, "totalCost": 0.0004475, "inputUsage": 14,
         "outputUsage": 43, "totalUsage": 57, "usagePricingTierId": None, "usagePricingTierName": None,
         "toolDefinitions": {}, "toolCalls": [], "toolCallNames": [],
         "metadata": meta({"operation.name": "ai.generateText", "ai.operationId": "ai.generateText",
                           "ai.model.provider": "openai.responses", "ai.model.id": "gpt-5",
                           "ai.settings.maxRetries": "2", "ai.request.headers.user-agent": "ai/5.0.76",
                           "ai.response.finishReason": "tool-calls", "ai.response.providerMetadata": PROVIDER_META,
                           "ai.usage.promptTokens": "62", "ai.usage.completionTokens": "85"}),
         "internalModel": "38c3822a-09a3-457b-b200-2c6f17f7cf2f"}
inner = {"id": "91a17a2274bfd23f", "traceId": COMMON["traceId"], "startTime": "2025-11-17T14:55:18.787Z",
         "endTime": "2025-11-17T14:55:21.830Z", "projectId": COMMON["projectId"],
         "parentObservationId": "1dc6768109615657", "type": "GENERATION", "environment": "default",
         "name": "ai.generateText.doGenerate", "level": "DEFAULT", "statusMessage": None, "version": None,
         "createdAt": COMMON["createdAt"], "updatedAt": COMMON["updatedAt"],
         "input": "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is the weather like today in San Francisco?\"}]}]",
         "output": outer["output"], "model": "gpt-5", "internalModelId": "38c3822a-09a3-457b-b200-2c6f17f7cf2f",
         "modelParameters": {**PARAMS_NONE, "toolChoice": "{\"type\":\"auto\"}", "finishReason": "tool-calls",
                             "system": "openai.responses", "maxRetries": "2"},
         "completionStartTime": None, **TAIL, "latency": 3.043, "timeToFirstToken": None,
         "usageDetails": {"input": 62, "output": 85, "total": 147},
         "costDetails": {"input": 0.0000775, "output": 0.00085, "total": 0.000927499999}, "providedCostDetails": {},
         "inputCost": 0.0000775, "outputCost": 0.00085, "totalCost": 0.000927499999, "inputUsage": 62,
         "outputUsage": 85, "totalUsage": 147, "usagePricingTierId": None, "usagePricingTierName": None,
         "toolDefinitions": {}, "toolCalls": [], "toolCallNames": [],
         "metadata": meta({"operation.name": "ai.generateText.doGenerate", "ai.operationId": "ai.generateText.doGenerate",
                           "ai.model.provider": "openai.responses", "ai.model.id": "gpt-5",
                           "ai.settings.maxRetries": "2", "ai.request.headers.user-agent": "ai/5.0.76",
                           "ai.prompt.tools": json.dumps([TOOL_DEF], separators=(",", ":")),
                           "ai.prompt.toolChoice": "{\"type\":\"auto\"}", "gen_ai.system": "openai.responses",
                           "gen_ai.request.model": "gpt-5", "ai.response.finishReason": "tool-calls",
                           "ai.response.id": "resp_097184780dc1e1bc00691b3756e6848195a954cd789a29c378",
                           "ai.response.model": "gpt-5-2025-08-07", "ai.response.timestamp": "2025-11-17T14:55:18.000Z",
                           "ai.response.providerMetadata": PROVIDER_META, "ai.usage.promptTokens": "62",
                           "ai.usage.completionTokens": "85", "gen_ai.response.finish_reasons": "[\"tool-calls\"]",
                           "gen_ai.response.id": "resp_097184780dc1e1bc00691b3756e6848195a954cd789a29c378",
                           "gen_ai.response.model": "gpt-5-2025-08-07", "gen_ai.usage.input_tokens": "62",
                           "gen_ai.usage.output_tokens": "85"}, tools=[TOOL_DEF]),
         "internalModel": "38c3822a-09a3-457b-b200-2c6f17f7cf2f"}
tool = {"id": "e9bb8c191e1e4706", "traceId": COMMON["traceId"], "startTime": "2025-11-17T14:55:21.831Z",
        "endTime": "2025-11-17T14:55:21.831Z", "projectId": COMMON["projectId"],
        "parentObservationId": "1dc6768109615657", "type": "TOOL", "environment": "default", "name": "getWeather",
        "level": "DEFAULT", "statusMessage": None, "version": None, "createdAt": COMMON["createdAt"],
        "updatedAt": COMMON["updatedAt"], "input": "{\"location\":\"San Francisco\"}",
        "output": "{\"location\":\"San Francisco\",\"temperature\":64}", "model": None, "internalModelId": None,
        "modelParameters": PARAMS_NONE, "completionStartTime": None, **TAIL, "latency": 0, "timeToFirstToken": None,
        "usageDetails": {}, "costDetails": {}, "providedCostDetails": {}, "inputCost": None, "outputCost": None,
        "totalCost": 0, "inputUsage": 0, "outputUsage": 0, "totalUsage": 0, "usagePricingTierId": None,
        "usagePricingTierName": None, "toolDefinitions": {}, "toolCalls": [], "toolCallNames": [],
        "metadata": meta({"operation.name": "ai.toolCall", "ai.operationId": "ai.toolCall",
                          "ai.toolCall.name": "getWeather", "ai.toolCall.id": "call_DgKARp7a7IhJPDczfifMp6Ra"}),
        "internalModel": None}
print(json.dumps({"observations": [outer, inner, tool]}, indent=2, ensure_ascii=False))
