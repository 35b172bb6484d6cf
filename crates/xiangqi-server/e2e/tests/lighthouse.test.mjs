// Lighthouse (the npm package, in Debian's chromium) on the home, game, review and live pages:
// accessibility and best practices at least 95 each. The scores and every audit that lost
// points are printed, so a drop says what to fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE, api } from '../lib.mjs';

const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.bin', 'lighthouse');
const MIN = 0.95;

function lighthouse(url) {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'xiangqi-lh-')), 'report.json');
  return new Promise((resolve, reject) => {
    execFile(BIN, [
      url, '--quiet', '--only-categories=accessibility,best-practices', '--output=json', `--output-path=${out}`,
      '--chrome-flags=--headless --no-sandbox --disable-gpu --no-first-run',
    ], { env: { ...process.env, CHROME_PATH: process.env.CHROMIUM || '/usr/bin/chromium' }, timeout: 180000 }, (err, _stdout, stderr) => {
      if (err) { reject(new Error(`lighthouse ${url}: ${err.message}\n${stderr}`)); return; }
      const r = JSON.parse(fs.readFileSync(out, 'utf8'));
      fs.rmSync(path.dirname(out), { recursive: true, force: true });
      resolve(r);
    });
  });
}

test('Lighthouse: accessibility and best practices at least 95 on the home, game, review and live pages', { timeout: 900000 }, async () => {
  const g = (await api('POST', '/api/games', { mode: 'two-player' })).data;
  for (const mv of ['h2e2', 'h9g7']) await api('POST', `/api/games/${g.id}/moves`, { move: mv });
  const live = (await api('POST', '/api/challenge/open', {})).data;
  const pages = {
    home: '/', game: `/?game=${g.id}`, review: `/?game=${g.id}&review=1`, live: `/live/${live.id}`,
  };
  const low = [];
  for (const [name, p] of Object.entries(pages)) {
    const r = await lighthouse(BASE + p);
    const scores = Object.fromEntries(Object.entries(r.categories).map(([k, v]) => [k, v.score]));
    console.log(`lighthouse ${name} (${p}): accessibility ${Math.round(scores.accessibility * 100)}, best practices ${Math.round(scores['best-practices'] * 100)}`);
    for (const cat of Object.values(r.categories)) {
      for (const ref of cat.auditRefs) {
        const a = r.audits[ref.id];
        if (ref.weight > 0 && a.score !== null && a.score < 1) {
          console.log(`  ${cat.id}: ${ref.id} (${a.title})`);
          for (const item of (a.details && a.details.items) || []) console.log(`    ${JSON.stringify(item).slice(0, 300)}`);
        }
      }
      if (cat.score < MIN) low.push(`${name} ${cat.id} ${cat.score}`);
    }
  }
  assert.deepEqual(low, [], 'pages under 95');
});
