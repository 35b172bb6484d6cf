// Shared helpers for the end-to-end tests: Debian's chromium through playwright-core.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const BASE = process.env.XIANGQI_URL || 'http://127.0.0.1:8080';
export const SHOTS = process.env.SCREENSHOT_DIR || path.resolve('screenshots');

export async function launch() {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'xiangqi-chromium-'));
  // A persistent context is how playwright takes an (empty, fresh) --user-data-dir.
  const context = await chromium.launchPersistentContext(userDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  const cleanup = async () => {
    await context.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  };
  return { context, cleanup };
}

export async function shot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, name + '.png') });
}

export async function api(method, p, body) {
  const res = await fetch(BASE + p, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let data;
  try { data = JSON.parse(text); } catch { data = text; }
  return { status: res.status, data };
}
