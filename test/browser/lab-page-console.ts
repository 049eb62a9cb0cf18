// Driving a node's console in the lab page (xterm.js), for the lab page's browser tests.
import type { Page } from 'playwright-core';

const ROWS = '#console .xterm-rows';

/** What the page's terminal shows now. */
export function terminalText(page: Page): Promise<string> {
  return page.evaluate((rows) => document.querySelector(rows)?.textContent ?? '', ROWS);
}

/** Clicks a node, then its Console button, and waits for the console websocket to open. */
export async function openNodeConsole(page: Page, name: string): Promise<void> {
  await page.click(`g.node[data-name="${name}"]`);
  await page.click('#node-console');
  await page.waitForSelector(`#console[data-state="open"] .xterm-rows`, { timeout: 30_000 });
}

/** Types a line once and waits for `answer` in the terminal. */
export async function typeLine(page: Page, line: string, answer: RegExp, timeout = 30_000): Promise<void> {
  await page.locator('#console .xterm-helper-textarea').pressSequentially(`${line}\r`);
  await page.waitForFunction(([rows, source]) => new RegExp(source).test(document.querySelector(rows)?.textContent ?? ''), [ROWS, answer.source] as const, { timeout });
}

/** Types `line` until `answer` shows: VPCS drops what comes while it prints its banner. */
export async function typeUntilAnswer(page: Page, line: string, answer: RegExp): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await typeLine(page, line, answer, 5000);
      return;
    } catch (err) {
      if (attempt === 5) throw new Error(`the console shows no answer to ${line}: ${JSON.stringify(await terminalText(page))}`, { cause: err });
    }
  }
}

/** Resolves once every link drawn shows traffic (frames/s above 0). */
export async function trafficOnEveryLink(page: Page, timeout: number): Promise<void> {
  await page.waitForFunction(() => [...document.querySelectorAll('g.link')].every((g) => Number((g as SVGGElement).dataset.frames ?? 0) > 0), undefined, { timeout });
}
