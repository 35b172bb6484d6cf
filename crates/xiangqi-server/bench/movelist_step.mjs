// How long the app takes to show a big record and to step through it: imports a record file
// into a running server, opens it in Debian's chromium (through e2e/lib.mjs; run `npm ci` in
// e2e/ first), and times the page load until the move list is drawn and 20 steps back
// (a click on "previous": board, status and move list redrawn), each measured in the page.
//
//   node crates/xiangqi-server/bench/movelist_step.mjs http://127.0.0.1:18500 RECORD_FILE
import fs from 'node:fs';
import { launch } from '../e2e/lib.mjs';

const [url, file] = process.argv.slice(2);
if (!url || !file) { console.error('usage: movelist_step.mjs URL RECORD_FILE'); process.exit(2); }
const res = await fetch(url + '/api/import', { method: 'POST', body: fs.readFileSync(file) });
if (res.status !== 201) { console.error('import:', res.status, await res.text()); process.exit(1); }
const id = (await res.json()).games[0].id;
const { context, cleanup } = await launch();
try {
  const page = await context.newPage();
  const t0 = Date.now();
  await page.goto(`${url}/?game=${id}`);
  await page.waitForFunction(() => document.querySelectorAll('#movelist .mv').length > 0, null, { timeout: 120000 });
  const load = Date.now() - t0;
  await page.evaluate(() => document.querySelectorAll('dialog[open]').forEach((d) => d.close()));
  const steps = await page.evaluate(() => {
    const out = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      document.getElementById('nav-prev').click();
      out.push(performance.now() - t);
    }
    return out.sort((a, b) => a - b);
  });
  const info = await page.evaluate(() => ({
    variations: document.getElementById('var-count').textContent,
    elements: document.querySelectorAll('#movelist *').length,
  }));
  console.log(`game ${id}: ${info.variations}, ${info.elements} elements in the move list`);
  console.log(`load to move list: ${load} ms; a step: median ${steps[10].toFixed(1)} ms, max ${steps[19].toFixed(1)} ms`);
} finally {
  await cleanup();
}
