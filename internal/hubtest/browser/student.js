// The browser step of make hub-test: headless Chromium (Debian's), driven by
// puppeteer-core, logs in to JupyterHub as a student with their password,
// opens a notebook in Notebook 6, adds a cell, runs all cells, and reports
// what the page shows. Usage (environment):
//   HUB_URL, HUB_USER, HUB_PASSWORD, NB_PATH (relative to the user's home),
//   EXTRA_CELL (source of the cell added at the bottom), OUT_DIR (screenshots),
//   CHROMIUM (default /usr/bin/chromium), NODE_PATH (where puppeteer-core is).
// Prints one JSON object: per code cell its rendered text, whether it shows an
// SVG, its prompt; and the screenshots written.
'use strict';
const puppeteer = require('puppeteer-core');
const path = require('path');

const env = (k, d) => {
  const v = process.env[k] || d;
  if (v === undefined) throw new Error(`${k} is not set`);
  return v;
};

async function main() {
  const url = env('HUB_URL'), user = env('HUB_USER'), password = env('HUB_PASSWORD');
  const nbPath = env('NB_PATH'), outDir = env('OUT_DIR'), extra = env('EXTRA_CELL', '');
  const args = ['--disable-gpu', '--disable-dev-shm-usage'];
  if (process.getuid && process.getuid() === 0) args.push('--no-sandbox');
  const browser = await puppeteer.launch({
    executablePath: env('CHROMIUM', '/usr/bin/chromium'), headless: true, args,
  });
  const result = { screenshots: [] };
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.setDefaultTimeout(60000);
    // PAM login through the hub's own form.
    await page.goto(`${url}/hub/login`, { waitUntil: 'networkidle2' });
    await page.type('#username_input', user);
    await page.type('#password_input', password);
    await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle2' }), page.click('#login_submit')]);
    result.after_login = page.url();
    // The hub may show a spawn page first; go to the notebook once the server is up.
    const nbURL = `${url}/user/${user}/notebooks/${nbPath}`;
    for (let i = 0; ; i++) {
      await page.goto(nbURL, { waitUntil: 'networkidle2' });
      if (page.url().startsWith(nbURL)) break;
      if (i >= 60) throw new Error(`could not open ${nbURL}; the page is ${page.url()}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
    await page.waitForFunction(
      () => window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected(),
      { timeout: 60000 });
    if (extra) {
      await page.evaluate((src) => {
        const cell = Jupyter.notebook.insert_cell_at_bottom('code');
        cell.set_text(src);
      }, extra);
    }
    const t0 = Date.now();
    await page.evaluate(() => Jupyter.notebook.execute_all_cells());
    // Done when no prompt shows [*] and the kernel is idle.
    await page.waitForFunction(() => {
      const busy = [...document.querySelectorAll('.input_prompt')].some((p) => p.textContent.includes('[*]'));
      return !busy && !Jupyter.notebook.kernel_busy &&
        document.querySelector('#kernel_indicator_icon.kernel_idle_icon') !== null;
    }, { timeout: 300000, polling: 500 });
    result.run_seconds = (Date.now() - t0) / 1000;
    result.cells = await page.evaluate(() => [...document.querySelectorAll('.cell.code_cell')].map((c) => ({
      prompt: (c.querySelector('.input_prompt') || {}).textContent || '',
      text: [...c.querySelectorAll('.output_area .output_subarea')].map((o) => o.innerText).join('\n'),
      svg: c.querySelector('.output_area svg') !== null,
    })));
    // The lab's style sheet must reach the hub's servers too: Go's tabs drawn
    // as plain whitespace, not the editor theme's arrows.
    result.tabs = await page.evaluate(() => {
      const tabs = [...document.querySelectorAll('.CodeMirror span.cm-tab')];
      return { count: tabs.length, arrows: tabs.filter((t) => getComputedStyle(t).backgroundImage !== 'none').length };
    });
    const full = path.join(outDir, `${user}-notebook.png`);
    await page.screenshot({ path: full, fullPage: true });
    result.screenshots.push(full);
    const cells = await page.$$('.cell.code_cell');
    for (let i = 0; i < cells.length; i++) {
      if (!result.cells[i].svg) continue;
      await cells[i].scrollIntoView();
      const shot = path.join(outDir, `${user}-graph-cell-${i}.png`);
      await cells[i].screenshot({ path: shot });
      result.screenshots.push(shot);
    }
    // Closing the page would leave the kernel running: end the session.
    await page.evaluate(() => new Promise((resolve) => {
      Jupyter.notebook.session.delete(resolve, resolve);
    }));
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((e) => {
  process.stderr.write(`student.js: ${e.stack || e}\n`);
  process.exit(1);
});
