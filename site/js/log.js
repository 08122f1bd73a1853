// "Split the clock": one row per played call, with both clocks and both token counts.
import { formatCount, formatCounted, formatMs, formatUsd } from "./format.js";

const COLUMNS = ["prompt_tokens", "output_tokens", "stop_reason", "ttft_ms", "ttlt_ms", "bill_usd"];
// The CSV holds what the table shows, no float noise (0.0243, not 0.024300000000000002): times to
// 0.1 ms (the finest formatMs shows), money to 0.0001 $ (the finest formatUsd shows).
const DECIMALS = { ttft_ms: 1, ttlt_ms: 1, bill_usd: 4 };
const exported = (key, value) => (key in DECIMALS ? String(Number(value.toFixed(DECIMALS[key]))) : String(value));

export class CallLog {
  constructor({ table, empty, copyButton, clearButton, status }) {
    Object.assign(this, { body: table.tBodies[0], empty, status });
    this.rows = [];
    copyButton.addEventListener("click", () => this.copy());
    clearButton.addEventListener("click", () => this.clear());
  }

  add(report) {
    const row = Object.fromEntries(COLUMNS.map((key) => [key, report[key]]));
    row.output_tokens = report.generated_tokens; // tokens generated, as the table's column says
    this.rows.push(row);
    const cells = [this.rows.length, formatCount(row.prompt_tokens), formatCount(row.output_tokens),
      row.stop_reason === "stop" ? "stop" : "max_tokens", formatMs(row.ttft_ms), formatMs(row.ttlt_ms),
      formatUsd(row.bill_usd)];
    const tr = this.body.insertRow();
    for (const text of cells) tr.insertCell().textContent = String(text);
    this.empty.hidden = true;
  }

  clear() {
    this.rows = [];
    this.body.replaceChildren();
    this.empty.hidden = false;
    this.status.textContent = "Log cleared.";
  }

  csv() {
    const lines = [COLUMNS.join(",")];
    for (const row of this.rows) lines.push(COLUMNS.map((key) => exported(key, row[key])).join(","));
    return `${lines.join("\n")}\n`;
  }

  async copy() {
    try {
      await navigator.clipboard.writeText(this.csv());
      this.status.textContent = `Copied ${formatCounted(this.rows.length, "row")} as CSV.`;
    } catch {
      this.status.textContent = "Copying is blocked here: select the table and copy it instead.";
    }
  }
}
