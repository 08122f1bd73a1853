// Runs inference-lab (the npm package pinned in package-lock.json) on every level levels.py maps
// and writes one CSV row per level: its TTFT, ITL and output tokens/s in each of the statistics the
// published sweeps use (tests/load/test_load_validation.py picks the one each row publishes).
//
//   node compare.mjs LEVELS.jsonl OUT.csv
//
// Each level runs in a worker thread, so a level that never finishes (its scheduler idles forever
// when a request cannot fit) is ended after LEVEL_TIMEOUT_MS and recorded as such, not a hang.
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const PACKAGE = '@doublewordai/inference-lab';
const LEVEL_TIMEOUT_MS = 120_000; // levels take seconds; two minutes is a hang, not a slow run
const WORKERS = Math.min(2, availableParallelism()); // levels run side by side; more would crowd a laptop
const COLUMNS = ['variant', 'sweep', 'concurrency', 'requests_per_s_offered', 'status', 'ttft_ms_mean', 'ttft_ms_p50',
  'itl_ms_mean', 'itl_ms_p50', 'tpot_ms_p50', 'output_tokens_per_s', 'completed_requests', 'preemptions',
  'notes', 'tool_version'];

/** The q quantile (0..1), interpolated between ranks as numpy's default (and our load.py) do. */
function quantile(values, q) {
  if (!values.length) return NaN;
  const sorted = Float64Array.from(values).sort();
  const position = q * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

/** Our statistics from inference-lab's per-request samples (all in completion order, ms). */
function figures(result) {
  const { ttft_samples: ttft, e2e_samples: e2e, tpot_samples: gaps } = result.latency_samples;
  const answers = result.distributions.output_lengths;
  const tpot = [];
  answers.forEach((answer, i) => { if (answer > 1) tpot.push((e2e[i] - ttft[i]) / (answer - 1)); });
  return {
    ttft_ms_mean: mean(ttft), ttft_ms_p50: quantile(ttft, 0.5),
    itl_ms_mean: mean(tpot), itl_ms_p50: quantile(gaps, 0.5), tpot_ms_p50: quantile(tpot, 0.5),
    output_tokens_per_s: result.metrics.output_tokens_per_sec,
    completed_requests: result.metrics.completed_requests, preemptions: result.metrics.total_preemptions,
  };
}

async function workerMain() {
  const { initSync, run_simulation } = await import(PACKAGE);
  const wasm = new URL('./node_modules/@doublewordai/inference-lab/inference_lab_bg.wasm', import.meta.url);
  initSync({ module: readFileSync(wasm) });
  parentPort.on('message', (config) => {
    try {
      parentPort.postMessage({ status: 'ok', ...figures(run_simulation(JSON.stringify(config))) });
    } catch (error) {
      parentPort.postMessage({ status: `error: ${String(error).replace(/\s+/g, ' ')}` });
    }
  });
}

/** A worker that runs one level at a time; replaced after a timeout. */
class Runner {
  start() { this.worker = new Worker(new URL(import.meta.url), { workerData: 'level-runner' }); }

  post(config) {
    if (!this.worker) this.start();
    const answer = new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.worker.terminate();
        this.worker = null;
        resolve({ status: `timeout: no result after ${LEVEL_TIMEOUT_MS / 1000} s` });
      }, LEVEL_TIMEOUT_MS);
      this.worker.once('message', (reply) => { clearTimeout(timer); resolve(reply); });
    });
    this.worker.postMessage(config);
    return answer;
  }

  stop() { if (this.worker) this.worker.terminate(); }
}

function csvField(value) {
  const text = value === undefined || value === null ? '' : String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

async function main() {
  const [levelsPath, outPath] = process.argv.slice(2);
  if (!levelsPath || !outPath) throw new Error('usage: node compare.mjs LEVELS.jsonl OUT.csv');
  const version = JSON.parse(readFileSync(
    new URL('./node_modules/@doublewordai/inference-lab/package.json', import.meta.url))).version;
  const levels = readFileSync(levelsPath, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const rows = new Array(levels.length);
  let next = 0;
  const drain = async (runner) => { // each runner takes the next level until none is left
    for (let index = next++; index < levels.length; index = next++) {
      const level = levels[index];
      const answer = level.config ? await runner.post(level.config) : { status: 'not expressible' };
      const row = { ...level, ...answer, tool_version: `${PACKAGE} ${version}` };
      rows[index] = COLUMNS.map((column) => csvField(row[column])).join(',');
      if (index % 50 === 0) process.stderr.write(`${index + 1}/${levels.length} ${level.sweep} ${answer.status}\n`);
    }
    runner.stop();
  };
  await Promise.all(Array.from({ length: WORKERS }, () => drain(new Runner())));
  writeFileSync(outPath, `${[COLUMNS.join(','), ...rows].join('\n')}\n`);
  process.stderr.write(`wrote ${levels.length} levels to ${outPath}\n`);
}

if (isMainThread) await main();
else if (workerData === 'level-runner') await workerMain();
